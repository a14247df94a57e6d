"""Scoring: baseline against a brute-force reference, normalization, bootstrap CI, sparse and zero rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.score import baseline_similarity, bootstrap_ci, normalize, rowwise_cosine, score_pairs
from n2o_core.search.rows import Standardizer


def _cos(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return 0.0 if na == 0 or nb == 0 else float(a @ b / (na * nb))


def test_baseline_matches_brute_force():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(41, 7)) + 0.5  # anisotropic; odd count
    x[5] = 0.0
    h = 41 // 2
    ref = np.mean([_cos(x[i], x[j]) for i in range(h) for j in range(h, 41)])
    assert baseline_similarity(x) == pytest.approx(ref, abs=1e-12)
    assert baseline_similarity(sp.csr_matrix(x)) == pytest.approx(ref, abs=1e-12)


def test_rowwise_cosine_sparse_zero_rows_are_zero():
    a = sp.csr_matrix(np.array([[1.0, 0, 0], [0, 0, 0], [1, 1, 0]]))
    b = sp.csr_matrix(np.array([[2.0, 0, 0], [1, 0, 0], [1, 0, 0]]))
    got = rowwise_cosine(a, b)
    assert np.all(np.isfinite(got))
    assert got == pytest.approx([1.0, 0.0, 1 / np.sqrt(2)])


def test_normalize():
    assert normalize(np.array([1.0, 0.5, 0.2]), 0.2) == pytest.approx([1.0, 0.375, 0.0])
    assert np.isnan(normalize(np.array([0.9]), 1.0)).all()


def test_bootstrap_ci_contains_mean():
    v = np.random.default_rng(0).normal(0.3, 0.1, size=200)
    lo, hi = bootstrap_ci(v, n_boot=500, seed=0)
    assert lo < v.mean() < hi
    assert hi - lo == pytest.approx(2 * 1.96 * v.std() / np.sqrt(200), rel=0.25)


def _toy_pairs():
    originals = [f"orig {i}" for i in range(10)]
    rows = []
    for i, o in enumerate(originals):
        rows.append(("synonym", o, f"syn {i}"))
        rows.append(("antonym", o, f"ant {i}"))
    return pd.DataFrame(rows, columns=["subset", "original", "variant"])


def test_score_pairs_end_to_end_matches_manual():
    rng = np.random.default_rng(3)
    pairs = _toy_pairs()
    texts = list(dict.fromkeys(pairs["original"].tolist() + pairs["variant"].tolist()))
    table = {t: rng.normal(size=5) + 1.0 for t in texts}
    calls = []

    def encode(batch):
        calls.append(len(batch))
        return np.stack([table[t] for t in batch])

    baseline, res = score_pairs(pairs, {"toy": encode}, seed=0, n_boot=200)
    assert calls == [len(texts)]  # every distinct sentence encoded once
    origs = [f"orig {i}" for i in range(10)]
    b = np.mean([_cos(table[origs[i]], table[origs[j]]) for i in range(5) for j in range(5, 10)])
    assert baseline["toy"] == pytest.approx(b)
    syn = res[res.subset == "synonym"].iloc[0]
    s = np.array([_cos(table[f"orig {i}"], table[f"syn {i}"]) for i in range(10)])
    assert syn["n"] == 10
    assert syn["raw"] == pytest.approx(s.mean())
    assert syn["normalized"] == pytest.approx(((s - b) / (1 - b)).mean())
    assert syn["ci_low"] <= syn["normalized"] <= syn["ci_high"]
    assert list(res["subset"]) == ["synonym", "antonym"]


def test_score_pairs_sparse_encoder_with_zero_rows():
    pairs = _toy_pairs()

    def encode(batch):
        m = np.zeros((len(batch), 4))
        for k, t in enumerate(batch):
            if not t.startswith("ant"):
                m[k, int(t.split()[1]) % 4] = 1.0
        return sp.csr_matrix(m)

    _, res = score_pairs(pairs, {"sparse": encode}, n_boot=50)
    assert res["raw"].notna().all() and res["normalized"].notna().all()
    assert res.set_index("subset").loc["antonym", "raw"] == 0.0
    assert res.set_index("subset").loc["synonym", "raw"] == pytest.approx(1.0)


def test_score_pairs_rejects_bad_input():
    with pytest.raises(N2OError):
        score_pairs(pd.DataFrame({"original": ["a"], "variant": ["b"]}), {})
    with pytest.raises(N2OError):
        score_pairs(pd.DataFrame(columns=["subset", "original", "variant"]), {})


# --------------------------------------------------------------------------- z-normalization


def _z(x, std):
    """Reference: densify, standardize in float64 with the standardizer's values; raw zero rows stay zero."""
    x = np.asarray(x.toarray() if sp.issparse(x) else x, np.float64)
    z = (x - std.mean.astype(np.float64)) * std.scale.astype(np.float64)
    z[~np.any(x != 0, axis=1)] = 0.0
    return z


