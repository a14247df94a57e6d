"""Per-sentence agreement for the dashboard: the core's steps (`pipeline.every_sentence_neighbors`,
`Agreement.from_neighbors`, `n2o_core.analyses.projection.projection`) kept per server process, with progress on a cold
cache and errors as sentences in place. Nothing here computes.

- Every sentence's neighbors at k_max = min(50, N − 1) per embedder: a process-wide memo filled by
  `pipeline.every_sentence_neighbors` (also cached on disk by the Workspace); any k <= k_max is a slice.
- PCA maps are computed in the script run (seconds), under a status and a bar (`jobs.run_with_bar`: in a child
  process when jobs are isolated).
- UMAP maps are computed in a background thread, one at a time, so the page never blocks on them: the page
  draws the PCA maps meanwhile and polls the job. umap-learn's numba code compiles once per server process, for
  tens of seconds (measured: benchmarks/README.md, 'Measurements behind the code's choices'); it happens during
  the first UMAP map someone asks for, inside that background job. It is not started at page load
  (`projection.warm_up_umap` in a thread): on a shared 2-core machine that would spend those CPU seconds
  whether or not anyone wants UMAP, slowing the PCA view everyone sees first. A corpus too small for UMAP is
  refused before any compilation.
  Maps are cached on disk by the core, so a later process reads them instead of computing them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from n2o_core import pipeline
from n2o_core.analyses import agreement as core
from n2o_core.analyses import projection
from n2o_core.analyses.agreement import Agreement
from n2o_core.analyses.projection import Projection
from n2o_core.corpora import Corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.figures import maps as figures_maps
from n2o_core.limits import MIN_EMBEDDERS, check_corpus_size, k_max_for
from n2o_core.runtime import child
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, ProgressEvent
from n2o_core.runtime.serial_calls import each_call
from n2o_core.search.result import Neighbors
from n2o_core.settings import Settings
from n2o_core.text import escape_markup

from . import failures, n2o_runs
from .guard import message
from .jobs import close_embedders, run_embedders, run_with_bar
from .progress import stage_line, stage_progress

log = logging.getLogger("n2o")
T = TypeVar("T")

#: Map parameters (the core's defaults; fixed so every visitor shares one cached map per embedder).
UMAP_NEIGHBORS = 15
MAP_SEED = 0


# --------------------------------------------------------------------------- neighbors of every sentence


#: All-pairs neighbor arrays kept in memory (least recently used dropped first; ~23 MB each at 38k sentences and
#: k_max 50; the disk cache still has them).
MAX_NEIGHBOR_ARRAYS = 24


@st.cache_resource(show_spinner=False)
def _memo() -> dict[str, Any]:
    """Process-wide memo: all-pairs neighbors by key (LRU), finished maps by key (failures are per session:
    `ui.failures`)."""
    return {"neighbors": LRU(MAX_NEIGHBOR_ARRAYS), "maps": LRU(64)}  # maps: 2-D coordinates, the 64 most recently used


@dataclass
class AgreementData:
    """Every sentence's neighbors at k_max for the usable embedders (in the sidebar's order), and the errors of
    the others."""

    settings: Settings
    corpus: Corpus
    ws: Workspace
    k_max: int
    approx: bool
    neighbors: dict[str, Neighbors] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Usable embedders, in the order chosen."""
        return [e for e in self.settings.embedders if e in self.neighbors]

    @property
    def k(self) -> int:
        """The sidebar's k (the sidebar keeps it <= k_max)."""
        return int(self.settings.k)

    @property
    def key(self) -> str:
        """Identity of the neighbor arrays (corpus, k_max, search settings, embedders)."""
        s = self.settings
        return f"{self.corpus.fingerprint}-{self.k_max}-{int(s.znorm)}-{int(self.approx)}-{','.join(self.names)}"

    def at(self, k: int, names: list[str] | None = None) -> Agreement:
        """The core's Agreement at k of `names` (default: all usable embedders): slices, no search."""
        names = self.names if names is None else names
        return Agreement.from_neighbors({e: self.neighbors[e] for e in names}, k, len(self.corpus), self.approx)


