"""`python -m n2o_core heros-sample`: make HEROS minimal pairs from one or more corpora (no embedder is scored),
print each corpus's yield, and write a sample for a judge to read by hand (Markdown and CSV, an empty "valid?"
column).

A blind validity reading (docs/heros_sample.md) draws about 100 originals per subset across three corpora with a
sample seed the generator's authors never used:

    python -m n2o_core heros-sample --corpus builtin:bbc-news --corpus builtin:lee-news --corpus builtin:wiki \\
        --sample-n 100 --sample-seed SEED --md heros_blind.md --csv heros_blind.csv

Bad input: one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from n2o_core.cli.common import add_cache_dir_arg
from n2o_core.errors import N2OError
from n2o_core.storage.fileio import atomic_write_text

#: The corpora of the blind reading of issue 33.
DEFAULT_SAMPLE_CORPORA = ("builtin:bbc-news", "builtin:lee-news", "builtin:wiki")


def add_parser(subparsers: Any) -> None:
    """Add the `heros-sample` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "heros-sample",
        help="HEROS minimal pairs from one or more corpora: yield per corpus and a sample for reading by hand",
    )
    p.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="PATH|builtin:NAME",
        help=f"a corpus (repeatable; default: {' '.join(DEFAULT_SAMPLE_CORPORA)})",
    )
    p.add_argument("--pairs", type=int, default=500, metavar="N", help="pairs made per subset per corpus (default 500)")
    p.add_argument("--seed", type=int, default=0, help="the generator's seed (default 0, as the dashboard)")
    p.add_argument("--sample-n", type=int, default=100, metavar="N", help="originals drawn in all (default 100)")
    p.add_argument("--sample-seed", type=int, required=True, metavar="N", help="seed of the draw")
    p.add_argument("--md", default=None, metavar="OUT.md", help="write the sample as Markdown tables")
    p.add_argument("--csv", default=None, metavar="OUT.csv", help="write the sample as CSV (one row per pair)")
    add_cache_dir_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `heros-sample` subcommand."""
    from n2o_core.corpora import load_corpus
    from n2o_core.evaluation.heros.coverage import coverage
    from n2o_core.evaluation.heros.pair_cache import cached_generate_pairs
    from n2o_core.evaluation.heros.report import draw_across, sample_csv, sample_markdown
    from n2o_core.storage.cache import Cache

    if args.pairs < 1 or args.sample_n < 1:
        raise N2OError("--pairs and --sample-n must be at least 1.")
    if not args.md and not args.csv:
        raise N2OError("Give --md and/or --csv: where to write the sample.")
    cache = Cache(args.cache_dir)
    specs = list(args.corpus) or list(DEFAULT_SAMPLE_CORPORA)
    pairs, lines = {}, []
    for spec in specs:
        corpus = load_corpus(spec, cache_dir=cache.root)
        print(f"{corpus.name}: making up to {args.pairs} pairs per subset ...", file=sys.stderr)
        ps = cached_generate_pairs(cache, corpus.fingerprint, corpus.texts, args.pairs, seed=args.seed)
        cov = coverage(ps)
        yields = ", ".join(f"{s} {n}/{cov.tried}" for s, n in cov.made.items())
        line = f"{corpus.name}: {cov.sentence()} Yield per subset (pairs made / sentences tried): {yields}."
        print(line)
        lines.append(f"- {line}")
        pairs[corpus.name] = ps.pairs
    sample = draw_across(pairs, args.sample_n, args.sample_seed)
    if sample.empty:
        raise N2OError("None of the corpora gave a minimal pair.")
    shown = ", ".join(f"{c} {n}" for c, n in sample.drop_duplicates("original")["corpus"].value_counts().items())
    print(f"drew {sample['original'].nunique()} originals ({shown}), seed {args.sample_seed}")
    intro = (
        "Made by `python -m n2o_core heros-sample "
        + " ".join(f"--corpus {s}" for s in specs)
        + f" --pairs {args.pairs} --seed {args.seed} --sample-n {args.sample_n} --sample-seed {args.sample_seed}`."
        + " Each corpus's pairs, then about an equal share of originals from each (the same originals in every"
        + " subset of a corpus):\n\n"
        + "\n".join(lines)
    )
    if args.md:
        title = "HEROS-style pairs from " + ", ".join(pairs)
        md = sample_markdown(sample, args.sample_n, args.sample_seed, title, drawn=True, intro=intro)
        atomic_write_text(args.md, md)
    if args.csv:
        atomic_write_text(args.csv, sample_csv(sample))
    return 0
