"""Shared helpers of the benchmark scripts: machine facts, synthetic vectors, the SGEMM bound, result files.

Every benchmark records the CPU model and `os.getloadavg()` before and after, and compares each timing with a
baseline measured in the same process. A result is marked `"valid": false` when the 1-minute load average was
above MAX_LOAD (1.0) when the benchmark started: other processes then share the cores and the ratios mean little
(run benchmarks through `/work/shared/tools/when-quiet`, which waits for a quiet machine).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


#: A benchmark started above this 1-minute load average is recorded as invalid.
MAX_LOAD = 1.0
#: The load average when the benchmark script started (imported this module).
LOAD_AT_IMPORT = [round(x, 2) for x in os.getloadavg()]


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo; platform.processor() elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags() -> list[str]:
    """The vector instruction sets the CPU reports (avx2, avx512f, f16c, fma, ...)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    have = set(line.split(":", 1)[1].split())
                    return sorted(have & {"avx", "avx2", "avx512f", "avx512bw", "avx512_fp16", "f16c", "fma"})
    except OSError:
        pass
    return []


def machine() -> dict[str, Any]:
    """CPU model and count, memory, BLAS kernel and load average now."""
    from threadpoolctl import threadpool_info

    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) / 2**20
    except OSError:
        pass
    blas = [
        {k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]
    return {
        "cpu_model": cpu_model(),
        "cpu_flags": cpu_flags(),
        "cpus": os.cpu_count(),
        "memory_gib": round(mem, 1) if mem else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas": blas,
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }


def clustered_vectors(
    n: int,
    d: int,
    *,
    dtype=np.float32,
    seed: int = 0,
    part: int = 0,
    clusters: int = 512,
    latent: int = 48,
    noise: float = 0.35,
    block: int = 200_000,
) -> np.ndarray:
    """Synthetic "sentence vectors": a mixture of `clusters` Gaussians in a `latent`-dim space, mapped to d
    dims by a fixed random matrix, plus isotropic noise. Low intrinsic dimension like real embeddings (pure
    Gaussian noise in 384-d has no neighbor structure and is the worst case for approximate search).
    `part` draws another sample from the same mixture (for building large sets piece by piece)."""
    shape_rng = np.random.default_rng(seed)
    centers = shape_rng.standard_normal((clusters, latent)).astype(np.float32) * 2.0
    W = (shape_rng.standard_normal((latent, d)) / np.sqrt(latent)).astype(np.float32)
    rng = np.random.default_rng([seed, part])
    out = np.empty((n, d), dtype)
    for s in range(0, n, block):
        m = min(block, n - s)
        lab = rng.integers(0, clusters, m)
        z = centers[lab] + rng.standard_normal((m, latent), dtype=np.float32)
        out[s : s + m] = z @ W + noise * rng.standard_normal((m, d), dtype=np.float32)
    return out


def sgemm_seconds(Q: np.ndarray, X: np.ndarray, block: int, repeats: int = 1) -> float:
    """Time of the plain float32 products Q @ X[b].T over the corpus in blocks of `block` rows (the machine's
    SGEMM bound for exact search: the same flops, no normalization and no selection), BLAS on all its threads,
    written into one preallocated output (no page faults of fresh allocations). Blocks that are not float32 are
    converted first (float16 matmul has no fast kernel), so for them the bound includes the conversion. Best of
    `repeats`."""
    Q = np.ascontiguousarray(Q, np.float32)
    out = np.empty((Q.shape[0], min(block, X.shape[0])), np.float32)
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        for s in range(0, X.shape[0], block):
            Xb = X[s : s + block]
            if Xb.dtype != np.float32:
                Xb = Xb.astype(np.float32)
            np.matmul(Q, Xb.T, out=out[:, : Xb.shape[0]])
        best = min(best, time.perf_counter() - t0)
    return best


def sgemm_bound(Q: np.ndarray, X: np.ndarray, blocks: list[int]) -> tuple[float, dict[int, float]]:
    """The SGEMM bound: the fastest of `sgemm_seconds` over the given block sizes (e.g. the search's tile and
    a 64 MB score block), and the time of each."""
    times = {int(b): sgemm_seconds(Q, X, int(b)) for b in dict.fromkeys(blocks)}
    return min(times.values()), times


def recall_at_k(approx_ids: np.ndarray, exact_ids: np.ndarray) -> float:
    """Mean fraction of the exact k neighbors found by the approximate search."""
    hits = sum(len(set(a.tolist()) & set(e.tolist())) for a, e in zip(approx_ids, exact_ids))
    return hits / exact_ids.size


class Recorder:
    """Collects results and writes results/<name>.json plus a readable results/<name>.txt.

    `valid` is False when the 1-minute load average was above MAX_LOAD when the script started (imported this
    module, before any work of its own); the files then say so."""

    def __init__(self, name: str):
        self.name = name
        info = {**machine(), "loadavg_start": LOAD_AT_IMPORT}
        self.valid = info["loadavg_start"][0] <= MAX_LOAD
        self.data: dict[str, Any] = {
            "benchmark": name,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "valid": self.valid,
            "max_load": MAX_LOAD,
            "machine": info,
            "results": [],
        }
        self.lines: list[str] = []
        self.log(
            f"# {name}  ({self.data['started']}, {info['cpu_model']}, {info['cpus']} cpus, "
            f"load {info['loadavg_start']}, BLAS {info['blas']})"
        )
        if not self.valid:
            self.log(
                f"# INVALID: 1-minute load {info['loadavg_start'][0]} > {MAX_LOAD} at the start; "
                "these numbers are not a measurement of this machine"
            )

    def log(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)

    def add(self, **row: Any) -> None:
        row = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
        row["loadavg"] = [round(x, 2) for x in os.getloadavg()]
        self.data["results"].append(row)
        self.log("  " + ", ".join(f"{k}={v}" for k, v in row.items()))

    def save(self) -> None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        self.data["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
        self.data["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
        self.log(f"# load at end {self.data['machine']['loadavg_end']}; valid: {str(self.valid).lower()}")
        for suffix, text in ((".json", json.dumps(self.data, indent=1)), (".txt", "\n".join(self.lines) + "\n")):
            p = RESULTS / f"{self.name}{suffix}"
            tmp = p.with_name("." + p.name + ".tmp")
            tmp.write_text(text)
            os.replace(tmp, p)


def server_folder(prefix: str, cache_dir: str | None) -> tuple[Path, Path, bool, dict[str, str]]:
    """What a benchmark that starts the dashboard needs: (a fresh temporary folder, the cache folder: `cache_dir`
    or one inside the temporary folder, whether that cache starts cold, the server's environment: the cache
    folder and offline hub switches over this process's environment)."""
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    cache = Path(cache_dir).resolve() if cache_dir else tmp / "cache"
    env = dict(os.environ, N2O_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return tmp, cache, not cache.exists(), env


def save_flat(name: str, out: dict[str, Any], omit_from_txt: tuple[str, ...] = ()) -> None:
    """Write a one-level result dict to results/<name>.json and a `key: value` results/<name>.txt; print it.

    The machine (CPU model; load average when the script imported this module, as its start) and `valid` are
    added unless present."""
    out = dict(out)
    info = out.setdefault("machine", {**machine(), "loadavg_start": LOAD_AT_IMPORT})
    out.setdefault("valid", info["loadavg_start"][0] <= MAX_LOAD)
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(out, indent=2) + "\n")
    lines = [f"{k}: {v}" for k, v in out.items() if k not in omit_from_txt]
    (RESULTS / f"{name}.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


DATA_DIR = Path(os.environ.get("N2O_BENCH_DATA", "/tmp/n2o_bench_data"))


def cached_vectors(n: int, d: int, dtype: str = "float32", seed: int = 0) -> np.ndarray:
    """clustered_vectors(n, d) stored once as .npy under $N2O_BENCH_DATA and memory-mapped (read-only)."""
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    path = DATA_DIR / f"clustered-{n}x{d}-{dtype}-s{seed}.npy"
    if not path.exists():
        tmp = path.with_name(path.name + ".tmp.npy")
        out = np.lib.format.open_memmap(tmp, mode="w+", dtype=dtype, shape=(n, d))
        step = 1_000_000
        for s in range(0, n, step):
            m = min(step, n - s)
            out[s : s + m] = clustered_vectors(m, d, seed=seed, part=s // step)
        out.flush()
        del out
        os.replace(tmp, path)
    return np.load(path, mmap_mode="r")
