"""Streamlit-side caching and progress over the core's pipeline (`n2o_core.pipeline`). Nothing here computes:
it keeps results per server process, turns the core's progress callbacks into st.status / st.progress, and
turns errors into sentences shown in place.

- Corpus and Workspace (which holds the loaded models): `st.cache_resource`, one shared object per process.
- Each embedder's neighbors at k_max for the query pool: a process-wide memo filled by
  `pipeline.prepare_embedder` (the Workspace also keeps them on disk, so a new process loads them).
- Derived tables (N2O at k, robustness, token overlap): `st.cache_data`, keyed by `Prepared.key` (which covers the
  corpus, every query sample, k_max and the search settings) plus the view's own arguments.
Changing k or the page only slices the cached (pool, k_max) id arrays: no embedding, no search.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from n2o_core import pipeline
from n2o_core.analyses import overlap
from n2o_core.analyses.anisotropy import Anisotropy
from n2o_core.analyses.anisotropy import anisotropy as core_anisotropy
from n2o_core.analyses.compare import ComparisonResult
from n2o_core.analyses.compare import comparison as core_comparison
from n2o_core.analyses.face_value import FaceValue
from n2o_core.corpora import Corpus, load_corpus, with_background
from n2o_core.corpus_workspace import Workspace
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.errors import N2OError
from n2o_core.limits import K_MAX, check_corpus_size, effective_k, k_max_for
from n2o_core.runtime import child
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress
from n2o_core.search.result import Neighbors
from n2o_core.settings import Settings
from n2o_core.storage.cache import Cache
from n2o_core.text import escape_markup

from . import failures as failures_
from .guard import message
from .jobs import close_embedders, run_embedders
from .progress import stage_progress

log = logging.getLogger("n2o")
T = TypeVar("T")


# --------------------------------------------------------------------------- corpus and workspace


@st.cache_resource(show_spinner=False)
def cache() -> Cache:
    """The disk cache ($N2O_CACHE_DIR or ./cache)."""
    return Cache()


@st.cache_resource(show_spinner="Loading the corpus…", max_entries=8)
def corpus(spec: str, max_sentences: int, seed: int = 0, train_with: str = "") -> Corpus:
    """The corpus for a spec (built-in, kept upload, ...), capped to a fixed sample of `max_sentences`; its
    corpus-trained embedders also trained on the built-in corpus `train_with` when one is named."""
    return load_corpus(spec, max_sentences=max_sentences, seed=seed, cache_dir=cache().root, train_with=train_with)


@st.cache_resource(show_spinner="Loading the corpus…", max_entries=4)
def _trained_with(fingerprint: str, name: str, _corpus: Corpus) -> Corpus:
    return with_background(_corpus, load_corpus(f"builtin:{name}", cache_dir=cache().root))


def trained_with(corpus_: Corpus, name: str) -> Corpus:
    """`corpus_` with its corpus-trained embedders also trained on the built-in corpus `name`."""
    return _trained_with(corpus_.fingerprint, name, corpus_)


@st.cache_resource(show_spinner=False, max_entries=8)
def workspace(fingerprint: str, _corpus: Corpus, scheduler: str = "") -> Workspace:
    """One Workspace per corpus and Dask scheduler (it keeps loaded models in memory). Results are the same
    with or without a scheduler, and share the disk cache."""
    return Workspace(_corpus, cache=cache(), scheduler=scheduler.strip() or None)


# --------------------------------------------------------------------------- embedders


@st.cache_resource(show_spinner=False)
def embedder_infos() -> dict[str, EmbedderInfo]:
    """Registry rows of every built-in embedder, by id."""
    from n2o_core.embedders.registry import list_embedders

    return {i.id: i for i in list_embedders()}


def embedder_info(ws: Workspace, eid: str) -> EmbedderInfo | None:
    """The registry row of a built-in, or of a user's own embedder from the workspace (None when it cannot be
    read: a label never fails the page)."""
    info = embedder_infos().get(eid)
    if info is not None:
        return info
    try:
        return ws.info(eid)
    except Exception:  # noqa: BLE001 - a label never fails the page
        return None


@st.cache_data(show_spinner=False, max_entries=256)
def engine_label(eid: str) -> str:
    """How a built-in transformer computes on this machine (`embedders.engine_label`; '' when it cannot be read:
    a label never fails the page)."""
    from n2o_core.embedders import engine_label as label

    try:
        return label(eid)
    except Exception:  # noqa: BLE001 - a label never fails the page
        return ""


def embedder_rows(ws: Workspace, names: list[str]) -> pd.DataFrame:
    """Embedder, family, dimension, composition and engine of each chosen embedder, user embedders included
    (their family says "yours" and the group they are drawn in); the engine says how a built-in transformer
    computes on this machine ('OpenVINO bf16' on CPUs with AVX512-BF16, see the README's deviations)."""
    from n2o_core.embedders.user import family_group_of

    rows = []
    for e in names:
        inf = embedder_info(ws, e)
        family = inf.family if inf is not None else "user"
        if family == "user":
            family = f"yours ({family_group_of(e)})"
        rows.append(
            {
                "embedder": e,
                "family": family,
                "dimension": dim_label(inf, ws, e),
                "composition": inf.composition if inf is not None else "",
                "engine": engine_label(e),
            }
        )
    return pd.DataFrame(rows, columns=["embedder", "family", "dimension", "composition", "engine"])


def dim_label(info: EmbedderInfo | None, ws: Workspace | None = None, eid: str | None = None) -> str:
    """'384-d', or the vocabulary size for tf-idf once its embeddings exist ('|V|-d' before)."""
    if info is None and ws is not None and eid is not None:  # a user's own embedder: its row from the workspace
        info = embedder_info(ws, eid)
    if info is not None and info.dim:
        return f"{info.dim}-d"
    if ws is not None and eid is not None:
        try:
            dim = ws.cached_dimension(eid)
        except Exception:  # noqa: BLE001 - a label never fails the page
            dim = None
        if dim is not None:
            return f"{dim:,}-d (vocabulary)"
    return "|V|-d"


# --------------------------------------------------------------------------- the comparison


@st.cache_data(show_spinner=False, max_entries=64)
def query_plan(n: int, n_queries: int, n_samples: int, seed: int) -> pipeline.QueryPlan:
    """The query samples and their pool."""
    return pipeline.plan_queries(n, n_queries, n_samples, seed)


@st.cache_resource(show_spinner=False)
def _memo() -> dict[str, LRU[tuple, Neighbors]]:
    """Process-wide memo: prepared neighbors by key, the 256 most recently used (~0.2 MB each for a 500-query pool
    at k_max 50; the disk cache keeps them all; failures are per session: `ui.failures`)."""
    return {"neighbors": LRU(256)}


def clear_failures() -> None:
    """Forget this session's failed embedders and Dask connection, so the next run tries them again."""
    failures_.clear()


def failures() -> dict:
    """The failures this visitor's session remembers ((area, key) -> sentence)."""
    return failures_.items()


@dataclass
class Loaded:
    """Everything the pages need for the current settings: the corpus, its workspace and the prepared neighbors."""

    settings: Settings
    corpus: Corpus
    ws: Workspace
    prepared: pipeline.Prepared

    @property
    def names(self) -> list[str]:
        """Usable embedders, in the order chosen."""
        return [e for e in self.settings.embedders if e in self.prepared.neighbors]

    @property
    def k(self) -> int:
        """The k every view uses: the chosen k, capped by k_max."""
        return effective_k(self.settings.k, self.prepared.k_max)

    @property
    def k_max(self) -> int:
        return self.prepared.k_max

    @property
    def plan(self) -> pipeline.QueryPlan:
        return self.prepared.plan

    @property
    def key(self) -> str:
        """Identity of everything computed so far (corpus, samples, k_max, search settings, embedders)."""
        return f"{self.corpus.fingerprint}-{self.prepared.key}"


def _neighbor_key(c: Corpus, eid: str, plan: pipeline.QueryPlan, k_max: int, s: Settings) -> tuple:
    return (c.fingerprint, eid, plan.pool_key, k_max, s.znorm, s.approx, s.scheduler)


def load(settings: Settings, corpus_: Corpus, on_ready: Callable[[Loaded], None] | None = None) -> Loaded:
    """Prepare every chosen embedder (cached), with per-embedder progress on a cold cache. An embedder that
    fails is named in `prepared.errors` and never stops the others; `on_ready` draws partial results."""
    check_corpus_size(len(corpus_))
    ws = workspace(corpus_.fingerprint, corpus_, settings.scheduler)
    memo = _memo()
    if settings.scheduler:  # connect once, up front: an unreachable scheduler is one message, not one per embedder
        known = failures_.get("scheduler", settings.scheduler)
        if known:
            raise N2OError(known)
        try:
            ws.client()
        except Exception as e:  # noqa: BLE001
            raise N2OError(
                failures_.remember("scheduler", settings.scheduler, message(e, "Connecting to the Dask scheduler"))
            ) from e
    k_max = k_max_for(len(corpus_))
    plan = query_plan(len(corpus_), settings.n_queries, settings.n_samples, settings.seed)
    prepared = pipeline.Prepared(plan, k_max, settings.znorm, settings.approx)
    out = Loaded(settings, corpus_, ws, prepared)
    todo = []
    for eid in settings.embedders:
        key = _neighbor_key(corpus_, eid, plan, k_max, settings)
        known = failures_.get("embedder", key)
        if known:
            prepared.errors[eid] = known
        elif key in memo["neighbors"]:
            prepared.neighbors[eid] = memo["neighbors"][key]
        else:
            todo.append((eid, key))
    if todo:
        _prepare_with_progress(out, todo, on_ready)
    prepared.neighbors = {e: prepared.neighbors[e] for e in settings.embedders if e in prepared.neighbors}
    return out


def _prepare_with_progress(
    out: Loaded, todo: list[tuple[str, tuple]], on_ready: Callable[[Loaded], None] | None
) -> None:
    """Prepare the missing embedders with every core busy (`pipeline.prepare_each`: tf-idf and GloVe cells appear
    after seconds while word2vec and fastText train and the models load), with a progress bar per embedder drawn
    from its events, one embedder at a time (`jobs.run_embedders`): in this process, or in a child process when the
    dashboard isolates its jobs and something must be embedded (`runtime.child`; the events are replayed here).
    `on_ready` is called as embedders come in only when something has to be embedded."""
    memo = _memo()
    c, ws, prepared = out.corpus, out.ws, out.prepared
    keys = dict(todo)
    order = list(keys)
    all_cached = all(pipeline.embeddings_cached(ws, e) for e in keys)
    if on_ready and all_cached:
        on_ready = None  # everything is read from the disk cache (a restarted server): no partial view to draw
    if on_ready and len(prepared.neighbors) >= 2:
        on_ready(out)

    name = escape_markup(c.name)
    with st.status(f"Preparing {len(todo)} embedder(s) on {name} ({len(c):,} sentences)…", expanded=True) as status:

        def on_start(i: int, eid: str, payload: Any) -> str:
            cached, ahead = payload
            shown = escape_markup(eid)
            status.update(label=f"Embedder {i + 1}/{len(todo)}: {shown} ({len(c):,} sentences)…", expanded=True)
            doing = (
                "loading cached embeddings"
                if cached
                else "finishing what was started in the background (training or loading the model)"
                if ahead
                else "loading the model and embedding"
            )
            return f"{doing}…"

        def stages(bar: Any, eid: str) -> Progress:
            return stage_progress(
                bar,
                {
                    "train": f"{eid}: training on {len(c.fit_texts):,} sentences (sentences × epochs)",
                    "embed": f"{eid}: embedding",
                    "neighbors": f"{eid}: searching {prepared.k_max} neighbors of {len(prepared.plan.pool):,} queries",
                },
            )

        def keep(eid: str, payload: Any) -> str:
            nb, seconds = payload
            memo["neighbors"][keys[eid]] = nb
            prepared.neighbors[eid] = nb
            prepared.seconds[eid] = seconds
            if on_ready and len(prepared.neighbors) >= 2:
                on_ready(out)
            return f"ready in {seconds:.1f} s"

        errors = run_embedders(
            pipeline.prepare_each,
            ws,
            order,
            prepared.plan.pool,
            prepared.k_max,
            names=order,
            keep=keep,
            stages=stages,
            on_start=on_start,
            # all embeddings cached: nothing to load, so no child process
            isolate=child.isolating() and not all_cached,
            znorm=prepared.znorm,
            approx=prepared.approx,
        )
        n_ok = sum(e in prepared.neighbors for e in out.settings.embedders)
        prepared.errors.update({e: failures_.remember("embedder", keys[e], why) for e, why in errors.items()})
        close_embedders(status, n_ok, len(out.settings.embedders), failed=bool(prepared.errors))


# --------------------------------------------------------------------------- derived tables (cached)


@st.cache_data(show_spinner=False, max_entries=256)
def comparison(key: str, names: tuple[str, ...], k: int, _lo: Loaded) -> ComparisonResult:
    """N2O of the named embedders at k for every query sample (slices cached ids)."""
    return core_comparison(_lo.prepared, k, list(names))


def partial_comparison(lo: Loaded) -> ComparisonResult:
    """N2O of the embedders prepared so far (not cached: drawn while the others are still being prepared)."""
    return core_comparison(lo.prepared, lo.k, lo.names)


@st.cache_data(show_spinner=False, max_entries=64)
def robustness_across_k(key: str, names: tuple[str, ...], _lo: Loaded) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Spearman ρ of pair rankings between every two k (over the whole pool), and N2O per pair per k."""
    ids = _lo.prepared.ids_at(_lo.k_max, names)
    ks = overlap.k_grid(_lo.k_max)
    return overlap.robustness_across_k(ids, ks), overlap.n2o_by_k(ids, ks)


@st.cache_data(show_spinner=False, max_entries=64)
def robustness_across_samples(
    key: str, names: tuple[str, ...], k: int, _lo: Loaded
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Spearman ρ of pair rankings between every two query samples at k, and how the ranking moves when each
    sample is cut to fewer queries (N2O §6)."""
    res = comparison(key, names, k, _lo)
    R = overlap.robustness_across_samples(res.sampled.per_sample)
    sizes = overlap.robustness_to_sample_size(res.neighbors, res.pool, res.samples, k)
    return R, sizes


@st.cache_data(show_spinner=False, max_entries=64)
def token_overlap(
    key: str, names: tuple[str, ...], k: int, seed: int, content_words: bool, _lo: Loaded
) -> tuple[pd.DataFrame, float]:
    """Per-embedder token overlap (Fig. 5) over the pooled queries, and the same measure for random sentences."""
    from n2o_core.text import SBERT_STOP_WORDS

    return overlap.token_overlap_report(
        _lo.corpus.texts,
        _lo.plan.pool,
        _lo.prepared.ids_at(k, names),
        k,
        stop_words=SBERT_STOP_WORDS if content_words else None,
        seed=seed,
    )


@st.cache_data(show_spinner=False, max_entries=256)
def _anisotropy(fingerprint: str, embedder_key: str, eid: str, _ws: Workspace) -> Anisotropy:
    return core_anisotropy(_ws, eid)


def anisotropy(lo: Loaded, names: list[str]) -> dict[str, Anisotropy]:
    """Each embedder's mean cosine of random sentence pairs, raw and z-normalized (`analyses.anisotropy`), from
    its cached embeddings; an embedder whose vectors cannot be read is left out (a number never fails the page)."""
    out = {}
    for e in names:
        try:
            out[e] = _anisotropy(lo.corpus.fingerprint, lo.ws.embedder_key(e), e, lo.ws)
        except Exception:  # noqa: BLE001 - the page shows the others
            log.warning("anisotropy of %s could not be computed", e, exc_info=True)
    return out


def face_value(lo: Loaded, res: ComparisonResult) -> FaceValue:
    """What the comparison's numbers must be read against (`analyses.face_value`)."""
    return res.face_value(len(lo.corpus.fit_texts))


# --------------------------------------------------------------------------- one query


def single_query(lo: Loaded, qid: int) -> tuple[dict[str, Neighbors], dict[str, str], bool]:
    """Neighbors at k_max of one corpus sentence: from the pool when sampled, else an exact search (cached)."""
    out: dict[str, Neighbors] = {}
    errs: dict[str, str] = {}
    in_pool = True
    for e in lo.names:
        nb = pipeline.neighbors_of_pooled(lo.prepared, e, qid)
        if nb is not None:
            out[e] = nb
            continue
        in_pool = False
        try:
            out[e] = _one_query(lo.corpus.fingerprint, e, qid, lo.k_max, lo.settings.znorm, lo.ws)
        except Exception as ex:  # noqa: BLE001
            errs[e] = message(ex, f"Embedder '{e}'")
    return out, errs, in_pool


@st.cache_data(show_spinner=False, max_entries=1024)
def _one_query(fp: str, eid: str, qid: int, k: int, znorm: bool, _ws: Workspace) -> Neighbors:
    return pipeline.search_corpus_sentence(_ws, eid, qid, k, znorm=znorm)


def free_text(lo: Loaded, text: str) -> tuple[dict[str, Neighbors], dict[str, str]]:
    """Neighbors at k_max of a typed sentence, embedded on the fly by each embedder."""
    out: dict[str, Neighbors] = {}
    errs: dict[str, str] = {}
    for e in lo.names:
        try:
            out[e] = _free_text(lo.corpus.fingerprint, e, text, lo.k_max, lo.settings.znorm, lo.ws)
        except Exception as ex:  # noqa: BLE001
            errs[e] = message(ex, f"Embedder '{e}'")
    return out, errs


@st.cache_data(show_spinner=False, max_entries=256)
def _free_text(fp: str, eid: str, text: str, k: int, znorm: bool, _ws: Workspace) -> Neighbors:
    return pipeline.search_free_text(_ws, eid, text, k, znorm=znorm)


# --------------------------------------------------------------------------- figures (cached per input)


@st.cache_resource(show_spinner=False, max_entries=512)
def _figure(name: str, key: tuple, _build: Callable[[], T]) -> T:
    return _build()


def figure(name: str, key: tuple, build: Callable[[], T]) -> T:
    """The figure `build()` makes, built once per (name, key) and shared read-only: building a plotly
    figure (validation) costs far more than sending it, so a warm rerun only serializes."""
    return _figure(name, key, build)


__all__ = [
    "K_MAX",
    "Loaded",
    "anisotropy",
    "cache",
    "clear_failures",
    "comparison",
    "corpus",
    "dim_label",
    "embedder_infos",
    "face_value",
    "failures",
    "figure",
    "free_text",
    "load",
    "partial_comparison",
    "query_plan",
    "robustness_across_k",
    "single_query",
    "token_overlap",
    "trained_with",
    "workspace",
]
