"""The exact search's last step: the float32 scan's candidates re-scored in float64, ordered and cut to k.

BLAS rounding depends on block shapes, so equal cosines can differ by an ulp in the float32 scan. The scan keeps
SLACK extra candidates; these are re-scored in float64 (the same for every blocking) and ordered by (score rounded
to TIE_DECIMALS, lower id) -- so ties, e.g. from duplicate rows, resolve by index, and sharded (Dask) and
single-process searches return identical arrays. `finish_neighbors` applies the zero-vector convention: a
zero-vector neighbor has cosine 0, and a zero-vector query has no neighbors (`NO_NEIGHBOR`). Similarities are
never NaN.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np
import scipy.sparse as sp

import n2o_core.search.scan as scan
from n2o_core.search.result import NO_NEIGHBOR, Neighbors
from n2o_core.search.rows import Standardizer, ZNormRows, prepare_rows
from n2o_core.search.scan import NO_ID, ZERO_SCORE, Candidates

TIE_DECIMALS = 9


def rescore_candidates(
    X: np.ndarray | sp.csr_matrix,
    Qraw: np.ndarray | sp.csr_matrix,
    top_s: np.ndarray,
    top_i: np.ndarray,
    k: int,
    standardizer: Standardizer | None,
) -> Candidates:
    """Exact float64 scores for every kept candidate, reordered by (rounded score desc, id asc), cut to k.

    Re-scoring every row (not only rows with near-ties) makes the similarities independent of how the corpus
    was blocked or sharded, so sharded (Dask) and single-process searches return identical arrays.
    """
    valid = np.isfinite(top_s) & (top_i != NO_ID)
    if sp.issparse(X):
        score = _rescore_sparse(X, Qraw, top_i, valid, standardizer)
    else:
        score = _rescore_dense(X, Qraw, top_i, valid, standardizer)
    score = np.round(score, TIE_DECIMALS)
    ids = np.where(valid, top_i, NO_ID)
    order = np.lexsort((ids, -score), axis=-1)[:, :k]
    return np.take_along_axis(score, order, 1).astype(np.float32), np.take_along_axis(ids, order, 1)


def _rescore_dense(
    X: np.ndarray, Qraw: np.ndarray, top_i: np.ndarray, valid: np.ndarray, standardizer: Standardizer | None
) -> np.ndarray:
    """float64 cosines (q, kk) of the candidates (-inf where not valid) by the compiled `rescore`, which reads
    each candidate row where it lies (float16 widened exactly) and standardizes / normalizes it on the fly."""
    from n2o_core.search._topk_kernel import rescore

    d = X.shape[1]
    Qd, _ = prepare_rows(Qraw, standardizer, np.float64)
    Qd = np.ascontiguousarray(Qd, np.float64)
    if standardizer is not None:
        mean = standardizer.mean.astype(np.float64)
        scale = standardizer.scale.astype(np.float64)
    else:
        mean = scale = np.zeros(d)
    ids = np.where(valid, top_i, -1)
    A = np.asarray(X)
    if A.dtype == np.float16 and scan.half_native():
        A = A.view(np.uint16)
    elif A.dtype not in (np.float32, np.float64):  # other dtypes: gather the candidate rows (float16 exactly)
        flat = np.unique(ids[valid])
        A = np.asarray(X[flat], np.float32 if A.dtype == np.float16 else np.float64)
        ids = np.where(valid, np.searchsorted(flat, ids), -1)
    std = standardizer is not None
    q = ids.shape[0]
    parts = min(scan.search_threads(), q) if q * ids.shape[1] * d >= scan.SMALL_SEARCH else 1
    if parts <= 1:
        out: np.ndarray = rescore(A, ids, Qd, mean, scale, std)
        return out
    out = np.empty(ids.shape)
    bounds = np.linspace(0, q, parts + 1).astype(int)

    def part(a: int, b: int) -> None:
        out[a:b] = rescore(A, ids[a:b], Qd[a:b], mean, scale, std)

    workers = [threading.Thread(target=part, args=(a, b)) for a, b in itertools.pairwise(bounds[1:])]
    for t in workers:
        t.start()
    part(bounds[0], bounds[1])
    for t in workers:
        t.join()
    return out


def _rescore_sparse(
    X: sp.csr_matrix, Qraw: sp.csr_matrix, top_i: np.ndarray, valid: np.ndarray, standardizer: Standardizer | None
) -> np.ndarray:
    """float64 cosines (q, kk) of the candidates of a CSR corpus (-inf where not valid)."""
    q, kk = top_i.shape
    score = np.full((q, kk), -np.inf)
    flat = np.unique(top_i[valid])
    if flat.size:
        C, cz = prepare_rows(X[flat], standardizer, np.float64)
        Qd, _ = prepare_rows(Qraw, standardizer, np.float64)
        pos = np.searchsorted(flat, np.where(valid, top_i, flat[0]))
        step = max(1, (32 << 20) // max(1, flat.size * 8))
        for a in range(0, q, step):
            b = min(q, a + step)
            if isinstance(C, ZNormRows) and isinstance(Qd, ZNormRows):
                sc = Qd[a:b].dot_pairs(C, pos[a:b])
            else:  # (rows, candidates) products, then each row's own candidates
                M = np.asarray((Qd[a:b] @ C.T).toarray())  # type: ignore[union-attr]
                sc = np.take_along_axis(M, pos[a:b], 1)
            sc[cz[pos[a:b]]] = ZERO_SCORE
            score[a:b] = np.where(valid[a:b], sc, -np.inf)
    return score


def finish_neighbors(top_s: np.ndarray, top_i: np.ndarray, qzero: np.ndarray, seconds: float) -> Neighbors:
    """The re-scored top-k as `Neighbors`: empty slots and zero-vector queries get NO_NEIGHBOR with cosine 0, a
    zero-vector neighbor cosine 0, and cosines are clipped to [-1, 1]."""
    ids = top_i.copy()
    sims = top_s.copy()
    missing = ~np.isfinite(sims) | (ids == NO_ID)
    sims[sims == ZERO_SCORE] = 0.0  # zero-vector neighbor: cosine is 0 by convention
    ids[missing] = NO_NEIGHBOR
    sims[missing] = 0.0
    ids[qzero] = NO_NEIGHBOR
    sims[qzero] = 0.0
    np.clip(sims, -1.0, 1.0, out=sims)
    return Neighbors(ids, sims.astype(np.float32), None, seconds)
