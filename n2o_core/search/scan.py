"""The exact search's float32 scan: the corpus in tiles (corpus rows x query chunk) taken by worker threads, each
tile a BLAS product and the compiled top-k selection (`_topk_kernel.select_block`), kept per query behind a
threshold.

- Dense corpus rows are never normalized into a copy: the scan multiplies the normalized queries with the raw
  rows (float16 widened tile by tile) and scales each score by its row's inverse norm as it selects.
- It keeps `candidate_count` = k + SLACK candidates per query (BLAS rounding depends on block shapes, so equal
  cosines can differ by an ulp here); `n2o_core.search.rescore` re-scores them in float64 and cuts to k.
- A query is excluded from its own neighbors by its index (an exact duplicate of it is still a candidate).
- Zero rows score ZERO_SCORE, below any cosine, so they rank after every real candidate; empty slots hold
  (-inf, NO_ID) and sort last.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, cast

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from n2o_core.errors import N2OError
from n2o_core.search.rows import PreparedRows, Standardizer, prepare_rows, row_scores

ZERO_SCORE = np.float32(-3.0)  # below any cosine: zero-vector candidates rank last (= _topk_kernel.ZERO_SCORE)
NO_ID = np.iinfo(np.int64).max  # empty candidate slot
#: Extra candidates kept per query for the float64 re-scoring (see the module docstring).
SLACK = 16

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

#: A worker's running top-kk: (scores (q, kk) float32, global ids (q, kk) int64).
Candidates = tuple[np.ndarray, np.ndarray]


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


@functools.cache
def half_native() -> bool:
    """Whether this CPU converts float16 natively (`_topk_kernel.half_native`, asked once per process)."""
    from n2o_core.search._topk_kernel import half_native as kernel_half_native

    return kernel_half_native()


def candidate_count(k: int, n: int, corpus_queries: bool) -> int:
    """How many candidates the float32 scan keeps per query (k + SLACK, capped by the corpus)."""
    return min(k + SLACK, n - 1 if corpus_queries else n)


def merge_candidates(parts: list[Candidates], kk: int) -> Candidates:
    """Global top-kk from per-shard candidate lists: score descending, lower id first among equal scores."""
    S = np.concatenate([p[0] for p in parts], axis=1)
    ids = np.concatenate([p[1] for p in parts], axis=1)
    order = np.lexsort((ids, -S.astype(np.float64)), axis=-1)[:, :kk]
    return np.take_along_axis(S, order, 1), np.take_along_axis(ids, order, 1)


def _scan_mode(X: np.ndarray | sp.csr_matrix, standardizer: Standardizer | None) -> str:
    """How a tile's corpus rows are read: sparse, direct (float32), half (float16 bits) or copy (converted)."""
    if sp.issparse(X):
        return "sparse"
    if standardizer is None and X.dtype == np.float32 and X.flags.c_contiguous:
        return "direct"
    if standardizer is None and X.dtype == np.float16 and X.flags.c_contiguous and half_native():
        return "half"
    return "copy"


Tile = TypeVar("Tile")


class TileQueue(Generic[Tile]):
    """Tiles handed out to worker threads in order; each worker merges its tiles into a state of its own (so no
    worker waits for another). The first failure stops the handing out and is kept in `error` for the calling
    thread to raise; `done` sums what each tile reports done (for progress)."""

    def __init__(self, tiles: list[Tile]) -> None:
        self.tiles = tiles
        self.done = 0.0
        self.error: BaseException | None = None
        self._next = 0
        self.lock = threading.Lock()

    def stop(self) -> None:
        """Hand out no more tiles (the calling thread stopped early)."""
        with self.lock:
            self._next = len(self.tiles)

    def take(self) -> Tile | None:
        """The next tile, or None when none is left or a worker failed."""
        with self.lock:
            if self.error is not None or self._next >= len(self.tiles):
                return None
            self._next += 1
            return self.tiles[self._next - 1]

    def work(self, tile: Callable[[Tile], float], report: Callable[[], None] | None = None) -> None:
        """Run `tile` on tiles until none are left (or a worker failed), adding what each returns to `done`."""
        try:
            while (t := self.take()) is not None:
                amount = tile(t)
                with self.lock:
                    self.done += amount
                if report is not None:
                    report()
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread, which raises it
            with self.lock:
                if self.error is None:
                    self.error = exc


class Workers(Protocol):
    """A scan that worker threads run (`run_workers`, `run_scan`): each runs it with a state of its own; a
    `TileQueue` with a `run` method."""

    done: float
    error: BaseException | None

    def run(self, top_s: np.ndarray, top_i: np.ndarray, report: Callable[[], None] | None = None) -> None: ...

    def stop(self) -> None: ...


