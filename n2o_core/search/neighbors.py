"""Cosine k-nearest-neighbor search: exact (blocked BLAS + thresholded top-k) and approximate (pynndescent).

Conventions (tested against a brute-force reference):
- Cosine similarity of L2-normalized rows. Dense corpus rows are never normalized into a copy: the scan
  multiplies the normalized queries with the raw rows (float16 widened tile by tile) and scales each score by its
  row's inverse norm as it selects (`_Scan`); the kept candidates are re-scored in float64.
- Ties are broken by the lower corpus index, so results are deterministic.
- A query is excluded from its own neighbors by its index (an exact duplicate of it is still a neighbor).
- Zero vectors (a sentence with no in-vocabulary token) have no direction. They are ranked after every real
  candidate (used only if fewer than k remain), and a zero-vector *query* has no neighbors: its row is all
  `NO_NEIGHBOR` (-1), so it overlaps with nothing. Similarities are never NaN.
- z-normalization (Eger et al., *Pitfalls*; `Standardizer`): each dimension is standardized over the corpus,
  z = (x - mean) / std (a constant dimension, std 0, is only centred), then rows are L2-normalized. A raw all-zero
  row stays zero (it has no direction; standardizing would give every such sentence the same vector -mean/std),
  and a row equal to the mean on every dimension standardizes to zero: both follow the zero-vector rule above.
- Sparse rows (tf-idf, CSR with |V| columns) are z-normalized without densifying (`ZNormRows`): with
  Y = X D (D = diag(1/std)) and m = D mean, z_i = y_i - m, so z_i . z_j = y_i . y_j - y_i . m - y_j . m + m . m:
  one sparse product plus a rank-2 correction. Exact search, free-text queries, the Dask shards and approximate
  search (a custom pynndescent metric) all use it; results equal densifying, standardizing and searching.
- pynndescent hazards, kept off the request path: its numba compile (minutes of wall time per process on a
  loaded 2-core machine) runs once per process in a background thread (`warm_approx`, started early by the
  app), and `build_index` waits for it instead of compiling a second time; the build itself runs under a time
  limit (`approx_time_limit`), and a build that does not finish in time (pynndescent has looped on many
  near-identical rows) yields an `ExactFallback`: `approx_knn` then answers with exact search (recall 1) and a
  notice says why.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from n2o_core.errors import N2OError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.notices import notify

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
    def fit(cls, X: np.ndarray | sp.spmatrix, block: int = 65536) -> Standardizer:
        """Mean and std per dimension over the corpus: in blocks for dense X, by column sums for sparse X
        (float64 accumulators either way; an all-zero row counts like any other row)."""
        n, d = X.shape
        if sp.issparse(X):
            C = sp.csr_matrix(X)
            if not C.has_canonical_format:
                C = C.copy()
                C.sum_duplicates()
            v = C.data.astype(np.float64)
            s = np.bincount(C.indices, weights=v, minlength=d)
            ss = np.bincount(C.indices, weights=v * v, minlength=d)
        else:
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


@dataclass(frozen=True)
class ZNormRows:
    """Sparse rows, z-normalized and L2-normalized, kept factored (never densified).

    Row i stands for the dense unit vector u_i = y_i - inv_i m, where `y` holds the raw row scaled per dimension
    and by inv_i = 1 / ||z_i|| (CSR, the raw sparsity), m = mean / std (dense), t_i = y_i . m and c = m . m.
    Then u_i . u_j = y_i . y_j - t_i inv_j - inv_i t_j + c inv_i inv_j. Zero rows have inv = t = 0 and an empty y.
    """

    y: sp.csr_matrix
    inv: np.ndarray  # (n,) float64
    t: np.ndarray  # (n,) float64
    m: np.ndarray  # (d,) float64
    c: float

    @property
    def shape(self) -> tuple[int, int]:
        return self.y.shape

    def __len__(self) -> int:
        return self.y.shape[0]

    def __getitem__(self, rows) -> ZNormRows:
        return ZNormRows(self.y[rows], self.inv[rows], self.t[rows], self.m, self.c)

    def dot(self, other: ZNormRows) -> np.ndarray:
        """Dense (len(self), len(other)) cosines, in y's dtype: the sparse product plus a rank-2 correction."""
        S = np.asarray((self.y @ other.y.T).toarray())
        a = np.stack([self.inv, -self.t], axis=1).astype(S.dtype)
        b = np.stack([self.c * other.inv - other.t, other.inv], axis=1).astype(S.dtype)
        S += a @ b.T
        return S

    def dot_pairs(self, other: ZNormRows, pos: np.ndarray) -> np.ndarray:
        """Cosine of row r with other row pos[r, j], shape pos.shape, computed elementwise (no BLAS), so the
        value of a pair does not depend on which other rows are in the batch."""
        P = np.asarray((self.y @ other.y.T).toarray(), dtype=np.float64)
        sc = np.take_along_axis(P, pos, 1)
        oi, ot = other.inv[pos], other.t[pos]
        return sc + self.inv[:, None] * (self.c * oi - ot) - self.t[:, None] * oi

    def rowwise(self, other: ZNormRows) -> np.ndarray:
        """Cosine of row i of self with row i of other (float64)."""
        p = np.asarray(self.y.multiply(other.y).sum(axis=1), dtype=np.float64).ravel()
        return p + self.inv * (self.c * other.inv - other.t) - self.t * other.inv

    def sum(self, axis: int = 0) -> np.ndarray:
        """Sum of the unit rows, a dense (d,) float64 vector."""
        if axis != 0:
            raise ValueError("ZNormRows.sum only sums rows (axis=0).")
        return np.asarray(self.y.sum(axis=0), dtype=np.float64).ravel() - self.inv.sum() * self.m

    def augmented(self) -> sp.csr_matrix:
        """float32 CSR [inv, t, sqrt(c) inv | y] (3 + d columns), the input of `zcos_distance` (pynndescent)."""
        n = len(self)
        extra = np.stack([self.inv, self.t, np.sqrt(self.c) * self.inv], axis=1)
        head = sp.csr_matrix((extra.ravel(), np.tile(np.arange(3), n), np.arange(0, 3 * n + 1, 3)), shape=(n, 3))
        return sp.csr_matrix(sp.hstack([head, self.y], format="csr"), dtype=np.float32)


