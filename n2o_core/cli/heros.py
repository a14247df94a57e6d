"""`python -m n2o_core heros`: generate (or load) minimal pairs and score embedders on them.

Writes JSON {"baseline": {embedder: b}, "results": [...], "pairs": [...], ...}. Bad input: one line
on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from n2o_core.corpora.specs import DEFAULT_CORPUS
from n2o_core.errors import N2OError
from n2o_core.storage.fileio import atomic_write_text


def add_parser(subparsers: Any) -> None:
    """Add the `heros` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser("heros", help="HEROS-style minimal pairs: generate or load, then score embedders")
    p.add_argument("--corpus", default=DEFAULT_CORPUS, help="PATH or builtin:NAME (default %(default)s)")
    p.add_argument("--max-sentences", type=int, default=None, help="read at most this many corpus sentences")
    p.add_argument(
        "--embedder",
        action="append",
        default=[],
        metavar="ID",
        help="embedder id (repeatable; default: every default embedder)",
    )
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
    p.add_argument("--json", default=None, metavar="OUT", help="write the result JSON here")
    p.add_argument(
        "--json-max-pairs",
        type=int,
        default=None,
        metavar="N",
        help="keep only the first N pairs per subset in the JSON (default: all)",
    )
    p.add_argument(
        "--sample-md", default=None, metavar="OUT.md", help="write a Markdown sample of the pairs for reading by hand"
    )
    p.add_argument("--sample-n", type=int, default=30, help="pairs per subset in --sample-md (default %(default)s)")
    p.add_argument("--cache-dir", default=None, help="cache folder (default: $N2O_CACHE_DIR or ./cache)")
    p.set_defaults(func=run)


def _bar(desc: str, total: int) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, file=sys.stderr, leave=True)


def _write_json(path: str, obj: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(obj, indent=1, ensure_ascii=False, allow_nan=True))


def _default_embedders() -> list[str]:
    from n2o_core.embedders.registry import DEFAULT_EMBEDDER_IDS

    return list(DEFAULT_EMBEDDER_IDS)


def _run(args: argparse.Namespace) -> int:
    from n2o_core.corpora import load_corpus
    from n2o_core.evaluation.heros.load import load_heros
    from n2o_core.evaluation.heros.report import sample_markdown
    from n2o_core.evaluation.heros.run import run_heros
    from n2o_core.storage.cache import Cache
    from n2o_core.workspace import Workspace

    if args.pairs < 1:
        raise N2OError(f"--pairs must be at least 1 (got {args.pairs}).")
    if args.max_sentences is not None and args.max_sentences < 1:
        raise N2OError(f"--max-sentences must be positive (got {args.max_sentences}).")
    cache = Cache(args.cache_dir)
    corpus = load_corpus(args.corpus, max_sentences=args.max_sentences, seed=args.seed, cache_dir=cache.root)
    ws = Workspace(corpus, cache=cache)
    ids = list(args.embedder) or _default_embedders()
    for eid in ids:
        ws.info(eid)  # unknown ids fail before any pair is made
    pairs = load_heros(args.pairs_file) if args.pairs_file else None
    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        key = "pairs" if stage == "pairs" else "embedders"
        if key == "embedders" and "pairs" in bars:
            bars.pop("pairs").close()
        if key not in bars:
            bars[key] = _bar(key, total)
        bar = bars[key]
        if stage.startswith("embedder "):
            bar.set_description(stage[len("embedder ") :], refresh=False)
        elif key == "embedders":
            bar.set_description("embedders", refresh=False)
        bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)  # tqdm throttles the redraws

    try:
        res = run_heros(
            ws,
            ids,
            n_pairs=args.pairs,
            seed=args.seed,
            progress=progress,
            pairs=pairs,
            mlm_model=args.mlm_model,
            n_boot=args.n_boot,
            znorm=args.znorm,
        )
    finally:
        for bar in bars.values():
            bar.close()
    if pairs is not None:
        res.meta.update(layout=pairs.attrs.get("layout"))
        if "negation_columns" in pairs.attrs:
            res.meta["negation_columns"] = pairs.attrs["negation_columns"]
    counts = res.meta.get("pair_counts", {})
    if pairs is None and (len(counts) < 6 or min(counts.values()) < args.pairs):
        print(f"warning: fewer than {args.pairs} pairs for some subsets: {counts}", file=sys.stderr)
    print(f"pairs per subset: {counts}  ({res.meta['pairs_seconds']} s)")
    if res.dropped:
        print(
            "dropped (failed rule applications): "
            + "; ".join(f"{s}: {sum(d.values())} {dict(d)}" for s, d in res.dropped.items())
        )
    print("baseline b: " + ", ".join(f"{k}={v:.3f}" for k, v in res.baseline.items()))
    print("normalized (s - b) / (1 - b):")
    print(res.table("normalized").round(3).to_string())
    print(f"total {res.meta['seconds']} s")
    if args.json:
        _write_json(args.json, res.to_json(max_pairs=args.json_max_pairs))
    if args.sample_md:
        atomic_write_text(
            args.sample_md,
            sample_markdown(res.pairs, args.sample_n, args.seed, title=f"HEROS-style pairs from {corpus.name}"),
        )
    return 0


def run(args: argparse.Namespace) -> int:
    """Run the `heros` subcommand; user errors print one line to stderr and return 2."""
    try:
        return _run(args)
    except N2OError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
