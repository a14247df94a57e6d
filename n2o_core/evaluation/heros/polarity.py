"""Polarity items: words that need a negation near them, or cannot stand under one.

Adding or removing a "not" changes a clause's polarity, and some words only read well in one of them:

- negative-polarity items need the negation: removing "not" strands them ("it is not yet known" -> "it is yet
  known", "they can't possibly agree" -> "they can possibly agree", "did not sell anything" -> "did sell anything");
- positive-polarity items resist it: adding "not" over them reads wrongly ("we have a pretty strong case" -> "we do
  not have a pretty strong case", "he had already left" -> "he had not already left").

`negation.py` leaves such a clause alone (drop reasons "negative_polarity" and "positive_polarity").
"""

from __future__ import annotations

from typing import Any

#: Words that need a negation in their clause ("not yet", "did not come until", "did not go either"); "much" only
#: as the verb's own adverb or object ("did not like it much"), "either" not as "either ... or".
NEGATIVE_POLARITY = frozenset(["yet", "until", "till", "either", "much"])
#: Negative-polarity items that read wrongly without the negation even in a clause the verb embeds ("can't
#: possibly re-negotiate anything", "did not think anyone would come").
ANY_WORDS = frozenset(["any", "anything", "anyone", "anybody", "anywhere", "ever", "whatsoever"])
#: Words that need a negation only right after it ("can't possibly", "couldn't care", "not necessarily").
NEGATIVE_POLARITY_NEXT = frozenset(["possibly", "necessarily", "even", "exactly"])
#: Degree words that cannot stand under "not" when they grade an adjective or adverb ("not pretty strong"; "not
#: quite ready" is fine).
POSITIVE_DEGREE = frozenset(["pretty", "rather", "fairly", "somewhat"])
#: Words that cannot stand under "not" anywhere in its clause ("did not already", "did not see someone").
POSITIVE_POLARITY = frozenset(["already", "somewhat", "someone", "somebody", "something", "somewhere"])
#: Dependencies that open a clause of its own: a polarity item there is outside the negated clause.
CLAUSE_DEPS = frozenset(["ccomp", "xcomp", "advcl", "relcl", "parataxis", "conj", "csubj", "acl", "pcomp"])


def _clause_tokens(v: Any) -> list[Any]:
    """The tokens of verb `v`'s own clause: its subtree without the clauses it embeds (a "that"-clause, a relative
    clause, a conjoined clause ...)."""
    out = [v]
    stack = [c for c in v.children if c.dep_ not in CLAUSE_DEPS]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(c for c in t.children if c.dep_ not in CLAUSE_DEPS)
    return sorted(out, key=lambda t: t.i)


def stranded_without(doc: Any, v: Any, neg: Any) -> bool:
    """Whether removing the negator `neg` of verb `v` would strand a negative-polarity item: one in `v`'s clause
    after `neg` ("not yet known", "won't do anything"), anywhere in the verb's subtree for "any"-words ("can't
    possibly re-negotiate anything"), or a "possibly"/"necessarily" right after it ("can't possibly")."""
    nxt = doc[neg.i + 1] if neg.i + 1 < len(doc) else None
    if nxt is not None and nxt.lower_ in NEGATIVE_POLARITY_NEXT:
        return True
    if any(t.lower_ in ANY_WORDS for t in v.subtree if t.i > neg.i):
        return True
    for t in _clause_tokens(v):
        if t.i <= neg.i or t.lower_ not in NEGATIVE_POLARITY:
            continue
        if t.lower_ == "much" and (t.head.i != v.i or any(c.dep_ == "advmod" for c in t.children)):
            continue  # "not much better", "know how much" keep their sense without the "not"
        if t.lower_ == "either" and t.dep_ in ("det", "preconj", "cc"):  # "either side", "either ... or"
            continue
        return True
    return False


def resists_negation(v: Any) -> bool:
    """Whether a "not" on verb `v` would fall over a positive-polarity item of its clause, after its first
    auxiliary (a subject is outside the negation's scope: "something did not work" is fine): "already", "someone"
    ..., or a degree word that grades an adjective or adverb ("a pretty strong case", "rather well")."""
    start = min([v.i, *(c.i for c in v.children if c.dep_ in ("aux", "auxpass"))])
    for t in _clause_tokens(v):
        if t.i <= start:
            continue
        w = t.lower_
        if w in POSITIVE_POLARITY:
            return True
        if w in POSITIVE_DEGREE and t.dep_ == "advmod" and t.head.pos_ in ("ADJ", "ADV"):
            return True
    return False
