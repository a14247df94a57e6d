"""`python -m n2o_core warm`: fill the cache ahead of a talk, so a fresh server shows the dashboard's first view
without embedding or searching anything.

It does what the dashboard's first page does for the same settings (the same corpus sample, query plan, k_max,
z-normalization and search), one embedder at a time: embed the corpus and search the neighbors of the query pool,
both stored in the cache the app reads ($N2O_CACHE_DIR or ./cache); with exact search on a corpus of at most
`pipeline.EVERY_SENTENCE_MAX` sentences also the neighbors of every sentence, which the dashboard otherwise searches
in the background after its first view (then a new query sample in the talk is a slice of them). Defaults are
the app's own, including the N2O_DEFAULT_* environment variables, so `warm` with no option prepares exactly the
view a fresh server opens on.
`--heros N` also makes the HEROS page's minimal pairs (N per subset) and scores every embedder on them;
`--probe` runs the probing page's first view (every task, both classifiers, the page's items per class), whose
cold run parses the corpus and trains every readout.
`--measures` computes the Similarity measures page's first view (every measure, its default permutations,
resamples and subsample) and keeps it in the cache, where the page finds it.
`--variants` computes the Variants page's three sections (layers, compression, index) for its first view (the
first embedder with hidden layers, its layers against the first other dense embedder) and keeps them.
`--findings` checks every finding with the findings page's settings and keeps the results, which the page then
opens on.

Then it prints what it filled (new cache entries by kind, with their size) and measures, in a new Python process
that may not embed or search anything, how long the first page's work will take from this cache (imports, corpus,
cached arrays, N2O); Streamlit's own start comes on top.

    python -m n2o_core warm --corpus builtin:bbc-news --embedder tfidf --embedder minilm-l6-mean
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from n2o_core.cli.common import (
    CACHE_DIR_HELP,
    CORPUS_HELP,
    ProgressBars,
    check_max_sentences,
    findings_bars,
    measure_bars,
    probe_with_bars,
    variant_bars,
)
from n2o_core.errors import N2OError

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

__all__ = ["add_parser", "first_page", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the `warm` subcommand (defaults: the dashboard's, N2O_DEFAULT_* included)."""
    from n2o_core.settings import (
        HEROS_AVERAGING,
        HEROS_AVERAGING_DEFAULT,
        PROBE_DEFAULT_MIN_TRAIN,
        PROBE_DEFAULT_PER_CLASS,
        env_defaults,
    )

    d = env_defaults()
    p = subparsers.add_parser(
        "warm",
        help="fill the cache for the dashboard's first view (ahead of a talk)",
        description="Embed the corpus and search the query pool's neighbors exactly as the dashboard's first page "
        "does for these settings, so a fresh server shows it without embedding anything; then print what was "
        "filled and how long the first page will take.",
    )
    p.add_argument("--corpus", default=d.corpus, help=CORPUS_HELP)
    p.add_argument(
        "--max-sentences", type=int, default=d.max_sentences, help="the app's sample cap (default %(default)s)"
    )
    p.add_argument("--text-column", default=None, help="text column of a table or Hugging Face dataset corpus")
    p.add_argument(
        "--embedder",
        action="append",
        default=[],
        metavar="ID",
        help=f"embedder id or spec (repeatable; default: the app's, {','.join(d.embedders)})",
    )
    p.add_argument("--queries", type=int, default=d.n_queries, help="queries per sample (default %(default)s)")
    p.add_argument("--samples", type=int, default=d.n_samples, help="query samples (default %(default)s)")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--znorm", action="store_true", help="prepare the z-normalized view")
    p.add_argument("--approx", action="store_true", help="prepare the approximate-search view (pynndescent)")
    p.add_argument(
        "--heros", type=int, default=0, metavar="N", help="also make N HEROS pairs per subset and score them"
    )
    p.add_argument(
        "--heros-averaging",
        choices=list(HEROS_AVERAGING),
        default=HEROS_AVERAGING_DEFAULT,
        help="averaged word vectors on the HEROS page (default %(default)s, as the page)",
    )
    p.add_argument(
        "--probe",
        type=int,
        nargs="?",
        const=PROBE_DEFAULT_PER_CLASS,
        default=0,
        metavar="PER_CLASS",
        help="also run the probing page's first view: every task, both classifiers, PER_CLASS items per class "
        f"(default when given without a number: {PROBE_DEFAULT_PER_CLASS}, as the page)",
    )
    p.add_argument(
        "--probe-min-train",
        type=int,
        default=PROBE_DEFAULT_MIN_TRAIN,
        metavar="N",
        help="training items a probing class keeps at least (default %(default)s, as the page: the paper's floor)",
    )
    p.add_argument(
        "--measures", action="store_true", help="also compute the Similarity measures page's first view (every measure)"
    )
    p.add_argument(
        "--variants",
        action="store_true",
        help="also compute the Variants page's first view (layers, compression and index of its first embedder)",
    )
    p.add_argument(
        "--findings",
        action="store_true",
        help="also check every finding as the findings page does (its settings: k = 50, these query samples, 200 "
        "HEROS pairs, 3 seeds) and keep the results, so the page opens on them",
    )
    p.add_argument("--cache-dir", default=None, help=CACHE_DIR_HELP)
    p.add_argument("--no-check", action="store_true", help="skip the first-page timing in a new process")
    p.set_defaults(func=run)


