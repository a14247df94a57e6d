"""The compiled selection kernel against a plain-Python statement of its contract."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.search._topk_kernel import select_block


def _reference(S, inv, q_ids, first, top_s, top_i):
    """select_block's contract, one score at a time: a candidate enters when strictly above the kk-th score,
    after equal scores (ties keep the lower id, rows come in id order); the query's own column is skipped."""
    top_s, top_i = top_s.copy(), top_i.copy()
    kk = top_s.shape[1]
    for r in range(S.shape[0]):
        for c in range(S.shape[1]):
            s = np.float32(S[r, c] * inv[c])
            if c == q_ids[r] - first or not s > top_s[r, kk - 1]:
                continue
            j = kk - 1
            while j > 0 and top_s[r, j - 1] < s:
                top_s[r, j], top_i[r, j] = top_s[r, j - 1], top_i[r, j - 1]
                j -= 1
            top_s[r, j], top_i[r, j] = s, first + c
    return top_s, top_i


@pytest.mark.parametrize("B", [64, 200, 64 * 3 + 17, 5])
def test_select_block_equals_the_reference(B):
    rng = np.random.default_rng(B)
    q, kk, first = 9, 7, 1000
    S = rng.choice(np.linspace(-1, 1, 11, dtype=np.float32), size=(q, B))  # few values: many ties
    inv = rng.choice(np.array([0.5, 1.0, 2.0], np.float32), size=B)
    # own columns inside the first full chunk, a later chunk, the tail, and outside the block
    q_ids = np.array([first, first + 3, first + 70, first + B - 1, first + B, 5, first + 63, first + 64, -1])
    top_s = np.full((q, kk), -np.inf, np.float32)
    top_i = np.full((q, kk), -1, np.int64)
    top_s[1:4] = np.sort(rng.uniform(0.2, 0.8, size=(3, kk)).astype(np.float32), axis=1)[:, ::-1]  # a threshold
    top_i[1:4] = rng.integers(0, first, size=(3, kk))
    # rows 4, 5 and 8: one score just above the threshold 0.5, the rest below it, in the first chunk, the last, the tail
    for r, c in zip((4, 5, 8), (0, B // 2, B - 1)):
        S[r] = -1.0
        S[r, c] = np.float32(0.5000001) / inv[c]
        top_s[r] = np.float32(0.5)
    want_s, want_i = _reference(S, inv, q_ids, first, top_s, top_i)
    assert all(first + c in want_i[r] for r, c in zip((4, 5, 8), (0, B // 2, B - 1)))
    select_block(S, inv, q_ids, first, top_s, top_i)
    np.testing.assert_array_equal(top_i, want_i)
    np.testing.assert_array_equal(top_s, want_s)
