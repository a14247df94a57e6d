"""`python -m n2o_core embed`: embed a corpus into the cache; with --out, also write one embedder's vectors."""

from __future__ import annotations

import argparse
import time
from typing import Any

from n2o_core.cli.common import ProgressBars, add_corpus_args, add_embedder_args, check_embedders, workspace_from_args
from n2o_core.errors import N2OError
from n2o_core.limits import require_embedders
from n2o_core.runtime.progress import scoped


def add_parser(subparsers: Any) -> None:
    """Add the `embed` subcommand."""
    p = subparsers.add_parser("embed", help="embed a corpus (cached)")
    add_corpus_args(p)
    add_embedder_args(p)
    p.add_argument("--out", default=None, metavar="FILE.npy", help="write the vectors (float32, corpus order)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `embed` subcommand."""
    ws, ids = workspace_from_args(args)
    require_embedders(ids, minimum=1, what="(--embedder ID)")
    if args.out and len(ids) != 1:
        raise N2OError(f"--out writes the vectors of one embedder; {len(ids)} were given.")
    check_embedders(ids, ws)
    bars = ProgressBars()
    print(f"corpus {ws.corpus.name}: {len(ws.corpus)} sentences ({ws.corpus.n_duplicates} duplicates removed)")
    for eid in ids:
        t0 = time.perf_counter()
        X = ws.embeddings(eid, progress=scoped(bars, stage="embed", item=eid))
        print(
            f"{eid}: {X.shape[0]} x {X.shape[1]} {X.dtype} in {time.perf_counter() - t0:.1f} s "
            f"({ws.zero_vector_count(eid)} zero vectors)"
        )
        if args.out:
            from n2o_core.export.vectors import save_vectors

            path = save_vectors(args.out, X)
            print(f"wrote {path}: one float32 row per corpus sentence, in corpus order (not normalized)")
    bars.close()
    return 0
