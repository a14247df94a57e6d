"""Paraphrase needle ranking: blocked counting (n2o_core.needle.paraphrase_ranks) against a full sort and the
plain matrix product of the same shapes.

    python benchmarks/bench_needle.py [--n 200000] [--d 384] [--pairs 100 1000] [--repeats 3]

For each pair count: the time of `paraphrase_ranks` (float64 scores, counted per corpus block, top-3 kept),
of the float64 products Q @ X[b].T alone over the same blocks (the BLAS bound: same flops, no normalization,
no counting), and of the naive way (all scores in one matrix, a full argsort per query, the paraphrase's
position looked up). The ranks of the two methods must be identical. Also a sparse (tf-idf-like CSR) case.
Writes benchmarks/results/bench_needle.json (and .txt). Run on a quiet machine: ratios are same-run.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder, cached_vectors  # noqa: E402

from n2o_core.needle import _unit, paraphrase_ranks  # noqa: E402


def full_sort_ranks(X, Q, P) -> np.ndarray:
    """The naive way: every score, a full descending sort per query, position of the paraphrase (+1)."""
    Xn, _ = _unit(X, None)
    Qn, _ = _unit(Q, None)
    Pn, _ = _unit(P, None)
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=384)
    ap.add_argument("--pairs", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
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
