"""HEROS subsets: how each embedder scores minimal pairs (synonym, antonym, typo, random word, negations),
as raw cosine and as baseline-normalized similarity (s − b) / (1 − b)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from n2o_core.corpora import Corpus
from n2o_core.evaluation.heros.averaging import scored_id
from n2o_core.evaluation.heros.coverage import coverage
from n2o_core.evaluation.heros.generate import PairSet
from n2o_core.evaluation.heros.run import BASELINE_COLUMN, embedder_table, trained_on
from n2o_core.evaluation.heros.unseen import unseen_notes
from n2o_core.evaluation.heros.validity import validity_sentence
from n2o_core.export import report
from n2o_core.figures import heros as figures_heros
from n2o_core.settings import (
    HEROS_AVERAGING,
    HEROS_AVERAGING_DEFAULT,
    HEROS_DEFAULT_PAIRS,
    HEROS_PAIR_CHOICES,
    Settings,
    param_choice,
    param_int_choice,
)
from n2o_core.text import SBERT_STOP_WORDS_NAME, escape_markup
from ui import downloads, heros_runs, n2o_runs, nav, page
from ui.guard import shown
from ui.shell import through_app

through_app()


SHOWS = {
    "normalized": "Normalized (s − b) / (1 − b)",
    "relative": "Relative to Synonym",
    "raw": "Raw cosine",
    "bars": "Bars with 95% CI",
}
WHAT = {
    "normalized": "Cells: mean normalized similarity (Heros Fig. 1); the line above the cells states the colour "
    "scale (the cells' range, widened to the 95% CI when they lie closer than that).",
    "relative": "Cells: each subset's normalized similarity minus the Synonym subset's, per embedder: "
    "negative = the embedder moves this variant further away than a synonym swap (red).",
    "raw": "Cells: mean raw cosine (not comparable across embedders: their baselines b differ).",
    "bars": "Bars: mean normalized similarity with a 95% bootstrap CI; the axis spans the values.",
}


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("heros"))
    st.caption(
        "Minimal pairs are made from the corpus: one word of a sentence is replaced by a synonym, an antonym, "
        "a typo or a random word, or the sentence is negated. A good embedder keeps synonyms and typos close "
        "and moves antonyms and negations away. b is the mean cosine of unrelated sentences from the same "
        "pool, so 0 = as similar as two random sentences, 1 = identical."
    )
    c1, c2 = st.columns([3, 2])  # drawn before the corpus loads: a run without a corpus (an upload being chosen)
    n_per = _pairs_per_subset(c1)  # must not drop their state, or they come back showing their first option
    avg = _averaging(c2)
    heros_runs.choose(n_per, avg)  # the Quality page shows this same run
    lo = page.loaded(settings, corpus, min_embedders=1)
    s = lo.settings
    scored = _scored_names(lo, avg)
    if s.znorm:
        st.caption("Cosines are taken after z-normalizing each dimension with the corpus statistics.")
    pairset = _minimal_pairs(lo, n_per)
    cov = coverage(pairset)
    if cov.small_corpus:  # above the figure, one line in talk mode
        made = min(cov.made.values()) if cov.made else 0
        page.note(
            cov.sentence(), short=f"{made:,} of {cov.asked:,} pairs asked per subset: a small corpus", level="warning"
        )
    else:
        st.caption(cov.sentence())
    results, baselines, per_pair, errors = heros_runs.scores(lo, pairset, n_per, s.seed, scored)
    for e, msg in errors.items():
        st.error(f"**{escape_markup(e)}** is left out: {escape_markup(msg)}", icon="⚠️")
    if results.empty:
        st.stop()
    fig, show = _figure(results)
    for eid, note in unseen_notes(results, trained_on(lo.ws, scored)).items():  # names the embedder: a user's file
        short = f"{escape_markup(eid)} does not see most of the changes (hover)"
        page.note(escape_markup(note), short=short, level="warning")
    st.caption(f"{WHAT[show]} Hover for raw cosine, normalized value, CI and n.")
    st.caption(validity_sentence())
    normalized, raw = _tables(results, baselines, per_pair)
    _downloads(lo, fig, show, WHAT[show], normalized.round(4), raw.round(4), per_pair, (n_per, cov.made_text()))


def _pairs_per_subset(col: DeltaGenerator) -> int:
    """The pairs-per-subset slider (the link's pairs= counts once; then the slider decides)."""
    if "w_pairs" not in st.session_state:
        n, note = param_int_choice(st.query_params, "pairs", HEROS_PAIR_CHOICES, HEROS_DEFAULT_PAIRS)
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_pairs"] = n
    n_per = col.select_slider("Pairs per subset", HEROS_PAIR_CHOICES, key="w_pairs")
    st.query_params["pairs"] = str(n_per)
    return int(n_per)


def _averaging(col: DeltaGenerator) -> str:
    """How averaged word vectors are scored (the link's avg= counts once; then the control decides)."""
    if "w_avg" not in st.session_state:
        avg, note = param_choice(st.query_params, "avg", list(HEROS_AVERAGING), HEROS_AVERAGING_DEFAULT)
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_avg"] = avg
    avg = (
        col.segmented_control(
            "Averaged word vectors",
            list(HEROS_AVERAGING),
            format_func=page.option_labels(HEROS_AVERAGING),
            key="w_avg",
            help=f"Heros' averaged GloVe (sentence-transformers) drops the stop words of {SBERT_STOP_WORDS_NAME}, "
            "among them 'not', 'no', 'never', 'did'; the N2O paper averaged every token.",
        )
        or HEROS_AVERAGING_DEFAULT
    )
    st.query_params["avg"] = avg
    return avg


def _scored_names(lo: n2o_runs.Loaded, avg: str) -> list[str]:
    """The embedders to score: averaged word vectors without stop words when `avg` says so (named in a caption)."""
    scored = [scored_id(e, avg) for e in lo.names]
    swapped = [escape_markup(f"{a} → {b}") for a, b in zip(lo.names, scored) if a != b]
    if swapped:
        st.caption(f"Averaged word vectors with stop words dropped ({SBERT_STOP_WORDS_NAME}): " + ", ".join(swapped))
    return scored


def _minimal_pairs(lo: n2o_runs.Loaded, n_per: int) -> PairSet:
    """The minimal pairs made from the corpus; the page stops (with the reason shown) when there are none."""
    pairset = None
    with shown("Generating minimal pairs"):
        pairset = heros_runs.pairs(lo, n_per, lo.settings.seed)
    if pairset is None:
        st.stop()
    if pairset.pairs.empty:
        st.warning(
            "No minimal pairs could be made from this corpus (it needs English sentences of 8–25 words "
            "with a verb or predicative adjective that the vetted HEROS lexicon lists for its context). "
            + coverage(pairset).sentence()
        )
        st.stop()
    return pairset


def _figure(results: pd.DataFrame) -> tuple[go.Figure, str]:
    """The chosen view of the scores, drawn: (the figure, the view's name)."""
    show = (
        st.segmented_control("Show", list(SHOWS), format_func=page.option_labels(SHOWS), key="w_heros_show")
        or "normalized"
    )
    fkey = (tuple(results.itertuples(index=False)), show)

    def build() -> go.Figure:
        if show == "bars":
            return figures_heros.heros_bars(results)
        if show == "relative":
            return figures_heros.heros_heatmap(results, relative_to="synonym")
        return figures_heros.heros_heatmap(results, value=show)

    fig = n2o_runs.figure("heros", fkey, build)
    st.plotly_chart(fig, key="heros")
    return fig, show


def _tables(
    results: pd.DataFrame, baselines: dict[str, float], per_pair: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The normalized and raw tables and example pairs, in tabs; returns (normalized, raw) with the baselines."""
    normalized = embedder_table(results, baselines, "normalized")
    raw = embedder_table(results, baselines, "raw")
    t1, t2, t3 = st.tabs(["Normalized", "Raw cosine", "Example pairs"])
    with t1:
        st.dataframe(normalized.round(3))
    with t2:
        st.dataframe(raw.round(3))
        st.caption("Raw cosine is not comparable across embedders: their baselines b differ a lot.")
    with t3:
        sub = st.selectbox("Subset", list(normalized.columns.drop(BASELINE_COLUMN)), key="w_heros_subset")
        ex = per_pair[per_pair["subset"] == sub].head(12)
        st.dataframe(ex.drop(columns=["subset"]).round(3), hide_index=True)
        st.caption("Cosine of each example pair under every embedder (raw).")
    return normalized, raw


def _downloads(
    lo: n2o_runs.Loaded,
    fig: go.Figure,
    show: str,
    what: str,
    normalized: pd.DataFrame,
    raw: pd.DataFrame,
    per_pair: pd.DataFrame,
    asked_made: tuple[int, str],
) -> None:
    """The figure as PNG/SVG, the tables (normalized, raw, every pair's cosines) as CSV/JSON, the view as HTML;
    `asked_made`: the pairs asked per subset and the sentence saying how many were made."""
    k = lo.k
    n_per, made = asked_made
    meta = dict(downloads.meta(lo, k), **{"pairs per subset": made, "shown": show})
    name = f"heros-{n_per}-{show}"
    with st.expander("Downloads"):
        downloads.figure(fig, name, "Figure")
        downloads.table(normalized, f"heros-{n_per}-normalized", "Normalized", meta_=meta, index=True)
        downloads.table(raw, f"heros-{n_per}-raw", "Raw cosine", meta_=meta, index=True)
        downloads.table(per_pair.round(4), f"heros-{n_per}-pairs", "Every pair", meta_=meta)
        downloads.html_report(
            "HEROS subsets",
            lambda: [
                report.Figure(fig, what, title="HEROS subsets"),
                report.Table(
                    normalized,
                    "Normalized (s − b) / (1 − b); b = random-pair baseline.",
                    index=True,
                    title="Normalized",
                ),
                report.Table(raw, "Raw cosine (not comparable across embedders).", index=True, title="Raw cosine"),
                report.Table(
                    per_pair.round(4), "The minimal pairs with every embedder's cosine.", title="Pairs", max_rows=60
                ),
            ],
            name,
            meta,
        )
