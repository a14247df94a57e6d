"""Streamlit-side caching and progress for the evaluation pages (paraphrase needle, human similarity, quality
beside agreement) over the core's `evaluation.pairs`, `needle`, `sts` and `heros.run`. Nothing here computes: it keeps
results per server process, turns the cores' progress callbacks into st.status / st.progress, and turns errors
into sentences shown in place.

Results are kept per embedder in a process-wide memo (so one failing embedder leaves the others, and the quality
page can tell, without running anything, which analyses were already run for this corpus):

- needle: `run_needle(ws, pairs, [eid], seed=seed)` per chosen embedder, which is exactly what one
  `run_needle(ws, pairs, embedders, seed=seed)` call computes for it (every embedder is bootstrapped with the
  same seed, so the same resamples of the pairs);
- human similarity: `run_sts(ws, pairs, [eid])` (no randomness);
- HEROS: `heros.run.score_embedder` on the corpus's minimal pairs (`ui.heros_runs.pairs`, shared with the HEROS
  page).

The core puts the parts together (`needle.combine_needle`, `sts.combine_sts`): sorted and ranked as one call over
every embedder would be.

Loaded pairs are kept in the same memo by `pair_key` (not in st.cache_data: a progress bar updated inside a cached
function cannot be replayed); uploaded pair files are kept in the cache folder under their content digest.

The last configuration run on the needle and similarity pages is remembered per session and corpus
(`remember` / `last`), so the quality page shows those results.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from n2o_core.analyses.quality import embedder_dims
from n2o_core.corpora import Corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.evaluation.needle import NeedleResult, combine_needle, run_needle
from n2o_core.evaluation.pairs import FilteredPairs, Pairs, filter_pairs, load_pairs, pair_file_columns
from n2o_core.evaluation.sts import STSResult, combine_sts, run_sts
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.serial_calls import each_embedder
from n2o_core.storage.fileio import atomic_write
from n2o_core.text import escape_markup

from . import n2o_runs
from .jobs import run_with_bar, run_with_bars
from .progress import LOADING_LEXICONS, stage_line, stage_progress

log = logging.getLogger("n2o")

#: Corpus sentences kept per pair and embedder that outrank the paraphrase (shown on the needle page).
NEEDLE_TOP = 5
#: Bootstrap resamples for the MRR 95% CI (as the CLI's default).
NEEDLE_BOOT = 1000
#: Entries kept per kind (least recently used dropped first): loaded pair sets, per-embedder results (small).
MEMO_SIZE = {"pairs": 16, "needle": 512, "sts": 512}


@st.cache_resource(show_spinner=False)
def _memo() -> dict[str, LRU]:
    """Process-wide memo of loaded pairs and per-embedder results by key, one LRU per kind."""
    return {kind: LRU(size) for kind, size in MEMO_SIZE.items()}


def _keep(kind: str, key: tuple, value: Any) -> None:
    _memo()[kind][key] = value


# --------------------------------------------------------------------------- pairs


def save_pair_upload(name: str, raw: bytes) -> str:
    """Keep an uploaded pair file in the cache folder under its content digest; returns its path (the spec)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name).strip("._") or "pairs.tsv"
    path = Path(n2o_runs.cache().root) / "pair-uploads" / hashlib.sha256(raw).hexdigest()[:16] / safe
    if not path.is_file():
        atomic_write(path, lambda f: f.write(raw))
    return str(path)


@st.cache_data(show_spinner=False, max_entries=32)
def upload_columns(path: str) -> list[str]:
    """Header columns of a kept upload ([] for the STS Benchmark's headerless layout)."""
    return pair_file_columns(path)


def pair_key(spec: str, columns: Mapping[str, str | None] | None, corpus: Corpus | None, seed: int) -> tuple:
    """The identity of a pairs source: spec and columns, plus corpus and seed for synthetic pairs (made from it)."""
    cols = tuple(sorted((k, v) for k, v in (columns or {}).items() if v))
    synthetic = spec.startswith("synthetic")
    return (spec, cols, corpus.fingerprint if synthetic and corpus is not None else "", seed if synthetic else 0)


def _options(key: tuple, corpus: Corpus | None) -> dict[str, Any]:
    """`load_pairs`' keywords for a `pair_key`."""
    _spec, cols, _fp, seed = key
    return {"columns": dict(cols) or None, "corpus": corpus, "cache": n2o_runs.cache(), "seed": seed}