def znorm_sparse(block: sp.spmatrix, standardizer: Standardizer, dtype=np.float32) -> tuple[ZNormRows, np.ndarray]:
    """z-normalized, L2-normalized sparse rows (factored, see `ZNormRows`) and their zero mask.

    Computed in float64 (y stored as `dtype`). A row is zero when its raw values are all zero or it equals the
    (float32) mean on every dimension, as in the dense path. ||z_i||^2 = sum over stored j of (y_ij - m_j)^2 plus
    c - sum over stored j of m_j^2 (the unstored dimensions), which avoids cancelling large terms.
    """
    X = sp.csr_matrix(block)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    if standardizer.mean.shape[0] != d:
        raise N2OError(f"The standardizer has {standardizer.mean.shape[0]} dimensions, the vectors {d}.")
    mu = standardizer.mean.astype(np.float64)
    scale = standardizer.scale.astype(np.float64)
    m = mu * scale
    c = float(m @ m)
    rows = np.repeat(np.arange(n), np.diff(X.indptr))
    x = X.data.astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise N2OError("The vectors contain NaN or infinite values.")
    col = X.indices
    y = x * scale[col]
    mc = m[col]
    t = np.bincount(rows, weights=y * mc, minlength=n)
    own = np.bincount(rows, weights=(y - mc) ** 2, minlength=n)
    rest = np.maximum(c - np.bincount(rows, weights=mc * mc, minlength=n), 0.0)
    norm2 = own + rest
    zero_raw = np.bincount(rows[x != 0], minlength=n) == 0
    # equal to the mean everywhere: every stored value matches it, and every dimension with a nonzero mean is stored
    mismatch = np.bincount(rows[x != mu[col]], minlength=n) + (
        np.count_nonzero(mu) - np.bincount(rows[mu[col] != 0], minlength=n)
    )
    zero = zero_raw | (mismatch == 0) | ~(norm2 > 0)
    inv = np.where(zero, 0.0, 1.0 / np.sqrt(np.where(zero, 1.0, norm2)))
    Y = sp.csr_matrix((y * inv[rows], X.indices.copy(), X.indptr.copy()), shape=(n, d), dtype=dtype)
    return ZNormRows(Y, inv, np.where(zero, 0.0, t * inv), m, c), zero


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


