"""Permutation nulls and bootstrap intervals: the p-value and interval formulas, and each family's draws equal to
computing the plain formula again on every draw (the oracle, reference_formulas)."""

from __future__ import annotations

import numpy as np
import pytest
import reference_formulas as ref

from n2o_core.measures.engine import FeatureFamily, KernelFamily, NeighborFamily
from n2o_core.measures.neighborhood import knn_lists
from n2o_core.measures.nulls import centered_ci, p_value, permutations, resamples
from n2o_core.measures.run import compare_arrays


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
    f = compare_arrays({"a": A, "b": B}, measures=["cka_linear"], permutations_=100, bootstrap=0).to_frame()
    row = f.iloc[0]
    assert row.p == pytest.approx(1 / 101) and row.null_mean < 0.3 < row.value


def test_p_values_of_unrelated_spaces_are_roughly_uniform():
    rng = np.random.default_rng(11)
    ps = []
    for s in range(40):
        A, B = rng.standard_normal((30, 3)), rng.standard_normal((30, 3))
        res = compare_arrays({"a": A, "b": B}, measures=["cka_linear"], permutations_=19, bootstrap=0, seed=s)
        ps.append(res.to_frame().p.iloc[0])
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
    row = compare_arrays({"a": A, "b": B}, measures=["cka_linear"], bootstrap=30).to_frame().iloc[0]
    assert row.ci_lo < row.value < row.ci_hi
    # the interval is the oracle's replicates (the plain formula on each resample) re-centered on the value
    want = centered_ci(ref.bootstrap_values("cka_linear", A, B, 30, stream=4), ref.cka_linear(A, B))
    assert (row.ci_lo, row.ci_hi) == pytest.approx(want, abs=1e-9)


def test_neighbor_family_null_and_bootstrap_equal_recomputation():
    A, B = related(n=40)
    k = 4
    lists = {"a": knn_lists(A, k), "b": knn_lists(B, k)}
    perms, draws = permutations(40, 5, seed=1), resamples(40, 4, seed=2)
    res = NeighborFamily(lists, ["mutual_knn", "jaccard_knn", "cknna"]).run(perms, draws)
    for mid in ("mutual_knn", "jaccard_knn", "cknna"):
        tol = 2e-6 if mid == "cknna" else 1e-12  # CKNNA's neighbor similarities are float32
        want = ref.permutation_null(mid, A, B, 5, seed=1, k=k)
        np.testing.assert_allclose(res.null[("a", "b", mid)], want, rtol=0, atol=tol, err_msg=mid)
    # the other order: CKNNA(B, A) with B's rows shuffled, as the engine permutes the pair's second embedder b
    assert res.null[("b", "a", "cknna")] == pytest.approx([ref.cknna(B[p], A, k) for p in perms], abs=2e-6)
    for mid in ("mutual_knn", "jaccard_knn"):  # resampled queries
        want = ref.query_bootstrap(mid, A, B, 4, seed=2, k=k)
        np.testing.assert_allclose(res.boot[("a", "b", mid)], want, rtol=0, atol=1e-12, err_msg=mid)


def test_feature_family_null_and_bootstrap_equal_recomputation_on_the_null_rows():
    A, B = related(n=60)
    rows = np.arange(0, 60, 2)
    perms, draws = permutations(rows.size, 11, seed=3), resamples(rows.size, 3, seed=1)  # 11: chunks of 8 + 3
    measures = ["cka_linear", "cka_linear_unbiased", "procrustes", "regression_r2", "svcca", "pwcca"]
    res = FeatureFamily({"a": A, "b": B}, measures, rows).run(perms, draws)
    As, Bs = A[rows], B[rows]
    for a, b, X, Y in (("a", "b", As, Bs), ("b", "a", Bs, As)):
        for mid in measures:
            if (a, b, mid) not in res.null:  # a symmetric measure: one order
                continue
            # B's rows shuffled for either order (the engine permutes the second embedder of the pair, b)
            pa = [ref.REFERENCE[mid](X, Y[p]) if a == "a" else ref.REFERENCE[mid](X[p], Y) for p in perms]
            np.testing.assert_allclose(res.null[(a, b, mid)], pa, rtol=0, atol=1e-9, err_msg=f"{a}{b} {mid}")
            boot = [ref.REFERENCE[mid](X[d], Y[d]) for d in draws]
            np.testing.assert_allclose(res.boot[(a, b, mid)], boot, rtol=0, atol=1e-9, err_msg=f"{a}{b} {mid}")
            assert res.null_observed[(a, b, mid)] == pytest.approx(ref.REFERENCE[mid](X, Y), abs=1e-9)
    assert res.value[("a", "b", "cka_linear")] == pytest.approx(ref.cka_linear(A, B), abs=1e-12)


def test_kernel_family_null_and_bootstrap_equal_recomputation():
    """The null and bootstrap rows are a subset of the kernel rows: the RBF bandwidth stays the kernel rows'."""
    A, B = related(n=40)
    pos = np.arange(0, 40, 2)
    perms, draws = permutations(pos.size, 3, seed=4), resamples(pos.size, 3, seed=5)
    res = KernelFamily({"a": A, "b": B}, ["cka_rbf", "rsa_spearman", "rsa_pearson"], pos).run(perms, draws)
    As, Bs = A[pos], B[pos]
    for mid in ("rsa_spearman", "rsa_pearson"):
        want = [ref.REFERENCE[mid](As, Bs[p]) for p in perms]
        np.testing.assert_allclose(res.null[("a", "b", mid)], want, rtol=0, atol=2e-6, err_msg=mid)
    Ka, Kb = ref.rbf_kernel(As, ref.rbf_sigma(A)), ref.rbf_kernel(Bs, ref.rbf_sigma(B))
    null = [ref.cka(Ka, Kb[np.ix_(p, p)]) for p in perms]
    np.testing.assert_allclose(res.null[("a", "b", "cka_rbf")], null, rtol=0, atol=2e-6)
    boot = [ref.cka(Ka[np.ix_(d, d)], Kb[np.ix_(d, d)]) for d in draws]
    np.testing.assert_allclose(res.boot[("a", "b", "cka_rbf")], boot, rtol=0, atol=1e-7)  # sigma: a float32 median
