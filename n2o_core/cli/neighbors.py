"""`python -m n2o_core neighbors`: the nearest neighbors of one query (a corpus id or any sentence) under each
embedder; --json writes {"query", "query_id", "neighbors": {embedder: [{"rank", "id", "cosine", "text"}]}}."""

from __future__ import annotations

import argparse
from typing import Any

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
from n2o_core.runtime.progress import scoped


def add_parser(subparsers: Any) -> None:
    """Add the `neighbors` subcommand."""
    p = subparsers.add_parser("neighbors", help="nearest neighbors of one query (corpus id or free text)")
    add_corpus_args(p)
    add_embedder_args(p)
    p.add_argument("--query", required=True, help="a corpus id (0-based) or any sentence")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--znorm", action="store_true", help="z-normalize each dimension (corpus statistics) before cosine")
    add_json_arg(p, None)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the `neighbors` subcommand."""
    from n2o_core.pipeline import search_corpus_sentence, search_free_text

    ws, ids = workspace_from_args(args)
    require_embedders(ids, minimum=1, what="(--embedder ID)")
    check_embedders(ids, ws)
    n = len(ws.corpus)
    q = args.query.strip()
    qid = int(q) if q.lstrip("-").isdigit() else None
    if qid is not None and not 0 <= qid < n:
        raise N2OError(f"Query id {qid} is outside the corpus (0..{n - 1}).")
    validate_k(args.k, n if qid is not None else n + 1)
    bars = ProgressBars()
    out: dict[str, list[dict[str, Any]]] = {}
    for eid in ids:
        ws.embeddings(eid, progress=scoped(bars, stage="embed", item=eid))
        nb = (
            search_corpus_sentence(ws, eid, qid, args.k, znorm=args.znorm)
            if qid is not None
            else search_free_text(ws, eid, q, args.k, znorm=args.znorm)
        )
        out[eid] = [
            {"rank": r + 1, "id": int(i), "cosine": round(float(s), 6), "text": ws.corpus.texts[i] if i >= 0 else None}
            for r, (i, s) in enumerate(zip(nb.ids[0], nb.sims[0]))
        ]
    bars.close()
    if args.json:
        doc = {"query": q if qid is None else ws.corpus.texts[qid], "query_id": qid, "neighbors": out}
        write_json(args.json, doc, ensure_ascii=True, allow_nan=True)  # json.dumps(doc, indent=1)
    print(f"query: {q if qid is None else f'[{qid}] ' + ws.corpus.texts[qid]}")
    for eid, rows in out.items():
        print(f"\n== {eid}")
        for r in rows:
            print(f"{r['rank']:3d}  {r['cosine']:+.3f}  [{r['id']}] {r['text']}")
    return 0
