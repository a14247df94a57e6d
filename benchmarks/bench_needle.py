"""Paraphrase needle ranking: blocked counting (n2o_core.evaluation.needle.paraphrase_ranks) against a full sort and the
plain matrix product of the same shapes.

    python benchmarks/bench_needle.py [--n 200000] [--d 384] [--pairs 100 1000] [--repeats 3]

For each pair count: the time of `paraphrase_ranks` (float64 scores, counted per corpus block, top-3 kept),
of the float64 products Q @ X[b].T alone over the same blocks (the BLAS bound: same flops, no normalization,
no counting), and of the naive way (all scores in one matrix, a full argsort per query, the paraphrase's
position looked up). The ranks of the two methods must be identical. Also a sparse (tf-idf-like CSR) case.
Writes benchmarks/results/bench_needle.json (and .txt). Run on a quiet machine: ratios are same-run.

    python benchmarks/bench_needle.py --runs [--corpus builtin:bbc-news] [--max-sentences 5000]
                                             [--pair-spec synthetic:heros-synonym:100] [--embedder ID ...]

End-to-end cold and warm needle runs instead, as whole processes (`python -m n2o_core needle`): on an empty cache
(corpus embeddings, pairs and their vectors all made), on a cache holding only the corpus embeddings (what the
dashboard's needle page meets after the heatmap: pairs made and embedded, corpus read back), and again on the
filled cache (everything read back). The three JSON outputs must be identical. Writes
benchmarks/results/bench_needle_runs.json (and .txt).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, Recorder, cached_vectors, save_flat  # noqa: E402

from n2o_core.evaluation.needle import paraphrase_ranks, unit_rows  # noqa: E402


def full_sort_ranks(X, Q, P) -> np.ndarray:
    """The naive way: every score, a full descending sort per query, position of the paraphrase (+1)."""
    Xn, _ = unit_rows(X, None)
    Qn, _ = unit_rows(Q, None)
    Pn, _ = unit_rows(P, None)
    S = Qn @ Xn.T
    S = np.asarray(S.toarray() if sp.issparse(S) else S)
    p = np.asarray(Qn.multiply(Pn).sum(axis=1)).ravel() if sp.issparse(Qn) else np.einsum("ij,ij->i", Qn, Pn)
    ranks = np.empty(len(p), np.int64)
    for i in range(len(p)):
        order = np.sort(S[i])[::-1]  # full sort of the corpus scores
        ranks[i] = 1 + np.searchsorted(-order, -(p[i] + 1e-6), side="left")
    return ranks


def matmul_seconds(X, Q, block: int) -> float:
    Q = np.asarray(Q, np.float64)
    t = time.perf_counter()
    for s in range(0, X.shape[0], block):
        np.matmul(Q, np.asarray(X[s : s + block], np.float64).T)
    return time.perf_counter() - t


def best(fn, repeats: int) -> tuple[float, object]:
    out, t_best = None, np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best, out


def _cli(cmd: str, args: list[str], cache: Path) -> float:
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "n2o_core", cmd, *args, "--cache-dir", str(cache)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        env=dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1"),
    )
    return time.perf_counter() - t


def end_to_end(args: argparse.Namespace) -> None:
    """Cold (empty cache), corpus-cached and warm `needle` runs, as separate processes; identical output."""
    corpus = ["--corpus", args.corpus, "--max-sentences", str(args.max_sentences)]
    embs = [a for e in args.embedder for a in ("--embedder", e)]
    tmp = Path(tempfile.mkdtemp(prefix="n2o-needle-bench-"))
    out: dict[str, object] = {
        "command": "python -m n2o_core needle " + " ".join([*corpus, "--pairs", args.pair_spec, *embs]),
        "cpus": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }
    needle = [*corpus, "--pairs", args.pair_spec, *embs]
    out["empty_cache_s"] = round(_cli("needle", [*needle, "--json", str(tmp / "cold.json")], tmp / "a"), 1)
    out["embed_corpus_s"] = round(_cli("embed", [*corpus, *embs], tmp / "b"), 1)
    out["corpus_cached_s"] = round(_cli("needle", [*needle, "--json", str(tmp / "page.json")], tmp / "b"), 1)
    out["warm_s"] = round(_cli("needle", [*needle, "--json", str(tmp / "warm.json")], tmp / "b"), 1)
    docs = [json.loads((tmp / f).read_text()) for f in ("cold.json", "page.json", "warm.json")]
    for d in docs:
        d.pop("meta", None)
    out["identical_output"] = docs[0] == docs[1] == docs[2]
    out["warm_over_empty"] = round(out["warm_s"] / out["empty_cache_s"], 3)  # type: ignore[operator]
    out["mrr"] = {r["embedder"]: r["mrr"] for r in docs[0]["results"]}
    out["n_pairs"] = docs[0]["n_pairs"]
    out["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    save_flat("bench_needle_runs", out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=384)
    ap.add_argument("--pairs", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runs", action="store_true", help="end-to-end cold / corpus-cached / warm CLI runs instead")
    ap.add_argument("--corpus", default="builtin:bbc-news")
    ap.add_argument("--max-sentences", type=int, default=5000)
    ap.add_argument("--pair-spec", default="synthetic:heros-synonym:100")
    ap.add_argument(
        "--embedder", action="append", default=None, help="repeatable (default: tfidf, glove-6b-50d, minilm-l6-mean)"
    )
    args = ap.parse_args()
    if args.runs:
        args.embedder = args.embedder or ["tfidf", "glove-6b-50d", "minilm-l6-mean"]
        end_to_end(args)
        return
    rec = Recorder("bench_needle")
    X = cached_vectors(args.n, args.d)
    rng = np.random.default_rng(0)
    for n_pairs in args.pairs:
        qi = rng.choice(args.n, n_pairs, replace=False)
        Q = np.asarray(X[qi], np.float32) + 0.3 * rng.standard_normal((n_pairs, args.d)).astype(np.float32)
        P = np.asarray(X[qi], np.float32) + 0.3 * rng.standard_normal((n_pairs, args.d)).astype(np.float32)
        block = int(min(args.n, max(1024, (32 << 20) // (8 * n_pairs))))
        t_rank, r = best(lambda Q=Q, P=P, b=block: paraphrase_ranks(X, Q, P, block=b), args.repeats)
        t_mm, _ = best(lambda Q=Q, b=block: matmul_seconds(X, Q, b), args.repeats)
        t_sort, ranks = best(lambda Q=Q, P=P: full_sort_ranks(X, Q, P), 1)
        rec.add(
            case="dense",
            n=args.n,
            d=args.d,
            pairs=n_pairs,
            block=block,
            rank_s=t_rank,
            matmul_s=t_mm,
            full_sort_s=t_sort,
            rank_over_matmul=t_rank / t_mm,
            full_sort_over_rank=t_sort / t_rank,
            identical=bool(np.array_equal(r.rank, ranks)),
        )
    n_sp, v = args.n // 2, 30_000
    Xs = sp.random(n_sp, v, density=12 / v, random_state=1, format="csr", dtype=np.float64)
    Qs = sp.random(100, v, density=12 / v, random_state=2, format="csr") + Xs[:100]
    Ps = sp.random(100, v, density=12 / v, random_state=3, format="csr") + Xs[:100]
    t_rank, r = best(lambda: paraphrase_ranks(Xs, Qs, Ps), args.repeats)
    t_sort, ranks = best(lambda: full_sort_ranks(Xs, Qs, Ps), 1)
    rec.add(
        case="csr",
        n=n_sp,
        vocabulary=v,
        pairs=100,
        rank_s=t_rank,
        full_sort_s=t_sort,
        full_sort_over_rank=t_sort / t_rank,
        identical=bool(np.array_equal(r.rank, ranks)),
    )
    rec.save()


if __name__ == "__main__":
    main()
