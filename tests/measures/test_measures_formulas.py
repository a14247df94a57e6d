"""Each measure as the engine computes it, against its plain formula (the oracle, reference_formulas), on
hand-computable cases and against independent formulations."""

from __future__ import annotations

import numpy as np
import pytest
import reference_formulas as ref
import scipy.sparse as sp

from n2o_core.analyses.overlap import n2o
from n2o_core.errors import N2OError
from n2o_core.measures import MEASURE_IDS, MEASURES, family_ids, get_measure
from n2o_core.measures.engine import FEATURE_IDS, KERNEL_IDS, NEIGHBOR_IDS, VALUE_ONLY
from n2o_core.measures.neighborhood import knn_lists
from n2o_core.measures.pairwise import average_ranks
from n2o_core.measures.run import compare_arrays


def related(n=60, da=8, db=5, noise=0.5, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, da))
    B = A @ rng.standard_normal((da, db)) + noise * rng.standard_normal((n, db))
    return A, B


def test_registry_lists_the_thirteen_ids_in_order():
    assert MEASURE_IDS == (
        "mutual_knn",
        "jaccard_knn",
        "cknna",
        "cka_linear",
        "cka_linear_unbiased",
        "cka_rbf",
        "rsa_spearman",
        "rsa_pearson",
        "procrustes",
        "regression_r2",
        "svcca",
        "pwcca",
        "pwcca_released",
    )
    assert [m.id for m in MEASURES if not m.symmetric] == ["cknna", "regression_r2", "pwcca", "pwcca_released"]
    assert [m.id for m in MEASURES if not m.higher_is_similar] == ["procrustes"]
    assert get_measure("procrustes").similarity(0.0) == 1.0
    assert [get_measure(m).self_value for m in ("procrustes", "cka_linear")] == [0.0, 1.0]
    with pytest.raises(N2OError, match="Unknown measure 'x'"):
        get_measure("x")


def test_the_engine_reads_its_families_from_the_one_table():
    assert NEIGHBOR_IDS == family_ids("neighborhood") == ("mutual_knn", "jaccard_knn", "cknna")
    assert KERNEL_IDS == ("cka_rbf", "rsa_spearman", "rsa_pearson")
    assert FEATURE_IDS == (
        "cka_linear",
        "cka_linear_unbiased",
        "procrustes",
        "regression_r2",
        "svcca",
        "pwcca",
        "pwcca_released",
    )
    assert sorted(NEIGHBOR_IDS + FEATURE_IDS + KERNEL_IDS) == sorted(MEASURE_IDS)
    assert VALUE_ONLY == ("pwcca_released",)


def test_the_oracle_has_every_measure():
    assert set(ref.REFERENCE) == set(MEASURE_IDS)


