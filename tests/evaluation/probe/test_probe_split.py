"""Balancing and splitting (pure): sizes, balance, groups and matched units never straddling splits. The mechanics
are tested on small counts with no minimum beyond one item per split (`min_train=1`); the paper's floor of 100
training items per class is tested in test_probe_minimum.py."""

from __future__ import annotations

from collections import Counter, defaultdict

from n2o_core.evaluation.probe.split import balance_and_split, split_sizes, wc_classes
from n2o_core.evaluation.probe.tasks import Candidates, Item


def _item(text: str, label: str, group: str | None = None, unit: int | None = None) -> Item:
    return Item(text, label, 6, 0, group=group, unit=unit)


def test_split_sizes_are_8_1_1_and_grow_the_test_split_towards_1000():
    assert split_sizes(5000, 2) == (4000, 500, 500)  # 1,000 test items at 8:1:1
    assert split_sizes(1000, 2) == (500, 250, 250)  # 8:1:1 would give 200 test items: up to 1/4
    assert split_sizes(9, 729) == (5, 2, 2)  # WC: 2 x 729 >= 1,000
    assert split_sizes(3, 2) == (1, 1, 1)
    assert split_sizes(5000, 2, min_test=0) == (4000, 500, 500)
    assert split_sizes(100, 2, min_test=0) == (80, 10, 10)


def test_free_items_are_balanced_and_never_duplicated():
    items = [_item(f"a{i}", "a") for i in range(50)] + [_item(f"b{i}", "b") for i in range(30)]
    items += [_item("a0", "a")]  # a duplicate text is dropped, not used twice
    out, classes, avail = balance_and_split(Candidates(items, ["a", "b"]), per_class=100, seed=0, min_train=1)
    assert avail == {"a": 50, "b": 30} and classes == ["a", "b"]
    per = Counter((it.label, s) for it, s in out)
    tr, dv, te = split_sizes(30, 2)
    assert per == {(c, s): n for c in "ab" for s, n in zip(("train", "dev", "test"), (tr, dv, te))}
    assert len({it.text for it, _ in out}) == len(out)


def test_same_seed_same_split_other_seed_other_split():
    items = [_item(f"x{i}", "ab"[i % 2]) for i in range(200)]
    c = Candidates(items, ["a", "b"])
    one = [(it.text, s) for it, s in balance_and_split(c, 40, seed=3, min_train=1)[0]]
    assert one == [(it.text, s) for it, s in balance_and_split(c, 40, seed=3, min_train=1)[0]]
    assert one != [(it.text, s) for it, s in balance_and_split(c, 40, seed=4, min_train=1)[0]]


def test_groups_never_cross_splits_and_no_group_fills_a_split():
    items = []
    for g in range(60):  # one huge group ("said") and many small ones, in both classes
        n = 200 if g == 0 else 6
        items += [_item(f"p{g}-{i}", "past", group=f"g{g}") for i in range(n)]
        items += [_item(f"q{g}-{i}", "present", group=f"h{g}") for i in range(n)]
    out, _classes, _ = balance_and_split(Candidates(items, ["past", "present"]), per_class=300, seed=0, min_train=1)
    splits_of = defaultdict(set)
    for it, s in out:
        splits_of[it.group].add(s)
    assert all(len(v) == 1 for v in splits_of.values())
    per = Counter((it.label, s) for it, s in out)
    assert per[("past", "test")] == per[("present", "test")] > 0
    in_test = Counter(it.group for it, s in out if s == "test" and it.label == "past")
    assert max(in_test.values()) <= max(1, -(-per[("past", "test")] // 10))  # at most 10% from one group


def test_matched_units_stay_together():
    items = []
    for u in range(40):
        items += [_item(f"u{u}-{c}", c, unit=u) for c in ("4", "5", "6")]
    items += [_item("lonely", "4", unit=99)]  # an incomplete unit is never used
    out, _classes, _ = balance_and_split(
        Candidates(items, ["4", "5", "6"], matched=True), per_class=30, seed=0, min_train=1
    )
    where = defaultdict(set)
    for it, s in out:
        where[it.unit].add(s)
    assert all(len(v) == 1 for v in where.values()) and 99 not in where
    assert Counter(it.label for it, _ in out) == {"4": 30, "5": 30, "6": 30}


def test_too_few_candidates_give_no_items():
    items = [_item("a", "a"), _item("b", "b"), _item("c", "b")]
    out, _classes, avail = balance_and_split(Candidates(items, ["a", "b"]), per_class=10, min_train=1)
    assert out == [] and avail == {"a": 1, "b": 2}


def test_wc_classes_keep_words_with_enough_sentences():
    items = [_item(f"{w}{i}", w) for w, n in (("alpha", 12), ("beta", 9), ("gamma", 9), ("delta", 2)) for i in range(n)]
    c = wc_classes(Candidates(items, ["alpha", "beta", "gamma", "delta"]), per_class=100, min_train=1)
    assert c.classes == ["alpha", "beta", "gamma"]  # 3 x 9 = 27 items beat 1 x 12
    assert c.info["min_sentences_per_word"] == 9


def test_no_task_fits_says_so_before_parsing():
    from n2o_core.evaluation.probe.split import min_items_per_class, no_task_fits

    least = min_items_per_class(2, 100)
    assert least > 100  # the dev and test splits come on top of the training items
    assert "60 sentences" in no_task_fits(60, 1000, 100) and f"{least:,}" in no_task_fits(60, 1000, 100)
    assert no_task_fits(least - 1, 1000, 100) is not None and no_task_fits(least, 1000, 100) is None
    assert "items per class" in no_task_fits(5000, least - 1, 100) and no_task_fits(5000, least, 100) is None
    assert no_task_fits(60, 50, 1) is None  # one training item per class: a 60-sentence corpus may give a task
