"""Cosine k-nearest-neighbor search: exact (blocked BLAS + thresholded top-k) and approximate (pynndescent).

Conventions (tested against a brute-force reference):
- Cosine similarity of L2-normalized rows; rows are normalized block by block, so raw (or float16) arrays can
  be searched without a normalized copy of the corpus.
- Ties are broken by the lower corpus index, so results are deterministic.
- A query is excluded from its own neighbors by its index (an exact duplicate of it is still a neighbor).
- Zero vectors (a sentence with no in-vocabulary token) have no direction. They are ranked after every real
  candidate (used only if fewer than k remain), and a zero-vector *query* has no neighbors: its row is all
  `NO_NEIGHBOR` (-1), so it overlaps with nothing. Similarities are never NaN.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from .errors import N2OError

NO_NEIGHBOR = -1
_ZERO_SCORE = np.float32(-3.0)  # below any cosine: zero-vector candidates rank last
_EXCLUDED = np.float32(-np.inf)
_NO_ID = np.iinfo(np.int64).max  # empty candidate slot
# BLAS rounding depends on block shapes, so equal cosines can differ by an ulp in the float32 scan. The scan
# keeps SLACK extra candidates; these are re-scored in float64 (the same for every blocking) and ordered by
# (score rounded to TIE_DECIMALS, lower id) -- so ties, e.g. from duplicate rows, resolve by index.
SLACK = 16
TIE_DECIMALS = 9

Matrix = "np.ndarray | sp.csr_matrix"
Progress = Callable[[int, int], None]


@dataclass
class Neighbors:
    """k nearest neighbors of q queries, nearest first."""

    ids: np.ndarray  # (q, k) int64, NO_NEIGHBOR where a query has no neighbors (zero vector)
    sims: np.ndarray  # (q, k) float32 cosine, 0.0 where ids == NO_NEIGHBOR
    recall: float | None = None  # approximate search: recall@k against exact on held-out queries
    seconds: float = 0.0
    # approximate search only: held-out query ids and their exact / approximate neighbor ids (h, k)
    check_ids: np.ndarray | None = None
    check_exact: np.ndarray | None = None
    check_approx: np.ndarray | None = None

    @property
    def k(self) -> int:
        return int(self.ids.shape[1])

    def head(self, k: int) -> Neighbors:
        """The k nearest (k <= self.k): a view, no search."""
        if k > self.k:
            raise N2OError(f"k={k} is larger than the {self.k} neighbors computed.")
        if self.check_ids is None or self.check_exact is None or self.check_approx is None:
            return Neighbors(self.ids[:, :k], self.sims[:, :k], self.recall, self.seconds)
        ex, ap = self.check_exact[:, :k], self.check_approx[:, :k]
        return Neighbors(self.ids[:, :k], self.sims[:, :k], recall_of(ap, ex), self.seconds, self.check_ids, ex, ap)


@dataclass(frozen=True)
class Standardizer:
    """Per-dimension standardization applied before L2 normalization (z-normalization, Eger et al.)."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray, block: int = 65536) -> Standardizer:
        """Mean and std per dimension over the corpus, in blocks (float64 accumulators)."""
        n, d = X.shape
        s = np.zeros(d, np.float64)
        ss = np.zeros(d, np.float64)
        for i in range(0, n, block):
            b = np.asarray(X[i : i + block], dtype=np.float64)
            s += b.sum(0)
            ss += (b * b).sum(0)
        mean = s / max(n, 1)
        var = np.maximum(ss / max(n, 1) - mean * mean, 0.0)
        std = np.sqrt(var)
        std[std < 1e-12] = 1.0  # constant dimension: leave unscaled
        return cls(mean.astype(np.float32), (1.0 / std).astype(np.float32))


