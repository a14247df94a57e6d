"""Each measure on hand-computable cases and against an independent formulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform
from scipy.stats import pearsonr, spearmanr

from n2o_core.analyses.overlap import n2o
from n2o_core.errors import N2OError
from n2o_core.measures import MEASURE_IDS, MEASURES, get_measure
from n2o_core.measures.cca import pwcca, svcca
from n2o_core.measures.geometry import procrustes, regression_r2
from n2o_core.measures.kernel import (
    cka_gram,
    cka_linear,
    cka_linear_unbiased,
    cka_rbf,
    hsic_unbiased,
    rsa_from_distances,
    rsa_pearson,
    rsa_spearman,
)
from n2o_core.measures.neighborhood import cknna, jaccard_knn, knn_lists, mutual_knn
from n2o_core.measures.pairwise import RBF_FRACTION, average_ranks


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
    with pytest.raises(N2OError, match="Unknown measure 'x'"):
        get_measure("x")


def test_one_dimension_reduces_to_the_correlation():
    """For 1-D vectors: linear CKA = R^2 = r^2, SVCCA = PWCCA = |r|, Procrustes angle = arccos |r|."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(40)
    y = -0.7 * x + rng.standard_normal(40)
    r = np.corrcoef(x, y)[0, 1]
    X, Y = x[:, None], y[:, None]
    assert cka_linear(X, Y) == pytest.approx(r**2)
    assert regression_r2(X, Y) == pytest.approx(r**2)
    assert svcca(X, Y) == pytest.approx(abs(r))
    assert pwcca(X, Y) == pytest.approx(abs(r))
    assert procrustes(X, Y) == pytest.approx(np.arccos(abs(r)))


def test_linear_cka_in_feature_space_equals_the_gram_formulas():
    A, B = related()
    Ac, Bc = A - A.mean(0), B - B.mean(0)
    assert cka_linear(A, B) == pytest.approx(cka_gram(Ac @ Ac.T, Bc @ Bc.T))
    # the unbiased estimator (Song et al. 2012, eq. 5) on the raw, uncentered Gram matrices: translation-invariant
    assert cka_linear_unbiased(A, B) == pytest.approx(cka_gram(A @ A.T, B @ B.T, unbiased=True))
    assert cka_linear_unbiased(A + 5.0, B - 3.0) == pytest.approx(cka_linear_unbiased(A, B))


def test_hsic_unbiased_of_a_hand_case():
    K = np.ones((4, 4))  # constant kernels carry no dependence
    assert hsic_unbiased(K, K) == pytest.approx(0.0)
    with pytest.raises(N2OError):
        hsic_unbiased(np.ones((3, 3)), np.ones((3, 3)))


def test_rbf_cka_equals_the_dense_kernel_formula():
    A, B = related(n=50)

    def kernel(X):
        d = pdist(X, "sqeuclidean")
        sigma = RBF_FRACTION * np.sqrt(np.median(d))
        return np.exp(-squareform(d) / (2 * sigma**2))

    assert cka_rbf(A, B) == pytest.approx(cka_gram(kernel(A), kernel(B)), rel=1e-6)


def test_rsa_equals_scipy_on_cosine_distances():
    A, B = related(n=45)
    da, db = pdist(A, "cosine"), pdist(B, "cosine")
    assert rsa_pearson(A, B) == pytest.approx(pearsonr(da, db)[0], abs=1e-6)
    assert rsa_spearman(A, B) == pytest.approx(spearmanr(da, db)[0], abs=1e-6)
    assert rsa_from_distances(da, db) == pytest.approx(spearmanr(da, db)[0])
    assert rsa_from_distances(da, db, "pearson") == pytest.approx(pearsonr(da, db)[0])


def test_average_ranks_share_ties_like_scipy():
    from scipy.stats import rankdata

    v = np.array([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])
    assert np.allclose(average_ranks(v), rankdata(v) - 1)


def test_regression_r2_equals_least_squares_both_ways():
    A, B = related()
    for X, Y in ((A, B), (B, A)):
        design = np.c_[np.ones(len(X)), X]
        coef, *_ = np.linalg.lstsq(design, Y, rcond=None)
        resid = Y - design @ coef
        expected = 1 - (resid**2).sum() / ((Y - Y.mean(0)) ** 2).sum()
        assert regression_r2(X, Y) == pytest.approx(expected)
    assert regression_r2(A, B) != pytest.approx(regression_r2(B, A))


def test_procrustes_equals_the_aligned_distance():
    """cos(theta) is the best alignment max_Q tr(A^T B Q) of the normalized spaces (scipy's orthogonal_procrustes)."""
    from scipy.linalg import orthogonal_procrustes

    A, _ = related(da=6)
    rng = np.random.default_rng(3)
    B = A @ rng.standard_normal((6, 6)) + rng.standard_normal((60, 6))
    An = (A - A.mean(0)) / np.linalg.norm(A - A.mean(0))
    Bn = (B - B.mean(0)) / np.linalg.norm(B - B.mean(0))
    Q, _ = orthogonal_procrustes(Bn, An)
    assert np.cos(procrustes(A, B)) == pytest.approx(np.trace(An.T @ Bn @ Q))


