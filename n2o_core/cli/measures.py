"""`python -m n2o_core similarity-measures` (alias `measures`; the API's `n2o.similarity_measures`): similarity
measures beyond N2O (CKA, CKNNA, RSA, Procrustes, ...) for every pair of embedders, each with a permutation null
(mean, p) and a bootstrap interval.

Writes JSON {"embedders", "corpus_size", "subsample", "k", "measures", "results": [{"a", "b", "measure",
"value", "ci": [lo, hi], "null_mean", "p"}], "measure_agreement": [{"m1", "m2", "spearman"}]} with --json and
prints one table per measure, headed by its display name and id. Bad input: one `error:` line, exit code 2.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

from n2o_core.cli.common import (
    add_corpus_args,
    add_embedder_args,
    check_embedders,
    measure_bars,
    workspace_from_args,
    write_json,
)
from n2o_core.errors import N2OError


def add_parser(subparsers: Any) -> None:
    """Add the `similarity-measures` subcommand (the API's `similarity_measures`; `measures`, its old name, stays an
    alias) to an argparse subparsers object."""
    from n2o_core.measures import MEASURE_IDS, display_name
    from n2o_core.measures.nulls import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS
    from n2o_core.measures.run import DEFAULT_K, DEFAULT_SUBSAMPLE, NULL_SUBSAMPLE

    p = subparsers.add_parser(
        "similarity-measures",
        aliases=["measures"],
        help="CKA, CKNNA, RSA, Procrustes, SVCCA, ... between every pair of embedders, with nulls",
    )
    add_corpus_args(p)
    add_embedder_args(p)
    p.add_argument(
        "--k", type=int, default=DEFAULT_K, help="neighbors of the neighborhood measures (default %(default)s)"
    )
    p.add_argument(
        "--measure",
        action="append",
        default=[],
        metavar="ID",
        help="measure id (repeatable; default all): " + ", ".join(f"{m} ({display_name(m)})" for m in MEASURE_IDS),
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=DEFAULT_PERMUTATIONS,
        help="permutations of the null (default %(default)s; 0 skips it)",
    )
    p.add_argument(
        "--bootstrap", type=int, default=DEFAULT_BOOTSTRAP, help="bootstrap resamples (default %(default)s; 0 skips)"
    )
    p.add_argument(
        "--subsample",
        type=int,
        default=DEFAULT_SUBSAMPLE,
        help="sentences of the kernel measures RBF CKA and RSA (default %(default)s; 0: every sentence)",
    )
    p.add_argument(
        "--null-subsample",
        type=int,
        default=NULL_SUBSAMPLE,
        help="sentences the nulls of the feature-space and kernel measures are drawn on (default %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, metavar="OUT")
    p.set_defaults(func=run)


def _fmt(x: float | None, width: int = 9) -> str:
    return f"{x:{width}.4f}" if x is not None and math.isfinite(x) else f"{'-':>{width}s}"


def print_table(res: Any) -> None:
    """One block per measure: value, 95% interval, null mean and p of every pair."""
    from n2o_core.measures import get_measure

    frame = res.to_frame()
    w = max(8, *(len(e) for e in res.embedders))
    for msr in res.measures:
        m = get_measure(msr)
        rows = frame[frame.measure == msr]
        where = f"n={int(rows.n.iloc[0]):,}" if len(rows) else ""
        if len(rows) and int(rows.null_n.max()):
            where += f", null on {int(rows.null_n.max()):,}"
        kind = "higher = more similar" if m.higher_is_similar else "a distance: lower = more similar"
        print(f"\n== {m.name} [{msr}] ({kind}; {where})")
        print(f"{'a':{w}s} {'b':{w}s} {'value':>9s} {'95% CI':>19s} {'null mean':>9s} {'p':>7s}")
        for r in rows.itertuples():
            ci = f"[{_fmt(r.ci_lo, 8).strip()}, {_fmt(r.ci_hi, 8).strip()}]"
            p = f"{r.p:7.3f}" if math.isfinite(r.p) else f"{'-':>7s}"
            print(f"{r.a:{w}s} {r.b:{w}s} {_fmt(r.value)} {ci:>19s} {_fmt(r.null_mean)} {p}")


def run(args: argparse.Namespace) -> int:
    """Run the `measures` subcommand."""
    from n2o_core.measures import display_name
    from n2o_core.measures.run import check_measures, compare_measures

    chosen = check_measures(args.measure)  # an unknown id fails before any corpus is read
    for name in ("permutations", "bootstrap", "subsample"):
        if getattr(args, name) < 0:
            raise N2OError(f"--{name} must be 0 or more (got {getattr(args, name)}).")
    ws, ids = workspace_from_args(args)
    if len(ids) < 2:
        raise N2OError("Give at least two embedders (--embedder ID or --vectors NAME=FILE.npy).")
    check_embedders(ids, ws)
    t0 = time.perf_counter()

    # search: one step per embedder; measures: one step per (measure, pair of embedders)
    bars = measure_bars()
    try:
        res = compare_measures(
            ws,
            ids,
            args.k,
            chosen,
            permutations_=args.permutations,
            bootstrap=args.bootstrap,
            subsample=args.subsample,
            null_subsample=args.null_subsample,
            seed=args.seed,
            progress=bars,
        )
    finally:
        bars.close()
    doc = res.to_json()
    if args.json:
        write_json(args.json, doc, indent=None, ensure_ascii=True)
    print(
        f"corpus {ws.corpus.name}: N={res.corpus_size}, k={res.k}, kernel measures on {res.subsample:,} sentences, "
        f"nulls: {res.permutations} permutations, CIs: {res.bootstrap} resamples (seed {res.seed})"
    )
    print_table(res)
    agree = [r for r in doc["measure_agreement"] if r["spearman"] is not None]
    if agree:
        print(
            "\nmeasure agreement (Spearman over pairs): "
            + ", ".join(f"{display_name(r['m1'])} ~ {display_name(r['m2'])} {r['spearman']:+.2f}" for r in agree[:12])
            + (" ..." if len(agree) > 12 else "")
        )
    print(f"wall time {time.perf_counter() - t0:.1f} s")
    return 0
