"""Dask LocalCluster (2 workers x 1 thread) vs the single process on the same exact k-NN job.

    python benchmarks/bench_dask.py [--n 200000] [--queries 1000]

Job: exact cosine k-NN (k = 50) of 1,000 corpus queries over n x 384 float32 memory-mapped vectors. The Dask
path scans shards on the workers (opened by path) and merges the per-shard top-k; results are checked to be
identical. Cluster start-up is timed separately. Writes results/dask.{json,txt}.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder, cached_vectors  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--name", default="dask")
    a = ap.parse_args()
    from distributed import Client, LocalCluster

    import n2o_core.distributed as dd
    from n2o_core.search.exact import exact_knn

    rec = Recorder(a.name)
    X = cached_vectors(1_000_000, a.dim)
    if a.n < X.shape[0]:  # a whole file, so workers can open it by path
        from _common import DATA_DIR

        p = DATA_DIR / f"head-{a.n}x{a.dim}.npy"
        if not p.exists():
            np.save(p, np.asarray(X[: a.n]))
        X = np.load(p, mmap_mode="r")
    qids = np.sort(np.random.default_rng(1).choice(a.n, a.queries, replace=False))
    exact_knn(X[:3000], 5, query_ids=np.arange(3))
    np.asarray(X).sum()
    for processes in (True, False):
        t0 = time.perf_counter()
        with (
            LocalCluster(n_workers=2, threads_per_worker=1, processes=processes, dashboard_address=None) as cl,
            Client(cl) as client,
        ):
            t_start = time.perf_counter() - t0
            dd.exact_knn(client, X[:], a.k, query_ids=qids[:5], shard_rows=a.n // 4)  # warm the workers
            for r in range(a.repeats):
                t0 = time.perf_counter()
                ref = exact_knn(X, a.k, query_ids=qids)
                t_single = time.perf_counter() - t0
                t0 = time.perf_counter()
                got = dd.exact_knn(client, X, a.k, query_ids=qids)
                t_dask = time.perf_counter() - t0
                rec.add(
                    workers="processes" if processes else "threads",
                    run=r,
                    n=a.n,
                    queries=a.queries,
                    k=a.k,
                    cluster_start_s=t_start,
                    single_s=t_single,
                    dask_s=t_dask,
                    overhead_ratio_dask_over_single=t_dask / t_single,
                    identical=bool(np.array_equal(ref.ids, got.ids) and np.array_equal(ref.sims, got.sims)),
                )
    rec.save()


if __name__ == "__main__":
    main()