def _sparse_corpus(n=60, d=25, seed=2):
    x = sp.random(n, d, density=0.15, format="csr", random_state=seed)
    x.data = np.ceil(x.data * 3)
    x = x.tolil()
    x[::13] = 0.0
    return sp.csr_matrix(x)


@pytest.mark.parametrize("sparse", [True, False])
def test_znorm_rowwise_cosine_and_baseline_match_densified(sparse):
    x = _sparse_corpus()
    std = Standardizer.fit(x)
    data = x if sparse else x.toarray()
    a, b = data[:30], data[30:]
    za, zb = _z(a, std), _z(b, std)
    ref = np.array([_cos(za[i], zb[i]) for i in range(30)])
    got = rowwise_cosine(a, b, standardizer=std)
    assert got == pytest.approx(ref, abs=1e-12)
    assert got[0] == 0.0  # row 0 is all zeros: cosine 0, not the cosine of -mean/std
    assert not np.allclose(got, rowwise_cosine(a, b))  # z-normalization changes the cosines
    z = _z(data, std)
    h = 30
    base = np.mean([_cos(z[i], z[j]) for i in range(h) for j in range(h, 60)])
    assert baseline_similarity(data, standardizer=std) == pytest.approx(base, abs=1e-12)


def test_score_pairs_with_standardizer_matches_densified():
    pairs = _toy_pairs()
    texts = list(dict.fromkeys(pairs["original"].tolist() + pairs["variant"].tolist()))
    x = _sparse_corpus(n=len(texts), seed=9)
    table = {t: x[i] for i, t in enumerate(texts)}
    std = Standardizer.fit(_sparse_corpus(n=200, seed=4))  # fitted on a corpus, not on the pairs

    def encode(batch):
        return sp.vstack([table[t] for t in batch], format="csr")

    baseline, res = score_pairs(pairs, {"tfidf": encode}, n_boot=50, standardizers={"tfidf": std})
    z = {t: _z(table[t], std)[0] for t in texts}
    origs = [f"orig {i}" for i in range(10)]
    b = np.mean([_cos(z[origs[i]], z[origs[j]]) for i in range(5) for j in range(5, 10)])
    assert baseline["tfidf"] == pytest.approx(b, abs=1e-12)
    s = np.array([_cos(z[f"orig {i}"], z[f"ant {i}"]) for i in range(10)])
    ant = res.set_index("subset").loc["antonym"]
    assert ant["raw"] == pytest.approx(s.mean(), abs=1e-12)
    assert ant["normalized"] == pytest.approx(((s - b) / (1 - b)).mean(), abs=1e-12)
    _, plain = score_pairs(pairs, {"tfidf": encode}, n_boot=50)
    assert plain.set_index("subset").loc["antonym", "raw"] != pytest.approx(ant["raw"])