def normalize_rows(block: np.ndarray, standardizer: Standardizer | None = None) -> tuple[np.ndarray, np.ndarray]:
    """float32 L2-normalized copy of `block` and a mask of its zero rows (which stay zero)."""
    if standardizer is not None:
        raw = np.asarray(block)
        zero_raw = ~np.any(raw != 0, axis=1)
        b = (raw.astype(np.float32) - standardizer.mean) * standardizer.scale
        b[zero_raw] = 0.0
    else:
        b = np.asarray(block, dtype=np.float32)
    norms = np.sqrt(np.einsum("ij,ij->i", b, b, dtype=np.float64))
    if not np.all(np.isfinite(norms)):
        raise N2OError("The vectors contain NaN or infinite values.")
    zero = norms == 0
    inv = np.divide(1.0, norms, out=np.zeros_like(norms), where=~zero).astype(np.float32)
    return np.multiply(b, inv[:, None], dtype=np.float32), zero


def _normalize_sparse(block: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray]:
    b = sp.csr_matrix(block, dtype=np.float32, copy=True)
    norms = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
    zero = norms == 0
    inv = np.zeros_like(norms)
    inv[~zero] = 1.0 / norms[~zero]
    return sp.csr_matrix(sp.diags(inv.astype(np.float32)) @ b), zero


def _prepare(block, standardizer):
    if sp.issparse(block):
        return _normalize_sparse(block)
    return normalize_rows(block, standardizer)


def _prepare64(block, standardizer):
    """float64 L2-normalized rows (from the raw values) and their zero mask, for exact re-scoring."""
    if sp.issparse(block):
        b = sp.csr_matrix(block, dtype=np.float64, copy=True)
        norms = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
        zero = norms == 0
        inv = np.where(zero, 0.0, 1.0 / np.where(zero, 1.0, norms))
        return sp.csr_matrix(sp.diags(inv) @ b), zero
    b = np.array(block, dtype=np.float64, copy=True)
    zero = ~np.any(b != 0, axis=1)
    if standardizer is not None:
        b -= standardizer.mean.astype(np.float64)
        b *= standardizer.scale.astype(np.float64)
        b[zero] = 0.0
    norms = np.sqrt(np.einsum("ij,ij->i", b, b))
    nz = norms > 0
    b[nz] /= norms[nz, None]
    return b, zero | ~nz


def _scores(Q, Xb) -> np.ndarray:
    if sp.issparse(Q) or sp.issparse(Xb):
        S = Q @ Xb.T
        return np.asarray(S.toarray() if sp.issparse(S) else S, dtype=np.float32)
    return Q @ Xb.T


