"""Token overlap: how many of the query's words each embedder's neighbors share (Lin & Smith 2019, Fig. 5)."""

from __future__ import annotations

import streamlit as st

from n2o_core import figures
from n2o_core.corpora import Corpus
from n2o_core.settings import Settings
from ui import data, page
from ui.shell import through_app

through_app()


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header("Token overlap")
    st.caption(
        "For every sampled query: the share of its distinct words that occur in each of its k neighbors, "
        "averaged over the neighbors; bars are the mean over queries with a 95% confidence interval."
    )
    lo = page.loaded(settings, corpus)
    k, names = lo.k, tuple(lo.names)
    df, random_level = data.token_overlap(lo.key, names, k, settings.seed, lo)
    order = df.sort_values("mean", ascending=False)
    st.plotly_chart(
        data.figure(
            "tokens",
            (lo.key, names, k, settings.seed),
            lambda: figures.token_overlap_bars(order, random_level=random_level),
        ),
        key="tokens",
    )
    st.caption(
        f"k = {k} · {len(lo.plan.pool):,} queries (all samples pooled) · words are lowercased tokens, stop words "
        f"kept · 95% CI: a t-interval over the per-query means · dotted line: the same measure for {k} random "
        f"sentences per query ({random_level:.3f}). Embedders far above the line find neighbors by shared words; "
        "transformers often find paraphrases with fewer shared words."
    )
    st.dataframe(order.assign(**{c: order[c].round(4) for c in ("mean", "ci_low", "ci_high")}), hide_index=True)
    page.approximate_note(lo, k, list(names))
