"""The optimized paths of the measures runner give the plain formulas' values (the oracle, reference_formulas) on
random data."""

from __future__ import annotations

import numpy as np
import pytest
import reference_formulas as ref
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


def _three(n: int = 36) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    A = rng.normal(size=(n, 6))
    return {"a": A, "b": A @ rng.normal(size=(6, 4)) + rng.normal(size=(n, 4)), "c": rng.normal(size=(n, 5))}


def test_neighbor_null_of_every_pair_over_several_chunks_equals_recomputation():
    from n2o_core.measures.engine import CHUNK, NeighborFamily
    from n2o_core.measures.neighborhood import knn_lists
    from n2o_core.measures.nulls import permutations, resamples

    X, k = _three(), 4
    perms = permutations(36, CHUNK + 3, seed=2)  # two chunks, the last one short
    seen: list[float] = []
    fam = NeighborFamily({e: knn_lists(v, k) for e, v in X.items()}, ["mutual_knn", "jaccard_knn", "cknna"])
    res = fam.run(perms, resamples(36, 2, seed=3), lambda e: seen.append(e.fraction))
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        for j, p in enumerate(perms):
            for mid in ("mutual_knn", "jaccard_knn", "cknna"):
                want = ref.REFERENCE[mid](X[a], X[b][p], k)
                tol = 2e-6 if mid == "cknna" else 1e-12  # CKNNA's neighbor similarities are float32
                assert res.null[(a, b, mid)][j] == pytest.approx(want, abs=tol)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)


def test_kernel_null_of_every_pair_equals_recomputation():
    from n2o_core.measures.engine import KernelFamily
    from n2o_core.measures.nulls import permutations

    X = _three(40)
    pos = np.arange(0, 40, 2)
    perms = permutations(pos.size, 4, seed=4)
    res = KernelFamily(X, ["rsa_spearman", "rsa_pearson"], pos).run(perms, np.zeros((0, pos.size), np.int64))
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        for j, p in enumerate(perms):
            for mid in ("rsa_spearman", "rsa_pearson"):
                want = ref.REFERENCE[mid](X[a][pos], X[b][pos][p])
                assert res.null[(a, b, mid)][j] == pytest.approx(want, abs=1e-5)


def test_rbf_null_of_every_pair_equals_recomputation():
    """The RBF CKA null drawn from the gathered upper triangles and diagonals equals recomputing the measure on B's
    shuffled rows (null rows = kernel rows here, so both take the same median bandwidth)."""
    from n2o_core.measures.engine import KernelFamily
    from n2o_core.measures.nulls import permutations

    X = _three(30)
    pos = np.arange(30)
    perms = permutations(pos.size, 4, seed=5)
    res = KernelFamily(X, ["cka_rbf", "rsa_pearson"], pos).run(perms, np.zeros((0, pos.size), np.int64))
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        assert res.null_observed[(a, b, "cka_rbf")] == pytest.approx(ref.cka_rbf(X[a], X[b]), abs=1e-5)
        for j, p in enumerate(perms):
            for mid in ("cka_rbf", "rsa_pearson"):
                want = ref.REFERENCE[mid](X[a], X[b][p])
                assert res.null[(a, b, mid)][j] == pytest.approx(want, abs=1e-5)


def test_progress_counts_measure_pair_steps():
    from n2o_core.measures.run import STAGE, compare_arrays

    calls: list[tuple[str, int, int]] = []
    compare_arrays(
        _three(),
        k=3,
        measures=["mutual_knn", "cka_linear", "rsa_pearson"],
        permutations_=3,
        bootstrap=2,
        progress=lambda e: calls.append((e.stage, e.done, e.total)),
    )
    assert {c[0] for c in calls} == {STAGE}
    assert all(c[2] == 3 * 3 for c in calls)  # 3 measures x 3 pairs
    done = [c[1] for c in calls]
    assert done == sorted(done) and done[0] == 0 and done[-1] == 9
