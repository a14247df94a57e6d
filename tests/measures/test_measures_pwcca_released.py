"""pwcca_released: PWCCA as the authors' released code (google/svcca) computes it, against a step-by-step
restatement of that code (`svcca_reference`, the oracle), on fixed random cases; and how it differs from the
paper's formula."""

from __future__ import annotations

import numpy as np
import pytest
import reference_formulas as ref
from svcca_reference import released_pwcca

from n2o_core.measures import display_name, get_measure
from n2o_core.measures.engine import FeatureFamily
from n2o_core.measures.feature_space import cross, feature_space
from n2o_core.measures.nulls import permutations, resamples
from n2o_core.measures.pwcca_released import RELEASED_EPSILON, pwcca_released_pair


def pwcca_released(A: np.ndarray, B: np.ndarray, epsilon: float = RELEASED_EPSILON) -> float:
    """The production value for (A, B) (`pwcca_released_pair`, what the engine calls) at this epsilon."""
    a, b = feature_space(A), feature_space(B)
    return pwcca_released_pair(a, b, cross(a, b), epsilon)[0]


def case(n: int = 300, seed: int = 7) -> dict[str, np.ndarray]:
    """Three related spaces with nonzero means (the released code adds them to its directions): 12, 20 and 12
    dimensions, so that each branch of its choice of side runs (fewer dimensions first, second, and a tie)."""
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((n, 8))
    return {
        "a": base @ rng.standard_normal((8, 12)) + 0.5 * rng.standard_normal((n, 12)) + 3.0,
        "b": base @ rng.standard_normal((8, 20)) + 0.8 * rng.standard_normal((n, 20)) + rng.standard_normal(20),
        "c": base[:, :4] @ rng.standard_normal((4, 12)) + rng.standard_normal((n, 12)) - 2.0,
    }


@pytest.mark.parametrize("first,second", [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a")])
@pytest.mark.parametrize("epsilon", [0.0, 1e-10])
def test_equals_the_released_code(first, second, epsilon):
    X = case()
    expected, _, _ = released_pwcca(X[first].T, X[second].T, epsilon)
    assert pwcca_released(X[first], X[second], epsilon) == pytest.approx(expected, abs=1e-9)


def test_the_released_value_is_not_the_papers_formula():
    """On this case the two definitions differ by 0.04 (and neither is symmetric)."""
    X = case()
    assert abs(pwcca_released(X["a"], X["b"]) - ref.pwcca(X["a"], X["b"])) > 0.02
    assert pwcca_released(X["a"], X["b"]) != pytest.approx(pwcca_released(X["b"], X["a"]), abs=1e-4)


def test_a_constant_dimension_is_dropped_by_epsilon_as_in_the_released_code():
    """MiniLM-L6 has numerically constant dimensions: the released code needs epsilon > 0 for them (with 0 its
    inverse square root is NaN and its SVD fails); the default epsilon (1e-10) drops them as it does."""
    X = case()
    A = np.column_stack([X["a"], np.full(len(X["a"]), 0.25) + 1e-12 * np.arange(len(X["a"])) % 3])
    expected, weights, _ = released_pwcca(A.T, X["b"].T, 1e-10)
    assert weights.size == 12  # the constant column was dropped
    assert pwcca_released(A, X["b"]) == pytest.approx(expected, abs=1e-9)


def test_registry_row_and_engine():
    m = get_measure("pwcca_released")
    assert display_name("pwcca_released") == "PWCCA (released code)" and not m.symmetric and m.higher_is_similar
    X = case()
    rows = np.arange(0, 300, 3)
    res = FeatureFamily(X, ["pwcca", "pwcca_released"], rows).run(permutations(rows.size, 4), resamples(rows.size, 3))
    for a, b in [("a", "b"), ("b", "a"), ("a", "c"), ("c", "b")]:
        assert res.value[(a, b, "pwcca_released")] == pytest.approx(released_pwcca(X[a].T, X[b].T)[0], abs=1e-9)
    # value only: no draws for it, the paper's formula keeps its null and bootstrap
    assert ("a", "b", "pwcca_released") not in res.null and ("a", "b", "pwcca_released") not in res.boot
    assert res.null[("a", "b", "pwcca")].size == 4 and res.boot[("a", "b", "pwcca")].size == 3


def test_a_space_with_itself_and_a_rank_deficient_side():
    X = case(n=40)
    assert pwcca_released(X["a"], X["a"]) == pytest.approx(1.0, abs=1e-6)  # epsilon's ridge: 1 - 1e-9
    rng = np.random.default_rng(1)
    low = rng.standard_normal((200, 6)) @ rng.standard_normal((6, 10))  # 10 dimensions of rank 6
    other = low[:, :4] @ rng.standard_normal((4, 12)) + rng.standard_normal((200, 12)) + 1.0
    # the released code fails there (pinv's rounding gives negative eigenvalues, their square roots NaN); the
    # production version weighs the directions beyond the rank 0, as the code's QR would
    with pytest.raises(np.linalg.LinAlgError), np.errstate(invalid="ignore"):
        released_pwcca(low.T, other.T, 1e-10)
    assert 0.0 < pwcca_released(low, other) <= 1.0
    wide = rng.standard_normal((15, 20))
    with pytest.raises(AssertionError):  # the released code refuses fewer sentences than dimensions
        released_pwcca(wide.T, wide[:, :18].T + 1.0)
    assert 0.0 < pwcca_released(wide, wide[:, :18] + 1.0) <= 1.0