def test_svcca_equals_sklearn_cca_on_a_tiny_case():
    from sklearn.cross_decomposition import CCA

    A, B = related(n=80, da=3, db=3, noise=1.0, seed=2)
    cca = CCA(n_components=3, scale=False, max_iter=5000, tol=1e-12).fit(A, B)
    U, V = cca.transform(A, B)
    rho = [abs(np.corrcoef(U[:, i], V[:, i])[0, 1]) for i in range(3)]
    assert svcca(A, B, keep=1.0) == pytest.approx(np.mean(rho), abs=1e-4)


def test_pwcca_weights_the_canonical_correlations_by_projection_on_a():
    """Independent formulation: QR bases, SVD, canonical variates h_i in the sentences' space."""
    A, B = related(n=70, da=5, db=4, noise=1.0, seed=4)
    Ac, Bc = A - A.mean(0), B - B.mean(0)
    Qa, _ = np.linalg.qr(Ac)
    Qb, _ = np.linalg.qr(Bc)
    Um, rho, _ = np.linalg.svd(Qa.T @ Qb, full_matrices=False)
    H = Qa @ Um  # canonical variates of A (n x 4)
    alpha = np.abs(H.T @ Ac).sum(axis=1)
    assert pwcca(A, B) == pytest.approx(np.sum(alpha * rho) / alpha.sum())


def test_mutual_knn_is_n2o_with_every_sentence_a_query():
    A, B = related(n=50)
    ia, ib = knn_lists(A, 5), knn_lists(B, 5)
    assert mutual_knn(A, B, 5) == pytest.approx(n2o(ia.ids, ib.ids, 5))


def test_neighborhood_hand_case():
    """Points on a line (1-D vectors with one sign only give every cosine 1): use 2-D angles instead."""
    angles_a = np.array([0.0, 0.1, 0.2, 1.5, 1.6, 1.7])
    angles_b = np.array([0.0, 0.1, 1.55, 0.2, 1.6, 1.7])  # sentences 2 and 3 swap groups
    A = np.c_[np.cos(angles_a), np.sin(angles_a)]
    B = np.c_[np.cos(angles_b), np.sin(angles_b)]
    # k = 1: NN_A = [1, 0|2, 1, 4, 3|5, 4]; NN_B = [1, 0|3, 4, 1, 5|2, 4]
    la, lb = knn_lists(A, 1), knn_lists(B, 1)
    same = (la.ids[:, 0] == lb.ids[:, 0]).mean()
    assert mutual_knn(A, B, 1) == pytest.approx(same)
    assert jaccard_knn(A, B, 1) == pytest.approx(np.mean([1.0 if s else 0.0 for s in la.ids[:, 0] == lb.ids[:, 0]]))


def test_cknna_equals_the_dense_reference():
    """The platonic-rep formulation: dense top-k masks of the cosine kernels, the unbiased HSIC."""
    A, B = related(n=70, noise=0.8)
    k = 6

    def reference(X, Y):
        Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
        Yn = Y / np.linalg.norm(Y, axis=1, keepdims=True)
        K, L = Xn @ Xn.T, Yn @ Yn.T

        def masked(K, L):
            rows = np.arange(len(K))[:, None]
            mk, ml = np.zeros_like(K), np.zeros_like(L)
            Kh, Lh = K.copy(), L.copy()
            np.fill_diagonal(Kh, -np.inf)
            np.fill_diagonal(Lh, -np.inf)
            mk[rows, np.argsort(-Kh, axis=1)[:, :k]] = 1
            ml[rows, np.argsort(-Lh, axis=1)[:, :k]] = 1
            return hsic_unbiased(mk * ml * K, mk * ml * L)

        return masked(K, L) / np.sqrt(masked(K, K) * masked(L, L))

    assert cknna(A, B, k) == pytest.approx(reference(A, B), abs=1e-6)


@pytest.mark.parametrize("mid", MEASURE_IDS)
def test_a_space_with_itself_gives_the_maximum(mid):
    A, _ = related(n=50)
    m = get_measure(mid)
    best = 0.0 if not m.higher_is_similar else 1.0
    assert m(A, A, k=5) == pytest.approx(best, abs=1e-5)


def test_bad_input_one_sentence_each():
    A, B = related()
    with pytest.raises(N2OError, match="same sentences"):
        cka_linear(A, B[:-1])
    with pytest.raises(N2OError, match="at least 4 sentences"):
        cka_linear(A[:3], B[:3])
    with pytest.raises(N2OError, match="truncated SVD"):
        import scipy.sparse as sp

        cka_linear(sp.csr_matrix(A), B)
    with pytest.raises(N2OError, match="k=60"):
        mutual_knn(A, B, 60)