def pairs(key: tuple, corpus: Corpus | None = None) -> Pairs:
    """The pairs for a `pair_key` (kept per process, read-only); a status with a progress bar while synthetic
    pairs are made or a Hugging Face dataset is fetched (`jobs.run_with_bar`: in a child process when jobs are
    isolated). Raises N2OError with one sentence on bad input."""
    memo = _memo()["pairs"]
    if key in memo:
        return memo[key]
    spec = key[0]
    if not (spec.startswith("synthetic") or spec.startswith("hf:")):  # a file or built-in set: read here, in moments
        out = load_pairs(spec, **_options(key, corpus))
        _keep("pairs", key, out)
        return out
    doing = (
        f"Making synthetic pairs from {corpus.name if corpus is not None else 'the corpus'} "
        "(WordNet and spaCy load first)"
        if spec.startswith("synthetic")
        else f"Fetching the Hugging Face dataset {spec[3:]}"
    )
    out = run_with_bar(
        load_pairs,
        spec,
        title=f"{doing}…",
        ready=lambda got: f"{len(got):,} pairs ready",
        bar_text=stage_line({"pairs": "made"}, prefix="pairs: "),
        failed=f"{doing}: failed",
        expanded=True,
        bar_start=LOADING_LEXICONS if spec.startswith("synthetic") else "fetching",
        **_options(key, corpus),
    )
    _keep("pairs", key, out)
    return out


def filter_key(min_score: float | None, max_overlap: float | None, genres: Sequence[str] | None) -> tuple:
    """The identity of a filter setting (the word-overlap measure is the paper's default, "query")."""
    return (
        None if min_score is None else float(min_score),
        None if max_overlap is None else float(max_overlap),
        tuple(sorted(g.strip().lower() for g in genres or [] if g.strip())),
    )


@st.cache_data(show_spinner=False, max_entries=64)
def filtered(pkey: tuple, fkey: tuple, _source: Pairs) -> FilteredPairs:
    """`filter_pairs` with the filter setting `fkey` (see `filter_key`); raises N2OError when nothing is left."""
    min_score, max_overlap, genres = fkey
    return filter_pairs(_source, min_score=min_score, max_overlap=max_overlap, genres=list(genres) or None)


# --------------------------------------------------------------------------- per-session "last run"


def remember(kind: str, corpus_fp: str, **info: Any) -> None:
    """Note the configuration last shown on an evaluation page, for the quality page."""
    st.session_state.setdefault("_eval_last", {})[(kind, corpus_fp)] = info


def last(kind: str, corpus_fp: str) -> dict[str, Any] | None:
    """The configuration last shown on the `kind` page for this corpus in this session, or None."""
    return st.session_state.get("_eval_last", {}).get((kind, corpus_fp))


# --------------------------------------------------------------------------- progress


def _run_each(
    kind: str,
    todo: list[tuple[str, tuple]],
    label: str,
    job: Callable[..., Any],
    args: tuple[Any, ...],
    stages: Mapping[str, str],
    errors: dict[str, str],
    *,
    report_progress: bool = False,
    **kwargs: Any,
) -> None:
    """`job(*args, [eid], **kwargs)` for each (eid, key) not yet known, kept under its key, with a status and a bar
    per embedder; one job for them all (`each_embedder`: in one child process when isolating, so the interpreter
    and its imports start once), each embedder's failure reported in place while the others go on."""
    if not todo:
        return
    keys = dict(todo)
    order = [eid for eid, _ in todo]
    with st.status(f"{label}: {len(todo)} embedder(s)…", expanded=True) as status:

        def keep(eid: str, result: Any) -> None:
            _keep(kind, keys[eid], result)

        errors.update(
            run_with_bars(
                each_embedder,
                job,
                args,
                order,
                names=order,
                what=lambda eid: f"Embedder '{eid}'",
                keep=keep,
                stages=(lambda bar, eid: stage_progress(bar, stages, prefix=f"{eid}: ")) if report_progress else None,
                on_start=lambda i, eid, _payload: status.update(
                    label=f"{label}: embedder {i + 1}/{len(order)}, {escape_markup(eid)}…"
                ),
                say_failures=True,
                listed=True,
                **kwargs,
            )
        )
        status.update(
            label=f"{label}: {len(todo) - len(errors)} of {len(todo)} done",
            state="error" if errors else "complete",
            expanded=bool(errors),
        )


