"""The minimum of training items per class (the paper's floor, 100: WC's 100k training sentences over 1,000 words):
classes and tasks below it are dropped with a note saying which and why, on a 200-item probing corpus too; and
scikit-learn's warnings stay out of the log."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from probe_corpus import sentences

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.evaluation.probe import TASKS
from n2o_core.evaluation.probe.build import build_tasks
from n2o_core.evaluation.probe.readout import read_out
from n2o_core.evaluation.probe.report import task_notes, task_table
from n2o_core.evaluation.probe.run import run_probe
from n2o_core.evaluation.probe.split import (
    MIN_TRAIN_PER_CLASS,
    balance_and_split,
    min_items_per_class,
    split_sizes,
    wc_classes,
)
from n2o_core.evaluation.probe.tasks import Candidates, Item
from n2o_core.storage.cache import Cache


def _item(text: str, label: str) -> Item:
    return Item(text, label, 6, 0)


def test_the_minimum_is_the_papers_floor_of_100_training_items_per_class():
    assert MIN_TRAIN_PER_CLASS == 100  # WC: 100k training sentences over 1,000 words (Conneau et al. 2018, §2)
    for n_classes in (2, 6, 20, 171, 1000):
        least = min_items_per_class(n_classes)
        assert split_sizes(least, n_classes)[0] >= 100 > split_sizes(least - 1, n_classes)[0]
    assert min_items_per_class(2) == 198  # 100 train, 49 dev, 49 test
    assert min_items_per_class(2, 1) == 3  # one item per split: the old rule


def test_a_class_below_the_minimum_is_dropped_and_a_task_needs_two_classes():
    items = [_item(f"a{i}", "a") for i in range(400)] + [_item(f"b{i}", "b") for i in range(300)]
    items += [_item(f"c{i}", "c") for i in range(150)]  # 150 < 198: too few for 100 training items
    out, classes, avail = balance_and_split(Candidates(items, ["a", "b", "c"]), per_class=1000, seed=0)
    assert classes == ["a", "b"] and avail == {"a": 400, "b": 300, "c": 150}
    train = Counter(it.label for it, s in out if s == "train")
    assert set(train) == {"a", "b"} and min(train.values()) >= 100
    # the old rule kept c and cut every class to its 150 items
    out, classes, _ = balance_and_split(Candidates(items, ["a", "b", "c"]), per_class=1000, seed=0, min_train=1)
    assert classes == ["a", "b", "c"] and Counter(it.label for it, _ in out)["a"] == 150
    # one class left: no task
    out, classes, _ = balance_and_split(Candidates(items[400:], ["a", "b", "c"]), per_class=1000, seed=0)
    assert out == [] and classes == ["b"]
    # a cap below the minimum: nothing, whatever the corpus has
    assert balance_and_split(Candidates(items, ["a", "b", "c"]), per_class=100, seed=0)[0] == []


def test_wc_with_one_training_sentence_per_word_keeps_no_word():
    """The issue's case: 171 band words with 3 sentences each (one per split) made 171 classes of one training item."""
    items = [_item(f"{w}-{i}", f"w{w}") for w in range(171) for i in range(3)]
    cands = Candidates(items, [f"w{w}" for w in range(171)])
    assert len(wc_classes(cands, per_class=1000, min_train=1).classes) == 171  # the old rule
    kept = wc_classes(cands, per_class=1000)
    assert kept.classes == [] and kept.info["most_sentences_per_word"] == 3
    # five words of 3 + 200 sentences: five classes need 198 each (their dev and test grow towards 1,000 items)
    many = [_item(f"{w}+{i}", f"w{w}") for w in range(5) for i in range(200)] + items
    kept = wc_classes(Candidates(many, [f"w{w}" for w in range(171)]), per_class=1000)
    assert kept.classes == [f"w{w}" for w in range(5)] and kept.info["min_sentences_per_word"] == 203


@pytest.fixture(scope="module")
def corpus_200():
    return from_texts(sentences(200))


@pytest.fixture(scope="module")
def cache_200(tmp_path_factory):
    return Cache(tmp_path_factory.mktemp("probe-200"))


def test_a_200_item_corpus_has_no_task_below_the_minimum(corpus_200, cache_200):
    """Done-when of issue 34: every task kept has 100 training items in every class; every other one says why."""
    data = build_tasks(corpus_200, TASKS, per_class=1000, seed=0, cache=cache_200)
    for t, td in data.items():
        if td.skipped is None:
            train = td.split("train")["label"].value_counts()
            assert set(train.index) == set(td.classes) and train.min() >= MIN_TRAIN_PER_CLASS, t
        else:
            assert "100 training items per class" in td.skipped, t
            assert td.items.empty
    assert all(td.skipped for td in data.values())  # 200 sentences fill no class to 198 items
    ws = Workspace(corpus_200, cache=cache_200)
    with pytest.raises(N2OError, match=r"too small for any probing task.*100 training items per class"):
        run_probe(ws, ["tfidf"], per_class=1000, classifiers=["lr"])


def test_a_lower_minimum_keeps_what_it_can_and_names_what_it_dropped(corpus_200, cache_200):
    data = build_tasks(corpus_200, TASKS, per_class=1000, seed=0, cache=cache_200, min_train=10)
    kept = {t: td for t, td in data.items() if td.skipped is None}
    assert {"sentlen", "bshift", "somo"} <= set(kept) and "wc" not in kept
    for t, td in kept.items():
        assert td.split("train")["label"].value_counts().min() >= 10, t
        for c, n in td.info.get("dropped_classes", {}).items():
            assert n < min_items_per_class(len(td.classes) + 1, 10) and c not in td.classes, t
    sentlen = kept["sentlen"]
    assert set(sentlen.info["dropped_classes"]) >= {"21-24", "25-28"}  # 2 and 0 sentences of 21-28 words
    ws = Workspace(corpus_200, cache=cache_200)
    res = run_probe(
        ws, ["tfidf"], tasks=["sentlen", "bshift", "tense"], per_class=1000, classifiers=["lr"], min_train=10
    )
    shown = task_table(res).set_index("task")
    assert shown.loc["SentLen", "note"].startswith("3 class(es) dropped, too few candidates for 10 training items")
    assert "21-24 (2)" in shown.loc["SentLen", "note"]
    assert shown.loc["BShift", "train per class"] >= 10 and shown.loc["BShift", "skipped"] == ""
    assert shown.loc["Tense", "skipped"].startswith("the corpus has too few candidates for 10 training items")
    assert "kept inside one split" in shown.loc["Tense", "skipped"]
    assert res.meta["min_train"] == 10 and set(task_notes(res)) == {"sentlen"}


def test_scikit_learn_warnings_are_kept_in_the_readout_never_printed():
    """171 classes with one training item each made LogisticRegression warn 4 times per readout into the log."""
    rng = np.random.default_rng(0)
    c = 171
    X, y = rng.normal(size=(3 * c, 8)), np.repeat(np.arange(c), 3).astype(str)
    tr = np.arange(0, 3 * c, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ro = read_out(X[tr], y[tr], X[tr + 1], y[tr + 1], X[tr + 2], y[tr + 2], "lr")
    assert caught == []
    assert len(ro.warnings) == 1 and "unique classes is greater than 50%" in ro.warnings[0]
    X2, y2 = rng.normal(size=(300, 8)), np.repeat(["a", "b"], 150)
    assert read_out(X2[::3], y2[::3], X2[1::3], y2[1::3], X2[2::3], y2[2::3], "lr").warnings == ()
