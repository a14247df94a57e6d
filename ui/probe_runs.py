"""The probing page's data: `evaluation.probe.run_probe` memoized per process (one result per corpus, embedders,
tasks, classifiers, items per class, minimum of training items and seed), its progress drawn in an st.status
("task x of 10 · embedder y of 6 · about N s left"). Nothing here computes: `cached` reads a result the disk
cache holds (an earlier run, `python -m n2o_core warm --probe`), `estimate` says how long a run will take here."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.evaluation.probe.run import ProbeResult, cached_probe, run_probe
from n2o_core.evaluation.probe.timing import Estimate, ReadoutStep, about, estimate, seconds_left
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.text import escape_markup

from . import n2o_runs
from .guard import message
from .jobs import run_with_bar

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
    min_train: int


@st.cache_resource(show_spinner=False)
def _memo() -> LRU:
    """Process-wide memo: (corpus fingerprint, setup) -> ProbeResult."""
    return LRU(_MAX_ENTRIES)


def known(corpus: Corpus, setup: ProbeSetup) -> ProbeResult | None:
    """The result already computed in this process for this corpus and setup (nothing is run), or None."""
    return _memo().get((corpus.fingerprint, setup))


def _keep(corpus: Corpus, setup: ProbeSetup, res: ProbeResult) -> None:
    _memo()[(corpus.fingerprint, setup)] = res


def _args(setup: ProbeSetup) -> tuple[list[str], dict[str, Any]]:
    return list(setup.embedders), {
        "tasks": list(setup.tasks),
        "classifiers": list(setup.classifiers),
        "per_class": setup.per_class,
        "seed": setup.seed,
        "min_train": setup.min_train,
    }


def cached(corpus: Corpus, setup: ProbeSetup, scheduler: str = "") -> ProbeResult | None:
    """The result of this setup as the disk cache holds it (an earlier run here, or `warm --probe`), read without
    computing anything; None when a task or readout is missing, or when reading fails (then the button runs it)."""
    got = known(corpus, setup)
    if got is not None:
        return got
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, scheduler)
    ids, kw = _args(setup)
    try:
        res = cached_probe(ws, ids, **kw)
    except Exception as e:  # noqa: BLE001 - a cache that cannot be read is a run to do, not an error on arrival
        log.warning("probing: the cached result could not be read (%s: %s)", type(e).__name__, e)
        return None
    if res is not None:
        _keep(corpus, setup, res)
    return res


def how_long(corpus: Corpus, setup: ProbeSetup, scheduler: str = "") -> Estimate | None:
    """How long the run will take here (`timing.estimate`: what the cache lacks at the rates measured here);
    None when it cannot be estimated."""
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, scheduler)
    ids, kw = _args(setup)
    try:
        return estimate(ws, ids, kw["tasks"], kw["classifiers"], setup.per_class, setup.seed, setup.min_train)
    except Exception as e:  # noqa: BLE001 - an estimate is never worth an error
        log.warning("probing: no time estimate (%s: %s)", type(e).__name__, e)
        return None


def run(corpus: Corpus, setup: ProbeSetup, scheduler: str = "") -> ProbeResult:
    """`run_probe` on the sidebar's corpus and workspace, with a status and a progress bar; memoized.
    An embedder that fails is left out and named in `.errors`; raises N2OError (one sentence) when the corpus is
    too small for every task."""
    got = known(corpus, setup)
    if got is not None:
        return got
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, scheduler)
    what = f"Probing {len(setup.embedders)} embedder(s) on {len(setup.tasks)} task(s) from {corpus.name}"
    ids, kw = _args(setup)
    res = run_with_bar(
        run_probe,
        ws,
        ids,
        title=f"{what}…",
        ready=lambda got: f"{what}: done in {got.meta.get('seconds', 0):.0f} s",
        bar_text=_stage_line(),
        failed=f"{what}: stopped",
        some_failed=lambda got: bool(got.errors),
        expanded=True,
        more=lambda bar, status: {"on_step": _on_step(bar, status, what)},
        skip_failed=True,
        **kw,
    )
    _keep(corpus, setup, res)
    return res


#: What each stage of `run_probe`'s progress means, for the bar's text.
STAGES = {
    "tokenize": "tokenizing the corpus (sentences)",
    "parse": "parsing with spaCy (sentences)",
    "tasks": "building the tasks",
}


def stage_text(stage: str, done: int, total: int, left: float | None = None) -> str:
    """The progress bar's line for one `run_probe` progress call before the readouts (tokenizing, parsing,
    building the tasks), with the time left at the stage's rate so far."""
    return f"{STAGES.get(stage, stage)}: {done:,} of {total:,} · {about(left)}"


def _stage_line() -> Callable[[ProgressEvent], str | None]:
    """The bar's line for tokenizing, parsing and building the tasks, each with its time left; the readouts' stage
    ("embedder") is left to `_on_step`, which knows the whole run."""
    started: dict[str, float] = {}

    def text(e: ProgressEvent) -> str | None:
        if e.stage == "embedder":
            return None
        t0 = started.setdefault(e.stage, time.perf_counter())
        return stage_text(e.stage, e.done, e.total, seconds_left(time.perf_counter() - t0, e.done, e.total))

    return text


def _on_step(bar: Any, status: Any, what: str) -> Callable[[ReadoutStep], None]:
    """Each (task, embedder) step on the bar: 'task x of 10 · embedder y of 6 · about N s left'; the status says
    which embedder (`what` and every name shown as plain text)."""

    def cb(step: ReadoutStep) -> None:
        with contextlib.suppress(Exception):  # progress from a worker thread: skip the update
            bar.progress(min(max(step.fraction, 0.0), 1.0), text=escape_markup(step.line()))
            if step.task == 1:
                label = f"{what}: embedder {step.embedder} of {step.n_embedders}, {step.eid}…"
                status.update(label=escape_markup(label), expanded=True)  # without `expanded` the box would fold

    return cb


def describe_error(e: BaseException) -> str:
    """One sentence for a failed run."""
    return message(e, "Probing")


__all__ = ["ProbeSetup", "cached", "describe_error", "how_long", "known", "run", "stage_text"]
