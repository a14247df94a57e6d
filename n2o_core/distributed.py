"""Dask backend: embed corpus shards on workers and run exact k-NN as per-shard top-k merged into the global top-k.

The same code runs on a `LocalCluster` (tests, one machine) and on a user's scheduler (`tcp://host:8786`).

- Embedding: pretrained embedders are loaded once per worker (`get_embedder(spec)`) and encode sentence
  shards. Corpus-trained embedders (tf-idf, word2vec, fastText) are fitted on the whole corpus; they are not
  sharded (`is_distributable` says so) and Workspace runs them in the client process.
- Exact k-NN: each task scans one shard of corpus rows with the same blocked search as `exact_knn` and returns
  its top (k + SLACK) candidates; the client merges them by (score desc, lower id first) and re-scores the
  survivors exactly in float64 -- the same last step as the single-process path, so ids and similarities are
  identical to `exact_knn`.
- Data: a memory-mapped corpus (the Workspace cache) is opened by path on the workers, which needs the cache
  folder on a filesystem the workers share; anything else (or `data="scatter"`) is sent to the workers.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, report
from n2o_core.search.exact import check_queries, finish_exact, search_shard
from n2o_core.search.result import Neighbors
from n2o_core.search.rows import Standardizer
from n2o_core.search.scan import Candidates, candidate_count, merge_candidates

if TYPE_CHECKING:
    from n2o_core.embedders.base import EmbedderInfo

_ENV_HINT = " (workers need the same Python environment as this process, with n2o_core importable)"


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


_WORKER_EMBEDDERS: LRU[tuple[str, str | None], Any] = LRU(16)
_WORKER_ARRAYS: LRU[str, np.ndarray] = LRU(16)
_WORKER_LOCK = threading.Lock()


def connect(scheduler: Any) -> Any:
    """A dask.distributed Client for a scheduler address ("tcp://host:8786"), or the Client given."""
    from distributed import Client

    if isinstance(scheduler, Client):
        return scheduler
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise N2OError(f"A Dask scheduler must be an address like tcp://host:8786 (got {scheduler!r}).")
    try:
        client = Client(scheduler.strip(), timeout=20)
    except (OSError, TimeoutError) as e:
        raise N2OError(f"Cannot reach the Dask scheduler at {scheduler}: {e}") from e
    try:
        check_environment(client)
    except BaseException:
        client.close()
        raise
    return client


#: What a user reads when the scheduler or a worker lacks this package (instead of "Error during
#: deserialization of the task graph", which is all Dask reports to the client).
CANNOT_IMPORT = "the Dask {who} cannot import n2o_core: install this package there (pip install .)"


def check_environment(client: Any) -> None:
    """N2OError when the scheduler or a worker cannot import n2o_core. The probe is the standard library's
    `importlib.util.find_spec`, which every Python can unpickle, so it runs even where n2o_core is missing."""
    import importlib.util

    try:
        on_scheduler = client.run_on_scheduler(importlib.util.find_spec, "n2o_core")
        on_workers = client.run(importlib.util.find_spec, "n2o_core")
    except Exception as e:  # noqa: BLE001 - any failure of the probe itself
        raise N2OError(f"Could not check the Dask cluster's Python environment: {_first_line(e)}{_ENV_HINT}") from e
    if on_scheduler is None:
        raise N2OError(_sentence(CANNOT_IMPORT.format(who="scheduler")))
    missing = sorted(address for address, spec in on_workers.items() if spec is None)
    if missing:
        who = f"worker{'s' if len(missing) > 1 else ''} at {', '.join(missing[:3])}"
        raise N2OError(_sentence(CANNOT_IMPORT.format(who=who)))


def _sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


def _worker_error(e: BaseException) -> str:
    """A worker's failure in one clause: the missing package named when that is the cause."""
    text = _first_line(e)
    if "n2o_core" in text or "deserializ" in text.lower():
        return f"{text} ({CANNOT_IMPORT.format(who='scheduler or a worker')})"
    return f"{text}{_ENV_HINT}"


def n_workers(client: Any) -> int:
    """Number of workers the scheduler has now (at least 1)."""
    return max(1, len(client.scheduler_info().get("workers", {})))


# ------------------------------------------------------------------------------------------------ embedding


def is_distributable(info: EmbedderInfo) -> bool:
    """Whether an embedder can encode shards independently (pretrained, not fitted on the corpus)."""
    return not info.corpus_trained


def _encode_shard(spec: str, cache_dir: str | None, texts: list[str]) -> np.ndarray:
    """Worker task: encode one shard with the embedder loaded once per worker process."""
    from n2o_core.embedders.registry import get_embedder

    key = (spec, cache_dir if cache_dir and os.path.isdir(cache_dir) else None)
    with _WORKER_LOCK:
        emb = _WORKER_EMBEDDERS.get(key)
        if emb is None:
            emb = _WORKER_EMBEDDERS[key] = get_embedder(spec, cache_dir=key[1])
    out = emb.encode(texts)
    if sp.issparse(out):
        raise EmbedderError(f"Embedder '{spec}' returns sparse rows; it cannot be embedded in shards.")
    return np.asarray(out, dtype=np.float32)