def prepare_rows(
    block: np.ndarray | sp.spmatrix, standardizer: Standardizer | None = None, dtype=np.float32
) -> tuple[np.ndarray | sp.csr_matrix | ZNormRows, np.ndarray]:
    """Rows ready for cosine by dot product, and their zero mask (zero rows stay zero; see the module docstring).

    dtype float32 is what the search scans (`normalize_rows` for dense rows); float64 is the exact re-scoring.
    Dense rows give an array, sparse rows a CSR matrix, or `ZNormRows` when sparse rows are z-normalized.
    """
    if sp.issparse(block) and standardizer is not None:
        return znorm_sparse(block, standardizer, dtype)
    if np.dtype(dtype) == np.float32:
        if sp.issparse(block):
            return _normalize_sparse(block)
        return normalize_rows(block, standardizer)
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
    if isinstance(Q, ZNormRows):
        return Q.dot(Xb)
    if sp.issparse(Q) or sp.issparse(Xb):
        S = Q @ Xb.T
        return np.asarray(S.toarray() if sp.issparse(S) else S, dtype=np.float32)
    return Q @ Xb.T


# --------------------------------------------------------------------------- exact search: the scan

#: Bytes of one worker's tile, for its (query chunk x corpus rows) float32 scores and, separately, for its corpus
#: rows (as read, plus their float32 copy when they are converted: float16, z-normalized, other dtypes). The rows
#: are read by the pass that takes their norms and again by the GEMM; the scores are written by the GEMM and read
#: by the selection: two workers' tiles stay in the last-level cache between the two.
TILE_BYTES = 8 << 20
#: At most this many queries per tile: more queries are scanned in chunks, so a tile keeps at least ~1,000 corpus
#: rows and each product stays a large GEMM.
QUERY_CHUNK = 2048
#: Below this many multiply-adds (query x row x dimension) a search runs on the calling thread alone.
SMALL_SEARCH = 1 << 24


