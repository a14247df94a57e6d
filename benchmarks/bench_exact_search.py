"""Exact cosine k-NN at 1M x 384 float32, 1,000 queries, k = 50, against this machine's SGEMM rate.

    python benchmarks/bench_exact_search.py [--n 1000000] [--repeats 2] [--approx-timeout 1800]

SGEMM bound = time of the plain float32 products (1000 x 384) @ (384 x block) over the whole corpus, in the
same blocks and the same process (no normalization, no selection); ratio = sgemm_s / knn_s (1.0 = the search
costs no more than its matrix product). SGEMM and search runs alternate so both see the same machine load.
pynndescent's build/query time and recall@50 on the same data and queries are recorded beside it.
Writes results/exact_search.{json,txt}.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder, cached_vectors, recall_at_k, sgemm_seconds  # noqa: E402
from bench_approx import run_approx  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--approx-timeout", type=float, default=1800)
    ap.add_argument("--name", default="exact_search")
    a = ap.parse_args()
    from n2o_core.neighbors import default_block, exact_knn, normalize_rows

    rec = Recorder(a.name)
    X = cached_vectors(a.n, a.dim)
    qids = np.sort(np.random.default_rng(1).choice(a.n, a.queries, replace=False))
    block = default_block(a.n, a.queries)
    Qn, _ = normalize_rows(X[qids])
    exact_knn(X[:5000], a.k, query_ids=np.arange(10))  # compile outside the timing
    np.asarray(X).sum()  # page the memory-mapped corpus in once
    rec.log(f"corpus {a.n} x {a.dim} float32 (memory-mapped .npy), {a.queries} queries, k={a.k}, block {block} rows")
    runs = []
    for r in range(a.repeats):
        t_sgemm = sgemm_seconds(Qn, X, block)
        t0 = time.perf_counter()
        res = exact_knn(X, a.k, query_ids=qids)
        t_knn = time.perf_counter() - t0
        gflops = 2 * a.queries * a.n * a.dim / t_sgemm / 1e9
        runs.append((t_sgemm, t_knn))
        rec.add(run=r, sgemm_s=t_sgemm, sgemm_gflops=gflops, knn_s=t_knn, ratio_sgemm_over_knn=t_sgemm / t_knn)
    ratios = [s / k for s, k in runs]
    rec.data["summary"] = {
        "ratio_median": float(np.median(ratios)),
        "ratio_best_pair": float(max(ratios)),
        "knn_best_s": min(k for _, k in runs),
        "sgemm_best_s": min(s for s, _ in runs),
    }
    rec.log(f"summary: {rec.data['summary']}")
    ap_res = run_approx(Path(X.filename), a.n, qids, a.k, a.approx_timeout)
    t_knn = min(k for _, k in runs)
    if "timeout" in ap_res:
        rec.add(approx="pynndescent index not built within the time limit", timeout_s=a.approx_timeout)
    else:
        rec.add(
            approx="pynndescent",
            build_s=ap_res["build_s"],
            query_s=ap_res["query_s"],
            jit_warmup_s=ap_res["jit_warmup_s"],
            recall_at_50=recall_at_k(ap_res["ids"], res.ids),
            speedup_query_only=t_knn / ap_res["query_s"],
            speedup_incl_build=t_knn / (ap_res["build_s"] + ap_res["query_s"] + ap_res["normalize_s"]),
        )
    rec.save()


if __name__ == "__main__":
    main()
