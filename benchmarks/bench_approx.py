"""Approximate (pynndescent) vs exact search: speed-up and recall@50 on clustered synthetic vectors.

    python benchmarks/bench_approx.py [--sizes 100000] [--dim 384] [--queries 1000] [--k 50]

Exact search and the index build run on the same data in the same run; the index is built in a child process
with a time limit (pynndescent can take very long on 2 cores); its numba compilation (once per process) is
timed separately as jit_warmup_s. Writes results/approx.{json,txt}.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder, cached_vectors, recall_at_k  # noqa: E402


def worker(data: str, n: int, qfile: str, k: int, out: str) -> None:
    """Child process: build the index over the first n rows and query it."""
    from n2o_core.search.approx import approx_query, build_index
    from n2o_core.search.rows import prepare_rows

    X = np.load(data, mmap_mode="r")[:n]
    qids = np.load(qfile)
    t0 = time.perf_counter()  # numba compiles pynndescent's kernels once per process: keep that out of build_s
    warm, wz = prepare_rows(X[:3000], None)
    approx_query(build_index(warm, k), warm[:10], np.arange(10), k, wz)
    t_warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    Xn, zero = prepare_rows(X, None)
    t_norm = time.perf_counter() - t0
    t0 = time.perf_counter()
    index = build_index(Xn, k)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    ids, _ = approx_query(index, Xn[qids], qids, k, zero)
    t_query = time.perf_counter() - t0
    np.savez(out, ids=ids)
    print(json.dumps({"jit_warmup_s": t_warm, "normalize_s": t_norm, "build_s": t_build, "query_s": t_query}))


def run_approx(data: Path, n: int, qids: np.ndarray, k: int, timeout: float) -> dict:
    """Times and neighbor ids of the child process, or {"timeout": seconds}."""
    with tempfile.TemporaryDirectory() as tmp:
        qfile, out = str(Path(tmp) / "q.npy"), str(Path(tmp) / "out.npz")
        np.save(qfile, qids)
        cmd = [sys.executable, __file__, "worker", str(data), str(n), qfile, str(k), out]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"timeout": timeout}
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-2000:])
        res = json.loads(p.stdout.strip().splitlines()[-1])
        res["process_s"] = time.perf_counter() - t0
        with np.load(out) as z:
            res["ids"] = z["ids"]
        return res


def compare_sizes(rec: Recorder, sizes: list[int], dim: int, n_queries: int, k: int, timeout: float) -> None:
    from n2o_core.search.exact import exact_knn

    data = cached_vectors(max(sizes), dim)
    path = Path(data.filename)
    for n in sizes:
        X = data[:n]
        qids = np.sort(np.random.default_rng(1).choice(n, n_queries, replace=False))
        exact_knn(X[:5000], k, query_ids=np.arange(10))  # compile the kernel outside the timing
        t0 = time.perf_counter()
        ex = exact_knn(X, k, query_ids=qids)
        t_exact = time.perf_counter() - t0
        ap = run_approx(path, n, qids, k, timeout)
        if "timeout" in ap:
            rec.add(
                n=n,
                dim=dim,
                queries=n_queries,
                k=k,
                exact_s=t_exact,
                approx=f"no result within {timeout:.0f} s (index build not finished)",
            )
            continue
        recall = recall_at_k(ap["ids"], ex.ids)
        rec.add(
            n=n,
            dim=dim,
            queries=n_queries,
            k=k,
            exact_s=t_exact,
            build_s=ap["build_s"],
            query_s=ap["query_s"],
            jit_warmup_s=ap["jit_warmup_s"],
            recall_at_k=recall,
            speedup_query_only=t_exact / ap["query_s"],
            speedup_incl_build=t_exact / (ap["build_s"] + ap["query_s"] + ap["normalize_s"]),
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--name", default="approx")
    a = ap.parse_args()
    rec = Recorder(a.name)
    rec.log(
        "exact = n2o_core exact_knn; approx = pynndescent (n_neighbors=max(k+1,60), inner product on "
        "normalized rows) built in a child process; speed-ups are exact time / approx time in this run"
    )
    compare_sizes(rec, a.sizes, a.dim, a.queries, a.k, a.timeout)
    rec.save()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6])
    else:
        main()
