"""All-pairs N2O at 20k sentences: every sentence is a query (k = 50) for two embedders, end to end through
Workspace + compare (neighbors of all 20k queries, then N2O), against the same run's SGEMM bound
(the 20k x 20k x d products alone).

    python benchmarks/bench_n2o_allpairs.py [--n 20000]

The two "embedders" are precomputed synthetic vector sets (384-d clustered vectors and a 300-d noisy
projection of them), so the timing is the search and overlap, not a model. Writes results/n2o_allpairs.*.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder, clustered_vectors, sgemm_seconds  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--name", default="n2o_allpairs")
    a = ap.parse_args()
    from n2o_core.analyses.compare import compare
    from n2o_core.corpora import from_texts
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.search.exact import exact_knn
    from n2o_core.search.rows import normalize_rows
    from n2o_core.search.scan import default_block
    from n2o_core.storage.cache import Cache

    rec = Recorder(a.name)
    A = clustered_vectors(a.n, 384, seed=3)
    P = np.random.default_rng(4).standard_normal((384, 300)).astype(np.float32) / np.sqrt(384)
    B = (A @ P + 0.3 * np.random.default_rng(5).standard_normal((a.n, 300))).astype(np.float32)
    exact_knn(A[:3000], 5, query_ids=np.arange(3))  # compile outside the timing
    with tempfile.TemporaryDirectory() as tmp:
        np.save(Path(tmp) / "a.npy", A)
        np.save(Path(tmp) / "b.npy", B)
        corpus = from_texts([f"sentence {i}" for i in range(a.n)], name="synthetic")
        ws = Workspace(corpus, cache=Cache(Path(tmp) / "cache"))
        ws.add_vectors("a384", Path(tmp) / "a.npy")
        ws.add_vectors("b300", Path(tmp) / "b.npy")
        t0 = time.perf_counter()
        res = compare(ws, ["a384", "b300"], a.k, n_queries=a.n, n_samples=1)
        t_all = time.perf_counter() - t0
        t0 = time.perf_counter()
        compare(ws, ["a384", "b300"], a.k, n_queries=a.n, n_samples=1)
        t_cached = time.perf_counter() - t0
    t_sg = 0.0
    for X in (A, B):
        Qn, _ = normalize_rows(X)
        t_sg += sgemm_seconds(Qn, X, default_block(a.n, a.n))
    rec.add(
        n=a.n,
        k=a.k,
        queries=a.n,
        n2o=float(res.mean[0, 1]),
        chance=res.chance,
        end_to_end_s=t_all,
        per_embedder_s={e: round(s, 2) for e, s in res.seconds.items()},
        rerun_from_cache_s=t_cached,
        sgemm_both_s=t_sg,
        ratio_sgemm_over_end_to_end=t_sg / t_all,
    )
    rec.save()


if __name__ == "__main__":
    main()