def _entries(cache: Cache) -> dict[str, int]:
    """Cache entries (relative path -> bytes) from the manifest."""
    return {rel: int(e.get("bytes") or 0) for rel, e in (cache.manifest().get("entries") or {}).items()}


def _mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB" if n >= 2**20 else f"{n / 2**10:,.0f} kB"


def run(args: argparse.Namespace) -> int:
    """Run the `warm` subcommand."""
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.limits import check_corpus_size, k_max_for
    from n2o_core.pipeline import plan_queries, prepare_embedder, search_every_sentence
    from n2o_core.settings import DASHBOARD_EMBEDDERS, env_defaults
    from n2o_core.storage.cache import Cache

    ids = list(dict.fromkeys(args.embedder)) or list(env_defaults().embedders or DASHBOARD_EMBEDDERS)
    check_max_sentences(args)
    if args.queries < 1 or args.samples < 1:
        raise N2OError("--queries and --samples must be at least 1.")
    cache = Cache(args.cache_dir)
    before = _entries(cache)
    t_all = time.perf_counter()
    corpus = load_corpus(
        args.corpus, max_sentences=args.max_sentences, text_column=args.text_column, seed=0, cache_dir=cache.root
    )
    check_corpus_size(len(corpus))
    ws = Workspace(corpus, cache=cache)
    for eid in ids:
        ws.info(eid)  # an unknown id or a spec that does not load: one error line, before any work
    plan = plan_queries(len(corpus), args.queries, args.samples, args.seed)
    k_max = k_max_for(len(corpus))
    print(
        f"corpus {corpus.name}: {len(corpus):,} sentences; {len(plan.samples)} samples x {args.queries} queries "
        f"(pool {len(plan.pool):,}), k_max {k_max}; {'approximate' if args.approx else 'exact'} search"
        f"{', z-normalized' if args.znorm else ''}; cache {cache.root}"
    )
    bars = ProgressBars()
    failed: dict[str, str] = {}
    for eid in ids:
        t0 = time.perf_counter()
        was = ws.is_cached(eid)
        try:
            prepare_embedder(ws, eid, plan.pool, k_max, znorm=args.znorm, approx=args.approx, progress=bars)
        except N2OError as e:
            failed[eid] = str(e)
            print(f"  {eid}: FAILED: {e}")
            continue
        done = "embeddings were cached" if was else "embedded"
        every = not args.approx and search_every_sentence(ws, eid, k_max, znorm=args.znorm)
        ready = "neighbors of every sentence ready" if every else "neighbors ready"
        print(f"  {eid}: {done}, {ready}, {time.perf_counter() - t0:.1f} s")
    bars.close()
    if args.heros:
        _heros(ws, [e for e in ids if e not in failed], args, failed)
    if args.probe:
        _probe(ws, [e for e in ids if e not in failed], args, failed)
    if args.measures:
        _measures(ws, [e for e in ids if e not in failed], k_max, args, failed)
    if args.variants:
        _variants(ws, [e for e in ids if e not in failed], k_max, args, failed)
    if args.findings:
        _findings(ws, args, failed)
    after = _entries(cache)
    new = {rel: after[rel] for rel in after if before.get(rel) != after[rel]}
    print(_filled(new, time.perf_counter() - t_all))
    if not args.no_check:
        usable = [e for e in ids if e not in failed]
        print(_check_line(first_page_in_new_process(args, usable, cache.root)))
    if failed:
        raise N2OError(f"{len(failed)} embedder(s) could not be prepared: {', '.join(failed)} (see above).")
    return 0


def _heros(ws: Workspace, ids: list[str], args: argparse.Namespace, failed: dict[str, str]) -> None:
    from n2o_core.embedders.infos import with_stop_words_dropped
    from n2o_core.evaluation.heros.run import make_pairs, score_embedder

    t0 = time.perf_counter()
    pairs = make_pairs(ws, args.heros, args.seed)
    print(f"  HEROS: {len(pairs.pairs):,} minimal pairs ready in {time.perf_counter() - t0:.1f} s")
    for eid in ids:
        scored = with_stop_words_dropped(eid) if args.heros_averaging == "nostop" else eid
        try:
            score_embedder(ws, pairs.pairs, scored, seed=args.seed, znorm=args.znorm)
        except N2OError as e:
            failed[f"{scored} (HEROS)"] = str(e)
            print(f"  HEROS {scored}: FAILED: {e}")


