"""The batched feature-space draws (`measures.batched`) equal the per-draw loop they replace."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.measures.batched import basis, map_threads, pair_values, singular_values_batched
from n2o_core.measures.engine import FEATURE_IDS, VALUE_ONLY, FeatureFamily, feature_values
from n2o_core.measures.feature_space import feature_space, singular_values
from n2o_core.measures.nulls import permutations, resamples

#: The feature-space measures with draws (the released code's PWCCA has its value only).
DRAWN = [m for m in FEATURE_IDS if m not in VALUE_ONLY]


def spaces(m=40, da=7, db=5, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.standard_normal((m, 4))
    A = base @ rng.standard_normal((4, da)) + 0.3 * rng.standard_normal((m, da))
    B = base @ rng.standard_normal((4, db)) + 0.5 * rng.standard_normal((m, db))
    return A, B


def loop_null(A, B, perms):
    """The per-permutation loop the batched null replaces (FeatureFamily before batching)."""
    sa, sb = feature_space(A), feature_space(B)
    ca, cb = sa.centered(), sb.centered()
    rows = [feature_values(sa, sb, ca.T @ cb[p], ("a", "b"), DRAWN, sb.row_sq[p]) for p in perms]
    return {key: np.array([r[key] for r in rows]) for key in rows[0]}


@pytest.mark.parametrize(("da", "db"), [(7, 5), (5, 7), (6, 6), (45, 3)])
def test_batched_null_equals_the_loop(da, db):
    A, B = spaces(da=da, db=db)  # (45, 3): more dimensions than sentences on one side (rank-deficient)
    perms = permutations(A.shape[0], 6, seed=2)
    sa, sb = feature_space(A), feature_space(B)
    ba, bb = basis(sa, sa.centered()), basis(sb, sb.centered())
    got = pair_values(ba, bb, ba.U.T @ bb.U[perms], ("a", "b"), DRAWN, bb.row_sq[perms])
    want = loop_null(A, B, perms)
    assert set(got) == set(want)
    for key, v in want.items():
        np.testing.assert_allclose(got[key], v, rtol=0, atol=1e-9, err_msg=str(key))


def test_family_null_and_bootstrap_equal_the_loop():
    A, B = spaces(m=60)
    rows = np.arange(0, 60, 2)
    perms, draws = permutations(rows.size, 11, seed=3), resamples(rows.size, 5, seed=4)  # 11: chunks of 8 + 3
    res = FeatureFamily({"a": A, "b": B}, DRAWN, rows).run(perms, draws)
    want = loop_null(A[rows], B[rows], perms)
    for key, v in want.items():
        np.testing.assert_allclose(res.null[key], v, rtol=0, atol=1e-9, err_msg=str(key))
    for j, d in enumerate(draws):  # a resample re-centers each side
        sa, sb = feature_space(A[rows][d]), feature_space(B[rows][d])
        one = feature_values(sa, sb, sa.centered().T @ sb.centered(), ("a", "b"), DRAWN)
        for key, v in one.items():
            assert res.boot[key][j] == pytest.approx(v, abs=1e-9), key


def test_batched_singular_values_and_threads():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((3, 4, 6))
    for t in range(3):
        np.testing.assert_allclose(singular_values_batched(M)[t], singular_values(M[t]), atol=1e-12)
    assert map_threads(lambda x: x * x, range(7), workers=2) == [x * x for x in range(7)]
    assert map_threads(lambda x: x, [], workers=2) == []
