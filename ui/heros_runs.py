"""HEROS for the dashboard: the core's steps (`n2o_core.evaluation.heros.run.make_pairs`, `score_embedder`) cached per
process, every embedder not yet scored in one job (one child process when isolating), each kept as it ends (so one
failure leaves the others), with progress on a cold cache."""

from __future__ import annotations

import logging
from typing import Any

import pandas as pd
import streamlit as st

from n2o_core.errors import N2OError
from n2o_core.evaluation.heros.averaging import scored_id
from n2o_core.evaluation.heros.generate import PairSet
from n2o_core.evaluation.heros.run import combine_scores, make_pairs, pairs_ready, score_embedder
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.serial_calls import each_embedder
from n2o_core.settings import HEROS_AVERAGING_DEFAULT, HEROS_DEFAULT_PAIRS

from .jobs import run_with_bar, run_with_bars
from .n2o_runs import Loaded
from .progress import LOADING_LEXICONS

log = logging.getLogger("n2o")


@st.cache_resource(show_spinner=False)
def _pair_sets() -> LRU[tuple, PairSet]:
    """The minimal pairs by (corpus, pairs per subset, seed), process-wide (read-only once made)."""
    return LRU(16)


def pairs(lo: Loaded, n_per: int, seed: int) -> PairSet:
    """Minimal pairs from the corpus (kept per corpus, size and seed): read here when the disk cache holds them
    (a JSON file: no child process for it), else made by one job through the one bar loop (`jobs.run_with_bar`: in
    a child process when isolating) under a status and a bar of pairs per subset."""
    key = (lo.corpus.fingerprint, n_per, seed)
    memo = _pair_sets()
    if key in memo:
        return memo[key]
    if pairs_ready(lo.ws, n_per, seed):
        out = make_pairs(lo.ws, n_per, seed)
    else:
        doing = f"Making up to {n_per} minimal pairs per subset from {lo.corpus.name} (WordNet and spaCy load first)"
        out = run_with_bar(
            make_pairs,
            lo.ws,
            n_per,
            seed,
            title=f"{doing}…",
            ready=lambda got: f"{len(got.pairs):,} minimal pairs made",
            bar_text=lambda e: f"{e.done:,} of {e.total:,} pairs per subset made",
            failed=f"{doing}: failed",
            expanded=True,  # the bar in view while they are made (the status folds when done), as for synthetic pairs
            bar_start=LOADING_LEXICONS,
        )
    memo[key] = out
    return out


@st.cache_resource(show_spinner=False)
def _scores() -> LRU:
    """Each embedder's scores by (corpus, scored id, pairs per subset, seed, znorm), process-wide."""
    return LRU(256)


def _score_key(lo: Loaded, eid: str, n_per: int, seed: int) -> tuple:
    return (lo.corpus.fingerprint, eid, n_per, seed, lo.settings.znorm)


def _score_all(lo: Loaded, pairset: PairSet, n_per: int, seed: int, todo: list[str], errors: dict[str, str]) -> None:
    """Score the embedders in `todo` into the memo, one job for them all (one child process when isolating), with
    a bar per embedder; one embedder's failure goes to `errors` and the others go on."""
    memo = _scores()
    with st.status(f"Scoring {len(todo)} embedder(s) on the pairs…") as status:

        def keep(eid: str, result: Any) -> str:
            memo[_score_key(lo, eid, n_per, seed)] = result
            return f"{eid} done"

        errors.update(
            run_with_bars(
                each_embedder,
                score_embedder,
                (lo.ws, pairset.pairs),
                todo,
                names=todo,
                what=lambda eid: f"Embedder '{eid}'",
                keep=keep,
                seed=seed,
                znorm=lo.settings.znorm,
            )
        )
        status.update(label="Scores ready", state="error" if errors else "complete", expanded=bool(errors))


def scores(
    lo: Loaded, pairset: PairSet, n_per: int, seed: int, embedders: list[str] | None = None
) -> tuple[pd.DataFrame, dict[str, float], pd.DataFrame, dict[str, str]]:
    """(results frame, baselines, per-pair cosines frame, errors) for `embedders` (default: the loaded ones)."""
    names = list(embedders if embedders is not None else lo.names)
    errors: dict[str, str] = {}
    memo = _scores()
    todo = [e for e in names if _score_key(lo, e, n_per, seed) not in memo]
    if todo:
        _score_all(lo, pairset, n_per, seed, todo, errors)
    got = [sc for e in names if (sc := memo.get(_score_key(lo, e, n_per, seed))) is not None]
    results, baselines, per_pair = combine_scores(pairset.pairs, got)
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
    memo = _scores()
    frames = []
    for e, sid in scored.items():
        sc = memo.get(_score_key(lo, sid, n_per, seed))
        if sc is not None:
            rows = sc.results.copy()
            rows["embedder"] = e
            frames.append(rows)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def run(lo: Loaded, n_per: int, seed: int, scored: dict[str, str]) -> tuple[pd.DataFrame, dict[str, str]]:
    """Score the loaded embedders as the HEROS page does (progress shown): (rows under the loaded ids, errors)."""
    pairset = pairs(lo, n_per, seed)
    if pairset.pairs.empty:
        raise N2OError(f"No minimal pairs could be made from '{lo.corpus.name}'.")
    _, _, _, errors = scores(lo, pairset, n_per, seed, list(scored.values()))
    back = {sid: e for e, sid in scored.items()}
    return known(lo, n_per, seed, scored), {back.get(k, k): v for k, v in errors.items()}
