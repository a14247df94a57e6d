"""Token overlap: how many of the query's words each embedder's neighbors share (Lin & Smith 2019, Fig. 5)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from n2o_core.analyses import overlap
from n2o_core.corpora import Corpus
from n2o_core.export import report
from n2o_core.figures import n2o as figures
from n2o_core.settings import TOKEN_WORDS, TOKEN_WORDS_DEFAULT, Settings, param_choice
from n2o_core.text import SBERT_STOP_WORDS_NAME, escape_markup
from ui import downloads, n2o_runs, nav, page, talk
from ui.shell import through_app

through_app()


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("tokens"))
    st.caption(
        "For every sampled query: the share of its distinct words that occur in each of its k neighbors, "
        "averaged over the neighbors; bars are the mean over queries with a 95% confidence interval."
    )
    lo = page.loaded(settings, corpus)
    k, names = lo.k, tuple(lo.names)
    if "w_words" not in st.session_state:  # the link's words= counts once; then the control decides
        words, note = param_choice(st.query_params, "words", list(TOKEN_WORDS), TOKEN_WORDS_DEFAULT)
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_words"] = words
    words = (
        st.segmented_control("Count", list(TOKEN_WORDS), format_func=page.option_labels(TOKEN_WORDS), key="w_words")
        or TOKEN_WORDS_DEFAULT
    )
    st.query_params["words"] = words
    content = words == "content"
    df, random_level = n2o_runs.token_overlap(lo.key, names, k, settings.seed, content, lo)
    order = overlap.by_token_overlap(df)
    table = order.assign(**{c: order[c].round(4) for c in ("mean", "ci_low", "ci_high")})
    fig = n2o_runs.figure(
        "tokens",
        (lo.key, names, k, settings.seed, content),
        lambda: figures.token_overlap_bars(order, random_level=random_level),
    )
    st.plotly_chart(fig, key="tokens")
    st.caption(
        f"k = {k} · {len(lo.plan.pool):,} queries (all samples pooled) · words are lowercased tokens, "
        + (f"stop words ({SBERT_STOP_WORDS_NAME}) not counted" if content else "every word counted, stop words too")
        + " (the paper does not say which) · "
        f"95% CI: a t-interval over the per-query means · dotted line: the same measure for {k} random "
        f"sentences per query ({random_level:.3f}). Embedders far above the line find neighbors by shared words; "
        "transformers often find paraphrases with fewer shared words."
    )
    if not talk.active():  # on a projector the figure is the view
        st.dataframe(table, hide_index=True)
    skipped = overlap.queries_without_words(df)
    if skipped:
        st.caption(f"{skipped} querie(s) without a content word are left out (n_no_tokens).")
    page.approximate_note(lo, k, list(names))
    _downloads(lo, fig, table, k, words, random_level)


def _downloads(
    lo: n2o_runs.Loaded, fig: go.Figure, table: pd.DataFrame, k: int, words: str, random_level: float
) -> None:
    """The bars as PNG/SVG, the table (as shown) as CSV/JSON, and the view as an HTML report."""
    meta = dict(downloads.meta(lo, k), words=TOKEN_WORDS[words], **{"random sentences": round(random_level, 4)})
    name = f"token-overlap-{words}-k{k}"
    with st.expander("Downloads"):
        downloads.figure(fig, name, "Bars")
        downloads.table(table, name, "Table", meta_=meta)
        caption = (
            f"Share of the query's distinct words ({TOKEN_WORDS[words]}) found in each of its k = {k} neighbors, "
            f"mean over queries with a 95% CI; dotted line: random sentences ({random_level:.3f})."
        )
        downloads.html_report(
            "Token overlap",
            lambda: [report.Figure(fig, caption, title="Token overlap"), report.Table(table, title="Per embedder")],
            name,
            meta,
        )
