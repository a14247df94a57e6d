"""Negation rules of Heros: negate the main verb (Negation (main)) or the target word (Negation (antonym)).

A verb is negated with its first auxiliary ("has been" -> "has not been", "can" -> "cannot") or,
without one, by do-support ("boosted" -> "did not boost", "boosts" -> "does not boost"). A verb or
adjective that is already negated loses its "not"/"n't" instead ("didn't know" -> "did know",
"can't" -> "can"), keeping the auxiliary, as in the paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from n2o_core.evaluation.heros.edit import render
from n2o_core.evaluation.heros.inflect import match_case, verb_lemma

NEGATORS = frozenset({"not", "n't", "nt", "n’t"})
_CONTRACTED_AUX = {"ca": "can", "wo": "will", "sha": "shall"}
_DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}
_SUBJECTS = frozenset({"nsubj", "nsubjpass", "expl", "csubj"})
#: Reporting verbs: in "X rose, he said." the main verb negated is the reported clause's.
REPORTING = frozenset(
    [
        "say",
        "tell",
        "add",
        "claim",
        "insist",
        "argue",
        "warn",
        "explain",
        "report",
        "note",
        "state",
        "admit",
        "suggest",
        "predict",
        "reply",
        "write",
    ]
)


#: Adverbs that cannot follow an inserted "not" ("is not also", "we're not now", "has not already").
SENTENCE_ADVERBS = frozenset(
    """also now still already even currently probably certainly clearly definitely obviously actually perhaps
    reportedly apparently therefore however thus again just surely mostly largely typically usually generally
    often sometimes then once finally eventually recently later soon today""".split()  # noqa: SIM905
)


#: Verbs followed by a bare infinitive ("saw profits fall", "helps bloggers expand").
BARE_INFINITIVE_HEADS = frozenset(["see", "watch", "hear", "let", "make", "help", "have", "feel", "notice"])
#: Words that make a subject negative.
NEGATIVE_WORDS = frozenset(["not", "no", "nobody", "nothing", "none", "neither", "nor", "never", "noone"])


@dataclass(frozen=True)
class Outcome:
    """A rule's result: `text` is None when the rule could not apply; `info` is the method or drop reason."""

    text: str | None
    info: str
    token_i: int = -1

    @property
    def ok(self) -> bool:
        return self.text is not None


def _fail(reason: str, i: int = -1) -> Outcome:
    return Outcome(None, reason, i)


def main_verb(doc: Any) -> Any | None:
    """The main verb (the root, or the reported clause's verb before a post-posed "said X")."""
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1:
        return None
    v = roots[0]
    if v.lemma_.lower() in REPORTING or _reports_before(doc, v):
        reported = [c for c in v.children if c.dep_ == "ccomp" and c.i < v.i]
        if reported:
            v = reported[0]
        elif v.i > 0 and doc[v.i - 1].is_punct and not any(c.dep_ in _SUBJECTS and c.i < v.i for c in v.children):
            return None  # "The comments, said Mr X, were ...": a parenthetical; the real main verb is unclear
    return v if v.pos_ in ("VERB", "AUX") else None


def _reports_before(doc: Any, v: Any) -> bool:
    """A clause-final reporting frame: "Approvals fell, official figures have shown." (a clause, a comma, then the
    root)."""
    return (
        v.i > 0
        and doc[v.i - 1].is_punct is False
        and any(c.dep_ == "ccomp" and c.i < v.i and doc[c.right_edge.i + 1].is_punct for c in v.children)
    )


def _remove_negator(doc: Any, neg: Any) -> Outcome:
    """Delete "not"/"n't" and restore a contracted auxiliary ("ca" -> "can", "wo" -> "will")."""
    replace: dict[int, str] = {}
    if neg.lower_ != "not" and neg.i > 0:
        prev = doc[neg.i - 1]
        if prev.lower_ == "ai":
            return _fail("unsupported_contraction", neg.i)
        if prev.lower_ in _CONTRACTED_AUX:
            replace[prev.i] = match_case(_CONTRACTED_AUX[prev.lower_], prev.text)
    return Outcome(render(doc, replace=replace, delete=[neg.i]), "remove_not", neg.i)


def _negated_subject(v: Any) -> bool:
    """ "Not everybody believes", "Nobody knows": negating the verb too would make a double negative."""
    subj = next((c for c in v.children if c.dep_ in _SUBJECTS), None)
    return subj is not None and any(t.lower_ in NEGATIVE_WORDS for t in subj.subtree)


def negate_verb(doc: Any, v: Any) -> Outcome:
    """Negate verb token `v` (or remove its existing negation)."""
    if _negated_subject(v):
        return _fail("negative_subject", v.i)
    if any(c.dep_ == "dobj" and c.lower_ in NEGATIVE_WORDS for c in v.children):
        return _fail("negative_object", v.i)  # "will do nothing" -> "will not do nothing"
    auxes = sorted((c for c in v.children if c.dep_ in ("aux", "auxpass") and c.i < v.i), key=lambda t: t.i)
    neg = _existing_negation(doc, v, auxes)
    if neg is not None:
        if neg.lower_ in NEGATORS and neg.head.i in {v.i, *(a.i for a in auxes)} and not _fixed_phrase(doc, neg):
            return _remove_negator(doc, neg)
        return _fail("other_negation", v.i)
    if auxes:
        return _negate_after_aux(doc, auxes[0])
    if v.pos_ == "AUX":
        if v.lemma_.lower() == "be" or v.tag_ == "MD":
            return _negate_after_aux(doc, v)
        return _fail("unsupported_auxiliary", v.i)
    if v.tag_ in _DO_SUPPORT:
        if any(c.dep_ in _SUBJECTS and c.i > v.i for c in v.children):
            return _fail("inverted_subject", v.i)
        if v.lemma_.lower() == "be":
            return _negate_after_aux(doc, v)
        phrase = f"{_DO_SUPPORT[v.tag_]} not {verb_lemma(v.text, v.lemma_, v.tag_)}"
        return Outcome(render(doc, replace={v.i: match_case(phrase, v.text)}), "do_support", v.i)
    if v.tag_ == "VB" and v.dep_ == "ROOT":  # imperative
        return Outcome(render(doc, replace={v.i: match_case(f"do not {v.text.lower()}", v.text)}), "do_support", v.i)
    if v.tag_ in ("VB", "VBG", "VBN"):
        if v.dep_ == "ROOT":
            return _fail("fragment", v.i)
        return Outcome(render(doc, insert_before={v.i: "not"}), "not_before", v.i)
    return _fail("unsupported_tag", v.i)


