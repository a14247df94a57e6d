"""The Measures page's data: `measures.run.compare_measures` memoized per process (one result per corpus,
embedders, k, measures, permutations, resamples, subsample and seed), its progress drawn in an st.status.
Nothing here computes; embeddings and every-sentence neighbors come from the workspace's disk cache."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import streamlit as st

from n2o_core.measures.run import MeasureComparison, compare_measures
from n2o_core.runtime import child
from n2o_core.workspace import Workspace

from .progress import bar_progress

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


@st.cache_resource(show_spinner=False)
def _memo() -> OrderedDict:
    """Process-wide memo: (corpus fingerprint, setup) -> MeasureComparison (results, never failures)."""
    return OrderedDict()


def known(ws: Workspace, setup: MeasureSetup) -> MeasureComparison | None:
    """The result already computed in this process for this corpus and setup (nothing is run), or None."""
    return _memo().get((ws.corpus.fingerprint, setup))


def latest(ws: Workspace, embedders: tuple[str, ...], k: int) -> MeasureComparison | None:
    """The most recent result computed in this process for this corpus, these embedders and k, whatever its
    measures, permutations or subsample (talk mode shows it: there is no button to press there), or None."""
    for (fp, setup), res in reversed(_memo().items()):
        if fp == ws.corpus.fingerprint and setup.embedders == embedders and setup.k == k:
            return res
    return None


def run(ws: Workspace, setup: MeasureSetup) -> MeasureComparison:
    """`compare_measures` with a status and a progress bar; memoized. Raises what it raises (N2OError: one
    sentence for the page to show)."""
    got = known(ws, setup)
    if got is not None:
        return got
    n = len(ws.corpus)
    with st.status(f"Computing {len(setup.measures)} measure(s) for {len(setup.embedders)} embedders…") as status:
        bar = st.progress(0.0, text="starting")
        res = child.call(
            compare_measures,
            ws,
            list(setup.embedders),
            setup.k,
            list(setup.measures),
            permutations_=setup.permutations,
            bootstrap=setup.bootstrap,
            subsample=setup.subsample,
            seed=setup.seed,
            callbacks={"progress": bar_progress(bar, lambda stage, done, total: f"{stage} {done:,}/{total:,}")},
        )
        bar.empty()
        status.update(label=f"{len(setup.measures)} measure(s) on {n:,} sentences", state="complete", expanded=False)
    memo = _memo()
    memo[(ws.corpus.fingerprint, setup)] = res
    while len(memo) > _MAX_ENTRIES:
        memo.popitem(last=False)
    return res


__all__ = ["MeasureSetup", "known", "latest", "run"]
