"""Permutation nulls and bootstrap intervals: the generic ones, and the runner's shortcuts equal to them."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.analyses.agreement import per_sentence_n2o
from n2o_core.measures import get_measure
from n2o_core.measures.engine import FeatureFamily, KernelFamily, NeighborFamily
from n2o_core.measures.kernel import cka_gram, cka_linear
from n2o_core.measures.neighborhood import knn_lists
from n2o_core.measures.nulls import bootstrap_ci, centered_ci, p_value, permutation_null, permutations, resamples
from n2o_core.measures.pairwise import dense_kernels


def related(n=50, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, 6))
    return A, A @ rng.standard_normal((6, 4)) + noise * rng.standard_normal((n, 4))


def test_p_value_formula():
    null = np.array([0.1, 0.2, 0.3, 0.9])
    assert p_value(0.5, null) == pytest.approx(2 / 5)
    assert p_value(0.5, null, higher_is_similar=False) == pytest.approx(4 / 5)
    assert p_value(1.0, null) == pytest.approx(1 / 5)
    assert np.isnan(p_value(0.5, np.zeros(0)))


def test_seeded_draws_repeat():
    assert np.array_equal(permutations(20, 3, seed=5), permutations(20, 3, seed=5))
    assert not np.array_equal(permutations(20, 3, seed=5), permutations(20, 3, seed=6))
    assert resamples(20, 4, seed=1).shape == (4, 20)


def test_related_spaces_get_the_smallest_p():
    A, B = related()
    res = permutation_null(cka_linear, A, B, 100, seed=0)
    assert res.p == pytest.approx(1 / 101) and res.mean < 0.3 < res.observed


def test_p_values_of_unrelated_spaces_are_roughly_uniform():
    rng = np.random.default_rng(11)
    ps = []
    for s in range(40):
        A, B = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
        ps.append(permutation_null(cka_linear, A, B, 19, seed=s).p)
    ps = np.array(ps)
    assert 0.35 < ps.mean() < 0.65
    assert 0.05 <= (ps <= 0.25).mean() <= 0.5


def test_centered_ci_contains_the_value_and_scales():
    boot = np.array([0.4, 0.5, 0.6, 0.5, 0.45, 0.55])
    lo, hi = centered_ci(boot, 0.3)
    assert lo < 0.3 < hi
    lo2, hi2 = centered_ci(boot, 0.3, scale=0.5)
    assert hi2 - lo2 == pytest.approx((hi - lo) / 2)
    A, B = related()
    lo, hi = bootstrap_ci(cka_linear, A, B, 30, seed=0)
    assert lo < cka_linear(A, B) < hi


def test_neighbor_family_null_and_bootstrap_equal_recomputation():
    A, B = related(n=40)
    k = 4
    lists = {"a": knn_lists(A, k), "b": knn_lists(B, k)}
    perms, draws = permutations(40, 5, seed=1), resamples(40, 4, seed=2)
    res = NeighborFamily(lists, ["mutual_knn", "jaccard_knn", "cknna"]).run(perms, draws)
    for j, p in enumerate(perms):
        for mid in ("mutual_knn", "jaccard_knn", "cknna"):
            expected = get_measure(mid)(A, B[p], k=k)
            assert res.null[("a", "b", mid)][j] == pytest.approx(expected, abs=1e-9)
        assert res.null[("b", "a", "cknna")][j] == pytest.approx(get_measure("cknna")(B[p], A, k=k), abs=1e-9)
    per = per_sentence_n2o(lists["a"].ids, lists["b"].ids, k)
    for j, d in enumerate(draws):
        assert res.boot[("a", "b", "mutual_knn")][j] == pytest.approx(per[d].mean())


def test_feature_family_null_equals_recomputation_on_the_null_rows():
    A, B = related(n=60)
    rows = np.arange(0, 60, 2)
    perms = permutations(rows.size, 4, seed=3)
    measures = ["cka_linear", "cka_linear_unbiased", "procrustes", "regression_r2", "svcca", "pwcca"]
    res = FeatureFamily({"a": A, "b": B}, measures, rows).run(perms, resamples(rows.size, 3, seed=1))
    As, Bs = A[rows], B[rows]
    for j, p in enumerate(perms):
        for mid in measures:
            assert res.null[("a", "b", mid)][j] == pytest.approx(get_measure(mid)(As, Bs[p]), abs=1e-8)
        assert res.null[("b", "a", "regression_r2")][j] == pytest.approx(get_measure("regression_r2")(Bs[p], As))
    assert res.null_observed[("a", "b", "cka_linear")] == pytest.approx(cka_linear(As, Bs))
    assert res.value[("a", "b", "cka_linear")] == pytest.approx(cka_linear(A, B))


def test_kernel_family_null_and_bootstrap_equal_recomputation():
    A, B = related(n=40)
    pos = np.arange(0, 40, 2)
    perms, draws = permutations(pos.size, 3, seed=4), resamples(pos.size, 3, seed=5)
    measures = ["cka_rbf", "rsa_spearman", "rsa_pearson"]
    res = KernelFamily({"a": A, "b": B}, measures, pos).run(perms, draws)
    As, Bs = A[pos], B[pos]
    for j, p in enumerate(perms):
        for mid in ("rsa_spearman", "rsa_pearson"):
            assert res.null[("a", "b", mid)][j] == pytest.approx(get_measure(mid)(As, Bs[p]), abs=1e-5)
    # RBF: the bandwidth stays the one of the kernel rows; the bootstrap resample's CKA equals the gathered kernels
    from n2o_core.measures.pairwise import pairwise_space

    sa, sb = pairwise_space(A, dist=False, rank=False), pairwise_space(B, dist=False, rank=False)
    Ka, Kb = dense_kernels(As, sa.sigma).K, dense_kernels(Bs, sb.sigma).K
    for j, p in enumerate(perms):
        assert res.null[("a", "b", "cka_rbf")][j] == pytest.approx(cka_gram(Ka, Kb[np.ix_(p, p)]), abs=1e-5)
    for j, d in enumerate(draws):
        assert res.boot[("a", "b", "cka_rbf")][j] == pytest.approx(cka_gram(Ka[np.ix_(d, d)], Kb[np.ix_(d, d)]))