def load(settings: Settings, corpus: Corpus) -> AgreementData:
    """All-pairs neighbors at k_max of every chosen embedder (cached), with per-embedder progress on a cold
    cache. An embedder that fails is named in `errors` and never stops the others."""
    check_corpus_size(len(corpus))
    n = len(corpus)
    ws = n2o_runs.workspace(corpus.fingerprint, corpus, settings.scheduler)
    out = AgreementData(settings, corpus, ws, k_max_for(n), bool(settings.approx or pipeline.default_approx(n)))
    memo = _memo()
    todo = []
    for eid in settings.embedders:
        key = (corpus.fingerprint, eid, out.k_max, settings.znorm, out.approx, settings.scheduler)
        known = failures.get("agreement", key)
        if known:
            out.errors[eid] = known
        elif key in memo["neighbors"]:
            out.neighbors[eid] = memo["neighbors"][key]
        else:
            todo.append((eid, key))
    if todo:
        _search_with_progress(out, dict(todo))
    return out


def _search_with_progress(out: AgreementData, keys: dict[str, tuple]) -> None:
    """Every sentence's neighbors of the embedders in `keys` (eid -> memo key), one after another, with a bar per
    embedder (`jobs.run_embedders`): in this process, or in one child process when the dashboard isolates its
    jobs and a search is not in the disk cache yet (`runtime.child`)."""
    settings, ws, n = out.settings, out.ws, len(out.corpus)
    memo = _memo()
    search = "approximate (pynndescent)" if out.approx else "exact"
    everyone = np.arange(n, dtype=np.int64)
    on_disk = all(_searched(ws, eid, everyone, out.k_max, settings.znorm, out.approx) for eid in keys)
    with st.status(f"Finding the {out.k_max} nearest neighbors of all {n:,} sentences…", expanded=True) as status:

        def on_start(i: int, eid: str, _payload: Any) -> str:
            status.update(
                label=f"Embedder {i + 1}/{len(keys)}: {escape_markup(eid)}, every sentence a query ({n:,})…",
                expanded=True,
            )
            return f"{'loading cached embeddings' if ws.is_cached(eid) else 'embedding'}…"

        def stages(bar: Any, eid: str) -> Progress:
            text = {"embed": f"{eid}: embedding", "neighbors": f"{eid}: {search} search, {out.k_max} neighbors"}
            return stage_progress(bar, text)

        def keep(eid: str, nb: Neighbors) -> str:
            memo["neighbors"][keys[eid]] = out.neighbors[eid] = nb
            return f"ready in {nb.seconds:.1f} s"

        search_all = partial(pipeline.every_sentence_neighbors, znorm=settings.znorm, approx=out.approx)
        calls = [(eid, (ws, eid, out.k_max)) for eid in keys]
        isolate = child.isolating() and not on_disk  # all searched already: nothing to load, no child process
        errors = run_embedders(
            each_call, search_all, calls, names=list(keys), keep=keep, stages=stages, on_start=on_start, isolate=isolate
        )
        out.errors.update({e: failures.remember("agreement", keys[e], why) for e, why in errors.items()})
        close_embedders(status, len(out.names), len(settings.embedders), failed=bool(out.errors))


def _searched(ws: Workspace, eid: str, everyone: np.ndarray, k_max: int, znorm: bool, approx: bool) -> bool:
    """Whether the every-sentence search of `eid` is in the disk cache (False when `eid` cannot even be named:
    the search then says why)."""
    try:
        return ws.has_neighbors(eid, everyone, k_max, znorm=znorm, approx=approx)
    except Exception:  # noqa: BLE001 - reported by the search itself, in its place
        return False


def clear_failures() -> None:
    """Forget this session's failed embedders, so the next run tries them again."""
    failures.clear("agreement")


def loaded(settings: Settings, corpus: Corpus | None) -> AgreementData:
    """`load`, or a clear message in place and the page stopped: no corpus, fewer than two embedders, k not
    below the corpus size, fewer than two usable embedders."""
    if corpus is None:
        st.info("Choose a usable corpus in the sidebar.")
        st.stop()
    if len(settings.embedders) < MIN_EMBEDDERS:
        st.info(
            f"Choose at least {MIN_EMBEDDERS} embedders in the sidebar: per-sentence agreement compares the "
            "neighbors two embedders find for every sentence."
        )
        st.stop()
    try:
        core.validate(list(settings.embedders), settings.k, len(corpus))
        if settings.k > k_max_for(len(corpus)):
            raise N2OError(f"k={settings.k} is above the {k_max_for(len(corpus))} neighbors searched per sentence.")
        out = load(settings, corpus)
    except Exception as e:  # noqa: BLE001 - one sentence in place
        st.error(escape_markup(message(e, "Preparing the per-sentence agreement")), icon="⚠️")
        st.stop()
    for eid, msg in out.errors.items():
        st.error(f"**{escape_markup(eid)}** is left out: {escape_markup(msg)}", icon="⚠️")
    if out.errors and st.button("Retry failed embedders", key="agree_retry"):
        clear_failures()
        st.rerun()
    if len(out.names) < MIN_EMBEDDERS:
        st.warning(f"Fewer than {MIN_EMBEDDERS} embedders are usable; choose others in the sidebar.")
        st.stop()
    return out


