"""What the Measures page says of a comparison beside its matrices (n2o_core.measures.summary)."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest

from n2o_core.measures.run import compare_arrays
from n2o_core.measures.summary import pwcca_gap


def test_pwcca_gap_is_the_released_value_minus_the_papers_over_the_ordered_pairs():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((150, 6))
    arrays = {"a": A, "b": A @ rng.standard_normal((6, 9)) + 0.5 * rng.standard_normal((150, 9))}
    arrays["c"] = rng.standard_normal((150, 5))
    cmp = compare_arrays(arrays, measures=["pwcca", "pwcca_released"], permutations_=0, bootstrap=0)
    gap = pwcca_gap(cmp)
    assert gap is not None
    diffs = {(a, b): cmp.value(a, b, "pwcca_released") - cmp.value(a, b, "pwcca") for a, b in permutations("abc", 2)}
    assert gap.pairs == 6
    assert (gap.low, gap.high) == pytest.approx((min(diffs.values()), max(diffs.values())))
    top = max(diffs, key=lambda p: abs(diffs[p]))
    assert (gap.a, gap.b) == top
    assert (gap.paper, gap.released) == pytest.approx((cmp.value(*top, "pwcca"), cmp.value(*top, "pwcca_released")))
    assert pwcca_gap(compare_arrays(arrays, measures=["pwcca"], permutations_=0, bootstrap=0)) is None
