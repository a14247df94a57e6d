"""Compiled running top-k update (numba): one pass over a score block.

`update_topk` runs rows in parallel (numba threads); `update_topk_serial` is the same loop on one thread, for
callers that already run several searches at once (Dask worker threads), where concurrent parallel launches
from different threads are not allowed by numba's default threading layer. Both share `_update_row`.
"""

from __future__ import annotations

import numba


@numba.njit(cache=True, nogil=True, inline="always")
def _update_row(s_row, top_s, top_i, offset, ex):  # pragma: no cover - compiled
    """Merge one query's scores s_row (B,) into its sorted top-k arrays (k,) in place.

    Column c is corpus id offset + c; ids grow with c and with every later block, so a candidate enters only
    if strictly better than the current k-th score, and goes after existing equal scores (lower ids first).
    Column `ex` (>= 0) is the query itself and is skipped.
    """
    k = top_s.shape[0]
    thr = top_s[k - 1]
    for c in range(s_row.shape[0]):
        s = s_row[c]
        if s > thr and c != ex:
            j = k - 1
            while j > 0 and top_s[j - 1] < s:
                top_s[j] = top_s[j - 1]
                top_i[j] = top_i[j - 1]
                j -= 1
            top_s[j] = s
            top_i[j] = offset + c
            thr = top_s[k - 1]


@numba.njit(parallel=True, cache=True, nogil=True)
def update_topk(S, top_s, top_i, offset, excluded_col):  # pragma: no cover - compiled
    """Merge score block S (q, B) into sorted per-row top-k arrays in place; excluded_col[r] >= 0 marks the
    column of query r itself."""
    for r in numba.prange(S.shape[0]):
        _update_row(S[r], top_s[r], top_i[r], offset, excluded_col[r])


@numba.njit(cache=True, nogil=True)
def update_topk_serial(S, top_s, top_i, offset, excluded_col):  # pragma: no cover - compiled
    """Single-threaded update_topk (same semantics)."""
    for r in range(S.shape[0]):
        _update_row(S[r], top_s[r], top_i[r], offset, excluded_col[r])