def _existing_negation(doc: Any, v: Any, auxes: list[Any]) -> Any | None:
    """A negator of the verb group: a "neg" child, or not/n't/never between its first auxiliary and it."""
    negs = [c for c in v.children if c.dep_ == "neg"]
    if negs:
        return negs[0]
    lo = auxes[0].i if auxes else v.i
    hi = v.i + 2 if v.pos_ == "AUX" else v.i  # "is not ...": the negator follows a copula
    for t in doc[lo : min(hi, len(doc))]:
        if t.lower_ in NEGATORS or t.lower_ == "never":
            return t
    return None


def _fixed_phrase(doc: Any, neg: Any) -> bool:
    """ "not only", "not at all", "not even": removing "not" would leave a broken phrase."""
    nxt = doc[neg.i + 1].lower_ if neg.i + 1 < len(doc) else ""
    prev = doc[neg.i - 1].lower_ if neg.i > 0 else ""
    return nxt in ("only", "at", "even", "just", "least") or prev == "or"  # "whether or not"


def _negate_after_aux(doc: Any, aux: Any) -> Outcome:
    if aux.tag_ == "TO":  # "to boost" -> "not to boost"
        return Outcome(render(doc, insert_before={aux.i: "not"}), "not_before_to", aux.i)
    nxt = doc[aux.i + 1] if aux.i + 1 < len(doc) else None
    if (nxt is not None and nxt.dep_ in _SUBJECTS) or any(
        c.dep_ in _SUBJECTS and c.i > aux.i for c in (aux.head if aux.dep_ in ("aux", "auxpass") else aux).children
    ):
        return _fail("inverted_subject", aux.i)  # "Only if ... will the member states be willing"
    if any(c.dep_ == "expl" for c in aux.head.children) or any(c.dep_ == "expl" for c in aux.children):
        return _fail("existential_there", aux.i)  # "There is not also speculation": English says "no"
    if nxt is not None and nxt.lower_ in SENTENCE_ADVERBS:
        return _fail("adverb_after_auxiliary", aux.i)  # "we're not now", "is not also", "has not already"
    if aux.lower_ == "can":
        return Outcome(render(doc, replace={aux.i: match_case("cannot", aux.text)}), "aux_not", aux.i)
    if nxt is None:
        return _fail("fragment", aux.i)
    if nxt.is_punct:  # "He did, however, admit" -> "He did not, however, admit"
        return Outcome(render(doc, replace={aux.i: f"{aux.text} not"}), "aux_not", aux.i)
    return Outcome(render(doc, insert_before={nxt.i: "not"}), "aux_not", aux.i)


def negate_main(doc: Any) -> Outcome:
    """Negation (main): negate the main verb, or remove its "not"."""
    v = main_verb(doc)
    if v is None:
        return _fail("no_main_verb")
    return negate_verb(doc, v)


def negate_adjective(doc: Any, adj: Any) -> Outcome:
    """Negate a predicative adjective through its linking verb ("will be available" -> "will not be available",
    "seemed happy" -> "did not seem happy"), or remove that verb's "not". An adjective before its noun is never
    negated ("India's not largest company" is not English): drop reason "attributive"."""
    head = adj.head
    if adj.dep_ in ("acomp", "attr") and head.i < adj.i and head.pos_ in ("AUX", "VERB"):
        out = negate_verb(doc, head)
        return Outcome(out.text, f"{out.info}:copula" if out.ok else out.info, out.token_i)
    return _fail("attributive", adj.i)


def negate_at(doc: Any, target: Any) -> Outcome:
    """Negation (antonym): negate the target word at its own position."""
    if target.pos_ == "ADJ":
        return negate_adjective(doc, target)
    main = main_verb(doc)
    if main is not None and main.i == target.i:
        out = negate_verb(doc, target)
        return Outcome(out.text, f"{out.info}:main" if out.ok else out.info, out.token_i)
    bare = not any(c.dep_ in ("aux", "auxpass") for c in target.children)
    if target.tag_ == "VBN" and target.dep_ != "conj" and bare:
        return _fail("bare_participle", target.i)  # "the ban not imposed last year"
    bare_infinitive = target.dep_ in ("ccomp", "xcomp") and target.tag_ in ("VB", "VBP")
    if bare and bare_infinitive and target.head.lemma_.lower() in BARE_INFINITIVE_HEADS:
        return Outcome(render(doc, insert_before={target.i: "not"}), "not_before", target.i)  # "saw it not fall"
    return negate_verb(doc, target)
