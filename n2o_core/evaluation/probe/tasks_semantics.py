"""The semantic probing tasks (Conneau et al. 2018): Tense, SubjNum, ObjNum, SOMO and CoordInv, one pure generator
each (parsed sentences -> `Candidates`); the deviations from the paper are in `tasks`' docstring."""

from __future__ import annotations

import bisect
import math
import random
from collections import Counter, defaultdict

from n2o_core.evaluation.probe.parse import ParsedCorpus, Sentence, render
from n2o_core.evaluation.probe.tasks import (
    AUX_FORMS,
    FINITE_TAGS,
    NUMBER_TAGS,
    SUBJ_DEPS,
    VERB_TAGS,
    Candidates,
    Item,
    capitalize,
    decapitalize,
    eligible,
    first_word,
    lowercase_words,
    movable,
    noun_lemma,
    sentence_pool,
    single_tree,
    trailing_punct,
)


def _finite_verb(s: Sentence) -> int | None:
    r = s.roots[0]
    if s.tags[r] in FINITE_TAGS:
        return r
    if s.tags[r] not in VERB_TAGS:
        return None
    for c in s.children(r):
        if c < r and s.deps[c] in ("aux", "auxpass"):
            return c if s.tags[c] in FINITE_TAGS else None  # MD or a non-finite aux: no tense class
    return None