def search_threads() -> int:
    """Worker threads of a single-process exact search: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def default_block(n: int, q: int, sparse: bool = False, *, dim: int = 0, converted: bool = False) -> int:
    """Corpus rows per tile: as many as keep both the tile's scores (min(q, QUERY_CHUNK) float32 per row) and its
    rows (`dim` float32 per row, twice that when `converted`) within TILE_BYTES; 1,024 to 65,536 rows (16,384 for
    sparse rows), at most n."""
    qc = min(max(q, 1), QUERY_CHUNK)
    per_row = max(4 * qc, (8 if converted else 4) * dim, 1)
    block = min(max(1024, TILE_BYTES // per_row), 16384 if sparse else 65536)
    return int(min(max(n, 1), block))


class _Scan:
    """One exact scan, split into tiles (corpus rows x query chunk) that worker threads take in corpus order.

    Each worker keeps its own running top-kk (merged at the end), so workers never wait for one another: while one
    runs its tile's GEMM (BLAS on one thread) the other selects from its scores. A dense tile is: one pass over the
    corpus rows for their inverse norms (float16 or z-normalized rows are converted to float32 in the same pass,
    the only copy), the product of the normalized queries with the raw rows, and `select_block`, which scales each
    score by its row's inverse norm as it reads it. Sparse rows are normalized by `prepare_rows` per tile.
    """

    def __init__(self, X, Qn, q_ids, kk: int, block: int | None, standardizer, offset: int, row_inv=None):
        self.X, self.Qn, self.kk, self.std, self.offset = X, Qn, kk, standardizer, offset
        n, d = X.shape
        q = Qn.shape[0]
        self.q = q
        self.q_ids = np.full(q, -1, np.int64) if q_ids is None else np.ascontiguousarray(q_ids, np.int64)
        if sp.issparse(X):
            self.mode = "sparse"
        elif standardizer is None and X.dtype == np.float32 and X.flags.c_contiguous:
            self.mode = "direct"
        elif standardizer is None and X.dtype == np.float16 and X.flags.c_contiguous and _half_native():
            self.mode = "half"
        else:
            self.mode = "copy"
        # the rows' inverse norms from `row_inverse_norms`, when given for plain float32 rows: no norms pass per tile
        self.row_inv = row_inv if self.mode == "direct" else None
        if standardizer is not None and self.mode != "sparse":
            self.mean = np.ascontiguousarray(standardizer.mean, np.float32)
            self.scale = np.ascontiguousarray(standardizer.scale, np.float32)
        sparse = self.mode == "sparse"  # a sparse tile's rows are small: only its scores count
        converted = self.mode in ("half", "copy")
        self.rows = block or default_block(n, q, sparse, dim=0 if sparse else d, converted=converted)
        qc = min(q, QUERY_CHUNK)
        self.tiles = [
            (s, min(s + self.rows, n), a, min(a + qc, q)) for s in range(0, n, self.rows) for a in range(0, q, qc)
        ]
        self.done = 0.0  # corpus rows scanned for every query
        self.error: BaseException | None = None
        self._next = 0
        self._lock = threading.Lock()

    def state(self) -> tuple[np.ndarray, np.ndarray]:
        """An empty top-kk (scores -inf, ids _NO_ID) for one worker."""
        return np.full((self.q, self.kk), -np.inf, np.float32), np.full((self.q, self.kk), _NO_ID, np.int64)

    def run(self, top_s: np.ndarray, top_i: np.ndarray, report: Callable[[], None] | None = None) -> None:
        """Take tiles until none are left (or a worker failed), merging each into this worker's top-kk."""
        from n2o_core.search._topk_kernel import select_block

        d = self.X.shape[1]
        qc = min(self.q, QUERY_CHUNK)
        S_buf = np.empty((qc, self.rows), np.float32)
        rows_buf = np.empty((self.rows, d), np.float32) if self.mode in ("half", "copy") else None
        inv_buf = np.empty(self.rows, np.float32)
        try:
            while True:
                with self._lock:
                    if self.error is not None or self._next >= len(self.tiles):
                        return
                    s, e, a, b = self.tiles[self._next]
                    self._next += 1
                if self.mode == "sparse":
                    S, inv = self._sparse_tile(s, e, a, b)
                else:
                    S, inv = self._dense_tile(s, e, a, b, S_buf, rows_buf, inv_buf)
                select_block(S, inv, self.q_ids[a:b], self.offset + s, top_s[a:b], top_i[a:b])
                with self._lock:
                    self.done += (e - s) * (b - a) / self.q
                if report is not None:
                    report()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread, which raises it
            with self._lock:
                if self.error is None:
                    self.error = exc

    def _dense_tile(self, s, e, a, b, S_buf, rows_buf, inv_buf):
        from n2o_core.search._topk_kernel import HAS_ZERO, NOT_FINITE, OK, RESCALE, prep_f16, prep_f32, prep_std

        m = e - s
        Xb = np.asarray(self.X[s:e])
        inv = inv_buf[:m]
        if self.mode == "direct":
            A = Xb
            if self.row_inv is not None:  # a copy: _mark_zero_rows below changes it
                np.copyto(inv, self.row_inv[s:e])
                status = HAS_ZERO if not inv.all() else OK
            else:
                status = prep_f32(A, inv)
        elif self.mode == "half":
            A = rows_buf[:m]
            status = prep_f16(Xb.view(np.uint16), A, inv)
        else:
            A = rows_buf[:m]
            np.copyto(A, Xb, casting="unsafe")
            status = prep_std(A, self.mean, self.scale, inv) if self.std is not None else prep_f32(A, inv)
        if status == NOT_FINITE:
            raise N2OError("The vectors contain NaN or infinite values.")
        if status & RESCALE:  # a row with a norm far from 1 (< 1e-15 or > 1e15): normalize this tile in float64
            A = _normalized_f32(A, inv)
        out = S_buf[: b - a] if m == self.rows else np.empty((b - a, m), np.float32)  # C-contiguous: one kernel
        S = np.matmul(self.Qn[a:b], A.T, out=out)
        if status & HAS_ZERO:
            _mark_zero_rows(S, inv, inv == 0)
        return S, inv

    def _sparse_tile(self, s, e, a, b):
        Xn, zero = prepare_rows(self.X[s:e], self.std)
        S = np.ascontiguousarray(_scores(self.Qn[a:b], Xn), dtype=np.float32)
        inv = np.ones(S.shape[1], np.float32)
        _mark_zero_rows(S, inv, zero)
        return S, inv


