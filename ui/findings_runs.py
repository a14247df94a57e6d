"""The findings page's data: the core's evidence (`n2o_core.evaluation.findings.evidence`) memoized per process, so each
analysis runs once per (corpus, analysis, embedders, parameters) and every finding that rests on it is judged
from the memo; each result is also kept in the cache (`findings.store`), so a later visit, another server process
or `warm --findings` finds the last result for the same settings, with when it was computed. Progress on a cold
computation is drawn in an st.status."""

from __future__ import annotations

import logging
import time
from typing import Any

import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.evaluation.findings import (
    FINDINGS,
    NEIGHBORS,
    CheckEstimate,
    Evidence,
    Finding,
    FindingParams,
    FindingResult,
    estimate_check,
    evidence,
    judge,
    load_results,
    load_timings,
    save_results,
    save_timing,
    stored_at,
    timing_of,
)
from n2o_core.measures.run import FeatureMemo
from n2o_core.pipeline import embeddings_cached
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.runtime.serial_calls import each_call
from n2o_core.settings import Settings
from n2o_core.text import escape_markup

from . import n2o_runs
from .jobs import run_with_bars
from .progress import bar_progress

log = logging.getLogger("n2o")

#: The papers' k: every neighbor-based finding is judged at k = 50 (capped at N - 1).
PAPER_K = 50
_MAX_ENTRIES = 64


def params(settings: Settings, heros_pairs: int) -> FindingParams:
    """The sidebar's query samples and seed with the papers' k and the page's pairs per HEROS subset (every other
    field at `FindingParams`' defaults, as `warm --findings` uses them)."""
    return FindingParams(
        k=PAPER_K,
        n_queries=settings.n_queries,
        n_samples=settings.n_samples,
        seed=settings.seed,
        heros_pairs=heros_pairs,
    )


@st.cache_resource(show_spinner=False)
def _memo() -> LRU:
    """Process-wide memo: (corpus fingerprint, analysis, embedders, params) -> (Evidence, seconds, computed at)."""
    return LRU(_MAX_ENTRIES)


def _key(corpus: Corpus, f: Finding, p: FindingParams) -> tuple:
    return (corpus.fingerprint, f.analysis, f.embedders, p)


def result(corpus: Corpus, f: Finding, p: FindingParams) -> FindingResult | None:
    """The finding judged on memoized evidence, else its last result kept in the cache for this corpus and these
    parameters (`computed_at` says when), else None (never computed for them)."""
    got = _memo().get(_key(corpus, f, p))
    if got is not None:
        ev, took, at = got
        r = judge(f, ev, took)
        r.computed_at = at
        return r
    return load_results(n2o_runs.cache(), corpus.fingerprint, p, [f]).get(f.id)


def compute(settings: Settings, corpus: Corpus, findings: list[Finding], p: FindingParams) -> dict[str, str]:
    """Compute (once) the evidence the given findings need, with a status and a progress bar per analysis.
    Returns {finding id: error sentence} for the computations that failed (nothing is memoized for them)."""
    memo = _memo()
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, settings.scheduler)
    todo: dict[tuple, Finding] = {}
    for f in findings:
        key = _key(corpus, f, p)
        if key not in memo and key not in todo:
            todo[key] = f
    errors: dict[str, str] = {}
    if not todo:
        return errors
    names = {str(i): key for i, key in enumerate(todo)}  # each analysis's name in the job's events
    missing = _missing_vectors(ws, todo.values())  # before the job: what its timings had to embed
    started: dict[str, float] = {}
    name = escape_markup(corpus.name)
    with st.status(f"Computing {len(todo)} analysis(es) on {name} ({len(corpus):,} sentences)…") as status:

        def on_start(i: int, name: str, _payload: Any) -> None:
            f = todo[names[name]]
            status.update(label=f"{i + 1}/{len(todo)}: {_what(f)} ({', '.join(f.embedders)})…", expanded=True)
            started[name] = time.perf_counter()

        def keep(name: str, ev: Any) -> str:
            took = time.perf_counter() - started[name]
            key = names[name]
            at = stored_at()
            memo[key] = (ev, took, at)
            done = [judge(f, ev, took) for f in FINDINGS if _key(corpus, f, p) == key]
            for r in done:
                r.computed_at = at
            save_results(ws.cache, corpus.fingerprint, p, done)  # for the next visit and other processes
            _save_timing(ws.cache, todo[key], p, len(corpus), took, missing)
            return f"done in {took:.1f} s"

        by_name = run_with_bars(  # one job for every analysis (one child process when isolating)
            each_call,
            evidence,
            [(name, (ws, todo[key], p)) for name, key in names.items()],
            names=list(names),
            what=lambda name: _what(todo[names[name]]).capitalize(),
            keep=keep,
            bar_text=lambda name: todo[names[name]].analysis,
            stages=lambda bar, _name: bar_progress(bar, _stage_line),
            on_start=on_start,
            cka_cache=FeatureMemo(),  # one for the whole job: findings on the same embedders share their CKA
        )
        failed = {names[name]: sentence for name, sentence in by_name.items()}
        status.update(label="Findings computed", state="error" if failed else "complete", expanded=bool(failed))
    for f in findings:
        if _key(corpus, f, p) in failed:
            errors[f.id] = failed[_key(corpus, f, p)]
    return errors


def estimate(settings: Settings, corpus: Corpus, findings: list[Finding], p: FindingParams) -> CheckEstimate:
    """How long `compute` of these findings will take here (`findings.estimate_check`): the analyses not computed
    in this process yet, the corpus vectors not cached yet and the timings kept in the cache; computes nothing."""
    memo = _memo()
    todo: dict[tuple, Finding] = {}
    for f in findings:
        key = _key(corpus, f, p)
        if key not in memo:
            todo.setdefault(key, f)
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, settings.scheduler)
    missing = _missing_vectors(ws, todo.values())
    analyses = [(f.analysis, f.embedders) for f in todo.values()]
    return estimate_check(analyses, p.run_sizes(len(corpus)), p.n_seeds, p.heros_pairs, missing, load_timings(ws.cache))


def _missing_vectors(ws: Any, findings: Any) -> set[str]:
    """The embedders of the neighbors analyses among `findings` whose corpus vectors are not cached."""
    need = {e for f in findings if f.analysis == NEIGHBORS for e in f.embedders}
    return {e for e in need if not embeddings_cached(ws, e)}


def _save_timing(cache: Any, f: Finding, p: FindingParams, n: int, took: float, missing: set[str]) -> None:
    """Keep how long `f`'s analysis took, with its size and the corpus vectors it had to compute."""
    timing = timing_of(f.analysis, p.run_sizes(n), p.n_seeds, p.heros_pairs, f.embedders, n, took, missing)
    save_timing(cache, f.analysis, timing)


def _what(f: Finding) -> str:
    return {
        "neighbors": "nearest neighbors, N2O and token overlap",
        "heros": "minimal pairs and their scores",
        "sts": "correlation with human similarity (Lee pairs)",
        "probe": "probing tasks built from the corpus, read out",
    }.get(f.analysis, f.analysis)


def evidence_of(corpus: Corpus, f: Finding, p: FindingParams) -> Evidence | None:
    """The memoized evidence of a finding (None before it is computed in this process)."""
    got = _memo().get(_key(corpus, f, p))
    return None if got is None else got[0]


def _stage_line(event: ProgressEvent) -> str:
    """The progress bar's line for one `evidence` progress event."""
    return f"{event.label} {event.done:,}/{event.total:,}"
