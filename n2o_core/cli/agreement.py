"""`python -m n2o_core agreement`: per-sentence N2O between embedders, every corpus sentence a query.

Writes JSON {"embedders", "k", "corpus_size", "chance", "search", "pair", "mean", "per_sentence": [{"id",
"n2o"}], "pairs": [{"a", "b", "n2o"}]} (+ "maps": {embedder: [[x, y] or null, ...]} with --map) and prints the
least- and most-agreed sentences with the decile comparison table. Bad input: one `error:` line, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from n2o_core.cli.common import (
    ProgressBars,
    add_corpus_args,
    add_embedder_args,
    add_json_arg,
    check_embedders,
    workspace_from_args,
)
from n2o_core.errors import N2OError


def add_parser(subparsers: Any) -> None:
    """Add the `agreement` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "agreement", help="per-sentence N2O between embedders (every sentence a query): where they disagree"
    )
    add_corpus_args(p)
    add_embedder_args(p)
    p.add_argument("--k", type=int, default=50, help="neighbors per sentence (default %(default)s, the paper's)")
    p.add_argument(
        "--pair",
        nargs=2,
        metavar=("A", "B"),
        default=None,
        help="with 3+ embedders: per_sentence for this pair (default: mean over all pairs)",
    )
    search = p.add_mutually_exclusive_group()
    search.add_argument("--approx", dest="approx", action="store_true", default=None, help="pynndescent search")
    search.add_argument("--exact", dest="approx", action="store_false", help="exact search at any corpus size")
    p.add_argument("--znorm", action="store_true", help="z-normalize each dimension before cosine")
    p.add_argument("--top", type=int, default=5, metavar="N", help="least/most agreed sentences to print")
    p.add_argument("--map", choices=["none", "umap", "pca"], default="none", help="also compute 2-D maps")
    add_json_arg(p, None)
    p.set_defaults(func=run)


def _finite_pairs(coords: Iterable[Sequence[float]]) -> list[list[float] | None]:
    """[[x, y], ...] rounded, None for a sentence without coordinates (JSON has no NaN)."""
    return [
        [round(float(x), 5), round(float(y), 5)] if math.isfinite(x) and math.isfinite(y) else None for x, y in coords
    ]


def run(args: argparse.Namespace) -> int:
    """Run the `agreement` subcommand."""
    from n2o_core.analyses.agreement import agreement, corpus_features, decile_table, extremes, ranking_frame, summarize

    ws, ids = workspace_from_args(args)
    if len(ids) < 2:
        raise N2OError("Give at least two embedders (--embedder ID or --vectors NAME=FILE.npy).")
    if args.top < 0:
        raise N2OError(f"--top must be 0 or more (got {args.top}).")
    check_embedders(ids, ws)
    a, b = args.pair if args.pair else (ids if len(ids) == 2 else (None, None))
    bars = ProgressBars()
    t0 = time.perf_counter()
    try:
        res = agreement(ws, ids, args.k, znorm=args.znorm, approx=args.approx, progress=bars)
        values = res.values(a, b)
        doc = res.to_json(a, b)
        if args.map != "none":
            from n2o_core.analyses.projection import projection

            maps = {}
            for eid in ids:
                pr = projection(ws, eid, args.map, znorm=args.znorm, approx=res.approx, progress=bars)
                if pr.note:
                    print(f"note: {eid}: {pr.note}", file=sys.stderr)
                maps[eid] = _finite_pairs(pr.coords)
            doc["maps"] = maps
            doc["map_method"] = args.map
    finally:
        bars.close()
    wall = time.perf_counter() - t0
    if args.json:
        Path(args.json).write_text(json.dumps(doc))
    what = f"{a} vs {b}" if a is not None else f"mean over {len(res.pairs())} pairs"
    print(
        f"corpus {ws.corpus.name}: N={res.corpus_size}, k={res.k}, every sentence a query "
        f"({'approximate' if res.approx else 'exact'} search); chance k/(N-1) = {res.chance:.5f}"
    )
    for r in res.pair_means().itertuples():
        print(f"  N2O {r.a} vs {r.b}: {r.n2o:.4f}")
    named = [a, b] if a is not None and b is not None else []  # a pair, or every embedder
    valid = res.has_neighbors(*named)
    if (~valid).any():
        m = int((~valid).sum())
        print(f"{m} sentence{'s' if m != 1 else ''} without neighbors (zero vector; N2O 0 by convention): not ranked")
    if valid.any():
        s = summarize(values, valid)
        print(
            f"per sentence ({what}): median {s['median']:.3f}, 10-90% {s['p10']:.3f}-{s['p90']:.3f}, "
            f"{s['share_zero']:.1%} with no shared neighbor, {s['share_half_or_more']:.1%} sharing half or more"
        )
    feats = corpus_features(ws.corpus)
    if args.top and valid.any():
        low, high = extremes(values, args.top, valid=valid)
        for title, sel in ((f"least agreed ({what})", low), (f"most agreed ({what})", high)):
            print(f"\n== {title}")
            for row in ranking_frame(sel, values, ws.corpus.texts, feats).itertuples():
                print(f"{row.n2o:6.3f}  [{row.id}] {row.text[:110]}")
    if valid.any():
        table = decile_table(values, feats, valid=valid)
        print("\n" + table.round(3).to_string())
    print(f"wall time {wall:.1f} s")
    return 0
