"""`python -m n2o_core heros`: generate (or load) minimal pairs and score embedders on them.

Writes JSON {"baseline": {embedder: b}, "results": [...], "pairs": [...], ...}. Bad input: one line
on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from n2o_core.cli.common import (
    add_cache_dir_arg,
    add_corpus_args,
    add_embedder_args,
    add_json_arg,
    add_sample_md_args,
    check_max_sentences,
    open_workspace,
    scoring_bars,
    write_json,
)
from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.averaging import AVERAGING, AVERAGING_DEFAULT
from n2o_core.storage.fileio import atomic_write_text

if TYPE_CHECKING:
    import pandas as pd

    from n2o_core.evaluation.heros.run import HerosResult


def add_parser(subparsers: Any) -> None:
    """Add the `heros` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser("heros", help="HEROS-style minimal pairs: generate or load, then score embedders")
    add_corpus_args(
        p,
        corpus_help="PATH or builtin:NAME (default %(default)s)",
        max_sentences_help="read at most this many corpus sentences",
        text_column=False,
        cache_dir=False,
        storage=False,
    )
    add_embedder_args(p, embedder_help="embedder id (repeatable; default: every default embedder)", vectors_help=None)
    p.add_argument("--pairs", type=int, default=500, metavar="N", help="pairs per subset (default %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--pairs-file",
        default=None,
        metavar="PATH|owner/name",
        help="score a Heros TSV / user CSV-TSV (original, variant, subset) instead of generating",
    )
    p.add_argument("--mlm-model", default=None, help="fill-mask model for the random subset (default: corpus word)")
    p.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for the 95%% CI")
    p.add_argument(
        "--znorm", action="store_true", help="z-normalize each dimension with the corpus statistics before cosine"
    )
    p.add_argument(
        "--averaging",
        choices=list(AVERAGING),
        default=AVERAGING_DEFAULT,
        help="averaged word vectors: stop words dropped, as Heros and the dashboard (nostop), or every token (all); "
        "default %(default)s",
    )
    add_json_arg(p)
    p.add_argument(
        "--json-max-pairs",
        type=int,
        default=None,
        metavar="N",
        help="keep only the first N pairs per subset in the JSON (default: all)",
    )
    add_sample_md_args(
        p, of="the pairs (with an empty 'valid?' column for a judge)", per="pairs per subset", default_n=100
    )
    p.add_argument(
        "--sample-seed", type=int, default=None, help="seed of the --sample-md draw (default: --seed)", metavar="N"
    )
    add_cache_dir_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `heros` subcommand."""
    from n2o_core.embedders.registry import PAPER_EMBEDDER_IDS
    from n2o_core.evaluation.heros.load import load_heros
    from n2o_core.evaluation.heros.report import sample_markdown
    from n2o_core.evaluation.heros.run import run_heros

    if args.pairs < 1:
        raise N2OError(f"--pairs must be at least 1 (got {args.pairs}).")
    check_max_sentences(args)
    ws = open_workspace(args, seed=args.seed)
    ids = list(args.embedder) or list(PAPER_EMBEDDER_IDS)
    for eid in ids:
        ws.info(eid)  # unknown ids fail before any pair is made
    pairs = load_heros(args.pairs_file) if args.pairs_file else None
    bars = scoring_bars()  # making the pairs, then scoring the embedders (the bar names the one on)
    try:
        res = run_heros(
            ws,
            ids,
            n_pairs=args.pairs,
            seed=args.seed,
            progress=bars,
            pairs=pairs,
            mlm_model=args.mlm_model,
            n_boot=args.n_boot,
            znorm=args.znorm,
            averaging=args.averaging,
        )
    finally:
        bars.close()
    _report(res, pairs)
    if args.json:
        write_json(args.json, res.to_json(max_pairs=args.json_max_pairs), allow_nan=True)
    if args.sample_md:
        atomic_write_text(
            args.sample_md,
            sample_markdown(
                res.pairs,
                args.sample_n,
                args.seed if args.sample_seed is None else args.sample_seed,
                title=f"HEROS-style pairs from {ws.corpus.name}",
            ),
        )
    return 0


def _yields(cov: dict[str, Any]) -> str:
    return ", ".join(f"{s} {n}/{cov['tried']} = {cov['yield'][s]:.2%}" for s, n in cov["made"].items())


def _report(res: HerosResult, pairs: pd.DataFrame | None) -> None:
    """Print the pair counts, the dropped rule applications, the baselines and the normalized scores (a loaded
    pairs file's layout goes into `res.meta`)."""
    if pairs is not None:
        res.meta.update(layout=pairs.attrs.get("layout"))
        if "negation_columns" in pairs.attrs:
            res.meta["negation_columns"] = pairs.attrs["negation_columns"]
    counts = res.meta.get("pair_counts", {})
    cov = res.meta.get("coverage")
    if cov is not None and cov["small_corpus"]:
        print(f"warning: {cov['text']}", file=sys.stderr)
    print(f"pairs per subset: {counts}  ({res.meta['pairs_seconds']} s)")
    if cov is not None:
        print(cov["text"])
        print("yield per subset (pairs made / sentences tried): " + _yields(cov))
    if pairs is None:
        from n2o_core.evaluation.heros.validity import validity_sentence

        print(validity_sentence())
    swapped = [f"{a} -> {b}" for a, b in res.meta.get("scored_ids", {}).items() if a != b]
    if swapped:
        print("averaged word vectors with stop words dropped (--averaging nostop): " + ", ".join(swapped))
    if res.dropped:
        print(
            "dropped (failed rule applications): "
            + "; ".join(f"{s}: {sum(d.values())} {dict(d)}" for s, d in res.dropped.items())
        )
    print("baseline b: " + ", ".join(f"{k}={v:.3f}" for k, v in res.baseline.items()))
    for note in res.meta.get("unseen", {}).values():
        print(f"note: {note}")
    print("normalized (s - b) / (1 - b):")
    print(res.table("normalized").round(3).to_string())
    print(f"total {res.meta['seconds']} s")