def tense(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """Tense: past (VBD) or present (VBP/VBZ) of the main clause's finite verb; grouped by that form."""
    rej: Counter = Counter()
    items = []
    for s in sentence_pool(pc, single_tree, rej, "length outside 5-28 or several roots"):
        v = _finite_verb(s)
        if v is None:
            rej["no finite main verb"] += 1
            continue
        form = s.words[v].lower()
        items.append(Item(s.text, FINITE_TAGS[s.tags[v]], s.n_words, s.sid, group=form, note=s.words[v]))
    return Candidates(items, ["past", "present"], rej)


def _number_task(pc: ParsedCorpus, deps: tuple[str, ...], what: str) -> Candidates:
    rej: Counter = Counter()
    common = lowercase_words(pc)
    items = []
    for s in sentence_pool(pc, single_tree, rej, "length outside 5-28 or several roots"):
        r = s.roots[0]
        if s.tags[r] not in VERB_TAGS:
            rej["root is not a verb"] += 1
            continue
        heads = [c for c in s.children(r) if s.deps[c] in deps]
        if len(heads) != 1:
            rej[f"no {what}" if not heads else f"several {what}s"] += 1
            continue
        n = heads[0]
        if s.tags[n] not in NUMBER_TAGS:
            rej[f"{what} not a common noun (NN/NNS)"] += 1
            continue
        if any(s.deps[c] == "conj" for c in s.children(n)):
            rej[f"coordinated {what}"] += 1
            continue
        word = s.words[n].lower()
        if word not in common or (s.words[n] != word and n != first_word(s)):
            rej[f"{what} looks like a name (never lowercase in the corpus, or capitalised inside)"] += 1
            continue
        items.append(Item(s.text, NUMBER_TAGS[s.tags[n]], s.n_words, s.sid, group=noun_lemma(word), note=s.words[n]))
    return Candidates(items, ["singular", "plural"], rej)


def subjnum(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """SubjNum: number of the main clause's subject (NN singular / NNS plural); grouped by noun lemma."""
    return _number_task(pc, ("nsubj", "nsubjpass"), "subject")


def objnum(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """ObjNum: number of the main clause's direct object (NN / NNS); grouped by noun lemma."""
    return _number_task(pc, ("dobj",), "direct object")


SOMO_TAGS = frozenset({"NN", "NNS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})


class _SomoIndex:
    """Words that follow a given word, by tag, sorted by bigram count (for the comparable-frequency search)."""

    def __init__(self, pc: ParsedCorpus):
        tag_counts: dict[str, Counter] = defaultdict(Counter)
        for s in pc.sentences:
            for w, t in zip(s.words, s.tags):
                if w.isalpha() and w.islower():
                    tag_counts[w][t] += 1
        self.main_tag = {w: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for w, c in tag_counts.items()}
        table: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
        for (a, b), n in pc.bigrams.items():
            tag = self.main_tag.get(b)
            if tag in SOMO_TAGS and b not in AUX_FORMS:
                table[(a, tag)].append((n, b))
        self.table = {k: sorted(v) for k, v in table.items()}
        self.counts = {k: [n for n, _ in v] for k, v in self.table.items()}

    def following(self, left: str, tag: str, f: int) -> list[str]:
        """Words of main tag `tag` seen after `left` with a bigram count in [f/2, 2f]."""
        key = (left, tag)
        if key not in self.table:
            return []
        counts = self.counts[key]
        lo, hi = bisect.bisect_left(counts, math.ceil(f / 2)), bisect.bisect_right(counts, 2 * f)
        return [w for _, w in self.table[key][lo:hi]]


def _close(f_new: int, f_old: int) -> bool:
    return f_new > 0 and abs(math.log2(f_new) - math.log2(f_old)) <= 1.0


def somo(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """SOMO: intact sentences vs sentences with one noun/verb replaced by a word of the same tag whose bigrams
    with both neighbours have comparable corpus frequencies (within a factor of 2). Grouped by replacement."""
    rng = random.Random(seed)
    rej: Counter = Counter()
    pool = sentence_pool(pc, eligible, rej, "length outside 5-28")
    rng.shuffle(pool)
    index = _SomoIndex(pc)
    originals = {s.text for s in pool}
    items = []
    for k, s in enumerate(pool):
        if k % 2 == 0:
            items.append(Item(s.text, "original", s.n_words, s.sid))
            continue
        low = [w.lower() for w in s.words]
        spots = [
            i
            for i in range(1, len(s.words) - 1)
            if s.tags[i] in SOMO_TAGS
            and s.words[i].isalpha()
            and s.words[i].islower()
            and low[i] not in AUX_FORMS
            and s.deps[i] not in ("aux", "auxpass")
        ]
        rng.shuffle(spots)
        done = False
        for i in spots:
            o, left, right = low[i], low[i - 1], low[i + 1]
            f_left, f_right = pc.bigrams[(left, o)], pc.bigrams[(o, right)]
            lemma_o = noun_lemma(o) if s.tags[i].startswith("NN") else o
            options = [
                w
                for w in index.following(left, s.tags[i], f_left)
                if w != o
                and _close(pc.bigrams[(w, right)], f_right)
                and (not s.tags[i].startswith("NN") or noun_lemma(w) != lemma_o)
            ]
            if not options:
                continue
            w = rng.choice(options)
            words = list(s.words)
            words[i] = w
            text = render(words, s.spaces)
            if text in originals:
                continue
            items.append(Item(text, "changed", s.n_words, s.sid, generated=True, group=w, note=f"{s.words[i]} -> {w}"))
            done = True
            break
        if not done:
            rej["no replacement with comparable bigram frequencies"] += 1
    return Candidates(items, ["original", "changed"], rej)


Coordination = tuple[list[int], list[int], list[int], list[int], list[int]]


def _coordination(s: Sentence) -> Coordination | None:
    """(leading punctuation, clause 1, separator, clause 2, final punctuation) token indices, or None when the
    sentence is not exactly two contiguous coordinate clauses. The separator is the conjunction with the
    punctuation right before it (", but", " - but", "; and")."""
    r = s.roots[0]
    if s.tags[r] not in VERB_TAGS:
        return None
    kids = s.children(r)
    conj = [c for c in kids if s.deps[c] == "conj" and c > r]
    if len(conj) != 1:
        return None
    c = conj[0]
    if s.tags[c] not in VERB_TAGS or not any(s.deps[g] in SUBJ_DEPS for g in s.children(c)):
        return None
    if any(s.deps[g] == "conj" and s.tags[g] in VERB_TAGS for g in s.children(c)):
        return None  # a third clause
    final = sorted(trailing_punct(s))
    span2 = [i for i in s.subtree(c) if i not in final]
    end = final[0] if final else len(s.words)
    if not span2 or span2 != list(range(span2[0], end)):
        return None
    cc = span2[0] - 1
    if cc < 1 or s.heads[cc] != r or s.deps[cc] != "cc":
        return None
    start = cc
    while start > 0 and s.tags[start - 1] in (",", ":") and s.heads[start - 1] == r:
        start -= 1  # a comma, dash or semicolon before the conjunction goes with it
    sep = list(range(start, cc + 1))
    first = first_word(s)
    lead = list(range(0, first))
    span1 = list(range(first, start))
    if s.deps[first] == "cc":
        return None  # a sentence-initial conjunction would end up inside
    if sum(s.is_word(i) for i in span1) < 2 or sum(s.is_word(i) for i in span2) < 2:
        return None
    if not (s.is_word(span1[-1]) and s.is_word(span2[0]) and s.is_word(span2[-1]) and s.spaces[sep[-1]]):
        return None  # a clause that ends or starts with punctuation ("..", a quotation mark) would not swap cleanly
    if not (movable(s, span1[0], span1[-1]) and movable(s, span2[0], span2[-1])):
        return None
    return lead, span1, sep, span2, final


def invert(s: Sentence, parts: Coordination, common: frozenset[str] = frozenset()) -> str:
    """The sentence with its two coordinate clauses swapped; opening punctuation (a quotation mark) stays first,
    and capitalisation moves with the sentence start (`decapitalize`: words the corpus never writes in
    lowercase keep their capital)."""
    lead, span1, sep, span2, final = parts
    w = list(s.words)
    first1, first2 = span1[0], span2[0]
    w[first1] = decapitalize(w[first1], s.tags[first1], common)
    w[first2] = capitalize(w[first2])
    order = lead + span2 + sep + span1 + final
    words = [w[i] for i in order]
    spaces = [s.spaces[i] for i in order]
    # each clause takes the spacing of the clause it replaces at that position
    spaces[len(lead) + len(span2) - 1] = s.spaces[span1[-1]]
    spaces[len(lead) + len(span2) + len(sep) + len(span1) - 1] = s.spaces[span2[-1]]
    return render(words, spaces)


def coordinv(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """CoordInv: two coordinate clauses, intact or inverted, in pairs with equal clause-length profiles."""
    rng = random.Random(seed)
    rej: Counter = Counter()
    common = lowercase_words(pc)
    buckets: dict[int, list[tuple[Sentence, tuple]]] = defaultdict(list)
    for s in sentence_pool(pc, single_tree, rej, "length outside 5-28 or several roots"):
        parts = _coordination(s)
        if parts is None:
            rej["not two coordinate clauses"] += 1
            continue
        d = sum(s.is_word(i) for i in parts[1]) - sum(s.is_word(i) for i in parts[3])
        buckets[d].append((s, parts))
    for b in buckets.values():
        rng.shuffle(b)
    items: list[Item] = []
    unit = 0

    def pair(intact: tuple[Sentence, tuple], inv: tuple[Sentence, tuple]) -> None:
        nonlocal unit
        s, _ = intact
        t, parts = inv
        d = sum(s.is_word(i) for i in intact[1][1]) - sum(s.is_word(i) for i in intact[1][3])
        items.append(Item(s.text, "original", s.n_words, s.sid, unit=unit, note=f"clause difference {d:+d}"))
        items.append(
            Item(invert(t, parts, common), "inverted", t.n_words, t.sid, generated=True, unit=unit, note=f"{t.text}")
        )
        unit += 1

    for v in sorted(buckets):
        if v < 0:
            continue
        if v == 0:
            b = buckets[0]
            for j in range(len(b) // 2):
                pair(b[2 * j], b[2 * j + 1])
            rej["unpaired clause-length profile"] += len(b) % 2
            continue
        pos, neg = buckets[v], buckets.get(-v, [])
        m = min(len(pos), len(neg))
        p = m // 2 + (m % 2 if rng.random() < 0.5 else 0)
        for j in range(p):  # intact with difference +v, inverted from -v (shown as +v)
            pair(pos[j], neg[j])
        for j in range(p, m):  # intact with -v, inverted from +v (shown as -v)
            pair(neg[j], pos[j])
        rej["unpaired clause-length profile"] += len(pos) + len(neg) - 2 * m
    for v, b in buckets.items():
        if v < 0 and -v not in buckets:
            rej["unpaired clause-length profile"] += len(b)
    return Candidates(items, ["original", "inverted"], rej, matched=True)
