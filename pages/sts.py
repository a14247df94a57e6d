"""Human similarity (Eger et al., Pitfalls): cosine of each scored pair against the human score, by Pearson and by
Spearman, raw and with z-normalized dimensions, per embedder with its dimension; how the embedder ranking moves
across the four scorings."""

from __future__ import annotations

import json

import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.evaluation.sts import SCORING_LABELS, SCORINGS, correlation_table, moved_count, rank_display
from n2o_core.figures import evaluation as figures_eval
from n2o_core.settings import SIMILARITY_DEFAULT_SOURCE, SIMILARITY_SOURCES, Settings
from n2o_core.text import escape_markup
from ui import evaluation_runs as ev
from ui import n2o_runs, nav, page, pair_source
from ui.guard import message
from ui.shell import through_app

through_app()

LABELS = SCORING_LABELS


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("sts"))
    st.caption(
        "For every scored pair: the cosine of the two embeddings against the human similarity score, correlated "
        "over the pairs by Pearson and by Spearman, on the raw vectors and after z-normalizing every dimension. "
        "Eger et al. (Pitfalls) show that this unsupervised cosine evaluation ranks embedders differently once "
        "the dimensions are normalized."
    )
    lo = page.loaded(settings, corpus, min_embedders=1)
    choice = pair_source.choose("hpairs", "hpairs", SIMILARITY_SOURCES, SIMILARITY_DEFAULT_SOURCE)
    if choice.spec is None:
        st.stop()
    pkey = ev.pair_key(choice.spec, choice.columns, None, 0)
    try:
        pairs = ev.pairs(pkey)
    except Exception as e:  # noqa: BLE001 - one sentence in place
        st.warning(escape_markup(message(e, "Loading the pairs")), icon="⚠️")
        st.stop()
    if not pairs.source.scored:
        st.warning(
            f"{escape_markup(pairs.source.label)}: these pairs have no human scores, so there is nothing to "
            "correlate with. "
            "Upload a scored pair file (or use gensim's Lee judgments).",
            icon="⚠️",
        )
        st.stop()
    try:
        res, errors = ev.sts(lo.ws, pairs, pkey, lo.names)
    except Exception as e:  # noqa: BLE001
        st.warning(escape_markup(message(e, "Scoring the pairs")), icon="⚠️")
        st.stop()
    for eid, msg in errors.items():
        st.error(f"**{escape_markup(eid)}** is left out: {escape_markup(msg)}", icon="⚠️")
    if res is None:
        st.stop()
    ev.remember("sts", lo.corpus.fingerprint, pkey=pkey, label=pairs.source.label)

    st.markdown(
        f"**{escape_markup(pairs.source.label)}** · n = {len(pairs):,} pairs · scores on 0–5 "
        f"(the source's 0–{pairs.source.score_scale:g} scale rescaled)"
    )
    table = correlation_table(res.results)
    st.dataframe(
        table,
        hide_index=True,
        column_config={LABELS[s]: st.column_config.NumberColumn(format="%.3f") for s in SCORINGS},
    )
    st.caption(
        "z-norm (Pitfalls' definition): each dimension is standardized with the mean and standard deviation over "
        "the sentences being scored (the 2n pair sentences, each counted once per pair it is in), then every "
        "vector is L2-normalized by the cosine. This is not the sidebar's corpus z-normalization, which this page "
        "does not use. Corpus-trained embedders (tf-idf, word2vec, fastText) are fit on the sidebar's corpus "
        f"**{escape_markup(lo.corpus.name)}**."
        + (" Notes: " + escape_markup("; ".join(res.notes)) + "." if res.notes else "")
    )
    page.note(
        "**Dimension** is each embedder's vector size (tf-idf: its vocabulary). Pitfalls' first point: embedders "
        "of different sizes are not compared fairly when size itself drives the score, so read a ranking across "
        "very different dimensions with care, and compare embedders of equal (or similar) size.",
        short="Dimensions differ: compare embedders of equal size (Pitfalls)",
    )
    st.plotly_chart(
        n2o_runs.figure(
            "sts_bars",
            (lo.corpus.fingerprint, pkey, tuple(lo.names)),
            lambda: figures_eval.correlation_bars(res.results),
        ),
        key="sts_bars",
    )

    st.subheader("The ranking under each scoring")
    st.plotly_chart(
        n2o_runs.figure(
            "sts_bump",
            (lo.corpus.fingerprint, pkey, tuple(lo.names)),
            lambda: figures_eval.rank_bump(res.ranks, color_order=lo.names),
        ),
        key="sts_bump",
    )
    st.dataframe(rank_display(res.ranks).style.map(_arrow_colour), hide_index=True)
    n_moved = moved_count(res.ranks)
    st.caption(
        "Rank 1 = the highest correlation. Arrows: the move against raw Pearson (the usual 'UCP' setting Pitfalls "
        f"warns about): ▲ up, ▼ down. {n_moved} of {len(res.ranks)} embedders change rank across the four scorings "
        "(bold lines in the chart)."
    )
    st.download_button(
        "Correlations and ranks (JSON)",
        json.dumps(res.to_json(), ensure_ascii=False, default=str),
        file_name="human_similarity.json",
        mime="application/json",
        key="dl_sts_json",
    )


def _arrow_colour(v: object) -> str:
    if isinstance(v, str) and "▲" in v:
        return "color: #1a7f37; font-weight: 600"
    if isinstance(v, str) and "▼" in v:
        return "color: #c0392b; font-weight: 600"
    return ""
