"""Streamlit-side caching over n2o_core.

- Corpus, Workspace (holds the loaded models): `st.cache_resource` (one shared object per process).
- Neighbor arrays at K_MAX for the query pool, N2O matrices, robustness tables: `st.cache_data`, keyed by the
  corpus fingerprint, embedder, pool and search settings. The Workspace keeps embeddings and neighbor sets
  on disk (cache/), so a new server process loads instead of recomputing.
- Changing k or the page only slices the cached (pool, K_MAX) id arrays: no embedding, no search.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from n2o_core import overlap
from n2o_core.cache import Cache
from n2o_core.corpora import Corpus, load_corpus, sample_corpus
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.errors import CorpusError, N2OError
from n2o_core.ui_state import K_MAX, Settings
from n2o_core.workspace import Workspace

from .guard import message

log = logging.getLogger("n2o_explorer")


# --------------------------------------------------------------------------- corpus and workspace


@st.cache_resource(show_spinner=False)
def cache() -> Cache:
    """The disk cache ($N2O_CACHE_DIR or ./cache)."""
    return Cache()


def upload_path(fp: str) -> Path:
    return cache().path("uploads", f"{fp}.jsonl")


def save_upload(corpus: Corpus) -> str:
    """Keep an uploaded corpus in the cache so that `upload:<fingerprint>` links work; returns the spec."""
    p = upload_path(corpus.fingerprint)
    if not p.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps({"name": corpus.name, "n": len(corpus), "n_duplicates": corpus.n_duplicates}) + "\n")
            for t in corpus.texts:
                f.write(json.dumps({"text": t}, ensure_ascii=False) + "\n")
        os.replace(tmp, p)
    return f"upload:{corpus.fingerprint}"


def upload_name(spec: str) -> str | None:
    """Display name of a kept upload, or None when it is not on this server."""
    p = upload_path(spec.split(":", 1)[1])
    try:
        with open(p, encoding="utf-8") as f:
            head = json.loads(f.readline())
        return f"{head.get('name', 'upload')} ({head.get('n', '?'):,} sentences)"
    except (OSError, ValueError):
        return None


def _load_upload(spec: str) -> Corpus:
    from n2o_core.corpora import from_texts  # noqa: PLC0415

    p = upload_path(spec.split(":", 1)[1])
    try:
        with open(p, encoding="utf-8") as f:
            head = json.loads(f.readline())
            texts = [json.loads(line)["text"] for line in f]
    except (OSError, ValueError, KeyError):
        raise CorpusError(
            "The uploaded corpus in this link is no longer on this server; upload the file again."
        ) from None
    return from_texts(texts, str(head.get("name", "upload")), source=spec)


@st.cache_resource(show_spinner=False, max_entries=8)
def corpus(spec: str, max_sentences: int, seed: int = 0) -> Corpus:
    """The corpus for a spec (built-in or kept upload), capped to a fixed sample of `max_sentences`."""
    if spec.startswith("upload:"):
        c = _load_upload(spec)
        return sample_corpus(c, max_sentences, seed) if len(c) > max_sentences else c
    return load_corpus(spec, max_sentences=max_sentences, seed=seed, cache_dir=cache().root)


@st.cache_resource(show_spinner=False, max_entries=8)
def workspace(fingerprint: str, _corpus: Corpus, scheduler: str = "") -> Workspace:
    """One Workspace per corpus and Dask scheduler (it keeps loaded models in memory). Results are the same
    with or without a scheduler, and share the disk cache."""
    return Workspace(_corpus, cache=cache(), scheduler=scheduler.strip() or None)


# --------------------------------------------------------------------------- embedders


@st.cache_resource(show_spinner=False)
def embedder_infos() -> dict[str, EmbedderInfo]:
    """Registry rows of every built-in embedder, by id."""
    from n2o_core.embedders.registry import list_embedders  # noqa: PLC0415

    return {i.id: i for i in list_embedders()}


def dim_label(info: EmbedderInfo | None, ws: Workspace | None = None, eid: str | None = None) -> str:
    """'384-d', or the vocabulary size for tf-idf once the embeddings exist."""
    if info is not None and info.dim:
        return f"{info.dim}-d"
    if ws is not None and eid is not None and ws.is_cached(eid):
        try:
            return f"{ws.embeddings(eid).shape[1]:,}-d (vocabulary)"
        except Exception:  # noqa: BLE001
            pass
    return "|V|-d"


# --------------------------------------------------------------------------- queries and neighbors


@st.cache_data(show_spinner=False, max_entries=64)
def query_samples(n: int, n_queries: int, n_samples: int, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The query samples and their pool (sorted union)."""
    samples = overlap.draw_query_samples(n, n_queries, n_samples, seed)
    return samples, overlap.query_pool(samples)