def embed(
    client: Any,
    spec: str,
    texts: Sequence[str],
    *,
    cache_dir: str | os.PathLike | None = None,
    shard_size: int = 2048,
    progress: Progress | None = None,
) -> np.ndarray:
    """(len(texts), d) float32 embeddings computed shard by shard on the workers (row order kept); stage "embed"
    reported to `progress` as shards come back."""
    from distributed import as_completed

    from n2o_core.embedders.registry import BUILTIN_EMBEDDER_IDS, list_embedders

    if spec in BUILTIN_EMBEDDER_IDS:
        info = next(i for i in list_embedders() if i.id == spec)
        if not is_distributable(info):
            raise EmbedderError(
                f"Embedder '{spec}' is fitted on the whole corpus and is not embedded in shards; "
                "run it in the client process."
            )
    texts = list(texts)
    n = len(texts)
    if n == 0:
        raise EmbedderError("There are no sentences to embed.")
    starts = list(range(0, n, shard_size))
    cdir = str(cache_dir) if cache_dir is not None else None
    futures = [client.submit(_encode_shard, spec, cdir, texts[s : s + shard_size], pure=False) for s in starts]
    where = {f.key: s for f, s in zip(futures, starts)}
    out: np.ndarray | None = None
    done = 0
    try:
        for fut in as_completed(futures):
            vec = fut.result()
            if out is None:
                out = np.zeros((n, vec.shape[1]), np.float32)
            s = where[fut.key]
            out[s : s + vec.shape[0]] = vec
            done += vec.shape[0]
            report(progress, "embed", done, n)
    except N2OError:
        raise
    except Exception as e:  # noqa: BLE001 - a worker failing is reported in one sentence
        raise EmbedderError(f"Embedder '{spec}' failed on a Dask worker: {_worker_error(e)}") from e
    finally:
        for f in futures:
            f.release()
    assert out is not None
    return out


# ------------------------------------------------------------------------------------------------ exact k-NN


def _open_memmap(path: str) -> np.ndarray:
    with _WORKER_LOCK:
        arr = _WORKER_ARRAYS.get(path)
        if arr is None:
            if not os.path.exists(path):
                raise N2OError(
                    f"A Dask worker cannot see {path}: put the cache folder on a filesystem shared "
                    "with the workers, or send the data (data='scatter')."
                )
            arr = _WORKER_ARRAYS[path] = np.load(path, mmap_mode="r", allow_pickle=False)
    return arr


def _shard_task(
    source: str | np.ndarray | sp.csr_matrix,
    start: int,
    stop: int,
    Qraw: np.ndarray | sp.csr_matrix,
    query_ids: np.ndarray | None,
    kk: int,
    standardizer: Standardizer | None,
) -> Candidates:
    """Worker task: top-kk candidates of every query among corpus rows start..stop (global ids)."""
    X = _open_memmap(source) if isinstance(source, str) else source
    rows = X[start:stop] if isinstance(source, str) else X
    return search_shard(rows, start, Qraw, query_ids, kk, standardizer=standardizer, serial=True)


def _memmap_path(X: np.ndarray | sp.csr_matrix) -> str | None:
    """The .npy file behind a memory-mapped array, when the array is that whole file."""
    fn = getattr(X, "filename", None)
    if not isinstance(X, np.memmap) or not fn or not os.path.exists(fn):
        return None
    try:
        whole = np.load(fn, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError):
        return None
    return str(fn) if whole.shape == X.shape and whole.dtype == X.dtype and X.flags.c_contiguous else None


def exact_knn(
    client: Any,
    X: np.ndarray | sp.csr_matrix,
    k: int,
    query_ids: np.ndarray | None = None,
    queries: np.ndarray | sp.csr_matrix | None = None,
    *,
    standardizer: Standardizer | None = None,
    shard_rows: int | None = None,
    data: str = "auto",
    progress: Progress | None = None,
) -> Neighbors:
    """`n2o_core.search.exact.exact_knn` on Dask: per-shard top-k on the workers, merged and re-scored here
    (same result); stage "neighbors" reported to `progress` as shards come back."""
    from distributed import as_completed

    t0 = time.perf_counter()
    n = X.shape[0]
    query_ids, Qraw = check_queries(X, k, query_ids, queries)
    if Qraw.shape[0] == 0:
        return Neighbors(np.empty((0, k), np.int64), np.empty((0, k), np.float32), None, 0.0)
    if data not in ("auto", "path", "scatter"):
        raise ValueError("data must be 'auto', 'path' or 'scatter'.")
    if shard_rows is None:
        shard_rows = min(1 << 20, max(1024, math.ceil(n / (2 * n_workers(client)))))
    kk = candidate_count(k, n, query_ids is not None)
    bounds = [(s, min(s + shard_rows, n)) for s in range(0, n, shard_rows)]
    path = None if data == "scatter" or sp.issparse(X) else _memmap_path(X)
    if data == "path" and path is None:
        raise N2OError("The corpus vectors are not a memory-mapped file, so workers cannot open them by path.")
    Q_f, std_f = client.scatter([Qraw, standardizer], broadcast=True, hash=False)
    sources = [path] * len(bounds) if path is not None else client.scatter([X[a:b] for a, b in bounds], hash=False)
    futures = [
        client.submit(_shard_task, src, a, b, Q_f, query_ids, kk, std_f, pure=False)
        for src, (a, b) in zip(sources, bounds)
    ]
    size = {f.key: b - a for f, (a, b) in zip(futures, bounds)}
    parts = []
    done = 0
    try:
        for fut in as_completed(futures):
            parts.append(fut.result())
            done += size[fut.key]
            report(progress, "neighbors", done, n)
    except N2OError:
        raise
    except Exception as e:  # noqa: BLE001
        raise N2OError(f"The neighbor search failed on a Dask worker: {_worker_error(e)}") from e
    finally:
        for f in futures:
            f.release()
    top_s, top_i = merge_candidates(parts, kk)
    return finish_exact(X, Qraw, top_s, top_i, k, standardizer=standardizer, started=t0)
