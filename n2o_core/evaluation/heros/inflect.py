"""Morphology: re-inflect a replacement lemma to the target's Penn tag (LemmInflect), casing, a/an."""

from __future__ import annotations

import re
from functools import lru_cache

#: Penn tags whose form is the lemma itself.
_BASE_TAGS = frozenset({"JJ", "VB", "VBP"})
#: Tags we know how to inflect to.
INFLECTABLE_TAGS = frozenset({"JJ", "JJR", "JJS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})

_AN_EXCEPTIONS = (
    "univ",
    "uniq",
    "unif",
    "union",
    "unit",
    "unic",
    "unison",
    "unil",
    "use",
    "usu",
    "uti",
    "eu",
    "ewe",
    "one",
    "once",
    "ubi",
    "ure",
    "uro",
    "uran",
)
_A_EXCEPTIONS = ("hour", "honest", "honour", "honor", "heir")


@lru_cache(maxsize=100_000)
def inflect(lemma: str, tag: str) -> str | None:
    """`lemma` inflected to Penn `tag` ("lower", "VBD" -> "lowered"), or None when LemmInflect can't.

    Base-form tags (JJ, VB, VBP) return the lemma; words unknown to LemmInflect are not guessed
    for other tags (a wrong guess would make an ungrammatical pair).
    """
    from lemminflect import getInflection

    if tag not in INFLECTABLE_TAGS:
        return None
    if tag in _BASE_TAGS:
        return lemma
    forms = getInflection(lemma, tag=tag, inflect_oov=False)
    if not forms:
        return None
    return forms[0]


def match_case(new: str, old: str) -> str:
    """Give `new` the casing pattern of `old` (ALLCAPS, Capitalized or as is)."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def article_for(word: str) -> str:
    """ "an" before a vowel sound, else "a" (spelling heuristics with the common exceptions)."""
    w = word.lower()
    if w.startswith(_A_EXCEPTIONS):
        return "an"
    if w.startswith(_AN_EXCEPTIONS):
        return "a"
    return "an" if w[:1] in "aeiou" else "a"


@lru_cache(maxsize=100_000)
def verb_lemma(form: str, spacy_lemma: str, tag: str) -> str:
    """The lemma of verb `form` (tagged `tag`): spaCy's when inflecting it back to `tag` gives `form`, else
    LemmInflect's ("staged": spaCy says "stag", whose past is "stagged"; LemmInflect says "stage")."""
    lemma = spacy_lemma.lower()
    form = form.lower()
    if tag not in INFLECTABLE_TAGS or inflect(lemma, tag) == form:
        return lemma
    from lemminflect import getLemma

    for candidate in getLemma(form, upos="VERB"):
        if inflect(candidate.lower(), tag) == form:
            return candidate.lower()
    return lemma


_VOWEL_GROUP = re.compile(r"[aeiouy]+")


def has_synthetic_comparative(adjective: str) -> bool:
    """Whether an adjective compares with -er/-est rather than "more" ("taller", "busier"): one syllable, or two
    ending in -y. After "more"/"most" such a word reads wrongly ("more tall"), so it is no replacement there."""
    w = adjective.lower()
    syllables = len(_VOWEL_GROUP.findall(w)) - (1 if w.endswith("e") and not w.endswith(("le", "ee")) else 0)
    return syllables <= 1 or (syllables == 2 and w.endswith("y"))