@dataclass
class NeighborSet:
    """Neighbors of the query pool at K_MAX for one embedder."""

    ids: np.ndarray
    sims: np.ndarray
    recall: float | None


@dataclass
class Loaded:
    """Everything the pages need for the current settings."""

    settings: Settings
    corpus: Corpus
    ws: Workspace
    k_max: int
    samples: list[np.ndarray]
    pool: np.ndarray
    neighbors: dict[str, NeighborSet] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [e for e in self.settings.embedders if e in self.neighbors]

    def ids_at(self, k: int) -> dict[str, np.ndarray]:
        return {e: self.neighbors[e].ids[:, :k] for e in self.names}


def _pool_key(pool: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(pool, np.int64).tobytes()).hexdigest()[:16]


@st.cache_data(show_spinner=False, max_entries=512)
def _pool_neighbors(
    fp: str, eid: str, pool_key: str, k_max: int, znorm: bool, approx: bool, _ws: Workspace, _pool: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float | None]:
    nb = _ws.neighbors(eid, _pool, k_max, znorm=znorm, approx=approx)
    return np.asarray(nb.ids), np.asarray(nb.sims), nb.recall


@st.cache_resource(show_spinner=False)
def _memo() -> dict:
    """Process-wide memo: which (corpus, embedder, search) are ready, and which failed (with the message)."""
    return {"ready": set(), "failed": {}}


def clear_failures() -> None:
    _memo()["failed"].clear()


def k_max_for(n: int) -> int:
    return max(1, min(K_MAX, n - 1))