@pytest.mark.parametrize("mid", MEASURE_IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_engine_equals_the_plain_formula_both_ways(engine_value, mid, seed):
    """Both orders (an asymmetric measure differs between them), different widths, k = 6. The kernel measures'
    triangles and CKNNA's neighbor similarities are float32 (to ~1e-7); the feature-space measures float64."""
    A, B = related(n=70, da=9, db=5, noise=0.8, seed=seed)
    B = B + 2.0  # a mean: the released PWCCA adds it to its directions
    tol = 1e-9 if mid in FEATURE_IDS else 2e-6
    for X, Y in ((A, B), (B, A)):
        want = ref.REFERENCE[mid](X, Y, 6)
        assert engine_value(X, Y, mid, k=6) == pytest.approx(want, abs=tol), (mid, X.shape[1])


def test_one_dimension_reduces_to_the_correlation(engine_value):
    """For 1-D vectors: linear CKA = R^2 = r^2, SVCCA = PWCCA = |r|, Procrustes angle = arccos |r|."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(40)
    y = -0.7 * x + rng.standard_normal(40)
    r = np.corrcoef(x, y)[0, 1]
    X, Y = x[:, None], y[:, None]
    assert engine_value(X, Y, "cka_linear") == pytest.approx(r**2)
    assert engine_value(X, Y, "regression_r2") == pytest.approx(r**2)
    assert engine_value(X, Y, "svcca") == pytest.approx(abs(r))
    assert engine_value(X, Y, "pwcca") == pytest.approx(abs(r))
    assert engine_value(X, Y, "procrustes") == pytest.approx(np.arccos(abs(r)))


def test_unbiased_cka_is_the_gram_formula_on_the_uncentered_vectors_too(engine_value):
    """Song et al.'s estimator centers implicitly: on the raw Gram matrices it gives the same value."""
    A, B = related()
    assert engine_value(A, B, "cka_linear_unbiased") == pytest.approx(ref.cka(A @ A.T, B @ B.T, unbiased=True))
    assert engine_value(A + 5.0, B - 3.0, "cka_linear_unbiased") == pytest.approx(
        engine_value(A, B, "cka_linear_unbiased")
    )


def test_hsic_unbiased_of_a_hand_case():
    K = np.ones((4, 4))  # constant kernels carry no dependence
    assert ref.hsic(K, K, unbiased=True) == pytest.approx(0.0)


def test_rsa_equals_scipy_on_cosine_distances(engine_value):
    from scipy.spatial.distance import pdist
    from scipy.stats import pearsonr, spearmanr

    A, B = related(n=45)
    da, db = pdist(A, "cosine"), pdist(B, "cosine")
    assert engine_value(A, B, "rsa_pearson") == pytest.approx(pearsonr(da, db)[0], abs=1e-6)
    assert engine_value(A, B, "rsa_spearman") == pytest.approx(spearmanr(da, db)[0], abs=1e-6)


def test_average_ranks_share_ties_like_scipy():
    from scipy.stats import rankdata

    v = np.array([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])
    assert np.allclose(average_ranks(v), rankdata(v) - 1)


def test_regression_r2_equals_least_squares_both_ways(engine_value):
    A, B = related()
    for X, Y in ((A, B), (B, A)):
        assert engine_value(X, Y, "regression_r2") == pytest.approx(ref.regression_r2(X, Y))
    assert engine_value(A, B, "regression_r2") != pytest.approx(engine_value(B, A, "regression_r2"))


def test_procrustes_equals_the_aligned_distance(engine_value):
    """cos(theta) is the best alignment max_Q tr(A^T B Q) of the normalized spaces (scipy's orthogonal_procrustes)."""
    from scipy.linalg import orthogonal_procrustes

    A, _ = related(da=6)
    rng = np.random.default_rng(3)
    B = A @ rng.standard_normal((6, 6)) + rng.standard_normal((60, 6))
    An = (A - A.mean(0)) / np.linalg.norm(A - A.mean(0))
    Bn = (B - B.mean(0)) / np.linalg.norm(B - B.mean(0))
    Q, _ = orthogonal_procrustes(Bn, An)
    assert np.cos(engine_value(A, B, "procrustes")) == pytest.approx(np.trace(An.T @ Bn @ Q))


def test_svcca_equals_sklearn_cca_on_a_tiny_case():
    """SVCCA keeping every direction is the mean canonical correlation of scikit-learn's CCA (the oracle, then the
    engine at its 99% on a case where 99% keeps all three)."""
    from sklearn.cross_decomposition import CCA

    A, B = related(n=80, da=3, db=3, noise=1.0, seed=2)
    cca = CCA(n_components=3, scale=False, max_iter=5000, tol=1e-12).fit(A, B)
    U, V = cca.transform(A, B)
    rho = [abs(np.corrcoef(U[:, i], V[:, i])[0, 1]) for i in range(3)]
    assert ref.svcca(A, B, keep=1.0) == pytest.approx(np.mean(rho), abs=1e-4)


def test_pwcca_weights_the_canonical_correlations_by_projection_on_a(engine_value):
    """Independent formulation: QR bases, SVD, canonical variates h_i in the sentences' space."""
    A, B = related(n=70, da=5, db=4, noise=1.0, seed=4)
    Ac, Bc = A - A.mean(0), B - B.mean(0)
    Qa, _ = np.linalg.qr(Ac)
    Qb, _ = np.linalg.qr(Bc)
    Um, rho, _ = np.linalg.svd(Qa.T @ Qb, full_matrices=False)
    alpha = np.abs((Qa @ Um).T @ Ac).sum(axis=1)
    assert engine_value(A, B, "pwcca") == pytest.approx(np.sum(alpha * rho) / alpha.sum())


def test_mutual_knn_is_n2o_with_every_sentence_a_query(engine_value):
    A, B = related(n=50)
    ia, ib = knn_lists(A, 5), knn_lists(B, 5)
    assert engine_value(A, B, "mutual_knn", k=5) == pytest.approx(n2o(ia.ids, ib.ids, 5))


def test_neighborhood_hand_case(engine_value):
    """Points on a line (1-D vectors with one sign only give every cosine 1): use 2-D angles instead."""
    angles_a = np.array([0.0, 0.1, 0.22, 1.5, 1.63, 1.7])
    angles_b = np.array([0.0, 0.1, 1.55, 0.22, 1.63, 1.7])  # sentences 2 and 3 swap groups
    A = np.c_[np.cos(angles_a), np.sin(angles_a)]
    B = np.c_[np.cos(angles_b), np.sin(angles_b)]
    # k = 1: NN_A = [1, 0, 1, 4, 5, 4]; NN_B = [1, 0, 4, 1, 5, 4]: all but sentences 2 and 3 agree
    assert engine_value(A, B, "mutual_knn", k=1) == pytest.approx(4 / 6)
    assert engine_value(A, B, "jaccard_knn", k=1) == pytest.approx(4 / 6)  # 1 where they agree, 0 / 2 elsewhere


@pytest.mark.parametrize("mid", MEASURE_IDS)
def test_a_space_with_itself_gives_the_maximum(engine_value, mid):
    A, _ = related(n=50)
    assert engine_value(A, A, mid, k=5) == pytest.approx(get_measure(mid).self_value, abs=1e-5)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # inf in the products, then the error
def test_bad_input():
    A, B = related()
    with pytest.raises(N2OError, match="same sentences"):
        compare_arrays({"a": A, "b": B[:-1]}, measures=["cka_linear"])
    with pytest.raises(N2OError, match="at least 4 sentences"):
        compare_arrays({"a": A[:3], "b": B[:3]}, k=2, measures=["cka_linear"])
    with pytest.raises(N2OError, match="k must be between 1"):
        compare_arrays({"a": A, "b": B}, k=60, measures=["mutual_knn"])
    with pytest.raises(N2OError, match="NaN or infinite"):
        compare_arrays({"a": np.where(A > 2.5, np.inf, A), "b": B}, measures=["cka_linear"], permutations_=0)
    # sparse vectors enter through their truncated SVD, with a value
    res = compare_arrays({"a": sp.csr_matrix(np.abs(A)), "b": B}, measures=["cka_linear"], permutations_=0)
    assert 0.0 < res.value("a", "b", "cka_linear") <= 1.0
