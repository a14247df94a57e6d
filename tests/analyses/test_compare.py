"""The comparison pipeline on precomputed vectors: N2O against a brute-force reference, caching, JSON."""

import json

import numpy as np
import pytest

from n2o_core.analyses.compare import compare
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import EmbedderError, N2OError
from n2o_core.storage.cache import Cache


def brute_neighbors(X, q, k):
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    s = np.round(Xn @ Xn[q], 9)
    return [j for _, j in sorted((-s[j], j) for j in range(len(X)) if j != q)[:k]]


@pytest.fixture
def setup(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    corpus = from_texts([f"sentence number {i}" for i in range(n)], name="synthetic")
    base = rng.standard_normal((n, 16))
    paths = {}
    for name, noise in [("a", 0.0), ("b", 0.5), ("c", 2.0)]:
        p = tmp_path / f"{name}.npy"
        np.save(p, (base + rng.normal(0, noise, base.shape)).astype(np.float32))
        paths[name] = p
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    for name, p in paths.items():
        ws.add_vectors(name, p)
    return ws, paths


def test_compare_matches_brute_force(setup):
    ws, paths = setup
    res = compare(ws, ["a", "b", "c"], 10, n_queries=30, n_samples=3, seed=1)
    X = {e: np.load(p) for e, p in paths.items()}
    for si, (s, M) in enumerate(zip(res.samples, res.sampled.per_sample)):
        for i, a in enumerate("abc"):
            for j, b in enumerate("abc"):
                ref = np.mean(
                    [len(set(brute_neighbors(X[a], q, 10)) & set(brute_neighbors(X[b], q, 10))) / 10 for q in s]
                )
                assert M[i, j] == pytest.approx(ref), (si, a, b)
    assert res.mean[0, 1] > res.mean[0, 2] > res.chance  # less noise, more overlap; all above chance
    assert res.chance == pytest.approx(10 / 399)


def test_json_document_shape(setup):
    ws, _ = setup
    doc = json.loads(json.dumps(compare(ws, ["a", "b"], 5, n_queries=20, n_samples=2).to_json()))
    assert set(doc) >= {"embedders", "k", "corpus_size", "chance", "samples", "mean", "std", "neighbors"}
    assert doc["embedders"] == ["a", "b"] and doc["k"] == 5 and doc["corpus_size"] == 400
    q = doc["samples"][0]["queries"][0]
    assert len(doc["neighbors"]["a"][str(q)]) == 5
    assert np.array(doc["mean"]).shape == (2, 2)


def test_k_change_reuses_cached_neighbors(setup, monkeypatch):
    ws, _ = setup
    compare(ws, ["a", "b"], 10, k_max=30, n_queries=20, n_samples=2)
    import n2o_core.corpus_workspace as wsmod

    def boom(*a, **k):
        raise AssertionError("searched again")

    monkeypatch.setattr(wsmod, "exact_knn", boom)
    for k in (1, 5, 30):
        res = compare(ws, ["a", "b"], k, k_max=30, n_queries=20, n_samples=2)
        assert res.k == k


def test_bad_inputs(setup, tmp_path):
    ws, _ = setup
    with pytest.raises(N2OError, match="fewer than k"):
        compare(ws, ["a", "b"], 400)
    with pytest.raises(N2OError, match="positive"):
        compare(ws, ["a", "b"], 0)
    bad = tmp_path / "short.npy"
    np.save(bad, np.ones((10, 3), np.float32))
    with pytest.raises(EmbedderError, match="one row each"):
        ws.add_vectors("short", bad)
    nan = tmp_path / "nan.npy"
    arr = np.ones((400, 3), np.float32)
    arr[7, 1] = np.nan
    np.save(nan, arr)
    with pytest.raises(EmbedderError, match="NaN"):
        ws.add_vectors("nan", nan)
    assert not ws.is_precomputed("short") and not ws.is_precomputed("nan")


def test_worst_n2o_error_is_the_largest_measured_pair_error(setup):
    ws, _ = setup
    res = compare(ws, ["a", "b"], 5, n_queries=20, n_samples=2)
    assert res.n2o_error is None and res.worst_n2o_error is None  # exact search: nothing measured
    res.n2o_error = np.array([[0.0, 0.02], [0.031, np.nan]])
    assert res.worst_n2o_error == 0.031
    res.n2o_error = np.full((2, 2), np.nan)
    assert res.worst_n2o_error is None
