"""The Measures page's data: `measures.stored.compare_and_store` (every measure for every pair, kept in the disk
cache with when it was computed) memoized per process, its progress drawn in an st.status (`jobs.run_with_bar`: in
a child process when jobs are isolated). A result computed for the same settings by an earlier visit, another
server process or `warm --measures` is read from the cache (`stored`) without computing anything. Embeddings and
every-sentence neighbors come from the workspace's cache."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from n2o_core.corpus_workspace import Workspace
from n2o_core.measures.stored import Setup, Stored, compare_and_store, load
from n2o_core.runtime.memo import LRU

from .jobs import run_with_bar
from .progress import stage_line

_MAX_ENTRIES = 8


@dataclass(frozen=True)
class MeasureSetup:
    """What a measures run depends on besides the corpus."""

    embedders: tuple[str, ...]
    k: int
    measures: tuple[str, ...]
    permutations: int
    bootstrap: int
    subsample: int
    seed: int

    def core(self) -> Setup:
        """The core's key of this setup (`measures.stored.Setup`; the default null subsample)."""
        return Setup(
            self.embedders, self.k, self.measures, self.permutations, self.bootstrap, self.subsample, seed=self.seed
        )


@st.cache_resource(show_spinner=False)
def _memo() -> LRU:
    """Process-wide memo: (corpus fingerprint, setup) -> Stored (results, never failures)."""
    return LRU(_MAX_ENTRIES)


def _remember(ws: Workspace, setup: MeasureSetup, got: Stored) -> Stored:
    _memo()[(ws.corpus.fingerprint, setup)] = got
    return got


def known(ws: Workspace, setup: MeasureSetup) -> Stored | None:
    """The result for this corpus and setup already computed in this process or kept in the disk cache (nothing
    is run), or None."""
    got = _memo().get((ws.corpus.fingerprint, setup))
    if got is None:
        got = load(ws, setup.core())
        if got is not None:
            _remember(ws, setup, got)
    return got


def latest(ws: Workspace, embedders: tuple[str, ...], k: int) -> Stored | None:
    """The most recent result computed in this process for this corpus, these embedders and k, whatever its
    measures, permutations or subsample (talk mode shows it: there is no button to press there), or None."""
    for (fp, setup), got in reversed(_memo().snapshot()):
        if fp == ws.corpus.fingerprint and setup.embedders == embedders and setup.k == k:
            return got
    return None


def run(ws: Workspace, setup: MeasureSetup) -> Stored:
    """`compare_and_store` with a status and a progress bar (`jobs.run_with_bar`); memoized. Raises what it raises
    (N2OError: one sentence for the page to show)."""
    got = known(ws, setup)
    if got is not None:
        return got
    got = run_with_bar(
        compare_and_store,
        ws,
        setup.core(),
        title=f"Computing {len(setup.measures)} measure(s) for {len(setup.embedders)} embedders…",
        ready=lambda _got: f"{len(setup.measures)} measure(s) on {len(ws.corpus):,} sentences",
        bar_text=stage_line({}),
    )
    return _remember(ws, setup, got)


__all__ = ["MeasureSetup", "known", "latest", "run"]
