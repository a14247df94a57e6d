"""measures.stored: a comparison kept in the cache with when it was computed, read back for the same settings
(never for others), and the time estimate scaled from the last run."""

from __future__ import annotations

import math

import numpy as np
import pytest

import n2o_core.measures.stored as stored
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.measures.stored import Setup, Timing, compare_and_store, estimate_seconds, last_timing, load
from n2o_core.storage.cache import Cache

N = 60


@pytest.fixture
def ws(tmp_path):
    corpus = from_texts([f"sentence number {i} on topic {i % 5}" for i in range(N)], name="synthetic")
    w = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    base = rng.standard_normal((N, 5))
    for name, X in {"a": base, "b": base @ rng.standard_normal((5, 7)), "c": rng.standard_normal((N, 4))}.items():
        np.save(tmp_path / f"{name}.npy", X.astype(np.float32))
        w.add_vectors(name, tmp_path / f"{name}.npy")
    return w


def rows_equal(r1, r2):
    assert len(r1) == len(r2)
    for x, y in zip(r1, r2, strict=True):
        assert x.keys() == y.keys()
        for k in x:
            if isinstance(x[k], float) and math.isnan(x[k]):
                assert math.isnan(y[k]), k
            else:
                assert x[k] == y[k], k


def test_kept_and_read_back_for_the_same_settings_only(ws, monkeypatch):
    measures = ["mutual_knn", "cka_linear", "pwcca_released"]
    got = compare_and_store(ws, Setup(("a", "b", "c"), 5, tuple(measures), 10, 5))
    assert got.seconds > 0 and got.computed_at > 1.7e9
    assert math.isnan(got.result.value("a", "b", "pwcca_released")) is False
    assert any(math.isnan(r["p"]) for r in got.result.rows)  # the released PWCCA has no null: NaN survives

    def no_compute(*a, **kw):
        raise AssertionError("computed again")

    monkeypatch.setattr(stored, "compare_measures", no_compute)
    setup = Setup(("c", "a", "b"), 5, tuple(measures), 10, 5)  # another order of the same embedders
    back = load(ws, setup)
    assert back is not None and back.computed_at == got.computed_at and back.seconds == got.seconds
    rows_equal(back.result.rows, got.result.rows)
    assert back.result.to_json() == got.result.to_json()
    again = compare_and_store(ws, Setup(("b", "a", "c"), 5, tuple(measures), 10, 5))
    assert again.computed_at == got.computed_at
    # any other setting is another result
    assert load(ws, Setup(("a", "b", "c"), 4, tuple(measures), 10, 5)) is None
    assert load(ws, Setup(("a", "b", "c"), 5, tuple(measures), 11, 5)) is None
    assert load(ws, Setup(("a", "b", "c"), 5, ("cka_linear",), 10, 5)) is None
    assert load(ws, Setup(("a", "b"), 5, tuple(measures), 10, 5)) is None


def test_new_vectors_under_the_same_name_are_another_result(ws, tmp_path):
    compare_and_store(ws, Setup(("a", "b"), 5, ("cka_linear",), 0, 0))
    assert load(ws, Setup(("a", "b"), 5, ("cka_linear",), 0, 0)) is not None
    np.save(tmp_path / "b.npy", np.random.default_rng(9).standard_normal((N, 7)).astype(np.float32))
    ws.add_vectors("b", tmp_path / "b.npy")
    assert load(ws, Setup(("a", "b"), 5, ("cka_linear",), 0, 0)) is None


def test_the_estimate_scales_the_last_run(ws):
    assert last_timing(ws) is None
    # the recorded benchmark: its own size gives its own time; twice the pairs, twice the time
    assert estimate_seconds(15, 5000, 12, 200) == pytest.approx(29.8)
    assert estimate_seconds(30, 5000, 12, 200) == pytest.approx(59.6)
    assert estimate_seconds(15, 20_000, 12, 200) == pytest.approx(29.8)  # kernel measures: 5,000 sentences
    got = compare_and_store(ws, Setup(("a", "b", "c"), 5, ("cka_linear",), 10, 5))
    t = last_timing(ws)
    assert t == Timing(got.seconds, 3, N, 1, 15)
    assert estimate_seconds(6, N, 1, 15, t) == pytest.approx(2 * got.seconds)
