"""Approximate cosine k-NN with pynndescent (`approx_knn`), checked against exact search on held-out queries.

Zero-vector rows and queries follow the exact search's convention (`n2o_core.search.exact`); z-normalized sparse
rows are searched with a custom metric on their factored form (`zcos_distance`, no densified copy).

pynndescent hazards, kept off the request path: its numba compile (minutes of wall time per process on a loaded
2-core machine) runs once per process in a background thread (`warm_approx`, started early by the app), and
`build_index` waits for it instead of compiling a second time; the build itself runs under a time limit
(`approx_time_limit`), and a build that does not finish in time (pynndescent has looped on many near-identical
rows) yields an `ExactFallback`: `approx_knn` then answers with exact search (recall 1) and a notice says why.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.notices import notify
from n2o_core.search.exact import exact_knn
from n2o_core.search.result import NO_NEIGHBOR, Neighbors, recall_of
from n2o_core.search.rows import PreparedRows, Standardizer, ZNormRows, prepare_rows


def approx_n_neighbors(k: int, n: int, n_neighbors: int | None = None) -> int:
    """Graph degree of the pynndescent index: at least k + 1 and 60 (recall@50 ~0.77 at 30, ~0.98 at 100)."""
    return int(min(n_neighbors or max(k + 1, 60), n - 1))


@functools.cache
def zcos_distance() -> Callable[..., float]:
    """numba pynndescent metric on `ZNormRows.augmented()` rows: 1 - cosine of the z-normalized rows.

    Columns 0, 1, 2 of a row hold inv, t and sqrt(c) inv (found by column index, so a dropped zero is read as 0);
    the rest is y. Built on first use (imports numba).
    """
    import numba

    @numba.njit(fastmath=True)
    def _zcos(ind1: np.ndarray, data1: np.ndarray, ind2: np.ndarray, data2: np.ndarray) -> float:
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

    zcos: Callable[..., float] = _zcos
    return zcos


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
                with contextlib.suppress(Exception):  # the real build will say what is wrong
                    _compile_pynndescent(nice)

            t = threading.Thread(target=run, args=(not block,), name="n2o-pynndescent-warmup", daemon=True)
            _warm["thread"] = t
            t.start()
        elif block and t.is_alive() and t.native_id is not None:
            with contextlib.suppress(OSError):  # raising a priority needs privileges: best effort
                os.setpriority(os.PRIO_PROCESS, t.native_id, 0)
    if block:
        t.join()
    return t


def build_index(
    Xn: PreparedRows, k: int, *, n_neighbors: int | None = None, seed: int = 0, time_limit: float | None = None
) -> Any:
    """A prepared pynndescent index over `prepare_rows` output (dense: inner product; CSR: cosine;
    `ZNormRows`: `zcos_distance` on the augmented rows), or an `ExactFallback` when the build takes longer
    than `time_limit` seconds (default `approx_time_limit(n)`; the numba compile is done first and not counted).

    On a timeout the build's thread cannot be stopped (numba code is not interruptible): it is left to finish
    in the background as a daemon thread, and its result is dropped.

    Not persisted: pynndescent indexes are saved only by pickling, which the cache never does. (Rebuilding
    from a cached neighbor graph via `init_graph` was tried: it rebuilt faster but queries then reached a far lower
    recall, so it is not offered; measured: benchmarks/README.md, 'Measurements behind the code's choices'.)
    """
    with heavy_imports():
        import pynndescent

    n = Xn.shape[0]
    nn = approx_n_neighbors(k, n, n_neighbors)
    limit = approx_time_limit(n) if time_limit is None else time_limit
    metric: str | Callable[..., float]
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


def approx_query(
    index: Any, Qn: PreparedRows, q_ids: np.ndarray, k: int, zero: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """k approximate neighbors (ids, cosines) of the prepared query rows Qn (corpus ids q_ids) from a
    `build_index` index: self and zero rows (`zero`, the corpus's zero mask) dropped, (score desc, id asc) order."""
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


def approx_knn(
    X: np.ndarray | sp.csr_matrix,
    k: int,
    query_ids: np.ndarray,
    *,
    standardizer: Standardizer | None = None,
    n_neighbors: int | None = None,
    recall_sample: int = 100,
    seed: int = 0,
    index: Any = None,
    time_limit: float | None = None,
) -> tuple[Neighbors, Any]:
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
    ids, sims = approx_query(index, Xn[query_ids], query_ids, k, zero)
    result = Neighbors(ids, sims, None, time.perf_counter() - t0)
    exact = exact_knn(X, k, query_ids=held, standardizer=standardizer)
    got, _ = approx_query(index, Xn[held], held, k, zero)
    result.recall = recall_of(got, exact.ids)
    result.check_ids, result.check_exact, result.check_approx = held, exact.ids, got
    return result, index
