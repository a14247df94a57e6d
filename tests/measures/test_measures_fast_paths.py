"""The optimized paths of the measures runner give the plain formulas' values on random data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import pearsonr, rankdata, spearmanr

import n2o_core.measures.pairwise as pw


def test_float32_radix_ranks_equal_scipy_with_ties_negatives_and_zeros():
    rng = np.random.default_rng(5)
    v = np.round(rng.normal(size=20_000), 2).astype(np.float32)  # many ties
    v[:50] = 0.0
    v[50:100] = -0.0
    v[100:110] = np.float32(-1e-30)
    assert np.array_equal(pw.average_ranks(v), rankdata(v) - 1)
    assert np.array_equal(pw.average_ranks(v), pw.average_ranks(v.astype(np.float64)))


def test_triangles_in_several_blocks_equal_the_pdist_formulas(monkeypatch):
    monkeypatch.setattr(pw, "BLOCK_ROWS", 7)  # several blocks, a ragged last one
    rng = np.random.default_rng(6)
    A = rng.normal(size=(40, 5))
    B = A @ rng.normal(size=(5, 3)) + 0.5 * rng.normal(size=(40, 3))
    A[4] = 0.0  # a zero vector: cosine 0 with everything
    sa, sb = pw.pairwise_space(A), pw.pairwise_space(B)
    assert np.allclose(pw.squared_distances(A), pdist(A, "sqeuclidean"), rtol=1e-6, atol=1e-6)
    da = np.where(np.isnan(pdist(A, "cosine")), 1.0, pdist(A, "cosine"))
    db = pdist(B, "cosine")
    assert pw.tri_correlation(sa.dist, sb.dist) == pytest.approx(pearsonr(da, db)[0], abs=1e-6)
    assert pw.tri_correlation(sa.rank, sb.rank) == pytest.approx(spearmanr(da, db)[0], abs=1e-6)
    sigma = pw.RBF_FRACTION * np.sqrt(np.median(pdist(A, "sqeuclidean")))
    assert sa.sigma == pytest.approx(sigma, rel=1e-6)