# --------------------------------------------------------------------------- derived values (cached)


@st.cache_data(show_spinner=False, max_entries=64)
def values(key: str, k: int, a: str | None, b: str | None, _ad: AgreementData) -> np.ndarray:
    """Per-sentence N2O of a and b at k, or the mean pairwise agreement of all usable embedders (a = b = None)."""
    return _ad.at(k).values(a, b)


@st.cache_data(show_spinner=False, max_entries=64)
def pair_means(key: str, k: int, _ad: AgreementData) -> pd.DataFrame:
    """Each pair's mean per-sentence N2O (= its N2O with every sentence a query), least agreed first."""
    return _ad.at(k).pair_means(least_first=True)


@st.cache_data(show_spinner=False, max_entries=64)
def rankings(
    key: str, k: int, a: str | None, b: str | None, top: int, _ad: AgreementData, low_page: int = 0, high_page: int = 0
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame | None, core.ExtremeTies | None]:
    """(least-agreed ids, most-agreed ids, decile table, ties at both ends) of the pair's per-sentence N2O (the mean
    pairwise agreement when a = b = None), among sentences with neighbors under the embedders involved; each list
    is page `low_page` / `high_page` (0 first) of `top` sentences of the same fixed order."""
    v = values(key, k, a, b, _ad)
    agr = _ad.at(k)
    valid = agr.has_neighbors(a, b) if a is not None and b is not None else agr.has_neighbors()
    if not valid.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64), None, None
    low = core.extremes(v, top, valid=valid, offset=low_page * top)[0]
    high = core.extremes(v, top, valid=valid, offset=high_page * top)[1]
    deciles = core.decile_table(v, features(_ad.corpus.fingerprint, _ad.corpus), valid=valid)
    return low, high, deciles, core.extreme_ties(v, valid)


@st.cache_data(show_spinner=False, max_entries=16)
def features(fingerprint: str, _corpus: Corpus) -> pd.DataFrame:
    """Length, rare-word share and label of every sentence (`agreement.corpus_features`)."""
    return core.corpus_features(_corpus)


@st.cache_resource(show_spinner=False, max_entries=8)
def hover_labels(fingerprint: str, _corpus: Corpus) -> list[str]:
    """Escaped, trimmed, wrapped hover text of every sentence (shared read-only)."""
    return figures_maps.hover_labels(_corpus.texts)


@st.cache_resource(show_spinner=False, max_entries=6)
def _maps_figure(key: tuple, _build: Callable[[], T]) -> T:
    return _build()


def maps_figure(key: tuple, build: Callable[[], T]) -> T:
    """The maps figure `build()` makes, kept for the last few keys (they are megabytes each, so not in
    n2o_runs.figure's larger cache)."""
    return _maps_figure(key, build)


# --------------------------------------------------------------------------- maps


def _map_key(ad: AgreementData, eid: str, method: str) -> tuple:
    return (ad.corpus.fingerprint, eid, method, ad.settings.znorm, ad.approx, ad.k_max)


def _options(ad: AgreementData) -> dict[str, Any]:
    """`projection.projection`'s keywords for the maps of `ad` (every visitor shares one cached map per embedder)."""
    return {
        "n_neighbors": UMAP_NEIGHBORS,
        "seed": MAP_SEED,
        "znorm": ad.settings.znorm,
        "approx": ad.approx,
        "k_search": ad.k_max,
    }


def pca_map(ad: AgreementData, eid: str) -> Projection:
    """The PCA map of one embedder (memo, disk cache read here, or computed under a progress bar:
    `jobs.run_with_bar`, in a child process when jobs are isolated). Raises N2OError when the corpus is too small
    to project."""
    memo = _memo()["maps"]
    key = _map_key(ad, eid, "pca")
    if key in memo:
        return memo[key]
    pr = projection.cached_projection(ad.ws, eid, "pca", **_options(ad))  # on disk: nothing to compute, no child
    if pr is None:
        box = st.empty()
        with box.container():
            pr = run_with_bar(
                projection.projection,
                ad.ws,
                eid,
                "pca",
                title=f"PCA map of {eid}…",
                ready=lambda _pr: f"PCA map of {eid} ready",
                bar_text=stage_line({"embed": f"{eid}: embedding", "pca": f"{eid}: PCA"}),
                **_options(ad),
            )
        box.empty()
    memo[key] = pr
    return pr