class _Scan(TileQueue[tuple[int, int, int, int]]):
    """One exact scan, split into tiles (corpus rows x query chunk) that worker threads take in corpus order.

    Each worker keeps its own running top-kk (merged at the end), so workers never wait for one another: while one
    runs its tile's GEMM (BLAS on one thread) the other selects from its scores. A dense tile is: one pass over the
    corpus rows for their inverse norms (float16 or z-normalized rows are converted to float32 in the same pass,
    the only copy), the product of the normalized queries with the raw rows, and `select_block`, which scales each
    score by its row's inverse norm as it reads it. Sparse rows are normalized by `prepare_rows` per tile.
    """

    def __init__(
        self,
        X: np.ndarray | sp.csr_matrix,
        Qn: PreparedRows,
        q_ids: np.ndarray | None,
        kk: int,
        block: int | None,
        standardizer: Standardizer | None,
        offset: int,
        row_inv: np.ndarray | None = None,
    ) -> None:
        self.X, self.Qn, self.kk, self.std, self.offset = X, Qn, kk, standardizer, offset
        n, d = X.shape
        q = Qn.shape[0]
        self.q = q
        self.q_ids = np.full(q, -1, np.int64) if q_ids is None else np.ascontiguousarray(q_ids, np.int64)
        self.mode = _scan_mode(X, standardizer)
        # the rows' inverse norms from `row_inverse_norms`, when given for plain float32 rows: no norms pass per tile
        self.row_inv = row_inv if self.mode == "direct" else None
        if standardizer is not None and self.mode != "sparse":
            self.mean = np.ascontiguousarray(standardizer.mean, np.float32)
            self.scale = np.ascontiguousarray(standardizer.scale, np.float32)
        sparse = self.mode == "sparse"  # a sparse tile's rows are small: only its scores count
        converted = self.mode in ("half", "copy")
        self.rows = block or default_block(n, q, sparse, dim=0 if sparse else d, converted=converted)
        qc = min(q, QUERY_CHUNK)
        # tiles: (corpus rows s..e, queries a..b); `done` counts corpus rows scanned for every query
        super().__init__(
            [(s, min(s + self.rows, n), a, min(a + qc, q)) for s in range(0, n, self.rows) for a in range(0, q, qc)]
        )

    def state(self) -> Candidates:
        """An empty top-kk (scores -inf, ids NO_ID) for one worker."""
        return np.full((self.q, self.kk), -np.inf, np.float32), np.full((self.q, self.kk), NO_ID, np.int64)

    def run(self, top_s: np.ndarray, top_i: np.ndarray, report: Callable[[], None] | None = None) -> None:
        """Take tiles until none are left (or a worker failed), merging each into this worker's top-kk."""
        from n2o_core.search._topk_kernel import select_block

        d = self.X.shape[1]
        qc = min(self.q, QUERY_CHUNK)
        S_buf = np.empty((qc, self.rows), np.float32)
        rows_buf = np.empty((self.rows, d), np.float32) if self.mode in ("half", "copy") else None
        inv_buf = np.empty(self.rows, np.float32)

        def tile(t: tuple[int, int, int, int]) -> float:
            s, e, a, b = t
            if self.mode == "sparse":
                S, inv = self._sparse_tile(s, e, a, b)
            else:
                S, inv = self._dense_tile(s, e, a, b, S_buf, rows_buf, inv_buf)
            select_block(S, inv, self.q_ids[a:b], self.offset + s, top_s[a:b], top_i[a:b])
            return (e - s) * (b - a) / self.q

        self.work(tile, report)

    def _dense_rows(
        self, Xb: np.ndarray, s: int, e: int, rows_buf: np.ndarray | None, inv: np.ndarray
    ) -> tuple[np.ndarray, int]:
        """The tile's rows as float32 (read in place, or converted into rows_buf), inv filled; the prep status."""
        from n2o_core.search._topk_kernel import HAS_ZERO, OK, prep_f16, prep_f32, prep_std

        m = e - s
        if self.mode == "direct":
            if self.row_inv is not None:  # a copy: mark_zero_rows changes it
                np.copyto(inv, self.row_inv[s:e])
                return Xb, HAS_ZERO if not inv.all() else OK
            return Xb, prep_f32(Xb, inv)
        assert rows_buf is not None
        A = rows_buf[:m]
        if self.mode == "half":
            return A, prep_f16(Xb.view(np.uint16), A, inv)
        np.copyto(A, Xb, casting="unsafe")
        return A, prep_std(A, self.mean, self.scale, inv) if self.std is not None else prep_f32(A, inv)

    def _dense_tile(
        self, s: int, e: int, a: int, b: int, S_buf: np.ndarray, rows_buf: np.ndarray | None, inv_buf: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        from n2o_core.search._topk_kernel import HAS_ZERO, NOT_FINITE, RESCALE

        m = e - s
        inv = inv_buf[:m]
        A, status = self._dense_rows(np.asarray(self.X[s:e]), s, e, rows_buf, inv)
        if status == NOT_FINITE:
            raise N2OError("The vectors contain NaN or infinite values.")
        if status & RESCALE:  # a row with a norm far from 1 (< 1e-15 or > 1e15): normalize this tile in float64
            A = _normalized_f32(A, inv)
        out = S_buf[: b - a] if m == self.rows else np.empty((b - a, m), np.float32)  # C-contiguous: one kernel
        S = np.matmul(cast(np.ndarray, self.Qn[a:b]), A.T, out=out)  # dense rows: Qn is an array
        if status & HAS_ZERO:
            mark_zero_rows(S, inv, inv == 0)
        return S, inv

    def _sparse_tile(self, s: int, e: int, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        Xn, zero = prepare_rows(self.X[s:e], self.std)
        S = np.ascontiguousarray(row_scores(self.Qn[a:b], Xn), dtype=np.float32)
        inv = np.ones(S.shape[1], np.float32)
        mark_zero_rows(S, inv, zero)
        return S, inv


def mark_zero_rows(S: np.ndarray, inv: np.ndarray, zero: np.ndarray) -> None:
    """Zero rows score ZERO_SCORE (below any cosine) for every query: their columns set, with inverse norm 1."""
    if zero.any():
        S[:, zero] = ZERO_SCORE
        inv[zero] = 1.0


def _normalized_f32(A: np.ndarray, inv: np.ndarray) -> np.ndarray:
    """Rows of A L2-normalized in float64 (a new float32 array); inv set to 1 (0 for zero rows)."""
    b = np.asarray(A, np.float64)
    norms = np.sqrt(np.einsum("ij,ij->i", b, b))
    zero = norms == 0
    inv[:] = np.where(zero, 0.0, 1.0)
    return (b / np.where(zero, 1.0, norms)[:, None]).astype(np.float32)


def run_workers(scan: Workers, states: list[Candidates], report: Callable[[], None]) -> None:
    """Run the scan on this thread (which reports) and len(states) - 1 more, each with single-threaded BLAS."""
    with threadpool_limits(limits=1, user_api="blas"):
        others = [threading.Thread(target=scan.run, args=st, daemon=True) for st in states[1:]]
        for t in others:
            t.start()
        try:
            scan.run(*states[0], report)
        finally:
            scan.stop()  # nothing more is handed out if this thread stopped early
            for t in others:
                t.join()


def run_scan(scan: Workers, states: list[Candidates], n: int, count_rows: Callable[[int], None] | None) -> None:
    """Run `scan` with one state per worker: on the calling thread alone for one state, else by `run_workers`.
    `count_rows(rows)` is called on the calling thread as `scan.done` grows (up to n, all of n at the end); a
    worker's failure is raised here."""
    sent = [0]

    def report() -> None:
        if count_rows is not None:
            now = min(n, int(scan.done + 1e-6))
            if now > sent[0]:
                count_rows(now - sent[0])
                sent[0] = now

    if len(states) == 1:
        scan.run(*states[0], report)
    else:
        run_workers(scan, states, report)
    if scan.error is not None:
        raise scan.error
    scan.done = n
    report()


def scan_candidates(
    X: np.ndarray | sp.csr_matrix,
    Qn: PreparedRows,
    q_ids: np.ndarray | None,
    k: int,
    block: int | None,
    standardizer: Standardizer | None,
    count_rows: Callable[[int], None] | None,
    *,
    offset: int = 0,
    serial: bool = False,
    threads: int | None = None,
    row_inv: np.ndarray | None = None,
) -> Candidates:
    """Top-k float32 candidates (scores, global ids) of the queries: the corpus scanned in tiles by worker threads.

    X holds corpus rows offset .. offset + len(X) (a shard); q_ids are global corpus ids (or None). `serial` (or a
    small search) runs on the calling thread with BLAS as configured; otherwise `threads` workers (default: the
    usable CPUs) each run single-threaded BLAS. `count_rows(rows)` is called on the calling thread only.
    """
    scan = _Scan(X, Qn, q_ids, k, block, standardizer, offset, row_inv)
    n, d = X.shape
    workers = 1 if serial else (threads or search_threads())
    if n * scan.q * d < SMALL_SEARCH:
        workers = 1
    workers = max(1, min(workers, len(scan.tiles)))
    states = [scan.state() for _ in range(workers)]
    run_scan(scan, states, n, count_rows)
    return states[0] if workers == 1 else merge_candidates(states, k)