def _probe(ws: Workspace, ids: list[str], args: argparse.Namespace, failed: dict[str, str]) -> None:
    """The probing page's first view (its defaults: every task, every classifier), with progress bars."""
    if args.probe < 1:
        raise N2OError(f"--probe must be a positive number of items per class (got {args.probe}).")
    t0 = time.perf_counter()
    try:
        res = probe_with_bars(
            ws, ids, per_class=args.probe, seed=args.seed, skip_failed=True, min_train=args.probe_min_train
        )
    except N2OError as e:
        failed["probing"] = str(e)
        print(f"  probing: FAILED: {e}")
        return
    for eid, msg in res.errors.items():
        failed[f"{eid} (probing)"] = msg
        print(f"  probing {eid}: FAILED: {msg}")
    n_tasks = int(res.tasks["skipped"].isna().sum())
    skipped = ", ".join(res.tasks[res.tasks["skipped"].notna()]["name"])
    print(
        f"  probing: {n_tasks} tasks x {len(res.embedders)} embedders at {args.probe:,} per class at most, ready "
        f"in {time.perf_counter() - t0:.1f} s"
        + (f" ({skipped} skipped: fewer than {args.probe_min_train} training items per class)" if skipped else "")
    )


def _measures(ws: Workspace, ids: list[str], k_max: int, args: argparse.Namespace, failed: dict[str, str]) -> None:
    """The Similarity measures page's first view (its defaults: every measure), kept in the cache."""
    from n2o_core.limits import effective_k
    from n2o_core.measures.stored import Setup, compare_and_store
    from n2o_core.settings import env_defaults

    setup = Setup(tuple(ids), effective_k(env_defaults().k, k_max), seed=args.seed)
    bars = measure_bars()
    got = None
    try:
        got = compare_and_store(ws, setup, bars)
    except N2OError as e:
        failed["measures"] = str(e)
    finally:
        bars.close()
    if got is None:
        print(f"  measures: FAILED: {failed['measures']}")
    else:
        res = got.result
        print(f"  measures: {len(res.measures)} measures x {len(res.embedders)} embedders ready in {got.seconds:.1f} s")


def _variants(ws: Workspace, ids: list[str], k_max: int, args: argparse.Namespace, failed: dict[str, str]) -> None:
    """The Variants page's first view (each section), kept in the cache where the page finds it."""
    from n2o_core.evaluation.variants.stored import PARTS, Setup, compute_and_store, default_choice
    from n2o_core.limits import effective_k
    from n2o_core.settings import env_defaults

    embedder, other = default_choice(ws, ids)
    setup = Setup(embedder, other, effective_k(env_defaults().k, k_max), args.queries, args.samples, args.seed)
    for part in PARTS:
        with contextlib.closing(variant_bars()) as bars:
            try:
                got = compute_and_store(ws, setup, part, bars)
            except N2OError as e:
                failed[f"variants {part}"] = str(e)
                print(f"  variants {part}: FAILED: {e}")
                continue
        why = got.result.errors.get(part)
        what = f"not computed: {why}" if why else f"ready in {got.seconds:.1f} s"
        against = f" (against {other})" if part == "layers" and other is not None else ""
        print(f"  variants {part} of {embedder}{against}: {what}")


def _findings(ws: Workspace, args: argparse.Namespace, failed: dict[str, str]) -> None:
    """The findings page's results for these settings, kept in the cache (`check_findings(keep=True)`)."""
    from n2o_core.evaluation.findings import FindingParams, check_findings, summary_counts, summary_line

    t0 = time.perf_counter()
    params = FindingParams(n_queries=args.queries, n_samples=args.samples, seed=args.seed)
    with contextlib.closing(findings_bars()) as bars:
        try:
            res = check_findings(ws, None, params, bars, keep=True)
        except N2OError as e:
            failed["findings"] = f"{e}"
    if "findings" in failed:
        print(f"  findings: FAILED: {failed['findings']}")
    else:
        print(f"  findings: {summary_line(summary_counts(res))}; kept in {time.perf_counter() - t0:.1f} s")


def _filled(new: dict[str, int], seconds: float) -> str:
    """'filled: 4 embeddings (1.2 MB), 4 knn (20 kB) in 12.3 s', or that the cache already held everything."""
    if not new:
        return f"filled: nothing, the cache already held this view ({seconds:.1f} s)"
    kinds: dict[str, list[int]] = {}
    for rel, size in new.items():
        kind = rel.split("/", 1)[0]
        kinds.setdefault(kind, []).append(size)
    parts = [f"{len(v)} {k} ({_mb(sum(v))})" for k, v in sorted(kinds.items())]
    return f"filled: {', '.join(parts)}; {_mb(sum(new.values()))} in all, in {seconds:.1f} s"


