"""Exact Hamming k-NN on packed sign bits (the `@binary` variants) at 1M x 384 bits, 100 queries, k = 10, top-k
included, against faiss's `IndexBinaryFlat` on the same bits and against the tool's own float32 exact search on
the vectors the bits came from, all in the same run.

    python benchmarks/bench_hamming.py [--n 1000000] [--dim 384] [--queries 100] [--k 10] [--repeats 5]
                                       [--no-float] [--name hamming]

The vectors are `_common.cached_vectors(n, dim)` (clustered synthetic sentence vectors, memory-mapped); the bits
are their signs packed as sentence-transformers' `quantize_embeddings(..., "ubinary")` packs them. Timed, best
of `--repeats`, alternating so that every contender sees the same machine:
- `hamming_s`: `n2o_core.search.hamming.hamming_knn` (the whole call: scan, top-k, merge, similarities);
- `faiss_s`: faiss `IndexBinaryFlat.search` (k + 1 asked: it finds the query itself, dropped), on all cores;
  `faiss_same_lists`: the share of queries whose ordered lists are identical, `faiss_same_distances` those whose
  sorted distances are (faiss breaks ties its own way);
- `float_s`: `n2o_core.search.exact.exact_knn` on the float32 vectors (unless --no-float), and the recall@k of
  the Hamming neighbors against it (how many float neighbors survive binary quantization on this data);
- `int8_s`: the same exact search on the vectors' int8 codes (`@int8`: what `n2o_core.variants.knn` runs for
  them, its tiles widened to float32 for BLAS; unless --no-float), and its recall@k against float32.
Target (issue 36): hamming_s <= 1.2 x faiss_s. Memory: bits take dim / 8 bytes a row, float32 4 dim (32x).
The 1-minute load average must be <= 1.0 when the script starts, else the result is marked "valid": false.
Writes results/<name>.{json,txt}.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder, cached_vectors, recall_at_k  # noqa: E402

TARGET = 1.2


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--no-float", action="store_true", help="skip the float32 and int8 exact searches")
    ap.add_argument("--name", default="hamming")
    return ap.parse_args()


def faiss_lists(D: np.ndarray, ids: np.ndarray, qids: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """faiss's k + 1 results without the query itself: (ids, distances), k each."""
    out_i = np.empty((len(qids), k), np.int64)
    out_d = np.empty((len(qids), k), np.int64)
    for r, q in enumerate(qids):
        keep = ids[r] != q
        out_i[r] = ids[r][keep][:k]
        out_d[r] = D[r][keep][:k]
    return out_i, out_d


def main() -> None:
    a = parse_args()
    import faiss

    from n2o_core.search.exact import exact_knn
    from n2o_core.search.hamming import hamming_knn
    from n2o_core.search.scan import search_threads
    from n2o_core.variants.transforms import int8_ranges, pack_signs, quantize_int8

    rec = Recorder(a.name)
    X = cached_vectors(a.n, a.dim)
    t0 = time.perf_counter()
    bits = pack_signs(X)
    pack_s = time.perf_counter() - t0
    qids = np.sort(np.random.default_rng(1).choice(a.n, a.queries, replace=False))
    hamming_knn(bits[:20000], a.dim, a.k, np.arange(10))  # load the compiled kernels outside the timing
    codes = None
    if not a.no_float:
        exact_knn(X[:20000], a.k, np.arange(10))
        codes = quantize_int8(X, int8_ranges(X))
    faiss.omp_set_num_threads(os.cpu_count() or 1)
    index = faiss.IndexBinaryFlat(a.dim)
    index.add(bits)
    rec.data.update(
        faiss={"version": faiss.__version__, "threads": faiss.omp_get_max_threads()},
        search_threads=search_threads(),
        bytes_per_row={"bits": int(bits.shape[1]), "float32": 4 * a.dim},
        memory_ratio_float_over_bits=4 * a.dim / bits.shape[1],
        pack_s=round(pack_s, 3),
    )
    rec.log(
        f"{a.n} x {a.dim} bits ({bits.nbytes / 2**20:.0f} MiB; float32 {X.nbytes / 2**20:.0f} MiB, "
        f"{4 * a.dim / bits.shape[1]:.0f}x), {a.queries} queries, k={a.k}, {search_threads()} search threads, "
        f"faiss {faiss.__version__} on {faiss.omp_get_max_threads()} threads"
    )
    runs = []
    for r in range(a.repeats):
        t0 = time.perf_counter()
        nb = hamming_knn(bits, a.dim, a.k, qids)
        t_ham = time.perf_counter() - t0
        t0 = time.perf_counter()
        D, ids = index.search(bits[qids], a.k + 1)
        t_faiss = time.perf_counter() - t0
        f_ids, f_d = faiss_lists(D, ids, qids, a.k)
        ours_d = np.rint((1.0 - nb.sims.astype(np.float64)) * a.dim / 2).astype(np.int64)
        row = dict(
            run=r,
            hamming_s=t_ham,
            faiss_s=t_faiss,
            ratio_hamming_over_faiss=t_ham / t_faiss,
            faiss_same_lists=float((f_ids == nb.ids).all(axis=1).mean()),
            faiss_same_distances=float((np.sort(f_d, axis=1) == ours_d).all(axis=1).mean()),
        )
        if not a.no_float:
            t0 = time.perf_counter()
            fl = exact_knn(X, a.k, qids)
            t_float = time.perf_counter() - t0
            row.update(float_s=t_float, speedup_over_float=t_float / t_ham, recall_of_float=recall_at_k(nb.ids, fl.ids))
            t0 = time.perf_counter()
            i8 = exact_knn(codes, a.k, qids)
            t_int8 = time.perf_counter() - t0
            row.update(int8_s=t_int8, int8_recall_of_float=recall_at_k(i8.ids, fl.ids))
        runs.append(row)
        rec.add(**row)
    best = {
        key: min(r[key] for r in runs)
        for key in ("hamming_s", "faiss_s") + (() if a.no_float else ("float_s", "int8_s"))
    }
    summary = {
        **{f"{k}_best": v for k, v in best.items()},
        "ratio_hamming_over_faiss_median": float(np.median([r["ratio_hamming_over_faiss"] for r in runs])),
        "target": TARGET,
        "memory_ratio_float_over_bits": rec.data["memory_ratio_float_over_bits"],
    }
    summary["meets_target"] = bool(summary["ratio_hamming_over_faiss_median"] <= TARGET)
    if not a.no_float:
        summary["speedup_over_float_median"] = float(np.median([r["speedup_over_float"] for r in runs]))
    rec.data["summary"] = summary
    rec.log(f"summary: {summary}")
    rec.save()


if __name__ == "__main__":
    main()
