"""The Variants page's data: `evaluation.variants.stored.compute_and_store` (one part of the analysis -- layers,
compression or index -- kept in the disk cache with when it was computed) memoized per process, its progress drawn
in an st.status (`jobs.run_with_bar`: in a child process when jobs are isolated). A part computed for the same
settings by an earlier visit, another server process or `warm --variants` is read from the cache without computing
anything."""

from __future__ import annotations

import streamlit as st

from n2o_core.corpus_workspace import Workspace
from n2o_core.evaluation.variants.stored import Setup, Stored, compute_and_store, load
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import ProgressEvent

from .jobs import run_with_bar

_MAX_ENTRIES = 24
#: What each part's progress stages mean on the bar.
_STAGES = {
    "layers": "forward pass (sentences)",
    "neighbors": "embedders searched",
    "cka": "linear CKA",
    "needle": "paraphrase needle",
    "sts": "human similarity",
    "index": "index settings built",
}


@st.cache_resource(show_spinner=False)
def _memo() -> LRU:
    """Process-wide memo: (corpus fingerprint, setup, part) -> Stored (results, never failures)."""
    return LRU(_MAX_ENTRIES)


def _remember(ws: Workspace, setup: Setup, part: str, got: Stored) -> Stored:
    _memo()[(ws.corpus.fingerprint, setup, part)] = got
    return got


def known(ws: Workspace, setup: Setup, part: str) -> Stored | None:
    """The part for this corpus and setup already computed in this process or kept in the disk cache (nothing is
    run), or None."""
    got = _memo().get((ws.corpus.fingerprint, setup, part))
    if got is None:
        got = load(ws, setup, part)
        if got is not None:
            _remember(ws, setup, part, got)
    return got


def latest(ws: Workspace, part: str) -> Stored | None:
    """The most recent `part` computed in this process for this corpus, whatever its embedders (talk mode shows it:
    there is no button to press there), or None."""
    for (fp, _, p), got in reversed(_memo().snapshot()):
        if fp == ws.corpus.fingerprint and p == part:
            return got
    return None


def _bar_text(event: ProgressEvent) -> str:
    part, _, step = event.stage.partition(": ")
    return f"{part}: {_STAGES.get(step, step)} {event.done:,}/{event.total:,}"


def run(ws: Workspace, setup: Setup, part: str) -> Stored:
    """`compute_and_store` with a status and a progress bar (`jobs.run_with_bar`); memoized. Raises what it raises
    (N2OError: one sentence for the page to show)."""
    got = known(ws, setup, part)
    if got is not None:
        return got
    got = run_with_bar(
        compute_and_store,
        ws,
        setup,
        part,
        title=f"Computing the {part} of {setup.embedder} on {len(ws.corpus):,} sentences…",
        ready=lambda _got: f"The {part} of {setup.embedder}: done",
        bar_text=_bar_text,
    )
    return _remember(ws, setup, part, got)


__all__ = ["known", "latest", "run"]
