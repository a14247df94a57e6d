"""The engine's value of one measure for one pair of arrays, as the tests compare it with the oracle."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from n2o_core.measures.run import compare_arrays

EngineValue = Callable[..., float]


def value_of(A: np.ndarray, B: np.ndarray, measure: str, k: int = 10) -> float:
    """The value of `measure` for the ordered pair (A, B) as `compare_arrays` computes it: every sentence (the
    kernel measures too), no null, no bootstrap."""
    res = compare_arrays({"a": A, "b": B}, k=k, measures=[measure], permutations_=0, bootstrap=0, subsample=0)
    return res.value("a", "b", measure)


@pytest.fixture
def engine_value() -> EngineValue:
    """`value_of`: engine_value(A, B, measure, k=10)."""
    return value_of
