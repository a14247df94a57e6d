"""`python -m n2o_core embedders`: the embedder registry, as a table or (--json) a list of objects."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Add the `embedders` subcommand."""
    p = subparsers.add_parser("embedders", help="list the embedder registry")
    p.add_argument(
        "--json", action="store_true", help='print [{"id", "family", "family_group", "composition", "dim", "default"}]'
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `embedders` subcommand."""
    from n2o_core.embedders.registry import PAPER_EMBEDDER_IDS, list_embedders

    infos = list_embedders()
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": i.id,
                        "family": i.family,
                        "family_group": i.family_group,
                        "composition": i.composition,
                        "dim": i.dim,
                        "default": i.id in PAPER_EMBEDDER_IDS,
                    }
                    for i in infos
                ],
                indent=1,
            )
        )
        return 0
    w = max(12, *(len(i.composition) for i in infos))
    print(f"{'id':28s} {'family':20s} {'composition':{w}s} {'dim':>6s}  data")
    for i in infos:
        dim = str(i.dim) if i.dim else "|V|"
        print(f"{i.id:28s} {i.family:20s} {i.composition:{w}s} {dim:>6s}  {i.data}")
    print(
        "\nUser-supplied: st:NAME_OR_PATH, hf:NAME_OR_PATH@cls|mean|max|last, "
        "wv:FILE[@nostop] (word2vec/GloVe/fastText), --vectors NAME=FILE.npy"
    )
    return 0