def _search(
    X,
    Qn: np.ndarray | sp.csr_matrix,
    q_ids: np.ndarray | None,
    k: int,
    block: int,
    standardizer,
    progress: Callable[[int], None] | None,
    *,
    offset: int = 0,
    serial: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Scan the corpus in blocks; BLAS scores each block, the compiled kernel keeps the running top-k.

    X holds corpus rows offset .. offset + len(X) (a shard); q_ids are global corpus ids (or None).
    """
    from ._topk_kernel import update_topk, update_topk_serial

    kernel = update_topk_serial if serial else update_topk
    n = X.shape[0]
    q = Qn.shape[0]
    top_s = np.full((q, k), -np.inf, np.float32)
    top_i = np.full((q, k), _NO_ID, np.int64)
    for start in range(0, n, block):
        stop = min(start + block, n)
        Xb, zb = _prepare(X[start:stop], standardizer)
        S = np.ascontiguousarray(_scores(Qn, Xb), dtype=np.float32)
        if zb.any():
            S[:, zb] = _ZERO_SCORE
        excluded = np.full(q, -1, np.int64)
        if q_ids is not None:
            inside = (q_ids >= offset + start) & (q_ids < offset + stop)
            excluded[inside] = q_ids[inside] - offset - start
        kernel(S, top_s, top_i, offset + start, excluded)
        if progress is not None:
            progress(stop - start)
    return top_s, top_i


def default_block(n: int, q: int, sparse: bool = False) -> int:
    """Corpus rows per block: one float32 score block of about 64 MB, at least 1,024 rows."""
    block = int(min(max(n, 1), max(1024, (16 << 20) // max(q, 1))))
    return min(block, 16384) if sparse else block


def candidate_count(k: int, n: int, corpus_queries: bool) -> int:
    """How many candidates the float32 scan keeps per query (k + SLACK, capped by the corpus)."""
    return min(k + SLACK, n - 1 if corpus_queries else n)


def search_shard(
    X_shard,
    offset: int,
    Qraw,
    query_ids: np.ndarray | None,
    kk: int,
    *,
    standardizer: Standardizer | None = None,
    block: int | None = None,
    serial: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-kk float32 candidates (scores, global ids) of the queries among corpus rows offset .. offset+len.

    The building block of sharded search: merge shards with `merge_candidates`, then `finish_exact`.
    Unfilled slots are (-inf, a sentinel id) and sort last.
    """
    Qn, _ = _prepare(Qraw, standardizer)
    m = X_shard.shape[0]
    if block is None:
        block = default_block(m, Qn.shape[0], sp.issparse(X_shard))
    ids = None if query_ids is None else np.asarray(query_ids, np.int64)
    return _search(X_shard, Qn, ids, kk, block, standardizer, None, offset=offset, serial=serial)


def merge_candidates(parts: list[tuple[np.ndarray, np.ndarray]], kk: int) -> tuple[np.ndarray, np.ndarray]:
    """Global top-kk from per-shard candidate lists: score descending, lower id first among equal scores."""
    S = np.concatenate([p[0] for p in parts], axis=1)
    ids = np.concatenate([p[1] for p in parts], axis=1)
    order = np.lexsort((ids, -S.astype(np.float64)), axis=-1)[:, :kk]
    return np.take_along_axis(S, order, 1), np.take_along_axis(ids, order, 1)


def finish_exact(
    X,
    Qraw,
    top_s: np.ndarray,
    top_i: np.ndarray,
    k: int,
    *,
    standardizer: Standardizer | None = None,
    started: float | None = None,
) -> Neighbors:
    """Exact float64 re-scoring of the candidates, cut to k, zero-vector queries emptied."""
    _, qzero = _prepare(Qraw, standardizer)
    top_s, top_i = _rescore(X, Qraw, top_s, top_i, k, standardizer)
    return _finish(top_s, top_i, qzero, time.perf_counter() - started if started else 0.0)


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
) -> Neighbors:
    """Exact cosine k-NN of corpus rows `query_ids` (self excluded), or of external `queries` vectors.

    X may be float32/float16 (memory-mapped is fine; float16 is converted to float32 one block at a time) or
    CSR. Never holds a full similarity matrix: the corpus is scanned in blocks of `block` rows against all
    queries, keeping a running top-k behind a per-query threshold.
    """
    t0 = time.perf_counter()
    n = X.shape[0]
    query_ids, Qraw = _check_queries(X, k, query_ids, queries)
    Qn, qzero = _prepare(Qraw, standardizer)
    q = Qn.shape[0]
    if q == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    if block is None:
        block = default_block(n, q, sp.issparse(X))
    done = [0]

    def tick(m: int) -> None:
        done[0] += m
        if progress is not None:
            progress(done[0], n)

    kk = candidate_count(k, n, query_ids is not None)
    ctx = threadpool_limits(limits=threads, user_api="blas") if threads else nullcontext()
    with ctx:
        top_s, top_i = _search(X, Qn, query_ids, kk, block, standardizer, tick)
    top_s, top_i = _rescore(X, Qraw, top_s, top_i, k, standardizer)
    return _finish(top_s, top_i, qzero, time.perf_counter() - t0)


def _check_queries(X, k: int, query_ids, queries):
    """Validated (query_ids or None, raw query rows)."""
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
    if k > n:
        raise N2OError(f"k={k} is too large for a corpus of {n} sentences.")
    return None, queries


