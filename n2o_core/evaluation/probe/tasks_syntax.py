"""The surface and syntax probing tasks (Conneau et al. 2018): SentLen, WC, TreeDepth, TopConst and BShift, one pure
generator each (parsed sentences -> `Candidates`); the deviations from the paper are in `tasks`' docstring."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict

from n2o_core.evaluation.probe.parse import MAX_WORDS, MIN_WORDS, PUNCT_TAGS, ParsedCorpus, Sentence, render
from n2o_core.evaluation.probe.tasks import (
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
    sentence_pool,
    single_tree,
    trailing_punct,
)

# ---------------------------------------------------------------------------------------------- surface


SENTLEN_BINS = tuple((lo, lo + 3) for lo in range(MIN_WORDS, MAX_WORDS + 1, 4))


def sentlen(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """SentLen: the sentence's length bin (6 equal-width bins of words over 5-28)."""
    rej: Counter = Counter()
    items = []
    for s in sentence_pool(pc, eligible, rej, "length outside 5-28"):
        lo, hi = next(b for b in SENTLEN_BINS if b[0] <= s.n_words <= b[1])
        items.append(Item(s.text, f"{lo}-{hi}", s.n_words, s.sid, note=f"{s.n_words} words"))
    return Candidates(items, [f"{lo}-{hi}" for lo, hi in SENTLEN_BINS], rej)


def wc_band(unigrams: Counter, lo: int = 2000, hi: int = 3000) -> list[str]:
    """Mid-frequency words: ranks lo..hi-1 of lowercased alphabetic tokens (ties by word), or the middle third
    of the ranks for a smaller vocabulary."""
    words = sorted((w for w in unigrams if w.isalpha()), key=lambda w: (-unigrams[w], w))
    if len(words) < hi:
        lo, hi = len(words) // 3, 2 * len(words) // 3
    return words[lo:hi]


