"""What leaves each measure unchanged (and what does not)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist
from scipy.stats import ortho_group

from n2o_core.measures.cca import pwcca, svcca
from n2o_core.measures.geometry import procrustes, regression_r2
from n2o_core.measures.kernel import (
    cka_linear,
    cka_linear_unbiased,
    cka_rbf,
    rsa_from_distances,
    rsa_pearson,
    rsa_spearman,
)
from n2o_core.measures.neighborhood import cknna, jaccard_knn, mutual_knn


@pytest.fixture
def spaces():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((60, 6))
    B = A @ rng.standard_normal((6, 4)) + 0.6 * rng.standard_normal((60, 4))
    Q = ortho_group.rvs(6, random_state=3)
    return A, B, Q


@pytest.mark.parametrize("fn", [cka_linear, cka_linear_unbiased, procrustes, cka_rbf, svcca])
def test_orthogonal_transform_isotropic_scaling_and_translation(spaces, fn):
    A, B, Q = spaces
    assert fn(3.5 * A @ Q + 2.0, B) == pytest.approx(fn(A, B), abs=1e-6)


@pytest.mark.parametrize("fn", [rsa_pearson, rsa_spearman, mutual_knn, jaccard_knn, cknna])
def test_cosine_measures_keep_rotation_and_scaling(spaces, fn):
    A, B, Q = spaces
    assert fn(3.5 * A @ Q, B) == pytest.approx(fn(A, B), abs=1e-6)


def test_linear_cka_is_not_invariant_to_a_general_linear_map(spaces):
    A, B, _ = spaces
    M = np.diag([1.0, 10.0, 0.1, 1.0, 3.0, 0.5])
    assert abs(cka_linear(A @ M, B) - cka_linear(A, B)) > 1e-3


def test_regression_and_pwcca_keep_any_invertible_map_of_the_predictor_side(spaces):
    A, B, _ = spaces
    M = np.random.default_rng(1).standard_normal((6, 6))
    assert regression_r2(A @ M, B) == pytest.approx(regression_r2(A, B))
    assert pwcca(B, A @ M) == pytest.approx(pwcca(B, A))


def test_rsa_spearman_unchanged_by_any_monotone_map_of_distances(spaces):
    A, B, _ = spaces
    da, db = pdist(A, "cosine"), pdist(B, "cosine")
    base = rsa_from_distances(da, db)
    assert rsa_from_distances(np.exp(3 * da), np.sqrt(db)) == pytest.approx(base)
    assert rsa_from_distances(da**3, np.log1p(db)) == pytest.approx(base)
    # Pearson only under affine maps
    assert rsa_from_distances(2 * da + 1, db, "pearson") == pytest.approx(rsa_from_distances(da, db, "pearson"))
    assert rsa_from_distances(np.exp(3 * da), db, "pearson") != pytest.approx(rsa_from_distances(da, db, "pearson"))


def test_symmetric_measures_are_symmetric(spaces):
    A, B, _ = spaces
    for fn in (cka_linear, cka_linear_unbiased, cka_rbf, rsa_pearson, rsa_spearman, procrustes, svcca):
        assert fn(A, B) == pytest.approx(fn(B, A), abs=1e-6)
    for fn in (mutual_knn, jaccard_knn):
        assert fn(A, B, 5) == pytest.approx(fn(B, A, 5))
    # CKNNA's masks are not symmetric (the k-NN relation is not): the two orders differ, slightly
    assert cknna(A, B, 5) == pytest.approx(cknna(B, A, 5), rel=0.02)