def _mark_zero_rows(S: np.ndarray, inv: np.ndarray, zero: np.ndarray) -> None:
    """Zero rows score _ZERO_SCORE (below any cosine) for every query: their columns set, with inverse norm 1."""
    if zero.any():
        S[:, zero] = _ZERO_SCORE
        inv[zero] = 1.0


@functools.cache
def _half_native() -> bool:
    from n2o_core.search._topk_kernel import half_native

    return half_native()


def _normalized_f32(A: np.ndarray, inv: np.ndarray) -> np.ndarray:
    """Rows of A L2-normalized in float64 (a new float32 array); inv set to 1 (0 for zero rows)."""
    b = np.asarray(A, np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", b, b))
    zero = norms == 0
    inv[:] = np.where(zero, 0.0, 1.0)
    return (b / np.where(zero, 1.0, norms)[:, None]).astype(np.float32)


def _search(
    X,
    Qn: np.ndarray | sp.csr_matrix,
    q_ids: np.ndarray | None,
    k: int,
    block: int | None,
    standardizer,
    progress: Callable[[int], None] | None,
    *,
    offset: int = 0,
    serial: bool = False,
    threads: int | None = None,
    row_inv: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Top-k float32 candidates (scores, global ids) of the queries: the corpus scanned in tiles by worker threads.

    X holds corpus rows offset .. offset + len(X) (a shard); q_ids are global corpus ids (or None). `serial` (or a
    small search) runs on the calling thread with BLAS as configured; otherwise `threads` workers (default: the
    usable CPUs) each run single-threaded BLAS. `progress(rows)` is called on the calling thread only.
    """
    scan = _Scan(X, Qn, q_ids, k, block, standardizer, offset, row_inv)
    n, d = X.shape
    workers = 1 if serial else (threads or search_threads())
    if n * scan.q * d < SMALL_SEARCH:
        workers = 1
    workers = max(1, min(workers, len(scan.tiles)))
    states = [scan.state() for _ in range(workers)]
    sent = [0]

    def report() -> None:
        if progress is not None:
            now = min(n, int(scan.done + 1e-6))
            if now > sent[0]:
                progress(now - sent[0])
                sent[0] = now

    if workers == 1:
        scan.run(*states[0], report)
    else:
        with threadpool_limits(limits=1, user_api="blas"):
            others = [threading.Thread(target=scan.run, args=st, daemon=True) for st in states[1:]]
            for t in others:
                t.start()
            try:
                scan.run(*states[0], report)
            finally:
                with scan._lock:
                    scan._next = len(scan.tiles)  # nothing more is handed out if this thread stopped early
                for t in others:
                    t.join()
    if scan.error is not None:
        raise scan.error
    scan.done = n
    report()
    return states[0] if workers == 1 else merge_candidates(states, k)


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
    Qn, _ = prepare_rows(Qraw, standardizer)
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
    _, qzero = prepare_rows(Qraw, standardizer)
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
    row_inv: np.ndarray | None = None,
) -> Neighbors:
    """Exact cosine k-NN of corpus rows `query_ids` (self excluded), or of external `queries` vectors.

    X may be float32/float16 (memory-mapped is fine, and never copied: float16 rows are converted to float32 one
    tile at a time) or CSR. Never holds a full similarity matrix: the corpus is scanned in tiles of `block` rows
    (default: `default_block`) by `threads` worker threads (default: the usable CPUs; BLAS runs on one thread in
    each), keeping a running top-(k + SLACK) per query behind a threshold, then the kept candidates are re-scored in
    float64. With a `standardizer` (z-normalization), CSR rows are standardized in factored form (`ZNormRows`),
    never densified. `queries` take the corpus's form (dense queries for a CSR corpus are made sparse, and the
    reverse). `progress(done, n)` is called on the calling thread. `row_inv`: the inverse norms of X's rows as
    `row_inverse_norms` gave them (used for plain float32 rows without a standardizer): the scan then skips its
    norms pass over each tile's rows.
    """
    t0 = time.perf_counter()
    n = X.shape[0]
    if row_inv is not None and (sp.issparse(X) or np.shape(row_inv) != (n,)):
        raise ValueError(f"row_inv must hold one inverse norm per dense row ({n}), not {np.shape(row_inv)}.")
    query_ids, Qraw = _check_queries(X, k, query_ids, queries)
    Qn, qzero = prepare_rows(Qraw, standardizer)
    q = Qn.shape[0]
    if q == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    done = [0]

    def tick(m: int) -> None:
        done[0] += m
        if progress is not None:
            progress(done[0], n)

    kk = candidate_count(k, n, query_ids is not None)
    top_s, top_i = _search(X, Qn, query_ids, kk, block, standardizer, tick, threads=threads, row_inv=row_inv)
    top_s, top_i = _rescore(X, Qraw, top_s, top_i, k, standardizer)
    return _finish(top_s, top_i, qzero, time.perf_counter() - t0)


#: Rows per block of `row_inverse_norms`.
_NORM_BLOCK = 1 << 16


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
    if queries.ndim != 2 or queries.shape[1] != X.shape[1]:
        raise N2OError(f"The queries have shape {queries.shape}; the corpus vectors have {X.shape[1]} dimensions.")
    if sp.issparse(X) and not sp.issparse(queries):  # the query rows take the corpus's form
        queries = sp.csr_matrix(np.asarray(queries, dtype=np.float32))
    elif not sp.issparse(X) and sp.issparse(queries):
        queries = queries.toarray()
    return None, queries


def _rescore(X, Qraw, top_s: np.ndarray, top_i: np.ndarray, k: int, standardizer) -> tuple[np.ndarray, np.ndarray]:
    """Exact float64 scores for every kept candidate, reordered by (rounded score desc, id asc), cut to k.

    Re-scoring every row (not only rows with near-ties) makes the similarities independent of how the corpus
    was blocked or sharded, so sharded (Dask) and single-process searches return identical arrays.
    """
    q, kk = top_i.shape
    valid = np.isfinite(top_s) & (top_i != _NO_ID)
    if sp.issparse(X):
        score = _rescore_sparse(X, Qraw, top_i, valid, standardizer)
    else:
        score = _rescore_dense(X, Qraw, top_i, valid, standardizer)
    score = np.round(score, TIE_DECIMALS)
    ids = np.where(valid, top_i, _NO_ID)
    order = np.lexsort((ids, -score), axis=-1)[:, :k]
    return np.take_along_axis(score, order, 1).astype(np.float32), np.take_along_axis(ids, order, 1)


def _rescore_dense(X, Qraw, top_i: np.ndarray, valid: np.ndarray, standardizer) -> np.ndarray:
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
    if A.dtype == np.float16 and _half_native():
        A = A.view(np.uint16)
    elif A.dtype not in (np.float32, np.float64):  # other dtypes: gather the candidate rows (float16 exactly)
        flat = np.unique(ids[valid])
        A = np.asarray(X[flat], np.float32 if A.dtype == np.float16 else np.float64)
        ids = np.where(valid, np.searchsorted(flat, ids), -1)
    std = standardizer is not None
    q = ids.shape[0]
    parts = min(search_threads(), q) if q * ids.shape[1] * d >= SMALL_SEARCH else 1
    if parts <= 1:
        return rescore(A, ids, Qd, mean, scale, std)
    out = np.empty(ids.shape)
    bounds = np.linspace(0, q, parts + 1).astype(int)

    def part(a: int, b: int) -> None:
        out[a:b] = rescore(A, ids[a:b], Qd[a:b], mean, scale, std)

    workers = [threading.Thread(target=part, args=(a, b)) for a, b in zip(bounds[1:-1], bounds[2:])]
    for t in workers:
        t.start()
    part(bounds[0], bounds[1])
    for t in workers:
        t.join()
    return out


def _rescore_sparse(X, Qraw, top_i: np.ndarray, valid: np.ndarray, standardizer) -> np.ndarray:
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
            sc[cz[pos[a:b]]] = _ZERO_SCORE
            score[a:b] = np.where(valid[a:b], sc, -np.inf)
    return score


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


@functools.cache
def zcos_distance():
    """numba pynndescent metric on `ZNormRows.augmented()` rows: 1 - cosine of the z-normalized rows.

    Columns 0, 1, 2 of a row hold inv, t and sqrt(c) inv (found by column index, so a dropped zero is read as 0);
    the rest is y. Built on first use (imports numba).
    """
    import numba

    @numba.njit(fastmath=True)
    def _zcos(ind1, data1, ind2, data2):
        inv1 = t1 = r1 = inv2 = t2 = r2 = 0.0
        i = 0
        while i < ind1.shape[0] and ind1[i] < 3:
            if ind1[i] == 0:
                inv1 = data1[i]
            elif ind1[i] == 1:
                t1 = data1[i]
            else:
                r1 = data1[i]
            i += 1
        j = 0
        while j < ind2.shape[0] and ind2[j] < 3:
            if ind2[j] == 0:
                inv2 = data2[j]
            elif ind2[j] == 1:
                t2 = data2[j]
            else:
                r2 = data2[j]
            j += 1
        dot = 0.0
        while i < ind1.shape[0] and j < ind2.shape[0]:
            if ind1[i] == ind2[j]:
                dot += data1[i] * data2[j]
                i += 1
                j += 1
            elif ind1[i] < ind2[j]:
                i += 1
            else:
                j += 1
        return max(0.0, 1.0 - (dot - t1 * inv2 - inv1 * t2 + r1 * r2))

    return _zcos


#: Environment variable: seconds allowed for one pynndescent build (default: `approx_time_limit(n)`).
TIME_LIMIT_ENV = "N2O_APPROX_TIME_LIMIT_S"


@dataclass(frozen=True)
class ExactFallback:
    """Stands in for a pynndescent index that could not be built in time: `approx_knn` searches exactly."""

    reason: str


def approx_time_limit(n: int) -> float:
    """Seconds one pynndescent build may take: $N2O_APPROX_TIME_LIMIT_S, else max(300, n / 200) (a 1M-row
    corpus gets 5,000 s). The numba compile is not counted: `build_index` waits for `warm_approx` first."""
    env = os.environ.get(TIME_LIMIT_ENV, "").strip()
    if env:
        try:
            return max(0.01, float(env))
        except ValueError:
            raise N2OError(f"{TIME_LIMIT_ENV} must be a number of seconds (got {env!r}).") from None
    return max(300.0, n / 200.0)


_warm_lock = threading.Lock()
_warm: dict[str, threading.Thread] = {}


def _compile_pynndescent(nice: bool) -> None:
    """Build and query a tiny index for each metric the app uses, so numba compiles them in this process."""
    with heavy_imports():
        import pynndescent

    if nice:  # lowest CPU priority for this thread only (on Linux a thread is a task): sessions come first
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 8)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    for data, metric, tree in ((X, "dot", True), (sp.csr_matrix(np.maximum(X, 0)), "cosine", False)):
        index = pynndescent.NNDescent(
            data, metric=metric, n_neighbors=10, random_state=0, tree_init=tree, low_memory=True, n_jobs=1
        )
        index.prepare()
        index.query(data[:3], k=5)


def warm_approx(block: bool = False) -> threading.Thread:
    """Compile pynndescent's numba code once per process (a no-op after the first call): in a background
    daemon thread at the lowest CPU priority, or, with `block=True`, waiting for it (a background compile
    already under way is given normal priority back). A failure is not raised: the real build reports its own."""
    with _warm_lock:
        t = _warm.get("thread")
        if t is None:

            def run(nice: bool) -> None:
                try:
                    _compile_pynndescent(nice)
                except Exception:  # noqa: BLE001 - the real build will say what is wrong
                    pass

            t = threading.Thread(target=run, args=(not block,), name="n2o-pynndescent-warmup", daemon=True)
            _warm["thread"] = t
            t.start()
        elif block and t.is_alive() and t.native_id is not None:
            with contextlib.suppress(OSError):  # raising a priority needs privileges: best effort
                os.setpriority(os.PRIO_PROCESS, t.native_id, 0)
    if block:
        t.join()
    return t


def build_index(Xn, k: int, *, n_neighbors: int | None = None, seed: int = 0, time_limit: float | None = None):
    """A prepared pynndescent index over `prepare_rows` output (dense: inner product; CSR: cosine;
    `ZNormRows`: `zcos_distance` on the augmented rows), or an `ExactFallback` when the build takes longer
    than `time_limit` seconds (default `approx_time_limit(n)`; the numba compile is done first and not counted).

    On a timeout the build's thread cannot be stopped (numba code is not interruptible): it is left to finish
    in the background as a daemon thread, and its result is dropped.

    Not persisted: pynndescent indexes are saved only by pickling, which the cache never does. (Rebuilding
    from a cached neighbor graph via `init_graph` was tried: it rebuilt in about half the time but queries then
    reached recall@50 of only ~0.1, so it is not offered.)
    """
    with heavy_imports():
        import pynndescent

    n = Xn.shape[0]
    nn = approx_n_neighbors(k, n, n_neighbors)
    limit = approx_time_limit(n) if time_limit is None else time_limit
    if isinstance(Xn, ZNormRows):
        Xn, metric = Xn.augmented(), zcos_distance()
    else:
        metric = "cosine" if sp.issparse(Xn) else "dot"
    sparse = sp.issparse(Xn)
    warm_approx(block=True)
    box: dict[str, object] = {}

    def build() -> None:
        try:
            index = pynndescent.NNDescent(
                Xn,
                metric=metric,
                n_neighbors=nn,
                random_state=seed,
                tree_init=not sparse,
                low_memory=True,
                n_jobs=os.cpu_count(),
            )
            index.prepare()
            box["index"] = index
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = e

    worker = threading.Thread(target=build, name="n2o-pynndescent-build", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        reason = (
            f"pynndescent did not finish its index of {n:,} rows within {limit:,.{0 if limit >= 10 else 1}f} s "
            "(it can loop on many near-identical rows), so exact search was used instead (recall 1)."
        )
        notify(reason)
        return ExactFallback(reason)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["index"]


def _approx_query(index, Qn, q_ids: np.ndarray, k: int, zero: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """k approximate neighbors per query: self and zero rows dropped, (score desc, id asc) order."""
    if isinstance(Qn, ZNormRows):
        Qn = Qn.augmented()
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
    time_limit: float | None = None,
) -> tuple[Neighbors, object]:
    """Approximate k-NN with pynndescent, checked against exact search on held-out queries.

    The result's `recall` is recall@k on `recall_sample` held-out corpus queries (not in query_ids), and
    `check_ids` / `check_exact` / `check_approx` keep those queries' exact and approximate neighbors, so the
    N2O error of the approximation can be computed for any pair of embedders. Returns (neighbors, index); pass
    the index back to avoid a rebuild. Zero-vector rows and queries follow the exact search's convention.
    z-normalized sparse rows are searched with `zcos_distance` (no densified copy). When the index build
    exceeds `time_limit` (see `build_index`), or `index` is an `ExactFallback`, the answer is exact search.
    """
    t0 = time.perf_counter()
    n = X.shape[0]
    query_ids = np.asarray(query_ids, np.int64).ravel()
    if k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    if k > n - 1:
        raise N2OError(f"k={k} is too large for a corpus of {n} sentences (at most {n - 1}).")
    Xn, zero = prepare_rows(X, standardizer)
    if index is None:
        index = build_index(Xn, k, n_neighbors=n_neighbors, seed=seed, time_limit=time_limit)
    held = held_out_queries(n, query_ids, recall_sample, seed)
    if isinstance(index, ExactFallback):
        result = exact_knn(X, k, query_ids=query_ids, standardizer=standardizer)
        check = exact_knn(X, k, query_ids=held, standardizer=standardizer).ids
        result.recall, result.seconds = 1.0, time.perf_counter() - t0
        result.check_ids, result.check_exact, result.check_approx = held, check, check.copy()
        return result, index
    ids, sims = _approx_query(index, Xn[query_ids], query_ids, k, zero)
    result = Neighbors(ids, sims, None, time.perf_counter() - t0)
    exact = exact_knn(X, k, query_ids=held, standardizer=standardizer)
    got, _ = _approx_query(index, Xn[held], held, k, zero)
    result.recall = recall_of(got, exact.ids)
    result.check_ids, result.check_exact, result.check_approx = held, exact.ids, got
    return result, index
