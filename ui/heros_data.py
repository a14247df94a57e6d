"""HEROS for the dashboard: the core's steps (`n2o_core.evaluation.heros.run.make_pairs`, `score_embedder`) cached per
process, one embedder at a time (so one failure leaves the others), with progress on a cold cache."""

from __future__ import annotations

import logging

import pandas as pd
import streamlit as st

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.averaging import scored_id
from n2o_core.evaluation.heros.generate import PairSet
from n2o_core.evaluation.heros.run import PAIR_VIEW_COLUMNS, EmbedderScores, make_pairs, pairs_ready, score_embedder
from n2o_core.runtime import child
from n2o_core.settings import HEROS_AVERAGING_DEFAULT, HEROS_DEFAULT_PAIRS
from n2o_core.workspace import Workspace

from .data import Loaded
from .guard import message

log = logging.getLogger("n2o")


@st.cache_data(show_spinner=False, max_entries=16)
def _pairs(fp: str, n_per: int, seed: int, _ws: Workspace) -> PairSet:
    return child.call(make_pairs, _ws, n_per, seed)


@st.cache_resource(show_spinner=False)
def _done() -> set:
    return set()


def pairs(lo: Loaded, n_per: int, seed: int) -> PairSet:
    """Minimal pairs from the corpus (cached per corpus, size and seed), with a status line while they are made."""
    key = (lo.corpus.fingerprint, n_per, seed)
    if key in _done():
        return _pairs(lo.corpus.fingerprint, n_per, seed, lo.ws)
    on_disk = pairs_ready(lo.ws, n_per, seed)
    doing = (
        "Reading the minimal pairs from the cache"
        if on_disk
        else f"Making up to {n_per} minimal pairs per subset from {lo.corpus.name} (WordNet and spaCy load first)"
    )
    with st.status(f"{doing}…") as status:
        out = _pairs(lo.corpus.fingerprint, n_per, seed, lo.ws)
        status.update(
            label=f"{len(out.pairs):,} minimal pairs {'read from the cache' if on_disk else 'made'}",
            state="complete",
            expanded=False,
        )
    _done().add(key)
    return out


@st.cache_data(show_spinner=False, max_entries=256)
def _score(
    fp: str, eid: str, n_per: int, seed: int, znorm: bool, _ws: Workspace, _pairs: pd.DataFrame
) -> EmbedderScores:
    return child.call(score_embedder, _ws, _pairs, eid, seed=seed, znorm=znorm)


def scores(
    lo: Loaded, pairset: PairSet, n_per: int, seed: int, embedders: list[str] | None = None
) -> tuple[pd.DataFrame, dict[str, float], pd.DataFrame, dict[str, str]]:
    """(results frame, baselines, per-pair cosines frame, errors) for `embedders` (default: the loaded ones)."""
    names = list(embedders if embedders is not None else lo.names)
    znorm = lo.settings.znorm
    frames: list[pd.DataFrame] = []
    baselines: dict[str, float] = {}
    errors: dict[str, str] = {}
    per_pair = pairset.pairs[[c for c in PAIR_VIEW_COLUMNS if c in pairset.pairs.columns]].copy()
    todo = [e for e in names if (lo.corpus.fingerprint, e, n_per, seed, znorm) not in _done()]
    status = st.status(f"Scoring {len(todo)} embedder(s) on the pairs…") if todo else None
    for e in names:
        try:
            bar = status.progress(0.0, text=e) if status and e in todo else None
            sc = _score(lo.corpus.fingerprint, e, n_per, seed, znorm, lo.ws, pairset.pairs)
            if bar is not None:
                bar.progress(1.0, text=f"{e} done")
            _done().add((lo.corpus.fingerprint, e, n_per, seed, znorm))
        except Exception as ex:  # noqa: BLE001 - reported per embedder
            errors[e] = message(ex, f"Embedder '{e}'")
            continue
        frames.append(sc.results)
        baselines[e] = sc.baseline
        per_pair[e] = sc.cosines
    if status is not None:
        status.update(label="Scores ready", state="complete", expanded=False)
    results = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return results, baselines, per_pair, errors


def choose(n_per: int, avg: str) -> None:
    """Remember the HEROS page's choices (pairs per subset, averaging) for this session: the Quality page shows
    the same run."""
    st.session_state["_heros_choice"] = (int(n_per), str(avg))


def composition(lo: Loaded) -> tuple[int, str, dict[str, str]]:
    """The run both HEROS views use: the HEROS page's last choices in this session, else its defaults:
    (pairs per subset, averaging, loaded embedder -> the id scored for it)."""
    n_per, avg = st.session_state.get("_heros_choice", (HEROS_DEFAULT_PAIRS, HEROS_AVERAGING_DEFAULT))
    scored = {e: scored_id(e, avg) for e in lo.names}
    return int(n_per), str(avg), scored


def known(lo: Loaded, n_per: int, seed: int, scored: dict[str, str]) -> pd.DataFrame:
    """Results rows already scored in this process for (some of) the loaded embedders, under their loaded ids;
    nothing new runs."""
    fp, znorm = lo.corpus.fingerprint, lo.settings.znorm
    done = [e for e, sid in scored.items() if (fp, sid, n_per, seed, znorm) in _done()]
    if not done or (fp, n_per, seed) not in _done():
        return pd.DataFrame()
    pairset = _pairs(fp, n_per, seed, lo.ws)
    frames = []
    for e in done:
        rows = _score(fp, scored[e], n_per, seed, znorm, lo.ws, pairset.pairs).results.copy()
        rows["embedder"] = e
        frames.append(rows)
    return pd.concat(frames, ignore_index=True)


def run(lo: Loaded, n_per: int, seed: int, scored: dict[str, str]) -> tuple[pd.DataFrame, dict[str, str]]:
    """Score the loaded embedders as the HEROS page does (progress shown): (rows under the loaded ids, errors)."""
    pairset = pairs(lo, n_per, seed)
    if pairset.pairs.empty:
        raise N2OError(f"No minimal pairs could be made from '{lo.corpus.name}'.")
    _, _, _, errors = scores(lo, pairset, n_per, seed, list(scored.values()))
    back = {sid: e for e, sid in scored.items()}
    return known(lo, n_per, seed, scored), {back.get(k, k): v for k, v in errors.items()}