@dataclass
class MapJob:
    """A UMAP map being computed in the background (read by the page; written by the worker thread)."""

    eid: str
    n: int
    submitted: float = field(default_factory=time.monotonic)
    started: float | None = None
    event: ProgressEvent = field(default_factory=lambda: ProgressEvent("queued"))  # the last one the map reported
    first: bool = False  # the first UMAP layout in this process (numba compiles during it)
    result: Projection | None = None
    error: str | None = None
    finished: threading.Event = field(default_factory=threading.Event)

    def describe(self) -> str:
        """One line of Markdown: what the job is doing and for how long."""
        t = time.monotonic() - (self.started or self.submitted)
        e = self.event
        what = {
            "queued": "waiting for the map before it",
            "embed": f"embedding ({e.done:,}/{e.total:,})",
            "neighbors": f"searching neighbors ({e.done:,}/{e.total:,})",
            "umap": (
                "compiling umap-learn's numba code (once per server process: 30 s to 2 minutes on 2 shared cores), "
                f"then laying out {self.n:,} sentences"
                if self.first
                else f"laying out {self.n:,} sentences"
            ),
        }.get(e.stage, e.stage)
        return f"**{escape_markup(self.eid)}**: {what} · {t:.0f} s"

    @property
    def fraction(self) -> float | None:
        """Progress within the current stage, when the stage reports one."""
        if self.event.stage in ("embed", "neighbors") and self.event.total:
            return self.event.fraction
        return None


#: Map jobs kept (finished ones hold their map or error), least recently asked for dropped first.
MAX_MAP_JOBS = 64


@st.cache_resource(show_spinner=False)
def _worker() -> dict:
    """One background worker for the process (UMAP maps one at a time: numba compiles once, two layouts never
    compete for the 2 cores), its jobs by key, and whether numba is warm."""
    return {
        "pool": ThreadPoolExecutor(max_workers=1, thread_name_prefix="umap-map"),
        "jobs": LRU(MAX_MAP_JOBS),
        "lock": threading.Lock(),
        "warm": False,
    }


def _run(w: dict, job: MapJob, ad: AgreementData, key: tuple) -> None:
    job.started = time.monotonic()

    def progress(event: ProgressEvent) -> None:
        job.event = event

    try:
        job.first = not w["warm"]
        job.event = ProgressEvent("embed")
        job.result = projection.projection(ad.ws, job.eid, "umap", progress=progress, **_options(ad))
        w["warm"] = w["warm"] or job.result.method == "umap"
        _memo()["maps"][key] = job.result
    except Exception as e:  # noqa: BLE001 - shown on the page
        job.error = message(e, f"The UMAP map of '{job.eid}'")
    finally:
        job.finished.set()


def umap_map(ad: AgreementData, eid: str, wait: float = 0.5) -> Projection | MapJob:
    """The UMAP map of one embedder when it is ready (memo or disk cache), else its background job (started
    here if needed). A job that ends within `wait` seconds (a map on disk, a corpus too small) is returned
    finished, with `result` or `error`."""
    key = _map_key(ad, eid, "umap")
    memo = _memo()["maps"]
    if key in memo:
        return memo[key]
    w = _worker()
    with w["lock"]:  # two sessions asking at once share one job
        job = w["jobs"].get(key)
        if job is None:  # a failed job stays (its message is shown) until forget_map_errors
            job = MapJob(eid, len(ad.corpus))
            w["jobs"][key] = job
            w["pool"].submit(_run, w, job, ad, key)
    job.finished.wait(wait)
    if job.finished.is_set() and job.result is not None:
        return job.result
    return job


def wait_for_maps(timeout: float = 600.0) -> bool:
    """Block until every background map job has finished (tests and benchmarks); True when they all did."""
    deadline = time.monotonic() + timeout
    jobs = list(_worker()["jobs"].values())
    return all(job.finished.wait(max(0.0, deadline - time.monotonic())) for job in jobs)


def forget_map_errors() -> None:
    """Drop failed map jobs, so the next request tries again."""
    jobs = _worker()["jobs"]
    for key in [k for k, j in jobs.items() if j.finished.is_set() and j.error is not None]:
        del jobs[key]


def clear_maps() -> None:
    """Forget the maps kept in memory and the finished jobs (the disk cache keeps its maps)."""
    _memo()["maps"].clear()
    w = _worker()
    for key in [k for k, j in w["jobs"].items() if j.finished.is_set()]:
        del w["jobs"][key]
