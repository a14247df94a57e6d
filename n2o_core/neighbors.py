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

import math
import os
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from .errors import N2OError

NO_NEIGHBOR = -1
_ZERO_SCORE = np.float32(-3.0)  # below any cosine: zero-vector candidates rank last
_EXCLUDED = np.float32(-np.inf)
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

    @property
    def k(self) -> int:
        return int(self.ids.shape[1])

    def head(self, k: int) -> "Neighbors":
        """The k nearest (k <= self.k): a view, no search."""
        if k > self.k:
            raise N2OError(f"k={k} is larger than the {self.k} neighbors computed.")
        return Neighbors(self.ids[:, :k], self.sims[:, :k], self.recall, self.seconds)


@dataclass(frozen=True)
class Standardizer:
    """Per-dimension standardization applied before L2 normalization (z-normalization, Eger et al.)."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray, block: int = 65536) -> "Standardizer":
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
    X, Qn: np.ndarray | sp.csr_matrix, q_ids: np.ndarray | None, k: int, block: int, standardizer,
    progress: Callable[[int], None] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Scan the corpus in blocks; BLAS scores each block, the compiled kernel keeps the running top-k."""
    from ._topk_kernel import update_topk

    n = X.shape[0]
    q = Qn.shape[0]
    top_s = np.full((q, k), -np.inf, np.float32)
    top_i = np.full((q, k), np.iinfo(np.int64).max, np.int64)
    for start in range(0, n, block):
        stop = min(start + block, n)
        Xb, zb = _prepare(X[start:stop], standardizer)
        S = np.ascontiguousarray(_scores(Qn, Xb), dtype=np.float32)
        if zb.any():
            S[:, zb] = _ZERO_SCORE
        excluded = np.full(q, -1, np.int64)
        if q_ids is not None:
            inside = (q_ids >= start) & (q_ids < stop)
            excluded[inside] = q_ids[inside] - start
        update_topk(S, top_s, top_i, start, excluded)
        if progress is not None:
            progress(stop - start)
    return top_s, top_i


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

    X may be float32/float16 (memory-mapped is fine) or CSR. Never holds a full similarity matrix: the corpus is
    scanned in blocks of `block` rows against all queries, keeping a running top-k behind a per-query threshold.
    """
    t0 = time.perf_counter()
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
        Qraw = X[query_ids] if not sp.issparse(X) else X[query_ids]
    else:
        if k > n:
            raise N2OError(f"k={k} is too large for a corpus of {n} sentences.")
        Qraw = queries
    Qn, qzero = _prepare(Qraw, standardizer)
    q = Qn.shape[0]
    if q == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    if block is None:
        # one float32 score block of about 64 MB, at least 1,024 rows
        block = int(min(n, max(1024, (16 << 20) // q)))
        if sp.issparse(X):
            block = min(block, 16384)
    done = [0]

    def tick(m: int) -> None:
        done[0] += m
        if progress is not None:
            progress(done[0], n)

    kk = min(k + SLACK, n - 1 if query_ids is not None else n)
    ctx = threadpool_limits(limits=threads, user_api="blas") if threads else nullcontext()
    with ctx:
        top_s, top_i = _search(X, Qn, query_ids, kk, block, standardizer, tick)
    top_s, top_i = _rescore(X, Qraw, top_s, top_i, k, standardizer)
    return _finish(top_s, top_i, qzero, time.perf_counter() - t0)


def _rescore(X, Qraw, top_s: np.ndarray, top_i: np.ndarray, k: int, standardizer) -> tuple[np.ndarray, np.ndarray]:
    """Exact float64 scores for the kept candidates, reordered by (rounded score desc, id asc), cut to k."""
    q, kk = top_i.shape
    valid = np.isfinite(top_s) & (top_i != np.iinfo(np.int64).max)
    # only rows with a near-tie (float32 gap < 1e-5) among their first k+1 kept scores can change order
    head = top_s[:, : min(k + 1, kk)]
    with np.errstate(invalid="ignore"):
        near = np.any(np.abs(np.diff(head, axis=1)) < 1e-5, axis=1)
    score = np.where(valid, top_s.astype(np.float64), -np.inf)
    rows = np.nonzero(near)[0]
    flat = np.unique(top_i[rows][valid[rows]])
    if flat.size:
        C, cz = _prepare64(X[flat], standardizer)
        Qd, _ = _prepare64(Qraw[rows], standardizer)
        pos = np.minimum(np.searchsorted(flat, np.where(valid, top_i, flat[0])), flat.size - 1)
        sparse = sp.issparse(C)
        for j, r in enumerate(rows):
            v = valid[r]
            if v.any():
                if sparse:
                    score[r, v] = np.asarray((C[pos[r, v]] @ Qd[j].T).todense()).ravel()
                else:
                    score[r, v] = C[pos[r, v]] @ Qd[j]
        score[rows] = np.where((valid & cz[pos])[rows], _ZERO_SCORE, score[rows])
    score = np.round(score, TIE_DECIMALS)
    ids = np.where(valid, top_i, np.iinfo(np.int64).max)
    order = np.lexsort((ids, -score), axis=-1)[:, :k]
    return np.take_along_axis(score, order, 1).astype(np.float32), np.take_along_axis(ids, order, 1)


def _finish(top_s: np.ndarray, top_i: np.ndarray, qzero: np.ndarray, seconds: float) -> Neighbors:
    ids = top_i.copy()
    sims = top_s.copy()
    missing = ~np.isfinite(sims) | (ids == np.iinfo(np.int64).max)
    sims[sims == _ZERO_SCORE] = 0.0  # zero-vector neighbor: cosine is 0 by convention
    ids[missing] = NO_NEIGHBOR
    sims[missing] = 0.0
    ids[qzero] = NO_NEIGHBOR
    sims[qzero] = 0.0
    np.clip(sims, -1.0, 1.0, out=sims)
    return Neighbors(ids, sims.astype(np.float32), None, seconds)


# --------------------------------------------------------------------------- approximate


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
    """Approximate k-NN with pynndescent; recall@k against exact search on a held-out query sample.

    Returns (neighbors, index); pass the index back to reuse it. Zero-vector rows and queries follow the
    exact search's convention.
    """
    import pynndescent

    t0 = time.perf_counter()
    n = X.shape[0]
    query_ids = np.asarray(query_ids, np.int64).ravel()
    if k > n - 1:
        raise N2OError(f"k={k} is too large for a corpus of {n} sentences (at most {n - 1}).")
    Xn, zero = _prepare(X, standardizer)
    if index is None:
        nn = n_neighbors or max(k + 1, 60)
        index = pynndescent.NNDescent(
            Xn, metric="cosine" if sp.issparse(Xn) else "dot", n_neighbors=min(nn, n - 1),
            random_state=seed, tree_init=not sp.issparse(Xn), low_memory=True, n_jobs=os.cpu_count(),
        )
        index.prepare()
    Q = Xn[query_ids]
    extra = min(k + 1 + int(zero.sum()), n)
    ids_raw, dist = index.query(Q, k=extra)
    sims_raw = (1.0 - dist).astype(np.float32)
    q = len(query_ids)
    ids = np.full((q, k), NO_NEIGHBOR, np.int64)
    sims = np.zeros((q, k), np.float32)
    for r in range(q):
        keep = [(s, i) for s, i in zip(sims_raw[r], ids_raw[r]) if i != query_ids[r] and i >= 0 and not zero[i]]
        keep.sort(key=lambda t: (-t[0], t[1]))
        keep = keep[:k]
        if keep:
            ids[r, : len(keep)] = [i for _, i in keep]
            sims[r, : len(keep)] = [s for s, _ in keep]
    qz = zero[query_ids]
    ids[qz] = NO_NEIGHBOR
    sims[qz] = 0.0
    np.clip(sims, -1.0, 1.0, out=sims)
    result = Neighbors(ids, sims, None, time.perf_counter() - t0)
    result.recall = measure_recall(X, index, k, exclude=query_ids, sample=recall_sample, seed=seed,
                                   standardizer=standardizer)
    return result, index


def measure_recall(
    X, index, k: int, *, exclude: np.ndarray, sample: int = 100, seed: int = 0, standardizer=None
) -> float:
    """recall@k of an approximate index against exact search on `sample` held-out corpus queries."""
    n = X.shape[0]
    rng = np.random.default_rng(seed + 7919)
    pool = np.setdiff1d(np.arange(n), exclude)
    if pool.size == 0:
        pool = np.arange(n)
    held = np.sort(rng.choice(pool, size=min(sample, pool.size), replace=False))
    exact = exact_knn(X, k, query_ids=held, standardizer=standardizer)
    Xn, _ = _prepare(X[held], standardizer)
    got, _ = index.query(Xn, k=k + 1)
    hits = total = 0
    for r, qid in enumerate(held):
        truth = set(int(i) for i in exact.ids[r] if i >= 0)
        if not truth:
            continue
        approx = [int(i) for i in got[r] if i != qid][:k]
        hits += len(truth.intersection(approx))
        total += len(truth)
    return hits / total if total else 1.0