def load(settings: Settings, on_ready: Callable[[Loaded], None] | None = None) -> Loaded:
    """Load the corpus, embed and search with every chosen embedder (cached), with per-embedder progress
    on a cold cache. Errors of one embedder are collected in `errors` and never stop the others."""
    c = corpus(settings.corpus, settings.max_sentences)
    if len(c) < 3:
        raise CorpusError(f"The corpus has {len(c)} sentence(s); N2O needs at least 3.")
    ws = workspace(c.fingerprint, c, settings.scheduler)
    memo = _memo()
    if settings.scheduler:  # connect once, up front: an unreachable scheduler is one message, not one per embedder
        skey = ("scheduler", settings.scheduler)
        if skey in memo["failed"]:
            raise N2OError(memo["failed"][skey])
        try:
            ws.client()
        except Exception as e:  # noqa: BLE001
            memo["failed"][skey] = message(e, "Connecting to the Dask scheduler")
            raise N2OError(memo["failed"][skey]) from e
    k_max = k_max_for(len(c))
    samples, pool = query_samples(len(c), settings.n_queries, settings.n_samples, settings.seed)
    out = Loaded(settings, c, ws, k_max, samples, pool)
    pk = _pool_key(pool)
    todo = []
    for eid in settings.embedders:
        key = (c.fingerprint, eid, pk, k_max, settings.znorm, settings.approx, settings.scheduler)
        if key in memo["failed"]:
            out.errors[eid] = memo["failed"][key]
        elif key in memo["ready"]:
            ids, sims, rec = _pool_neighbors(c.fingerprint, eid, pk, k_max, settings.znorm, settings.approx, ws, pool)
            out.neighbors[eid] = NeighborSet(ids, sims, rec)
        else:
            todo.append((eid, key))
    if not todo:
        return out
    if on_ready and len(out.neighbors) >= 2:
        on_ready(out)
    with st.status(f"Preparing {len(todo)} embedder(s) on {c.name} ({len(c):,} sentences)…", expanded=True) as status:
        for i, (eid, key) in enumerate(todo, 1):
            status.update(label=f"Embedder {i}/{len(todo)}: {eid} ({len(c):,} sentences)…", expanded=True)
            line = st.empty()
            bar = st.progress(0.0)
            t0 = time.perf_counter()
            try:
                cached = ws.is_cached(eid)
                line.markdown(
                    f"**{eid}**: {'loading cached embeddings' if cached else 'loading the model and embedding'}…"
                )
                ws.embeddings(eid, progress=_progress_cb(bar, f"{eid}: embedding"))
                line.markdown(
                    f"**{eid}**: searching {K_MAX if k_max == K_MAX else k_max} neighbors of {len(pool):,} queries…"
                )
                ids, sims, rec = _pool_neighbors(
                    c.fingerprint, eid, pk, k_max, settings.znorm, settings.approx, ws, pool
                )
            except Exception as e:  # noqa: BLE001 - reported per embedder; the others go on
                if not isinstance(e, N2OError):
                    log.exception("embedder %s failed", eid)
                msg = message(e, f"Embedder '{eid}'")
                memo["failed"][key] = msg
                out.errors[eid] = msg
                bar.empty()
                line.markdown(f"**{eid}**: failed — {msg}")
                continue
            memo["ready"].add(key)
            out.neighbors[eid] = NeighborSet(ids, sims, rec)
            out.seconds[eid] = time.perf_counter() - t0
            bar.progress(1.0)
            line.markdown(f"**{eid}**: ready in {out.seconds[eid]:.1f} s")
            if on_ready and len(out.neighbors) >= 2:
                on_ready(out)
        status.update(
            label=f"{len(out.neighbors)} of {len(settings.embedders)} embedders ready",
            state="error" if out.errors else "complete",
            expanded=bool(out.errors),
        )
    return out


def _progress_cb(bar, label: str) -> Callable[[int, int], None]:
    last = [-1]

    def cb(done: int, total: int) -> None:
        pct = int(100 * done / total) if total else 100
        if pct == last[0]:
            return
        last[0] = pct
        try:
            bar.progress(min(max(pct, 0), 100) / 100, text=f"{label} {done:,}/{total:,}")
        except Exception:  # noqa: BLE001 - progress from a worker thread: skip the update
            pass

    return cb


# --------------------------------------------------------------------------- derived tables (cached)


@st.cache_data(show_spinner=False, max_entries=256)
def sampled_n2o(key: tuple, names: tuple[str, ...], k: int, _loaded: Loaded) -> overlap.SampledN2O:
    """N2O over the query samples at k (slices cached ids)."""
    return overlap.n2o_over_samples(
        {e: _loaded.neighbors[e].ids[:, :k] for e in names}, _loaded.pool, _loaded.samples, k
    )


