"""Exact Hamming k-nearest-neighbor search on packed sign bits (`@binary` variants): `hamming_knn`, and the
candidate step it shares with the rescoring route (`hamming_candidates`, `n2o_core.search.sign_rescore`).

Conventions, as exact cosine search (`n2o_core.search.exact`):
- Rows are packed bits (uint8, `numpy.packbits` order: what `quantize_embeddings(..., "ubinary")` gives). The
  distance is the number of differing bits, h; the similarity reported is 1 - 2h / dim, the cosine of the two ±1
  sign vectors, so nearest first is highest similarity first.
- Ties are broken by the lower corpus index (distances are integers: ties are common), so results are
  deterministic and do not depend on threads or blocks.
- A query is excluded from its own neighbors by its index (an exact duplicate of it is still a neighbor).
- Rows flagged in `zero` have no direction (an all-zero vector before quantization): as candidates they rank
  after every real candidate (reported with similarity 0); as queries they have no neighbors (`NO_NEIGHBOR`).

The corpus is scanned in blocks of rows by worker threads (the compiled kernel releases the GIL), each keeping
its own running top-k; the workers' lists are merged by (distance, id) at the end. Memory: the packed rows are
read in place (a copy is made only when a row is not a whole number of 8-byte words), plus one block per worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.runtime.progress import Progress, counter
from n2o_core.search.exact import check_queries
from n2o_core.search.rescore import finish_neighbors
from n2o_core.search.result import Neighbors
from n2o_core.search.scan import NO_ID, ZERO_SCORE, TileQueue, run_scan, search_threads

#: Corpus rows per block (its word-major copy, 8 bytes per 64 bits per row, stays in the L2 cache).
BLOCK_ROWS = 4096
#: Below this many word comparisons (rows x queries x words) a search runs on the calling thread alone.
SMALL_SEARCH = 1 << 22


def as_words(bits: np.ndarray) -> np.ndarray:
    """Packed bit rows (n, nbytes) uint8 as (n, ceil(nbytes / 8)) uint64 words: a view when nbytes is a multiple
    of 8 and the rows are C-contiguous, else a zero-padded copy (padding adds no distance)."""
    bits = np.asarray(bits)
    if bits.ndim != 2 or bits.dtype != np.uint8:
        raise N2OError(f"Binary search takes packed bits, (n, bytes) uint8, not {bits.dtype} {bits.shape}.")
    n, nb = bits.shape
    nw = max(1, (nb + 7) // 8)
    if nb == nw * 8 and bits.flags.c_contiguous:
        return bits.view(np.uint64)
    out = np.zeros((n, nw * 8), np.uint8)
    out[:, :nb] = bits
    return out.view(np.uint64)


def _check_dim(bits: np.ndarray, dim: int) -> None:
    if not (bits.shape[1] - 1) * 8 < dim <= bits.shape[1] * 8:
        raise N2OError(f"{dim} dimensions do not pack into rows of {bits.shape[1]} bytes.")


class _HammingScan(TileQueue[int]):
    """One scan: blocks of corpus rows (their first row as the tile) that worker threads take in order, each
    merged into the taking worker's top-kk; `done` counts corpus rows."""

    def __init__(
        self, W: np.ndarray, Qw: np.ndarray, q_ids: np.ndarray, kk: int, zero: np.ndarray | None, dim: int
    ) -> None:
        self.W, self.Qw, self.q_ids, self.kk, self.dim = W, Qw, q_ids, kk, dim
        self.zero_ids = np.flatnonzero(zero) if zero is not None else np.empty(0, np.int64)
        super().__init__(list(range(0, W.shape[0], BLOCK_ROWS)))

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """An empty top-kk: every slot at the kernel's EXCLUDED distance (nothing enters at it), id NO_ID."""
        from n2o_core.search._hamming_kernel import EXCLUDED

        q = self.Qw.shape[0]
        return np.full((q, self.kk), EXCLUDED, np.int32), np.full((q, self.kk), NO_ID, np.int64)

    def run(self, top_d: np.ndarray, top_i: np.ndarray, report: Callable[[], None] | None = None) -> None:
        from n2o_core.search._hamming_kernel import hamming_block

        XT = np.empty((self.W.shape[1], BLOCK_ROWS), np.uint64)
        dist = np.empty(BLOCK_ROWS, np.int32)

        def block(s: int) -> float:
            e = min(s + BLOCK_ROWS, self.W.shape[0])
            a, b = np.searchsorted(self.zero_ids, (s, e))
            zpos = self.zero_ids[a:b] - s
            hamming_block(self.W[s:e], s, self.Qw, self.q_ids, zpos, self.dim + 1, top_d, top_i, XT, dist)
            return e - s

        self.work(block, report)