def _rescore(X, Qraw, top_s: np.ndarray, top_i: np.ndarray, k: int, standardizer) -> tuple[np.ndarray, np.ndarray]:
    """Exact float64 scores for every kept candidate, reordered by (rounded score desc, id asc), cut to k.

    Re-scoring every row (not only rows with near-ties) makes the similarities independent of how the corpus
    was blocked or sharded, so sharded (Dask) and single-process searches return identical arrays.
    """
    q, kk = top_i.shape
    valid = np.isfinite(top_s) & (top_i != _NO_ID)
    score = np.full((q, kk), -np.inf)
    flat = np.unique(top_i[valid])
    if flat.size:
        C, cz = _prepare64(X[flat], standardizer)
        Qd, _ = _prepare64(Qraw, standardizer)
        pos = np.searchsorted(flat, np.where(valid, top_i, flat[0]))
        sparse = sp.issparse(C)
        width = flat.size if sparse else kk * C.shape[1]
        step = max(1, (32 << 20) // max(1, width * 8))
        for a in range(0, q, step):
            b = min(q, a + step)
            if sparse:  # (rows, candidates) products, then each row's own candidates
                M = np.asarray((Qd[a:b] @ C.T).toarray())
                sc = np.take_along_axis(M, pos[a:b], 1)
            else:
                sc = np.einsum("rcd,rd->rc", C[pos[a:b]], Qd[a:b])
            sc[cz[pos[a:b]]] = _ZERO_SCORE
            score[a:b] = np.where(valid[a:b], sc, -np.inf)
    score = np.round(score, TIE_DECIMALS)
    ids = np.where(valid, top_i, _NO_ID)
    order = np.lexsort((ids, -score), axis=-1)[:, :k]
    return np.take_along_axis(score, order, 1).astype(np.float32), np.take_along_axis(ids, order, 1)


def _finish(top_s: np.ndarray, top_i: np.ndarray, qzero: np.ndarray, seconds: float) -> Neighbors:
    ids = top_i.copy()
    sims = top_s.copy()
    missing = ~np.isfinite(sims) | (ids == _NO_ID)
    sims[sims == _ZERO_SCORE] = 0.0  # zero-vector neighbor: cosine is 0 by convention
    ids[missing] = NO_NEIGHBOR
    sims[missing] = 0.0
    ids[qzero] = NO_NEIGHBOR
    sims[qzero] = 0.0
    np.clip(sims, -1.0, 1.0, out=sims)
    return Neighbors(ids, sims.astype(np.float32), None, seconds)


# --------------------------------------------------------------------------- approximate


def approx_n_neighbors(k: int, n: int, n_neighbors: int | None = None) -> int:
    """Graph degree of the pynndescent index: at least k + 1 and 60 (recall@50 ~0.77 at 30, ~0.98 at 100)."""
    return int(min(n_neighbors or max(k + 1, 60), n - 1))


def build_index(Xn, k: int, *, n_neighbors: int | None = None, seed: int = 0):
    """A prepared pynndescent index over L2-normalized rows Xn (dense: inner product; CSR: cosine).

    Not persisted: pynndescent indexes are saved only by pickling, which the cache never does. (Rebuilding
    from a cached neighbor graph via `init_graph` was tried: it rebuilt in about half the time but queries then
    reached recall@50 of only ~0.1, so it is not offered.)
    """
    import pynndescent

    n = Xn.shape[0]
    nn = approx_n_neighbors(k, n, n_neighbors)
    sparse = sp.issparse(Xn)
    index = pynndescent.NNDescent(
        Xn,
        metric="cosine" if sparse else "dot",
        n_neighbors=nn,
        random_state=seed,
        tree_init=not sparse,
        low_memory=True,
        n_jobs=os.cpu_count(),
    )
    index.prepare()
    return index


def _approx_query(index, Qn, q_ids: np.ndarray, k: int, zero: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """k approximate neighbors per query: self and zero rows dropped, (score desc, id asc) order."""
    n = zero.shape[0]
    extra = min(k + 1 + int(zero.sum()), n)
    ids_raw, dist = index.query(Qn, k=extra)
    sims_raw = (1.0 - dist).astype(np.float32)
    q = len(q_ids)
    ids = np.full((q, k), NO_NEIGHBOR, np.int64)
    sims = np.zeros((q, k), np.float32)
    for r in range(q):
        keep = [(s, i) for s, i in zip(sims_raw[r], ids_raw[r]) if i != q_ids[r] and i >= 0 and not zero[i]]
        keep.sort(key=lambda t: (-t[0], t[1]))
        keep = keep[:k]
        if keep:
            ids[r, : len(keep)] = [i for _, i in keep]
            sims[r, : len(keep)] = [s for s, _ in keep]
    qz = zero[q_ids]
    ids[qz] = NO_NEIGHBOR
    sims[qz] = 0.0
    np.clip(sims, -1.0, 1.0, out=sims)
    return ids, sims


def held_out_queries(n: int, exclude: np.ndarray, sample: int = 100, seed: int = 0) -> np.ndarray:
    """Sorted corpus ids not in `exclude`, drawn with a fixed seed (the same for every embedder)."""
    rng = np.random.default_rng(seed + 7919)
    pool = np.setdiff1d(np.arange(n), exclude)
    if pool.size == 0:
        pool = np.arange(n)
    return np.sort(rng.choice(pool, size=min(sample, pool.size), replace=False))


def recall_of(approx_ids: np.ndarray, exact_ids: np.ndarray) -> float:
    """Mean fraction of each query's exact neighbors that the approximate search found (1.0 when none)."""
    hits = total = 0
    for a, e in zip(approx_ids, exact_ids):
        truth = set(int(i) for i in e if i >= 0)
        hits += len(truth.intersection(int(i) for i in a if i >= 0))
        total += len(truth)
    return hits / total if total else 1.0


def approx_knn(
    X: np.ndarray | sp.csr_matrix,
    k: int,
    query_ids: np.ndarray,
    *,
    standardizer: Standardizer | None = None,
    n_neighbors: int | None = None,
    recall_sample: int = 100,
    seed: int = 0,
    index=None,
) -> tuple[Neighbors, object]:
    """Approximate k-NN with pynndescent, checked against exact search on held-out queries.

    The result's `recall` is recall@k on `recall_sample` held-out corpus queries (not in query_ids), and
    `check_ids` / `check_exact` / `check_approx` keep those queries' exact and approximate neighbors, so the
    N2O error of the approximation can be computed for any pair of embedders. Returns (neighbors, index); pass
    the index back to avoid a rebuild. Zero-vector rows and queries
    follow the exact search's convention.
    """
    t0 = time.perf_counter()
    n = X.shape[0]
    query_ids = np.asarray(query_ids, np.int64).ravel()
    if k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    if k > n - 1:
        raise N2OError(f"k={k} is too large for a corpus of {n} sentences (at most {n - 1}).")
    Xn, zero = _prepare(X, standardizer)
    if index is None:
        index = build_index(Xn, k, n_neighbors=n_neighbors, seed=seed)
    ids, sims = _approx_query(index, Xn[query_ids], query_ids, k, zero)
    result = Neighbors(ids, sims, None, time.perf_counter() - t0)
    held = held_out_queries(n, query_ids, recall_sample, seed)
    exact = exact_knn(X, k, query_ids=held, standardizer=standardizer)
    got, _ = _approx_query(index, Xn[held], held, k, zero)
    result.recall = recall_of(got, exact.ids)
    result.check_ids, result.check_exact, result.check_approx = held, exact.ids, got
    return result, index


def measure_recall(
    X, index, k: int, *, exclude: np.ndarray, sample: int = 100, seed: int = 0, standardizer=None
) -> float:
    """recall@k of an approximate index against exact search on `sample` held-out corpus queries."""
    held = held_out_queries(X.shape[0], exclude, sample, seed)
    Xn, zero = _prepare(X, standardizer)
    exact = exact_knn(X, k, query_ids=held, standardizer=standardizer)
    got, _ = _approx_query(index, Xn[held], held, k, zero)
    return recall_of(got, exact.ids)