@st.cache_data(show_spinner=False, max_entries=64)
def robustness(key: tuple, names: tuple[str, ...], k_max: int, _loaded: Loaded) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Spearman ρ of pair rankings across k (over the whole pool), and N2O per pair per k."""
    ids = {e: _loaded.neighbors[e].ids for e in names}
    ks = overlap.k_grid(k_max)
    R = overlap.robustness_across_k(ids, ks)
    rows = []
    for k in ks:
        M = overlap.n2o_matrix(ids, k)
        for _, r in overlap.pairs_frame(M, list(names)).iterrows():
            rows.append({"pair": f"{r['a']} · {r['b']}", "k": k, "n2o": r["n2o"]})
    return R, pd.DataFrame(rows)


@st.cache_data(show_spinner=False, max_entries=64)
def token_overlap(key: tuple, names: tuple[str, ...], k: int, seed: int, _loaded: Loaded) -> tuple[pd.DataFrame, float]:
    """Per-embedder token overlap (Fig. 5) over the pooled queries, and the same measure for random sentences."""
    texts = _loaded.corpus.texts
    df = overlap.token_overlap_by_embedder(texts, _loaded.pool, _loaded.ids_at(k), k)
    rng = np.random.default_rng(seed)
    n = len(texts)
    rand = rng.integers(0, n - 1, size=(len(_loaded.pool), k))
    rand = rand + (rand >= _loaded.pool[:, None])  # never the query itself
    base = overlap.token_overlap_by_embedder(texts, _loaded.pool, {"random": rand}, k)
    return df, float(base["mean"].iloc[0])


def loaded_key(loaded: Loaded) -> tuple:
    """Cache key of everything `loaded` was computed from."""
    return (
        loaded.corpus.fingerprint,
        _pool_key(loaded.pool),
        loaded.k_max,
        loaded.settings.znorm,
        loaded.settings.approx,
    )


def single_query(loaded: Loaded, qid: int) -> tuple[dict[str, NeighborSet], dict[str, str], bool]:
    """Neighbors at K_MAX of one corpus sentence: from the pool when sampled, else an exact search (cached)."""
    pos = int(np.searchsorted(loaded.pool, qid))
    in_pool = pos < len(loaded.pool) and loaded.pool[pos] == qid
    out: dict[str, NeighborSet] = {}
    errs: dict[str, str] = {}
    for e in loaded.names:
        if in_pool:
            nb = loaded.neighbors[e]
            out[e] = NeighborSet(nb.ids[pos : pos + 1], nb.sims[pos : pos + 1], nb.recall)
            continue
        try:
            ids, sims = _one_query(loaded.corpus.fingerprint, e, qid, loaded.k_max, loaded.settings.znorm, loaded.ws)
            out[e] = NeighborSet(ids, sims, None)
        except Exception as ex:  # noqa: BLE001
            if not isinstance(ex, N2OError):
                log.exception("query %s with %s failed", qid, e)
            errs[e] = message(ex, f"Embedder '{e}'")
    return out, errs, in_pool


@st.cache_data(show_spinner=False, max_entries=1024)
def _one_query(fp: str, eid: str, qid: int, k: int, znorm: bool, _ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
    from n2o_core.neighbors import exact_knn  # noqa: PLC0415

    X = _ws.embeddings(eid)
    std = _ws.standardizer(eid) if znorm else None
    nb = exact_knn(X, k, query_ids=np.array([qid], np.int64), standardizer=std)
    return np.asarray(nb.ids), np.asarray(nb.sims)


def free_text(loaded: Loaded, text: str) -> tuple[dict[str, NeighborSet], dict[str, str]]:
    """Neighbors at K_MAX of a typed sentence, embedded on the fly by each embedder."""
    out: dict[str, NeighborSet] = {}
    errs: dict[str, str] = {}
    for e in loaded.names:
        try:
            ids, sims = _free_text(loaded.corpus.fingerprint, e, text, loaded.k_max, loaded.settings.znorm, loaded.ws)
            out[e] = NeighborSet(ids, sims, None)
        except Exception as ex:  # noqa: BLE001
            if not isinstance(ex, N2OError):
                log.exception("free-text query with %s failed", e)
            errs[e] = message(ex, f"Embedder '{e}'")
    return out, errs


@st.cache_data(show_spinner=False, max_entries=256)
def _free_text(fp: str, eid: str, text: str, k: int, znorm: bool, _ws: Workspace) -> tuple[np.ndarray, np.ndarray]:
    nb = _ws.search_text(eid, text, k, znorm=znorm)
    return np.asarray(nb.ids), np.asarray(nb.sims)


# --------------------------------------------------------------------------- figures (cached per input)


@st.cache_resource(show_spinner=False, max_entries=512)
def _figure(name: str, key: tuple, _build: Callable[[], object]):
    return _build()


def figure(name: str, key: tuple, build: Callable[[], object]):
    """The figure `build()` makes, built once per (name, key) and shared read-only: building a plotly
    figure (validation) costs far more than sending it, so a warm rerun only serializes."""
    return _figure(name, key, build)
