"""Exact cosine k-nearest-neighbor search: `exact_knn`, and the pieces of a sharded search (`search_shard`,
`merge_candidates` in `n2o_core.search.scan`, `finish_exact`) that `n2o_core.distributed` runs on Dask.

Conventions (tested against a brute-force reference):
- Cosine similarity of L2-normalized rows (`n2o_core.search.rows`). Dense corpus rows are never normalized into a
  copy: the scan (`n2o_core.search.scan`) multiplies the normalized queries with the raw rows and scales each
  score by its row's inverse norm as it selects; the kept candidates are re-scored in float64
  (`n2o_core.search.rescore`).
- Ties are broken by the lower corpus index, so results are deterministic.
- A query is excluded from its own neighbors by its index (an exact duplicate of it is still a neighbor).
- Zero vectors (a sentence with no in-vocabulary token) have no direction. They are ranked after every real
  candidate (used only if fewer than k remain), and a zero-vector *query* has no neighbors: its row is all
  `NO_NEIGHBOR` (-1), so it overlaps with nothing. Similarities are never NaN.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.runtime.progress import Progress, counter
from n2o_core.search.rescore import finish_neighbors, rescore_candidates
from n2o_core.search.result import Neighbors
from n2o_core.search.rows import Standardizer, prepare_rows
from n2o_core.search.scan import Candidates, candidate_count, scan_candidates, search_threads

#: Rows per block of `row_inverse_norms`.
_NORM_BLOCK = 1 << 16


def check_queries(
    X: np.ndarray | sp.csr_matrix, k: int, query_ids: np.ndarray | None, queries: np.ndarray | sp.csr_matrix | None
) -> tuple[np.ndarray | None, np.ndarray | sp.csr_matrix]:
    """Validated (query_ids or None, raw query rows): exactly one of corpus `query_ids` or external `queries`
    (made to take the corpus's form: sparse for a CSR corpus, dense otherwise), and a k the corpus can serve."""
    n = X.shape[0]
    if (query_ids is None) == (queries is None):
        raise ValueError("Give exactly one of query_ids or queries.")
    if k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    if query_ids is not None:
        query_ids = np.asarray(query_ids, dtype=np.int64).ravel()
        if query_ids.size and (query_ids.min() < 0 or query_ids.max() >= n):
            raise N2OError(f"Query ids must be corpus ids in [0, {n - 1}].")
        if k > n - 1:
            raise N2OError(f"k={k} is too large for a corpus of {n} sentences (at most {n - 1}).")
        return query_ids, X[query_ids]
    assert queries is not None
    if k > n:
        raise N2OError(f"k={k} is too large for a corpus of {n} sentences.")
    if queries.ndim != 2 or queries.shape[1] != X.shape[1]:
        raise N2OError(f"The queries have shape {queries.shape}; the corpus vectors have {X.shape[1]} dimensions.")
    if sp.issparse(X) and not sp.issparse(queries):  # the query rows take the corpus's form
        queries = sp.csr_matrix(np.asarray(queries, dtype=np.float32))
    elif not sp.issparse(X) and sp.issparse(queries):
        queries = queries.toarray()  # type: ignore[union-attr]
    return None, queries


def search_shard(
    X_shard: np.ndarray | sp.csr_matrix,
    offset: int,
    Qraw: np.ndarray | sp.csr_matrix,
    query_ids: np.ndarray | None,
    kk: int,
    *,
    standardizer: Standardizer | None = None,
    block: int | None = None,
    serial: bool = True,
) -> Candidates:
    """Top-kk float32 candidates (scores, global ids) of the queries among corpus rows offset .. offset+len.

    The building block of sharded search: merge shards with `merge_candidates`, then `finish_exact`.
    Unfilled slots are (-inf, a sentinel id) and sort last.
    """
    Qn, _ = prepare_rows(Qraw, standardizer)
    ids = None if query_ids is None else np.asarray(query_ids, np.int64)
    return scan_candidates(X_shard, Qn, ids, kk, block, standardizer, None, offset=offset, serial=serial)


def finish_exact(
    X: np.ndarray | sp.csr_matrix,
    Qraw: np.ndarray | sp.csr_matrix,
    top_s: np.ndarray,
    top_i: np.ndarray,
    k: int,
    *,
    standardizer: Standardizer | None = None,
    started: float | None = None,
) -> Neighbors:
    """Exact float64 re-scoring of the candidates, cut to k, zero-vector queries emptied."""
    _, qzero = prepare_rows(Qraw, standardizer)
    top_s, top_i = rescore_candidates(X, Qraw, top_s, top_i, k, standardizer)
    return finish_neighbors(top_s, top_i, qzero, time.perf_counter() - started if started else 0.0)


def exact_knn(
    X: np.ndarray | sp.csr_matrix,
    k: int,
    query_ids: np.ndarray | None = None,
    queries: np.ndarray | sp.csr_matrix | None = None,
    *,
    standardizer: Standardizer | None = None,
    block: int | None = None,
    threads: int | None = None,
    progress: Progress | None = None,
    row_inv: np.ndarray | None = None,
) -> Neighbors:
    """Exact cosine k-NN of corpus rows `query_ids` (self excluded), or of external `queries` vectors.

    X may be float32/float16 (memory-mapped is fine, and never copied: float16 rows are converted to float32 one
    tile at a time) or CSR. Never holds a full similarity matrix: the corpus is scanned in tiles of `block` rows
    (default: `default_block`) by `threads` worker threads (default: the usable CPUs; BLAS runs on one thread in
    each), keeping a running top-(k + SLACK) per query behind a threshold, then the kept candidates are re-scored in
    float64. With a `standardizer` (z-normalization), CSR rows are standardized in factored form (`ZNormRows`),
    never densified. `queries` take the corpus's form (dense queries for a CSR corpus are made sparse, and the
    reverse). Stage "neighbors" (corpus rows scanned, of n) is reported to `progress` on the calling thread.
    `row_inv`: the inverse norms of X's rows as `row_inverse_norms` gave them (used for plain float32 rows without
    a standardizer): the scan then skips its norms pass over each tile's rows.
    """
    t0 = time.perf_counter()
    n = X.shape[0]
    if row_inv is not None and (sp.issparse(X) or np.shape(row_inv) != (n,)):
        raise ValueError(f"row_inv must hold one inverse norm per dense row ({n}), not {np.shape(row_inv)}.")
    query_ids, Qraw = check_queries(X, k, query_ids, queries)
    Qn, qzero = prepare_rows(Qraw, standardizer)
    q = Qn.shape[0]
    if q == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    tick = counter(progress, "neighbors", n)
    kk = candidate_count(k, n, query_ids is not None)
    top_s, top_i = scan_candidates(X, Qn, query_ids, kk, block, standardizer, tick, threads=threads, row_inv=row_inv)
    top_s, top_i = rescore_candidates(X, Qraw, top_s, top_i, k, standardizer)
    return finish_neighbors(top_s, top_i, qzero, time.perf_counter() - t0)


def row_inverse_norms(X: np.ndarray, threads: int | None = None) -> tuple[np.ndarray | None, bool]:
    """(inverse norms, finite) of the rows of a C-contiguous float32 array (a memory map is read once, in blocks,
    on `threads` threads), by the search's own norms kernel: 0 for a zero row.

    finite is False when a row holds NaN or an infinity. The norms are None when that is so, or when a row's norm
    is too far from 1 for float32 (< 1e-15 or > 1e15: the search normalizes such tiles in float64 itself). Given
    to `exact_knn` as `row_inv`, they spare every later search of X the norms pass over each tile: a precomputed
    vectors file gets them from the same read that checks it is finite."""
    from n2o_core.search._topk_kernel import NOT_FINITE, RESCALE, prep_f32

    if X.ndim != 2 or X.dtype != np.float32 or not X.flags.c_contiguous:
        raise ValueError(f"row_inverse_norms takes C-contiguous float32 rows, not {X.dtype} {X.shape}.")
    n = X.shape[0]
    inv = np.empty(n, np.float32)

    def block(s: int) -> int:
        return int(prep_f32(np.asarray(X[s : s + _NORM_BLOCK]), inv[s : s + _NORM_BLOCK]))

    starts = range(0, n, _NORM_BLOCK)
    workers = max(1, min(threads or search_threads(), len(starts)))
    if workers == 1:
        statuses = [block(s) for s in starts]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(workers) as pool:  # the kernel releases the GIL
            statuses = list(pool.map(block, starts))
    if NOT_FINITE in statuses:
        return None, False
    if any(st & RESCALE for st in statuses):
        return None, True
    return inv, True