def wc(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """WC: which mid-frequency word (of ~1,000) the sentence contains; exactly one such word per sentence."""
    band = wc_band(pc.unigrams)
    band_set = set(band)
    rej: Counter = Counter()
    items = []
    for s in sentence_pool(pc, eligible, rej, "length outside 5-28"):
        found = {w.lower() for w in s.words} & band_set
        if len(found) != 1:
            rej["no band word" if not found else "several band words"] += 1
            continue
        (w,) = found
        items.append(Item(s.text, w, s.n_words, s.sid, note=w))
    return Candidates(items, band, rej, info={"band_size": len(band)})


# ---------------------------------------------------------------------------------------------- syntax


def longest_path(s: Sentence) -> list[int]:
    """Token indices of the longest root-to-leaf path over words (the first such path in sentence order)."""

    def path(i: int) -> list[int]:
        best: list[int] = []
        for c in s.children(i):
            if s.is_word(c):
                p = path(c)
                if len(p) > len(best):
                    best = p
        return [i, *best]

    return path(s.roots[0])


def tree_depth(s: Sentence) -> int:
    """Words on the longest root-to-leaf path (root = 1), punctuation ignored."""
    return len(longest_path(s))


def treedepth(pc: ParsedCorpus, seed: int = 0, max_classes: int = 8, min_test: int = 1000) -> Candidates:
    """TreeDepth: depth of the dependency tree, in tuples of one sentence per depth class of equal length.

    The classes are a contiguous depth range: the one with the most values (at most `max_classes`, the paper's 8)
    whose tuples can fill a test split of `min_test` items at the largest test share (1/4, see split.py); when
    no range can, the range with the most items (ties: more classes). Depends on the corpus only."""
    rej: Counter = Counter()
    by_cell: dict[tuple[int, int], list[Sentence]] = defaultdict(list)
    for s in sentence_pool(pc, single_tree, rej, "length outside 5-28 or several roots"):
        by_cell[(s.n_words, tree_depth(s))].append(s)
    depths = sorted({d for _, d in by_cell})
    lengths = sorted({n for n, _ in by_cell})
    best: tuple[int, int, int, list[int]] = (0, 0, 0, [])
    for a in range(len(depths)):
        for b in range(a + 1, min(a + max_classes, len(depths))):
            cls = depths[a : b + 1]
            if cls != list(range(cls[0], cls[-1] + 1)):
                continue
            tuples = sum(min(len(by_cell.get((n, d), ())) for d in cls) for n in lengths)
            enough = int(tuples >= 4 * math.ceil(min_test / len(cls)))
            key = (enough, len(cls) if enough else tuples * len(cls), tuples if enough else len(cls), cls)
            if key[:3] > best[:3]:
                best = key
    classes = best[3]
    rng = random.Random(seed)
    items: list[Item] = []
    unit = 0
    for n in lengths:
        cells = [list(by_cell.get((n, d), ())) for d in classes]
        k = min((len(c) for c in cells), default=0)
        for c in cells:
            rng.shuffle(c)
        for j in range(k):
            for d, c in zip(classes, cells):
                s = c[j]
                chain = " > ".join(s.words[i] for i in longest_path(s))
                items.append(Item(s.text, str(d), n, s.sid, unit=unit, note=f"{n} words; {chain}"))
            unit += 1
    dist: Counter = Counter()
    for (_, d), ss in by_cell.items():
        dist[d] += len(ss)
    rej["depth outside the class range or unmatched length"] += sum(dist.values()) - len(items)
    return Candidates(
        items,
        [str(d) for d in classes],
        rej,
        info={"depth_counts": {str(k): v for k, v in sorted(dist.items())}},
        matched=True,
    )


def _label(s: Sentence, i: int) -> str:
    """Phrase label of the subtree headed by token i (a constituent directly below the clause)."""
    tag, dep = s.tags[i], s.deps[i]
    if dep == "punct" or tag in PUNCT_TAGS:
        return tag
    if dep == "cc":
        return "CC"
    if dep == "intj" or tag == "UH":
        return "INTJ"
    kids = s.children(i)
    if dep in ("advcl", "csubj", "csubjpass", "ccomp", "parataxis", "xcomp", "conj") or (
        tag in VERB_TAGS and dep not in ("aux", "auxpass")
    ):
        first = next((j for j in s.subtree(i) if s.is_word(j)), i)
        if any(s.deps[c] == "mark" for c in kids) or s.tags[first] in ("WRB", "WP", "WDT", "WP$"):
            return "SBAR"  # a subordinator ("because", "if", "that") or a wh-word opens the clause
        return "S"
    if tag in ("WP", "WDT", "WP$"):
        return "WHNP"
    if dep in ("nsubj", "nsubjpass", "expl", "dobj", "attr", "npadvmod", "poss"):
        return "NP"  # a nominal role is an NP whatever its head's tag ("Many have found ...")
    if tag == "WRB":
        return "WHADVP"
    if dep == "prep" or tag in ("IN", "TO"):
        return "PP"
    if tag.startswith("RB"):
        return "ADVP"
    if tag.startswith("JJ"):
        return "ADJP"
    if tag.startswith("NN") or tag in ("PRP", "PRP$", "DT", "CD", "EX", "POS", "$", "SYM"):
        return "NP"
    return "X"


def _top_final(s: Sentence) -> list[int]:
    """The sentence-final punctuation that PTB attaches to the top S: from the last sentence-final mark (tag
    ".") on; closing brackets and quotes before that mark belong to the phrase they close. Without such a
    mark, a closing quote is top-level only if the sentence opens with a quote."""
    run = sorted(trailing_punct(s))
    marks = [i for i in run if s.tags[i] == "."]
    if marks:
        return [i for i in run if i >= marks[0]]
    opens = bool(s.words) and s.tags[0] == "``"
    return [i for i in run if s.tags[i] == "''" and opens]


def _clausal_conjuncts(s: Sentence, i: int) -> list[int]:
    """Conjuncts of token i, to its right, that are verbs with their own subject (coordinated clauses)."""
    return [
        c
        for c in s.children(i)
        if c > i
        and s.deps[c] == "conj"
        and s.tags[c] in VERB_TAGS
        and any(s.deps[g] in SUBJ_DEPS for g in s.children(c))
    ]


def top_constituents(s: Sentence) -> str | None:
    """The sequence of constituents directly below the clause, derived from a dependency tree.

    With r the root:
    - r not a verb (tag not VB*/MD): the phrase label of r, followed by the sentence-final punctuation.
    - r has conjuncts that are verbs with their own subject (coordinated clauses, also conjuncts of such
      conjuncts): PTB's S -> S [,] CC S [.]; each such conjunct is one S, the conjunction and punctuation
      right before it stay separate, a sentence-initial conjunction or punctuation stays separate, and everything
      else forms the first S.
    - otherwise: left dependents of r before its first auxiliary/negation get their phrase label (`_label`:
      NP for nominal roles, PP, ADVP, SBAR, S, CC, punctuation tag, ...); r with its auxiliaries, negation and
      every right dependent is one VP; right dependents that are subjects (quotative inversion: "..., said the
      minister") are NP after the VP, and the sentence-final punctuation comes last (`_top_final`).
    Returns None for sentences with several roots."""
    if len(s.roots) != 1:
        return None
    r = s.roots[0]
    final = set(_top_final(s))
    tail = [s.tags[i] for i in sorted(final)]
    if s.tags[r] not in VERB_TAGS:
        return " ".join([_label(s, r), *tail])
    kids = s.children(r)
    clauses: list[int] = []
    stack = _clausal_conjuncts(s, r)
    while stack:  # conjuncts of conjuncts too: spaCy chains "A and B and C" as A <- B <- C
        c = stack.pop()
        clauses.append(c)
        stack.extend(_clausal_conjuncts(s, c))
    if clauses:
        heads = {r, *clauses}
        seq: list[tuple[int, str]] = []
        used: set[int] = set(final)
        for c in sorted(clauses, reverse=True):  # innermost (rightmost) first: its tokens leave the outer ones
            span = [i for i in s.subtree(c) if i not in used]
            seq.append((span[0], "S"))
            used.update(span)
            j = span[0] - 1
            while j >= 0 and s.heads[j] in heads and s.deps[j] in ("cc", "punct"):
                seq.append((j, _label(s, j)))
                used.add(j)
                j -= 1
        lead = [c for c in kids if c < r and c == min(s.subtree(c)) == 0 and s.deps[c] in ("cc", "punct")]
        for c in lead:
            seq.append((c, _label(s, c)))
            used.update(s.subtree(c))
        rest = [i for i in range(len(s.words)) if i not in used]
        if rest:
            seq.append((rest[0], "S"))
        return " ".join([lab for _, lab in sorted(seq)] + tail)
    left = [c for c in kids if c < r]
    vp_start = min((c for c in left if s.deps[c] in ("aux", "auxpass", "neg")), default=r)
    seq2: list[tuple[int, str]] = [(min(s.subtree(c)), _label(s, c)) for c in left if c < vp_start]
    seq2.append((vp_start, "VP"))
    for c in kids:
        if c > r and c not in final and s.deps[c] in ("nsubj", "nsubjpass", "expl"):
            seq2.append((c, "NP"))
    return " ".join([lab for _, lab in sorted(seq2)] + tail)


def topconst(pc: ParsedCorpus, seed: int = 0, n_top: int = 19) -> Candidates:
    """TopConst: the 19 most frequent top-constituent sequences, and OTHER for the rest (20 classes)."""
    rej: Counter = Counter()
    pairs = []
    for s in sentence_pool(pc, single_tree, rej, "length outside 5-28 or several roots"):
        seq = top_constituents(s)
        if seq is None:
            rej["no sequence"] += 1
            continue
        pairs.append((s, seq))
    freq = Counter(seq for _, seq in pairs)
    top = [seq for seq, _ in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:n_top]]
    top_set = set(top)
    items = [Item(s.text, seq if seq in top_set else "OTHER", s.n_words, s.sid, note=seq) for s, seq in pairs]
    return Candidates(items, [*top, "OTHER"], rej, info={"sequences": len(freq)})


