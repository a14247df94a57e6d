"""The probing page's data: `evaluation.probe.run_probe` memoized per process (one result per corpus, embedders,
tasks, classifiers, items per class and seed), its progress callback drawn in an st.status. Nothing here computes;
the disk cache under run_probe (parse, tasks, sentence vectors, readouts) makes a run in a new process quick."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.evaluation.probe.run import ProbeResult, run_probe
from n2o_core.runtime import child
from n2o_core.text import escape_markup

from . import data
from .guard import message
from .progress import bar_progress

log = logging.getLogger("n2o")

_MAX_ENTRIES = 16


@dataclass(frozen=True)
class ProbeSetup:
    """What a probing run depends on besides the corpus."""

    embedders: tuple[str, ...]
    tasks: tuple[str, ...]
    classifiers: tuple[str, ...]
    per_class: int
    seed: int


@st.cache_resource(show_spinner=False)
def _memo() -> OrderedDict:
    """Process-wide memo: (corpus fingerprint, setup) -> ProbeResult."""
    return OrderedDict()


def known(corpus: Corpus, setup: ProbeSetup) -> ProbeResult | None:
    """The result already computed in this process for this corpus and setup (nothing is run), or None."""
    return _memo().get((corpus.fingerprint, setup))


def run(corpus: Corpus, setup: ProbeSetup, scheduler: str = "") -> ProbeResult:
    """`run_probe` on the sidebar's corpus and workspace, with a status and a progress bar; memoized.
    An embedder that fails is left out and named in `.errors`; raises N2OError (one sentence) when the corpus is
    too small for every task."""
    got = known(corpus, setup)
    if got is not None:
        return got
    ws = data.workspace(corpus.fingerprint, corpus, scheduler)
    what = f"Probing {len(setup.embedders)} embedder(s) on {len(setup.tasks)} task(s) from {escape_markup(corpus.name)}"
    with st.status(f"{what}…", expanded=True) as status:
        bar = st.progress(0.0, text="starting")
        try:
            res = child.call(
                run_probe,
                ws,
                list(setup.embedders),
                tasks=list(setup.tasks),
                classifiers=list(setup.classifiers),
                per_class=setup.per_class,
                seed=setup.seed,
                callbacks={"progress": _progress(bar, status, what)},
                skip_failed=True,
            )
        except Exception:
            status.update(label=f"{what}: stopped", state="error", expanded=False)
            raise
        bar.progress(1.0, text=f"done in {res.meta.get('seconds', 0):.0f} s")
        status.update(
            label=f"{what}: done in {res.meta.get('seconds', 0):.0f} s",
            state="error" if res.errors else "complete",
            expanded=False,
        )
    memo = _memo()
    memo[(corpus.fingerprint, setup)] = res
    while len(memo) > _MAX_ENTRIES:
        memo.popitem(last=False)
    return res


#: What each stage of `run_probe`'s progress means, for the bar's text.
STAGES = {
    "tokenize": "tokenizing the corpus (sentences)",
    "parse": "parsing with spaCy (sentences)",
    "tasks": "building the tasks",
}


def stage_text(stage: str, done: int, total: int) -> str:
    """The progress bar's line for one `run_probe` progress call."""
    if stage.startswith("embedder "):
        return f"{stage[9:]}: embedding and reading out, task {min(done + 1, total)} of {total}"
    return f"{STAGES.get(stage, stage)}: {done:,} of {total:,}"


def _progress(bar: Any, status: Any, what: str) -> Callable[[str, int, int], None]:
    def name_embedder(stage: str, done: int, total: int) -> None:
        if stage.startswith("embedder ") and done == 0:
            status.update(label=f"{what}: {escape_markup(stage[9:])}…")

    return bar_progress(bar, stage_text, also=name_embedder)


def describe_error(e: BaseException) -> str:
    """One sentence for a failed run."""
    return message(e, "Probing")


__all__ = ["ProbeSetup", "describe_error", "known", "run", "stage_text"]
