"""`python -m n2o_core ...`: batch work with tqdm progress. Bad input exits with code 2 and one clear line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

import numpy as np

from n2o_core.corpora.specs import DEFAULT_CORPUS
from n2o_core.errors import N2OError
from n2o_core.limits import require_embedders, validate_k
from n2o_core.storage.fileio import atomic_write_text


class _Bars:
    """One tqdm bar per (embedder, stage)."""

    def __init__(self) -> None:
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self.bars: dict[tuple[str, str], object] = {}

    def __call__(self, eid: str, stage: str, done: int, total: int) -> None:
        key = (eid, stage)
        bar = self.bars.get(key)
        if bar is None and total > 0 and done >= total:
            return  # finished at once (loaded from the cache): no bar
        if bar is None:
            bar = self.bars[key] = self._tqdm(
                total=total, desc=f"{stage:9s} {eid}", unit="sent", leave=True, file=sys.stderr
            )
        if done > bar.n:  # type: ignore[attr-defined]
            bar.update(done - bar.n)  # type: ignore[attr-defined]  # tqdm redraws at most every 0.1 s
        if done >= total:
            bar.close()  # type: ignore[attr-defined]

    def close(self) -> None:
        for bar in self.bars.values():
            bar.close()  # type: ignore[attr-defined]


def _add_corpus_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--corpus", default=DEFAULT_CORPUS, help="PATH, builtin:NAME or hf:NAME (default %(default)s)")
    p.add_argument("--max-sentences", type=int, default=None, help="cap: a fixed, topic-stratified sample")
    p.add_argument("--text-column", default=None, help="text column of a .csv/.tsv/.jsonl/.parquet corpus")
    p.add_argument("--cache-dir", default=None, help="cache folder (default: $N2O_CACHE_DIR or ./cache)")
    p.add_argument("--dtype", default="float32", choices=["float32", "float16"], help="embedding storage")
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler (tcp://host:8786): embed shards and search neighbors on its workers",
    )


def _add_embedder_args(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument(
        "--embedder", action="append", default=[], metavar="ID", help="embedder id (repeatable); see `embedders`"
    )
    p.add_argument(
        "--vectors",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="precomputed vectors, one row per corpus sentence (repeatable)",
    )


def _workspace(args: argparse.Namespace):
    from n2o_core.corpora import load_corpus
    from n2o_core.storage.cache import Cache
    from n2o_core.workspace import Workspace

    cache = Cache(args.cache_dir)
    if args.max_sentences is not None and args.max_sentences <= 0:
        raise N2OError(f"--max-sentences must be positive (got {args.max_sentences}).")
    corpus = load_corpus(
        args.corpus, max_sentences=args.max_sentences, text_column=args.text_column, cache_dir=cache.root
    )
    ws = Workspace(corpus, cache=cache, storage_dtype=args.dtype, scheduler=args.scheduler)
    ids = list(args.embedder)
    for spec in args.vectors:
        if "=" not in spec:
            raise N2OError(f"--vectors expects NAME=FILE.npy (got {spec!r}).")
        name, path = spec.split("=", 1)
        ws.add_vectors(name, path)
        ids.append(name)
    return ws, ids


def _check_embedders(ids: Sequence[str], ws) -> None:
    for eid in ids:
        if not ws.is_precomputed(eid):
            ws.info(eid)  # raises EmbedderError for an unknown id, before any work starts


# ------------------------------------------------------------------------------------------------ commands


def cmd_embedders(args: argparse.Namespace) -> int:
    from n2o_core.embedders.registry import DEFAULT_EMBEDDER_IDS, list_embedders

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
                        "default": i.id in DEFAULT_EMBEDDER_IDS,
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


def cmd_embed(args: argparse.Namespace) -> int:
    ws, ids = _workspace(args)
    require_embedders(ids, minimum=1, what="(--embedder ID)")
    if args.out and len(ids) != 1:
        raise N2OError(f"--out writes the vectors of one embedder; {len(ids)} were given.")
    _check_embedders(ids, ws)
    bars = _Bars()
    print(f"corpus {ws.corpus.name}: {len(ws.corpus)} sentences ({ws.corpus.n_duplicates} duplicates removed)")
    for eid in ids:
        t0 = time.perf_counter()
        X = ws.embeddings(eid, progress=lambda d, t, e=eid: bars(e, "embed", d, t))
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


def cmd_neighbors(args: argparse.Namespace) -> int:
    from n2o_core.pipeline import search_corpus_sentence, search_free_text

    ws, ids = _workspace(args)
    require_embedders(ids, minimum=1, what="(--embedder ID)")
    _check_embedders(ids, ws)
    n = len(ws.corpus)
    q = args.query.strip()
    qid = int(q) if q.lstrip("-").isdigit() else None
    if qid is not None and not 0 <= qid < n:
        raise N2OError(f"Query id {qid} is outside the corpus (0..{n - 1}).")
    validate_k(args.k, n if qid is not None else n + 1)
    bars = _Bars()
    out: dict[str, list[dict]] = {}
    for eid in ids:
        ws.embeddings(eid, progress=lambda d, t, e=eid: bars(e, "embed", d, t))
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
        atomic_write_text(
            args.json,
            json.dumps(
                {"query": q if qid is None else ws.corpus.texts[qid], "query_id": qid, "neighbors": out}, indent=1
            ),
        )
    print(f"query: {q if qid is None else f'[{qid}] ' + ws.corpus.texts[qid]}")
    for eid, rows in out.items():
        print(f"\n== {eid}")
        for r in rows:
            print(f"{r['rank']:3d}  {r['cosine']:+.3f}  [{r['id']}] {r['text']}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from n2o_core.analyses.compare import compare

    ws, ids = _workspace(args)
    require_embedders(ids, what="(--embedder ID or --vectors NAME=FILE.npy) to compare")
    validate_k(args.k, len(ws.corpus))
    _check_embedders(ids, ws)
    bars = _Bars()
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
        on_stage=bars,
    )
    bars.close()
    from n2o_core.text import SBERT_STOP_WORDS

    res.add_token_overlap(ws.corpus.texts, SBERT_STOP_WORDS)
    wall = time.perf_counter() - t0
    if args.json:
        atomic_write_text(args.json, json.dumps(res.to_json()))
    names = res.embedders
    w = max(8, *(len(e) for e in names))
    print(
        f"corpus {ws.corpus.name}: N={res.corpus_size}, k={res.k}, {len(res.samples)} samples x "
        f"{len(res.samples[0])} queries, chance k/(N-1) = {res.chance:.5f}"
    )
    print(" " * w + "".join(f"{e[:10]:>11s}" for e in names))
    for i, e in enumerate(names):
        print(f"{e:{w}s}" + "".join(f"{res.mean[i, j]:11.3f}" for j in range(len(names))))
    print(f"std across samples: max {np.max(res.std):.4f}")
    if any(r is not None for r in res.recall.values()):
        print(
            "recall@k (approximate vs exact): "
            + ", ".join(f"{e} {r:.3f}" for e, r in res.recall.items() if r is not None)
        )
    if res.n2o_error is not None and np.isfinite(res.n2o_error).any():
        print(f"N2O error of approximate vs exact search on held-out queries: max {np.nanmax(res.n2o_error):.4f}")
    print(f"wall time {wall:.1f} s")
    return 0


# ------------------------------------------------------------------------------------------------ parser


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m n2o_core",
        description="N2O Explorer: compare sentence embedders by nearest neighbor overlap (Lin & Smith 2019).",
    )
    sub = p.add_subparsers(dest="command", required=True)

    e = sub.add_parser("embedders", help="list the embedder registry")
    e.add_argument(
        "--json", action="store_true", help='print [{"id", "family", "family_group", "composition", "dim", "default"}]'
    )
    e.set_defaults(func=cmd_embedders)

    m = sub.add_parser("embed", help="embed a corpus (cached)")
    _add_corpus_args(m)
    _add_embedder_args(m)
    m.add_argument("--out", default=None, metavar="FILE.npy", help="write the vectors (float32, corpus order)")
    m.set_defaults(func=cmd_embed)

    nb = sub.add_parser("neighbors", help="nearest neighbors of one query (corpus id or free text)")
    _add_corpus_args(nb)
    _add_embedder_args(nb)
    nb.add_argument("--query", required=True, help="a corpus id (0-based) or any sentence")
    nb.add_argument("--k", type=int, default=10)
    nb.add_argument("--znorm", action="store_true", help="z-normalize each dimension (corpus statistics) before cosine")
    nb.add_argument("--json", default=None, metavar="OUT")
    nb.set_defaults(func=cmd_neighbors)

    c = sub.add_parser("compare", help="N2O between every pair of embedders")
    _add_corpus_args(c)
    _add_embedder_args(c)
    c.add_argument("--k", type=int, default=50)
    c.add_argument("--k-max", type=int, default=None, help="search this many neighbors (cached for later k)")
    c.add_argument("--queries", type=int, default=100, help="queries per sample")
    c.add_argument("--samples", type=int, default=5, help="number of random query samples")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--approx", action="store_true", help="pynndescent instead of exact search (reports recall)")
    c.add_argument("--znorm", action="store_true", help="z-normalize each dimension before cosine")
    c.add_argument("--json", default=None, metavar="OUT")
    c.set_defaults(func=cmd_compare)

    # the analyses' own subcommands, each defined beside its analysis
    import n2o_core.cli.agreement as agreement_cli
    import n2o_core.cli.findings as findings_cli
    import n2o_core.cli.heros as heros_cli
    import n2o_core.cli.measures as measures_cli
    import n2o_core.cli.needle as needle_cli
    import n2o_core.cli.probe as probe_cli
    import n2o_core.cli.sts as sts_cli
    import n2o_core.cli.warm as warm_cli

    for module in (heros_cli, needle_cli, sts_cli, agreement_cli, findings_cli, probe_cli, warm_cli, measures_cli):
        module.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from n2o_core.runtime.notices import listen

    try:
        with listen(lambda m: print(f"note: {m}", file=sys.stderr, flush=True)):
            return int(args.func(args) or 0)
    except N2OError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a file the command writes or reads (disk full, permissions): one line, not a traceback
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        print(f"error: {e.strerror or e}{where}.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
