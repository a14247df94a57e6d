"""`python -m n2o_core sts`: cosine vs human similarity, Pearson and Spearman, raw and z-normalized (Pitfalls).

Corpus-trained embedders (tf-idf, word2vec, fastText) are fit on: `--corpus SPEC` when given; else, for
`builtin:lee`, gensim's Lee background corpus (`builtin:lee-news`, 300 other news documents, segmented into
sentences); else the pair sentences themselves (each distinct sentence once).
"""

from __future__ import annotations

import argparse
from typing import Any

from n2o_core.cli.common import (
    add_cache_dir_arg,
    add_embedder_args,
    add_json_arg,
    add_pair_options,
    check_max_sentences,
    pair_columns,
    scoring_bars,
    write_json,
)


def add_parser(subparsers: Any) -> None:
    """Add the `sts` subcommand."""
    p = subparsers.add_parser(
        "sts", help="correlation of embedder cosine with human similarity scores (Pearson/Spearman, raw/z-norm)"
    )
    p.add_argument(
        "--pairs",
        required=True,
        metavar="SPEC",
        help="builtin:lee (gensim's 50 rated Lee documents), FILE (.tsv/.csv/.jsonl/.parquet or STS-B sts-*.csv), "
        "heros:FILE is unscored and refused, hf:NAME[:CONFIG][@SPLIT]",
    )
    add_pair_options(p)
    add_embedder_args(p, embedder_help="embedder id (repeatable; default: all defaults)", vectors_help=None)
    p.add_argument(
        "--corpus",
        default=None,
        metavar="SPEC",
        help="what corpus-trained embedders are fit on (default: builtin:lee-news for builtin:lee, else the pair "
        "sentences)",
    )
    p.add_argument("--max-sentences", type=int, default=None, help="cap the --corpus to a fixed sample")
    p.add_argument("--text-column", default=None, help="text column of a table --corpus")
    add_cache_dir_arg(p)
    add_json_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `sts` subcommand."""
    from n2o_core.api import sts
    from n2o_core.evaluation.sts import SCORINGS

    check_max_sentences(args)
    ids = list(args.embedder)
    bars = scoring_bars()  # the bar names the embedder being scored
    try:
        res = sts(
            args.pairs,
            ids,
            corpus=args.corpus or None,
            columns=pair_columns(args),
            scale=args.scale,
            genres=args.genre or (),
            max_sentences=args.max_sentences,
            text_column=args.text_column,
            cache_dir=args.cache_dir,
            progress=bars,
        )
    finally:
        bars.close()
    pairs = res.pairs
    print(f"pairs: {pairs.source.label}; n = {len(pairs)}; corpus-trained embedders fit on {res.fit_corpus}")
    for note in res.notes:
        print(f"note: {note}")
    table = res.results.merge(res.ranks, on="embedder")
    for s in SCORINGS:
        table[s] = [
            "  nan" if v != v else f"{v:.3f} ({r}{'' if s == 'pearson' else f', {c:+d}'})"
            for v, r, c in zip(table[s], table[f"rank_{s}"], table.get(f"change_{s}", [0] * len(table)))
        ]
    print("correlation (rank; rank change vs raw Pearson):")
    print(table[["embedder", "dim", "n", *SCORINGS]].to_string(index=False))
    if args.json:
        write_json(args.json, res.to_json())
    return 0