def bshift(pc: ParsedCorpus, seed: int = 0) -> Candidates:
    """BShift: intact sentences vs sentences with two random adjacent words swapped (each source used once).
    Only two free-standing words are swapped (`movable`), so a shifted sentence has the same words as its source
    in another order, as in the paper's tokenized data."""
    rng = random.Random(seed)
    rej: Counter = Counter()
    pool = sentence_pool(pc, eligible, rej, "length outside 5-28")
    rng.shuffle(pool)
    originals = {s.text for s in pool}
    common = lowercase_words(pc)
    items = []
    for k, s in enumerate(pool):
        if k % 2 == 0:
            items.append(Item(s.text, "original", s.n_words, s.sid))
            continue
        spots = [
            i
            for i in range(len(s.words) - 1)
            if s.is_word(i)
            and s.is_word(i + 1)
            and s.spaces[i]
            and movable(s, i, i + 1)
            and s.words[i].lower() != s.words[i + 1].lower()
            and any(ch.isalnum() for ch in s.words[i] + s.words[i + 1])
        ]
        if not spots:
            rej["no adjacent word pair"] += 1
            continue
        i = rng.choice(spots)
        words = list(s.words)
        a, b = words[i], words[i + 1]
        if i == first_word(s):
            words[i], words[i + 1] = capitalize(b), decapitalize(a, s.tags[i], common)
        else:
            words[i], words[i + 1] = b, a
        text = render(words, s.spaces)
        if text in originals:
            rej["swap gives a corpus sentence"] += 1
            continue
        items.append(Item(text, "shifted", s.n_words, s.sid, generated=True, note=f"{s.words[i]} {s.words[i + 1]}"))
    return Candidates(items, ["original", "shifted"], rej)
