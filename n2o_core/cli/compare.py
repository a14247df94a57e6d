"""`python -m n2o_core compare`: N2O between every pair of embedders on sampled queries (Lin & Smith 2019).

Prints the mean N2O matrix and what its numbers must be read against (the dashboard's notes: chance, k, the query
samples, corpus-trained embedders on too few sentences); --json writes `ComparisonResult.to_json()` (token overlap
and the notes included).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from n2o_core.analyses.face_value import TRAIN_WITH
from n2o_core.cli.common import (
    ProgressBars,
    add_corpus_args,
    add_embedder_args,
    add_json_arg,
    check_embedders,
    workspace_from_args,
    write_json,
)
from n2o_core.errors import N2OError
from n2o_core.limits import require_embedders, validate_k

if TYPE_CHECKING:
    from n2o_core.analyses.compare import ComparisonResult


def add_parser(subparsers: Any) -> None:
    """Add the `compare` subcommand."""
    p = subparsers.add_parser("compare", help="N2O between every pair of embedders")
    add_corpus_args(p)
    add_embedder_args(p)
    p.add_argument("--k", type=int, default=50)
    p.add_argument("--k-max", type=int, default=None, help="search this many neighbors (cached for later k)")
    p.add_argument("--queries", type=int, default=100, help="queries per sample")
    p.add_argument("--samples", type=int, default=5, help="number of random query samples")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--approx", action="store_true", help="pynndescent instead of exact search (reports recall)")
    p.add_argument("--znorm", action="store_true", help="z-normalize each dimension before cosine")
    p.add_argument(
        "--train-with",
        default="",
        metavar="NAME",
        help=f"also train the corpus-trained embedders (word2vec, fastText, tf-idf) on a built-in corpus, e.g. "
        f"{TRAIN_WITH}; they are still compared on the corpus's sentences only",
    )
    add_json_arg(p, None)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `compare` subcommand."""
    from n2o_core.analyses.compare import compare

    ws, ids = workspace_from_args(args)
    require_embedders(ids, what="(--embedder ID or --vectors NAME=FILE.npy) to compare")
    validate_k(args.k, len(ws.corpus))
    check_embedders(ids, ws)
    bars = ProgressBars()
    t0 = time.perf_counter()
    res = compare(
        ws,
        ids,
        args.k,
        n_queries=args.queries,
        n_samples=args.samples,
        seed=args.seed,
        k_max=args.k_max,
        znorm=args.znorm,
        approx=args.approx,
        progress=bars,
    )
    bars.close()
    from n2o_core.text import SBERT_STOP_WORDS

    res.add_token_overlap(ws.corpus.texts, SBERT_STOP_WORDS)
    wall = time.perf_counter() - t0
    if args.json:
        write_json(args.json, res.to_json(), indent=None, ensure_ascii=True, allow_nan=True)  # json.dumps(doc)
    _print_result(res, ws.corpus.name, wall)
    return 0


def _print_result(res: ComparisonResult, corpus_name: str, wall: float) -> None:
    names = res.embedders
    w = max(8, *(len(e) for e in names))
    print(
        f"corpus {corpus_name}: N={res.corpus_size}, k={res.k}, {len(res.samples)} samples x "
        f"{len(res.samples[0])} queries, chance k/(N-1) = {res.chance:.5f}"
    )
    col = max(10, *(len(e) for e in names)) + 1  # every id in full: the widest one sets the columns
    print(" " * w + "".join(f"{e:>{col}s}" for e in names))
    for i, e in enumerate(names):
        print(f"{e:{w}s}" + "".join(f"{res.mean[i, j]:{col}.3f}" for j in range(len(names))))
    print(f"std across samples: max {np.max(res.std):.4f}")
    for variant, base in _variants_of(names):
        i, j = names.index(variant), names.index(base)
        print(f"{variant}: N2O with {base} (its original) {res.mean[i, j]:.3f} ± {res.std[i, j]:.3f}")
    if any(r is not None for r in res.recall.values()):
        print(
            "recall@k (approximate vs exact): "
            + ", ".join(f"{e} {r:.3f}" for e, r in res.recall.items() if r is not None)
        )
    if res.worst_n2o_error is not None:
        print(f"N2O error of approximate vs exact search on held-out queries: max {res.worst_n2o_error:.4f}")
    for note in res.face_value().notes():
        print(f"note: {note.text}")
    print(f"wall time {wall:.1f} s")


def _variants_of(names: list[str]) -> list[tuple[str, str]]:
    """(variant, its base) for every compared variant whose base is compared too."""
    from n2o_core.variants.store import variant_of

    out = []
    for e in names:
        try:
            v = variant_of(e)
        except N2OError:
            continue
        if v is not None and v.base in names:
            out.append((e, v.base))
    return out
