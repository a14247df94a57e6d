"""Cached HEROS pair generation and scoring for the dashboard (one embedder at a time, so one failure
leaves the others)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import streamlit as st

from n2o_core.errors import N2OError
from n2o_core.workspace import Workspace

from .data import Loaded
from .guard import message

log = logging.getLogger("n2o_explorer")


@st.cache_data(show_spinner=False, max_entries=16)
def _generate(fp: str, n_per: int, seed: int, _ws: Workspace):
    from n2o_core.heros.pair_cache import cached_generate_pairs  # noqa: PLC0415

    return cached_generate_pairs(_ws.cache, fp, _ws.corpus.texts, n_per, seed)


@st.cache_resource(show_spinner=False)
def _done() -> set:
    return set()


def pairs(lo: Loaded, n_per: int, seed: int):
    """Minimal pairs from the corpus (cached per corpus, size and seed)."""
    key = (lo.corpus.fingerprint, n_per, seed)
    if key in _done():
        return _generate(lo.corpus.fingerprint, n_per, seed, lo.ws)
    from n2o_core.heros.pair_cache import pairs_cached  # noqa: PLC0415

    on_disk = pairs_cached(lo.ws.cache, lo.corpus.fingerprint, n_per, seed)
    doing = (
        "Reading the minimal pairs from the cache"
        if on_disk
        else f"Making up to {n_per} minimal pairs per subset from {lo.corpus.name} (WordNet and spaCy load first)"
    )
    with st.status(f"{doing}…") as status:
        out = _generate(lo.corpus.fingerprint, n_per, seed, lo.ws)
        status.update(
            label=f"{len(out.pairs):,} minimal pairs {'read from the cache' if on_disk else 'made'}",
            state="complete",
            expanded=False,
        )
    _done().add(key)
    return out


@st.cache_data(show_spinner=False, max_entries=256)
def _score_one(fp: str, eid: str, n_per: int, seed: int, _ws: Workspace, _pairs: pd.DataFrame):
    from n2o_core.heros.score import rowwise_cosine, score_pairs  # noqa: PLC0415

    kept: dict[str, np.ndarray] = {}

    def encode(texts: list[str]):
        x = _ws.encode_texts(eid, texts)
        kept["x"], kept["texts"] = x, texts
        return x

    baseline, res = score_pairs(_pairs, {eid: encode}, seed=seed)
    pos = {t: i for i, t in enumerate(kept["texts"])}
    oi = _pairs["original"].astype(str).map(pos).to_numpy()
    vi = _pairs["variant"].astype(str).map(pos).to_numpy()
    x = kept["x"]
    sims = rowwise_cosine(x[oi], x[vi])
    return baseline[eid], res, sims


def scores(lo: Loaded, pairset, n_per: int, seed: int):
    """(results frame, baselines, per-pair cosines frame, errors) for the loaded embedders."""
    frames, baselines, errors = [], {}, {}
    per_pair = pairset.pairs[["subset", "original", "variant", "target", "replacement"]].copy()
    todo = [e for e in lo.names if (lo.corpus.fingerprint, e, n_per, seed) not in _done()]
    status = st.status(f"Scoring {len(todo)} embedder(s) on the pairs…") if todo else None
    for e in lo.names:
        try:
            bar = status.progress(0.0, text=e) if status and e in todo else None
            b, res, sims = _score_one(lo.corpus.fingerprint, e, n_per, seed, lo.ws, pairset.pairs)
            if bar is not None:
                bar.progress(1.0, text=f"{e} done")
            _done().add((lo.corpus.fingerprint, e, n_per, seed))
        except Exception as ex:  # noqa: BLE001 - reported per embedder
            if not isinstance(ex, N2OError):
                log.exception("HEROS scoring with %s failed", e)
            errors[e] = message(ex, f"Embedder '{e}'")
            continue
        frames.append(res)
        baselines[e] = b
        per_pair[e] = sims
    if status is not None:
        status.update(label="Scores ready", state="complete", expanded=False)
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return results, baselines, per_pair, errors
