"""The batched feature-space formulas (`measures.batched`): many draws at once equal the plain formula on each
draw (the oracle, reference_formulas), and a value is one such draw."""

from __future__ import annotations

import numpy as np
import pytest
import reference_formulas as ref

from n2o_core.measures.batched import basis, map_threads, pair_values, singular_values_batched, values
from n2o_core.measures.engine import FEATURE_IDS, VALUE_ONLY
from n2o_core.measures.feature_space import cross, feature_space
from n2o_core.measures.nulls import permutations

#: The feature-space measures with draws (the released code's PWCCA has its value only).
DRAWN = [m for m in FEATURE_IDS if m not in VALUE_ONLY]


def spaces(m=40, da=7, db=5, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((m, 4))
    A = base @ rng.standard_normal((4, da)) + 0.3 * rng.standard_normal((m, da))
    B = base @ rng.standard_normal((4, db)) + 0.5 * rng.standard_normal((m, db))
    return A, B


def oracle(mid: str, A: np.ndarray, B: np.ndarray) -> tuple[float, float]:
    """The plain formula for (a, b) and, for an asymmetric measure, (b, a)."""
    return ref.REFERENCE[mid](A, B), ref.REFERENCE[mid](B, A)


@pytest.mark.parametrize(("da", "db"), [(7, 5), (5, 7), (6, 6), (45, 3)])
def test_batched_null_equals_the_plain_formula_on_each_permutation(da, db):
    A, B = spaces(da=da, db=db)  # (45, 3): more dimensions than sentences on one side (rank-deficient)
    perms = permutations(A.shape[0], 6, seed=2)
    sa, sb = feature_space(A), feature_space(B)
    ba, bb = basis(sa, sa.centered()), basis(sb, sb.centered())
    got = pair_values(ba, bb, ba.U.T @ bb.U[perms], ("a", "b"), DRAWN, bb.row_sq[perms])
    assert set(got) == {("a", "b", m) for m in DRAWN} | {("b", "a", "regression_r2"), ("b", "a", "pwcca")}
    for mid in DRAWN:
        want = np.array([oracle(mid, A, B[p]) for p in perms])
        np.testing.assert_allclose(got[("a", "b", mid)], want[:, 0], rtol=0, atol=1e-9, err_msg=mid)
        if ("b", "a", mid) in got:
            np.testing.assert_allclose(got[("b", "a", mid)], want[:, 1], rtol=0, atol=1e-9, err_msg=mid)


@pytest.mark.parametrize(("da", "db"), [(7, 5), (45, 3)])
def test_a_value_is_one_draw_from_the_cross_product(da, db):
    A, B = spaces(da=da, db=db)
    sa, sb = feature_space(A), feature_space(B)
    got = values(sa, sb, cross(sa, sb), ("a", "b"), DRAWN)
    for (a, _, mid), v in got.items():
        want = oracle(mid, A, B)[0 if a == "a" else 1]
        assert v == pytest.approx(want, abs=1e-9), mid


def test_batched_singular_values_and_threads():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((3, 4, 6))
    for t in range(3):
        np.testing.assert_allclose(singular_values_batched(M)[t], np.linalg.svd(M[t], compute_uv=False), atol=1e-12)
    assert map_threads(lambda x: x * x, range(7), workers=2) == [x * x for x in range(7)]
    assert map_threads(lambda x: x, [], workers=2) == []