def hamming_candidates(
    bits: np.ndarray,
    dim: int,
    kk: int,
    Qbits: np.ndarray,
    q_ids: np.ndarray | None,
    *,
    zero: np.ndarray | None = None,
    threads: int | None = None,
    count_rows: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(distances int32, ids int64), both (q, kk), nearest first, ties by lower id: the kk nearest rows of `bits`
    to each query row of `Qbits` (packed alike), the query's own row `q_ids[r]` excluded (None: external
    queries). Rows in `zero` get distance dim + 1. `count_rows(rows)` is called on the calling thread."""
    W = as_words(bits)
    Qw = np.ascontiguousarray(as_words(Qbits))
    n, q = W.shape[0], Qw.shape[0]
    ids = np.full(q, -1, np.int64) if q_ids is None else np.ascontiguousarray(q_ids, np.int64)
    if zero is not None and np.shape(zero) != (n,):
        raise ValueError(f"zero must flag each of the {n} rows, not {np.shape(zero)}.")
    scan = _HammingScan(W, Qw, ids, kk, zero, dim)
    workers = 1 if n * q * W.shape[1] < SMALL_SEARCH else (threads or search_threads())
    workers = max(1, min(workers, len(scan.tiles)))
    states = [scan.state() for _ in range(workers)]
    run_scan(scan, states, n, count_rows)
    if workers == 1:
        return states[0]
    D = np.concatenate([s[0] for s in states], axis=1)
    ids_all = np.concatenate([s[1] for s in states], axis=1)
    order = np.lexsort((ids_all, D), axis=-1)[:, :kk]
    return np.take_along_axis(D, order, 1), np.take_along_axis(ids_all, order, 1)


def query_zero(zero: np.ndarray | None, query_ids: np.ndarray | None, q: int) -> np.ndarray:
    """Which queries have no direction: `zero` at the query ids (external queries: none unless the caller says)."""
    if zero is None or query_ids is None:
        return np.zeros(q, bool)
    return np.asarray(zero, bool)[query_ids]


def hamming_knn(
    bits: np.ndarray,
    dim: int,
    k: int,
    query_ids: np.ndarray | None = None,
    queries: np.ndarray | None = None,
    *,
    zero: np.ndarray | None = None,
    queries_zero: np.ndarray | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
) -> Neighbors:
    """Exact Hamming k-NN of corpus rows `query_ids` (self excluded) or of external packed `queries`, among the
    packed sign bits `bits` (n, ceil(dim / 8)) uint8 of `dim` dimensions. Similarities are 1 - 2h / dim (the
    cosine of the ±1 sign vectors); `zero` flags corpus rows with no direction, `queries_zero` external queries
    with none. `threads` workers (default: the usable CPUs); stage "neighbors" (rows scanned, of n) reported to
    `progress` on the calling thread."""
    t0 = time.perf_counter()
    _check_dim(bits, dim)
    n = bits.shape[0]
    query_ids, Qbits = check_queries(bits, k, query_ids, queries)
    Qbits = np.asarray(Qbits)
    q = Qbits.shape[0]
    if q == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    tick = counter(progress, "neighbors", n)
    from n2o_core.search._hamming_kernel import EXCLUDED

    dist, ids = hamming_candidates(bits, dim, k, Qbits, query_ids, zero=zero, threads=threads, count_rows=tick)
    sims = (1.0 - 2.0 * dist.astype(np.float64) / dim).astype(np.float32)
    sims[dist == dim + 1] = ZERO_SCORE
    ids = np.where(dist >= EXCLUDED, NO_ID, ids)
    qzero = query_zero(zero, query_ids, q) if queries_zero is None else np.asarray(queries_zero, bool)
    return finish_neighbors(sims, ids, qzero, time.perf_counter() - t0)
