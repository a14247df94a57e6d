"""`python -m n2o_core variants`: what a layer, a compression or an approximate index does to one embedder's
neighbors (issue 36): the layer x layer N2O and linear CKA of its model (and against --other), the compression
curve (dims, PCA, int8, binary, binary + rescoring: bytes per vector, N2O with the full-precision exact
neighbors, needle MRR, STS Spearman, the knee) and the index sweep (recall@k against query time).

--json OUT writes `VariantsResult.to_json()`, the same document as `n2o.variant_analysis(...).to_json()` and the
page's download. Bad input: one `error:` line, exit code 2.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from n2o_core.cli.common import add_corpus_args, add_json_arg, variant_bars, workspace_from_args, write_json
from n2o_core.errors import N2OError


def add_parser(subparsers: Any) -> None:
    """Add the `variants` subcommand."""
    p = subparsers.add_parser(
        "variants", help="layers, compressions (@dims/@pca/@int8/@binary) and index of one embedder"
    )
    add_corpus_args(p)
    p.add_argument("--embedder", required=True, metavar="ID", help="the embedder (or a variant id) to take apart")
    p.add_argument("--other", default=None, metavar="ID", help="compare its layers with this embedder's too")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--queries", type=int, default=100, help="queries per sample")
    p.add_argument("--samples", type=int, default=5, help="number of random query samples")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sizes", default="", metavar="D,D,...", help="dimensions each family is tried at")
    p.add_argument("--needle-pairs", default="builtin:lee", metavar="SPEC", help="pairs of the needle ('none': off)")
    p.add_argument("--sts-pairs", default="builtin:lee", metavar="SPEC", help="scored pairs of STS ('none': off)")
    for part in ("layers", "compression", "index"):
        p.add_argument(f"--no-{part}", action="store_true", help=f"leave the {part} part out")
    add_json_arg(p)
    p.set_defaults(func=run, vectors=[])


def _sizes(text: str) -> list[int] | None:
    try:
        return [int(s) for s in text.split(",") if s.strip()] or None
    except ValueError:
        raise N2OError(f"--sizes takes whole numbers separated by commas (got '{text}').") from None


def _off(spec: str) -> str | None:
    return None if spec.strip().lower() in ("none", "off", "") else spec


def run(args: argparse.Namespace) -> int:
    """Run the `variants` subcommand."""
    from n2o_core.evaluation.variants.run import run_variants

    args.embedder = [args.embedder]
    ws, ids = workspace_from_args(args)
    bars = variant_bars()
    t0 = time.perf_counter()
    res = run_variants(
        ws,
        ids[0],
        other=args.other,
        k=args.k,
        layers=not args.no_layers,
        compression=not args.no_compression,
        index=not args.no_index,
        sizes=_sizes(args.sizes),
        needle_pairs=_off(args.needle_pairs),
        sts_pairs=_off(args.sts_pairs),
        n_queries=args.queries,
        n_samples=args.samples,
        seed=args.seed,
        progress=bars,
    )
    if args.json:
        write_json(args.json, res.to_json(), indent=None, ensure_ascii=True, allow_nan=True)
    _print(res)
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    return 0


def _print(res: Any) -> None:
    print(f"corpus {res.corpus}: N={res.corpus_size}, embedder {res.embedder}, k={res.k}")
    for name, L in (("layers", res.layers), ("between", res.between)):
        if L is None:
            continue
        cols = [c.rpartition("@")[2] if "@layer=" in c else c for c in L.cols]
        print(f"\n== {name}: N2O (chance {L.chance:.4f}) | linear CKA; rows {L.a}, columns {L.b or L.a}")
        print(f"{'':10s}" + "".join(f"{c:>10s}" for c in cols) + " |" + "".join(f"{c:>10s}" for c in cols))
        for i, r in enumerate(L.rows):
            row = "".join(f"{v:10.3f}" for v in L.n2o[i]) + " |" + "".join(f"{v:10.3f}" for v in L.cka[i])
            print(f"{r.rpartition('@')[2]:10s}{row}   best: {cols[L.best_n2o[i]]} (N2O), {cols[L.best_cka[i]]} (CKA)")
    C = res.compression
    if C is not None:
        print(f"\n== compression of {C.embedder} (N2O with its exact full-precision neighbors; chance {C.chance:.4f})")
        print(f"{'variant':48s} {'family':>15s} {'bytes':>6s} {'N2O':>7s} {'needle':>7s} {'STS ρ':>7s}")
        for p in C.points:
            mark = "  <- knee" if p.variant == C.knee else ""
            q = [_num(v) for v in (p.n2o_with_original, p.needle_mrr, p.sts_spearman)]
            print(f"{p.variant:48s} {p.family:>15s} {p.bytes_per_vector:6d} {' '.join(q)}{mark}")
        for note in C.notes:
            print(f"note: {note}")
    X = res.index
    if X is not None:
        print(f"\n== index of {X.embedder}: recall@{X.k} (= N2O with exact) on {X.n_queries} queries")
        for p in X.points:
            flag = " (the tool's default)" if p.default else ""
            ms = 1000 * p.query_seconds_per_query
            print(f"{p.setting:32s} recall {p.recall:.3f}  {ms:8.3f} ms/query  build {p.build_seconds:.2f} s{flag}")
    for part, why in res.errors.items():
        print(f"{part}: {why}")


def _num(v: float | None) -> str:
    return f"{v:7.3f}" if v is not None and np.isfinite(v) else f"{'-':>7s}"