def _check_line(r: dict[str, Any]) -> str:
    if r.get("error"):
        return f"first page: could not be measured ({r['error']})"
    work = f"takes {r['wall_s']:.1f} s in a new process (imports {r['import_s']:.1f} s, corpus {r['corpus_s']:.1f} s, "
    work += f"cached arrays and N2O {r['arrays_s']:.1f} s)"
    if r["computed"]:
        return f"first page: NOT fully cached, a fresh server would still compute {', '.join(r['computed'])}; {work}"
    return (
        f"first page: nothing to embed or search; its own work {work}; "
        "a browser's first visit adds Streamlit's start and drawing"
    )


def first_page_in_new_process(
    args: argparse.Namespace, ids: Sequence[str], cache_root: str | os.PathLike[str]
) -> dict[str, Any]:
    """Run `first_page` in a fresh interpreter (as a fresh server would) and return its report plus the wall time
    of the whole process."""
    job = {
        "corpus": args.corpus,
        "max_sentences": args.max_sentences,
        "text_column": args.text_column,
        "embedders": list(ids),
        "queries": args.queries,
        "samples": args.samples,
        "seed": args.seed,
        "znorm": args.znorm,
        "approx": args.approx,
        "cache_dir": str(cache_root),
    }
    t0 = time.perf_counter()
    try:
        out = subprocess.run(
            [sys.executable, "-m", "n2o_core.cli.warm", json.dumps(job)],
            capture_output=True,
            text=True,
            timeout=900,
            env=dict(os.environ, HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1")),
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": type(e).__name__}
    wall = time.perf_counter() - t0
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    report = json.loads(lines[-1])
    report["wall_s"] = wall
    return report


def first_page(job: dict[str, Any]) -> dict[str, Any]:
    """The first heatmap's work from the cache, in this process, with embedding and neighbor search forbidden
    (for the duration of the call): what would still have been computed is listed in "computed" (empty when the
    cache held everything)."""
    from unittest import mock  # noqa: PLC0415 - here, not at every command's start (it imports asyncio)

    t0 = time.perf_counter()
    import n2o_core.analyses.compare as compare_mod  # imported as the app imports it
    import n2o_core.corpus_workspace as wsmod
    from n2o_core.corpora import load_corpus
    from n2o_core.limits import k_max_for
    from n2o_core.pipeline import Prepared, plan_queries, prepare_embedder
    from n2o_core.storage.cache import Cache

    t1 = time.perf_counter()
    computed: list[str] = []

    def no_encode(self: object, eid: str, progress: object) -> None:
        computed.append(f"embeddings of {eid}")
        raise N2OError(f"{eid} is not in the cache")

    def no_search(*a: object, **kw: object) -> None:
        computed.append("a neighbor search")
        raise N2OError("neighbors are not in the cache")

    patches: list[Any] = [
        mock.patch.object(wsmod.Workspace, "_encode", no_encode),
        mock.patch.object(wsmod, "exact_knn", no_search),
        mock.patch.object(wsmod, "approx_knn", no_search),
    ]
    with contextlib.ExitStack() as stack:
        for p in patches:
            stack.enter_context(p)
        cache = Cache(job["cache_dir"])
        corpus = load_corpus(
            job["corpus"],
            max_sentences=job["max_sentences"],
            text_column=job["text_column"],
            seed=0,
            cache_dir=cache.root,
        )
        t2 = time.perf_counter()
        ws = wsmod.Workspace(corpus, cache=cache)
        plan = plan_queries(len(corpus), job["queries"], job["samples"], job["seed"])
        prepared = Prepared(plan, k_max_for(len(corpus)), job["znorm"], job["approx"])
        for eid in job["embedders"]:
            try:
                prepared.neighbors[eid] = prepare_embedder(
                    ws, eid, plan.pool, prepared.k_max, znorm=job["znorm"], approx=job["approx"]
                )
                ws.zero_vector_count(eid)  # the heatmap's table reads every embedding once
            except N2OError:
                pass
        if len(prepared.neighbors) >= 2:
            compare_mod.comparison(prepared, min(10, prepared.k_max))
    t3 = time.perf_counter()
    return {"import_s": t1 - t0, "corpus_s": t2 - t1, "arrays_s": t3 - t2, "computed": sorted(set(computed))}


if __name__ == "__main__":  # the new process of first_page_in_new_process
    print(json.dumps(first_page(json.loads(sys.argv[1]))))