# --------------------------------------------------------------------------- paraphrase needle


def _needle_key(lo: n2o_runs.Loaded, pkey: tuple, fkey: tuple, eid: str) -> tuple:
    s = lo.settings
    return (lo.corpus.fingerprint, pkey, fkey, eid, s.znorm, s.seed, NEEDLE_TOP, NEEDLE_BOOT)


def needle_known(lo: n2o_runs.Loaded, pkey: tuple, fkey: tuple) -> dict[str, NeedleResult]:
    """The needle results already computed for the loaded embedders (nothing is run)."""
    memo = _memo()["needle"]
    keys = {e: _needle_key(lo, pkey, fkey, e) for e in lo.names}
    return {e: memo[k] for e, k in keys.items() if k in memo}


def needle(
    lo: n2o_runs.Loaded, fpairs: FilteredPairs, pkey: tuple, fkey: tuple
) -> tuple[NeedleResult | None, dict[str, str]]:
    """Paraphrase ranks for every loaded embedder (computed once per process), with progress; (the combined
    result, or None when every embedder failed; errors by embedder)."""
    s = lo.settings
    errors: dict[str, str] = {}
    known = needle_known(lo, pkey, fkey)
    todo = [(e, _needle_key(lo, pkey, fkey, e)) for e in lo.names if e not in known]

    _run_each(
        "needle",
        todo,
        f"Ranking the paraphrases of {len(fpairs.pairs):,} pairs among {len(lo.corpus):,} sentences",
        run_needle,
        (lo.ws, fpairs),
        {"embed": "embedding the corpus", "rank": "ranking, corpus sentences"},
        errors,
        report_progress=True,
        znorm=s.znorm,
        top=NEEDLE_TOP,
        n_boot=NEEDLE_BOOT,
        seed=s.seed,
    )
    parts = needle_known(lo, pkey, fkey)
    return combine_needle([parts[e] for e in lo.names if e in parts]), errors


# --------------------------------------------------------------------------- human similarity


def _sts_key(ws: Workspace, pkey: tuple, eid: str) -> tuple:
    return (ws.corpus.fingerprint, pkey, eid)


def sts_known(ws: Workspace, pkey: tuple, names: Sequence[str]) -> dict[str, STSResult]:
    """The human-similarity results already computed for `names` (nothing is run)."""
    memo = _memo()["sts"]
    return {e: memo[_sts_key(ws, pkey, e)] for e in names if _sts_key(ws, pkey, e) in memo}


def sts(ws: Workspace, pairs_: Pairs, pkey: tuple, names: Sequence[str]) -> tuple[STSResult | None, dict[str, str]]:
    """Correlations with the human scores for every embedder in `names` (computed once per process, corpus-trained
    embedders fit on `ws`'s corpus), with progress; (combined result or None, errors by embedder)."""
    errors: dict[str, str] = {}
    if not pairs_.source.scored:
        raise N2OError(f"The pairs from '{pairs_.source.label}' have no human scores to correlate with.")
    known = sts_known(ws, pkey, names)
    todo = [(e, _sts_key(ws, pkey, e)) for e in names if e not in known]

    _run_each("sts", todo, f"Scoring {len(pairs_):,} pairs", run_sts, (ws, pairs_), {}, errors)
    parts = sts_known(ws, pkey, names)
    return combine_sts([parts[e] for e in names if e in parts]), errors


# --------------------------------------------------------------------------- dimensions


@st.cache_data(show_spinner=False, max_entries=64)
def _dims(fp: str, names: tuple[str, ...], _ws: Workspace) -> dict[str, int]:
    return embedder_dims(_ws, names)


def dims(lo: n2o_runs.Loaded) -> dict[str, int]:
    """Dimension of every loaded embedder (tf-idf: its vocabulary size on this corpus)."""
    return _dims(lo.corpus.fingerprint, tuple(lo.names), lo.ws)


__all__ = [
    "NEEDLE_BOOT",
    "NEEDLE_TOP",
    "dims",
    "filter_key",
    "filtered",
    "last",
    "needle",
    "needle_known",
    "pair_key",
    "pairs",
    "remember",
    "save_pair_upload",
    "sts",
    "sts_known",
    "upload_columns",
]
