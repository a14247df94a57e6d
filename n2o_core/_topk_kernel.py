"""Compiled running top-k update (numba): one pass over a score block.

`update_topk` runs rows in parallel (numba threads); `update_topk_serial` is the same loop on one thread, for
callers that already run several searches at once (Dask worker threads), where concurrent parallel launches
from different threads are not allowed by numba's default threading layer.
"""

from __future__ import annotations

import numba


@numba.njit(parallel=True, cache=True, nogil=True)
def update_topk(S, top_s, top_i, offset, excluded_col):  # pragma: no cover - compiled
    """Merge score block S (q, B) into sorted per-row top-k arrays in place.

    Column c of S is corpus id offset + c; ids grow with c and with every later block, so a candidate enters
    only if strictly better than the current k-th score, and goes after existing equal scores (lower ids
    first). excluded_col[r] >= 0 marks the column of query r itself, which is skipped.
    """
    q, B = S.shape
    k = top_s.shape[1]
    for r in numba.prange(q):
        thr = top_s[r, k - 1]
        ex = excluded_col[r]
        for c in range(B):
            s = S[r, c]
            if s > thr and c != ex:
                j = k - 1
                while j > 0 and top_s[r, j - 1] < s:
                    top_s[r, j] = top_s[r, j - 1]
                    top_i[r, j] = top_i[r, j - 1]
                    j -= 1
                top_s[r, j] = s
                top_i[r, j] = offset + c
                thr = top_s[r, k - 1]



@numba.njit(cache=True, nogil=True)
def update_topk_serial(S, top_s, top_i, offset, excluded_col):  # pragma: no cover - compiled
    """Single-threaded update_topk (same semantics).

    Merge score block S (q, B) into sorted per-row top-k arrays in place.

    Column c of S is corpus id offset + c; ids grow with c and with every later block, so a candidate enters
    only if strictly better than the current k-th score, and goes after existing equal scores (lower ids
    first). excluded_col[r] >= 0 marks the column of query r itself, which is skipped.
    """
    q, B = S.shape
    k = top_s.shape[1]
    for r in range(q):
        thr = top_s[r, k - 1]
        ex = excluded_col[r]
        for c in range(B):
            s = S[r, c]
            if s > thr and c != ex:
                j = k - 1
                while j > 0 and top_s[r, j - 1] < s:
                    top_s[r, j] = top_s[r, j - 1]
                    top_i[r, j] = top_i[r, j - 1]
                    j -= 1
                top_s[r, j] = s
                top_i[r, j] = offset + c
                thr = top_s[r, k - 1]

