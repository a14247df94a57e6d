"""What leaves each measure unchanged (and what does not), as the engine computes it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ortho_group

from n2o_core.measures import MEASURE_IDS, get_measure


@pytest.fixture
def spaces():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((60, 6))
    B = A @ rng.standard_normal((6, 4)) + 0.6 * rng.standard_normal((60, 4))
    Q = ortho_group.rvs(6, random_state=3)
    return A, B, Q


@pytest.mark.parametrize("mid", ["cka_linear", "cka_linear_unbiased", "procrustes", "cka_rbf", "svcca"])
def test_orthogonal_transform_isotropic_scaling_and_translation(engine_value, spaces, mid):
    A, B, Q = spaces
    assert engine_value(3.5 * A @ Q + 2.0, B, mid) == pytest.approx(engine_value(A, B, mid), abs=1e-6)


@pytest.mark.parametrize("mid", ["rsa_pearson", "rsa_spearman", "mutual_knn", "jaccard_knn", "cknna"])
def test_cosine_measures_keep_rotation_and_scaling(engine_value, spaces, mid):
    A, B, Q = spaces
    assert engine_value(3.5 * A @ Q, B, mid) == pytest.approx(engine_value(A, B, mid), abs=1e-6)


def test_linear_cka_is_not_invariant_to_a_general_linear_map(engine_value, spaces):
    A, B, _ = spaces
    M = np.diag([1.0, 10.0, 0.1, 1.0, 3.0, 0.5])
    assert abs(engine_value(A @ M, B, "cka_linear") - engine_value(A, B, "cka_linear")) > 1e-3


def test_regression_and_pwcca_keep_any_invertible_map_of_the_predictor_side(engine_value, spaces):
    A, B, _ = spaces
    M = np.random.default_rng(1).standard_normal((6, 6))
    assert engine_value(A @ M, B, "regression_r2") == pytest.approx(engine_value(A, B, "regression_r2"))
    assert engine_value(B, A @ M, "pwcca") == pytest.approx(engine_value(B, A, "pwcca"))


def test_released_pwcca_moves_with_a_rotation(engine_value, spaces):
    """The released code adds each dimension's mean to one direction: not rotation-invariant (as its row says)."""
    A, B, Q = spaces
    A = A + 1.0
    assert abs(engine_value(A @ Q, B, "pwcca_released") - engine_value(A, B, "pwcca_released")) > 1e-4


@pytest.mark.parametrize("mid", MEASURE_IDS)
def test_symmetric_measures_are_symmetric(engine_value, spaces, mid):
    A, B, _ = spaces
    ab, ba = engine_value(A, B, mid, k=5), engine_value(B, A, mid, k=5)
    if get_measure(mid).symmetric:
        assert ab == pytest.approx(ba, abs=1e-6)
    elif mid == "cknna":  # its masks are not symmetric (the k-NN relation is not): the two orders differ, slightly
        assert ab == pytest.approx(ba, rel=0.02) and ab != ba
    else:
        assert abs(ab - ba) > 1e-3
