"""Balanced classes and a fixed train/dev/test split (train:dev:test = 8:1:1 per class; the paper's is 10:1:1).

Three ways, chosen by the task:
- free items: each class shuffled (seeded) and cut;
- matched items (`unit`: TreeDepth's equal-length tuples, CoordInv's equal-profile pairs): whole units are
  sampled and a unit never straddles two splits, so the matching holds inside every split;
- grouped items (`group`: Tense's target form, SubjNum/ObjNum's noun lemma, SOMO's replacement): a group never
  occurs in two splits. Groups are dealt out in seeded random order, each to the split that most needs its
  classes, and one group supplies at most `group_share` of a class in a split (at least one item), so a frequent
  form such as "said" cannot fill a test set on its own (the paper does not say how it bounded this).
When the corpus cannot fill `per_class` items per class in every split, the count per class shrinks until it
can; nothing is duplicated.

A minimum, fixed before any result was looked at: every class keeps at least `MIN_TRAIN_PER_CLASS` (100)
training items, the paper's own floor (its sparsest task, WC, trains on 100k sentences over 1,000 words: 100 per
class; every other task has more). A class the corpus cannot fill to that is dropped; a task left with fewer than
two classes is skipped. `min_items_per_class` turns the floor into items per class under the split above (198 for
a task of up to 20 classes: 100 train, 49 dev, 49 test). A smaller `min_train` is a deviation from the paper.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict

from n2o_core.evaluation.probe.tasks import Candidates, Item

SPLITS = ("train", "dev", "test")
MIN_PER_CLASS = 3  # one item per split: the smallest class that can be split at all
#: Training items every class keeps at least: the paper's sparsest task (WC: 100k training sentences over 1,000
#: words) trains on 100 per class (Conneau et al. 2018, §2). Fixed before looking at any result.
MIN_TRAIN_PER_CLASS = 100
MIN_TEST = 1000  # test items wanted per task (the bar), reached where the corpus allows


def split_sizes(n: int, n_classes: int = 2, min_test: int = MIN_TEST) -> tuple[int, int, int]:
    """(train, dev, test) items per class for n items per class.

    8:1:1 (the paper's is 10:1:1), at least one item in dev and test. When that gives fewer than `min_test`
    test items over all classes, dev and test grow (equally) towards it, up to a quarter of the items each
    (2:1:1), so that a small corpus still gets a usable test set."""
    k = max(1, round(n / 10))
    want = math.ceil(min_test / max(1, n_classes))
    if k < want:
        k = max(k, min(want, n // 4))
    return n - 2 * k, k, k


#: z of a two-sided 95% normal interval.
Z95 = 1.959963984540054


def test_half_width(per_class: int, n_classes: int = 2) -> float:
    """Half-width, in points, of the 95% interval of an accuracy near 50% measured on the test split that
    `per_class` items per class give a task of `n_classes` classes (normal approximation to the binomial)."""
    n_test = n_classes * split_sizes(per_class, n_classes)[2]
    return 100 * Z95 * math.sqrt(0.25 / n_test)


def per_class_for(half_width: float, choices: tuple[int, ...], n_classes: int = 2) -> int:
    """The smallest of `choices` whose test split measures a binary (by default) task's accuracy within
    ±`half_width` points (95%); the largest choice when none does."""
    fits = [c for c in sorted(choices) if test_half_width(c, n_classes) <= half_width]
    return fits[0] if fits else max(choices)


def min_items_per_class(n_classes: int, min_train: int = MIN_TRAIN_PER_CLASS) -> int:
    """The fewest items per class whose split (`split_sizes`) gives at least `min_train` training items per class
    to a task of `n_classes` classes (never fewer than MIN_PER_CLASS)."""
    n = max(MIN_PER_CLASS, int(min_train))
    while split_sizes(n, n_classes)[0] < min_train:
        n += 1
    return n


def no_task_fits(n_sentences: int, per_class: int, min_train: int = MIN_TRAIN_PER_CLASS) -> str | None:
    """Why no probing task can be built, known before parsing (None when some may be): every task needs two classes
    of at least `min_items_per_class(2, min_train)` items, and neither the corpus (each sentence gives one item at
    most to a class) nor `per_class` can be below one class's worth."""
    least = min_items_per_class(2, min_train)
    if per_class < least:
        return (
            f"At most {per_class:,} items per class leaves fewer than {training_items(min_train)} per class for "
            f"training in every task (it takes {least:,} items per class): raise the items per class or lower the "
            "training items per class (a deviation from the paper below its 100)."
        )
    if n_sentences < least:
        return (
            f"The corpus has {n_sentences:,} sentences; a task needs at least {least:,} items in each of two classes "
            f"for {training_items(min_train)} per class, so no task can be built here. Lower the training items per "
            "class (a deviation from the paper below its 100) or choose a larger corpus."
        )
    return None


def training_items(n: int) -> str:
    """'100 training items', '1 training item'."""
    return f"{n:,} training item" + ("" if n == 1 else "s")


def _dedup(items: list[Item]) -> list[Item]:
    seen: set[str] = set()
    out = []
    for it in items:
        if it.text not in seen:
            seen.add(it.text)
            out.append(it)
    return out


def _free(by_class: dict[str, list[Item]], classes: list[str], n: int, rng: random.Random) -> list[tuple[Item, str]]:
    tr, dv, _ = split_sizes(n, len(classes))
    out = []
    for c in classes:
        pool = list(by_class[c])
        rng.shuffle(pool)
        for j, it in enumerate(pool[:n]):
            out.append((it, "train" if j < tr else "dev" if j < tr + dv else "test"))
    return out


def _matched(items: list[Item], classes: list[str], n: int, rng: random.Random) -> list[tuple[Item, str]]:
    units: dict[int, list[Item]] = defaultdict(list)
    for it in items:
        units[it.unit].append(it)  # type: ignore[index]
    full = [u for u in sorted(units) if sorted(i.label for i in units[u]) == sorted(classes)]
    rng.shuffle(full)
    tr, dv, _ = split_sizes(n, len(classes))
    out: list[tuple[Item, str]] = []
    for j, u in enumerate(full[:n]):
        split = "train" if j < tr else "dev" if j < tr + dv else "test"
        out.extend((it, split) for it in units[u])
    return out


def _grouped(
    by_class: dict[str, list[Item]], classes: list[str], n: int, rng: random.Random, group_share: float
) -> tuple[list[tuple[Item, str]], float]:
    """Deal groups to splits; returns the assignment and the worst fill ratio (1.0 = every split full)."""
    sizes = dict(zip(SPLITS, split_sizes(n, len(classes))))
    cap = {s: max(1, math.ceil(group_share * sizes[s])) for s in SPLITS}
    groups: dict[str, dict[str, list[Item]]] = defaultdict(lambda: defaultdict(list))
    singles = 0
    for c in classes:
        pool = list(by_class[c])
        rng.shuffle(pool)
        for it in pool:
            if it.group is None:
                key = f"\x00{singles}"  # a free item is a group of its own
                singles += 1
            else:
                key = it.group
            groups[key][c].append(it)
    order = sorted(groups)
    rng.shuffle(order)
    need = {s: dict.fromkeys(classes, sizes[s]) for s in SPLITS}
    out: list[tuple[Item, str]] = []
    for g in order:
        members = groups[g]
        score = {s: sum(need[s][c] / sizes[s] for c in members if need[s][c] > 0) for s in SPLITS}
        best = max(SPLITS, key=lambda s: (score[s], -SPLITS.index(s)))
        if score[best] <= 0:
            continue
        for c, its in members.items():
            take = min(need[best][c], cap[best], len(its))
            out.extend((it, best) for it in its[:take])
            need[best][c] -= take
    fill = min(1 - need[s][c] / sizes[s] for s in SPLITS for c in classes)
    return out, fill


def balance_and_split(
    cands: Candidates, per_class: int, seed: int = 0, group_share: float = 0.1, min_train: int = MIN_TRAIN_PER_CLASS
) -> tuple[list[tuple[Item, str]], list[str], dict[str, int]]:
    """Balanced items with their split, the classes kept, and the candidates available per class.

    Classes the corpus cannot fill to `min_items_per_class` (at least `min_train` training items) are dropped;
    the task is empty when fewer than two classes remain or when `per_class` (or, for grouped items, what the
    groups allow) gives fewer than `min_train` training items. The items per class are min(per_class, what the
    corpus has)."""
    rng = random.Random(seed)
    items = _dedup(cands.items)
    available = Counter(it.label for it in items)
    avail = {c: int(available.get(c, 0)) for c in cands.classes}
    if cands.matched:
        units = len({it.unit for it in items})
        n = min(per_class, units)
        if len(cands.classes) < 2 or n < min_items_per_class(len(cands.classes), min_train):
            return [], [], avail
        return _matched(items, cands.classes, n, rng), list(cands.classes), avail
    classes = fillable_classes(avail, cands.classes, min_train)
    if len(classes) < 2 or per_class < min_items_per_class(len(classes), min_train):
        return [], classes, avail
    least = min_items_per_class(len(classes), min_train)
    by_class: dict[str, list[Item]] = defaultdict(list)
    for it in items:
        by_class[it.label].append(it)
    n = min(per_class, min(avail[c] for c in classes))
    if not any(it.group is not None for it in items):
        return _free(by_class, classes, n, rng), classes, avail
    while n >= least:
        out, fill = _grouped(by_class, classes, n, random.Random(seed), group_share)
        if fill >= 1.0:
            return out, classes, avail
        n = min(n - 1, int(n * fill))
    return [], classes, avail


def fillable_classes(avail: dict[str, int], classes: list[str], min_train: int = MIN_TRAIN_PER_CLASS) -> list[str]:
    """The classes (in order) with at least `min_items_per_class` candidates for the number of classes kept (fewer
    classes need more items each: their dev and test splits grow towards 1,000 test items)."""
    kept = list(classes)
    while True:
        least = min_items_per_class(len(kept), min_train) if kept else MIN_PER_CLASS
        now = [c for c in kept if avail.get(c, 0) >= least]
        if now == kept:
            return kept
        kept = now


def wc_classes(
    cands: Candidates, per_class: int, max_classes: int = 1000, min_train: int = MIN_TRAIN_PER_CLASS
) -> Candidates:
    """WC's classes: the band words with at least m sentences each, m = min(per_class, the count that keeps the
    most items, m x #words) among the counts that give every word `min_train` training items, so that classes are
    balanced without dropping most of the band. No word kept when no count does."""
    counts = Counter(it.label for it in _dedup(cands.items))
    best_m, best_total = 0, 0
    for m in sorted(set(counts.values())):
        m_eff = min(m, per_class)
        k = min(max_classes, sum(1 for v in counts.values() if v >= m))
        if k >= 2 and m_eff >= min_items_per_class(k, min_train) and m_eff * k > best_total:
            best_m, best_total = m, m_eff * k
    kept = [w for w in cands.classes if best_m and counts.get(w, 0) >= best_m][:max_classes]
    keep = set(kept)
    items = [it for it in cands.items if it.label in keep]
    rej = Counter(cands.rejected)
    rej["band word with too few sentences"] += len(cands.items) - len(items)
    most = max(counts.values(), default=0)
    info = dict(cands.info, min_sentences_per_word=best_m, words_kept=len(kept), most_sentences_per_word=most)
    return Candidates(items, kept, rej, info=info)
