"""Compiled kernels of the binary search (numba). Each runs on the calling thread with the GIL released, so the
search's worker threads run them side by side (no numba thread pool is started).

- `hamming_block`: the Hamming distances of every query to one block of corpus rows (packed bits as uint64
  words), merged into each query's running top-kk (ascending distance, ties keep the lower id). The block is
  first copied word-major (word w of every row side by side), so the distance loop reads consecutive words and
  LLVM vectorizes it (AVX-512 VPOPCNTQ where the CPU has it, a byte-table popcount on AVX2, scalar POPCNT else).
- `sign_scores`: the float query's cosine with the ±1 sign vectors of its candidates (the rescoring step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba import types
from numba.extending import intrinsic

#: The distance of the query's own row (never enters: the running threshold starts there and only a strictly
#: smaller distance enters).
EXCLUDED = 1 << 30
_CHUNK = 64


@intrinsic
def _popcount(typingctx: Any, word: Any) -> tuple[Any, Callable[..., Any]]:  # pragma: no cover - compiled
    """The number of set bits of a uint64 (LLVM's ctpop)."""
    sig = types.uint64(types.uint64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return sig, codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _insert(top_d: np.ndarray, top_i: np.ndarray, d: int, idx: int) -> None:  # pragma: no cover - compiled
    """Put (d, idx) into the ascending arrays, after existing equal distances; the last entry drops out."""
    j = top_d.shape[0] - 1
    while j > 0 and top_d[j - 1] > d:
        top_d[j] = top_d[j - 1]
        top_i[j] = top_i[j - 1]
        j -= 1
    top_d[j] = d
    top_i[j] = idx


@numba.njit(cache=True, nogil=True)
def _select(dist: np.ndarray, first: int, top_d: np.ndarray, top_i: np.ndarray) -> None:  # pragma: no cover
    """Merge one query's distances to rows first.. into its running top-kk. A chunk of 64 distances is first
    tested as a whole against the threshold (vectorized); only chunks holding a smaller one are walked."""
    m = dist.shape[0]
    kk = top_d.shape[0]
    thr = top_d[kk - 1]
    full = m - m % _CHUNK
    for c0 in range(0, m, _CHUNK):
        c1 = min(c0 + _CHUNK, m)
        hit = False
        if c0 < full:
            seg = dist[c0 : c0 + _CHUNK]  # indexed from 0 with a constant trip count: vectorized (see select_block)
            for j in range(_CHUNK):
                hit |= seg[j] < thr
        else:
            for c in range(c0, c1):
                hit |= dist[c] < thr
        if hit:
            for c in range(c0, c1):
                d = dist[c]
                if d < thr:
                    _insert(top_d, top_i, d, first + c)
                    thr = top_d[kk - 1]


@numba.njit(cache=True, nogil=True)
def hamming_block(
    X: np.ndarray,
    first: int,
    Q: np.ndarray,
    q_ids: np.ndarray,
    zero_pos: np.ndarray,
    zero_dist: int,
    top_d: np.ndarray,
    top_i: np.ndarray,
    XT: np.ndarray,
    dist: np.ndarray,
) -> None:  # pragma: no cover - compiled
    """Merge the Hamming distances of queries Q (q, nw) uint64 to corpus rows X (m, nw) uint64 -- global ids
    first .. first + m - 1, in increasing order -- into the running top-kk (top_d int32 ascending, top_i int64).

    Rows at `zero_pos` (positions in the block) have no direction: their distance is `zero_dist` (one more than
    any real distance), so they rank after every real candidate. The column of query r itself (q_ids[r] - first)
    gets EXCLUDED and never enters. A candidate enters only when strictly nearer than the kk-th, after equal
    distances: ties keep the lower id. XT (nw, >= m) and dist (>= m) are the caller's scratch buffers.
    """
    m, nw = X.shape
    for r in range(m):
        for w in range(nw):
            XT[w, r] = X[r, w]
    d = dist[:m]
    for qi in range(Q.shape[0]):
        q0 = Q[qi, 0]
        x0 = XT[0, :m]
        for r in range(m):
            d[r] = np.int32(_popcount(x0[r] ^ q0))  # type: ignore[call-arg]  # numba intrinsic: typed when compiled
        for w in range(1, nw):
            qw = Q[qi, w]
            xw = XT[w, :m]
            for r in range(m):
                d[r] += np.int32(_popcount(xw[r] ^ qw))  # type: ignore[call-arg]  # numba intrinsic
        for z in zero_pos:
            d[z] = zero_dist
        own = q_ids[qi] - first
        if own >= 0 and own < m:
            d[own] = EXCLUDED
        _select(d, first, top_d[qi], top_i[qi])


@numba.njit(cache=True, nogil=True)
def sign_scores(bits: np.ndarray, ids: np.ndarray, Q: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """float64 cosines (q, kk) of unit float queries Q (q, dim) with the ±1 sign vectors of corpus rows
    bits[ids[r, t]] (packed big-endian, bit set = +1): (2 * sum of q_j over the set bits - sum q) / sqrt(dim).
    ids < 0 mark empty slots (-inf). Rows with no direction are the caller's to mark."""
    q, kk = ids.shape
    dim = Q.shape[1]
    out = np.empty((q, kk))
    norm = np.sqrt(np.float64(dim))
    for r in range(q):
        total = 0.0
        for j in range(dim):
            total += Q[r, j]
        for t in range(kk):
            i = ids[r, t]
            if i < 0:
                out[r, t] = -np.inf
                continue
            row = bits[i]
            s = 0.0
            for j in range(dim):
                if (row[j >> 3] >> (7 - (j & 7))) & 1:
                    s += Q[r, j]
            out[r, t] = (2.0 * s - total) / norm
    return out
