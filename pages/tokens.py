"""Token overlap: how many of the query's words each embedder's neighbors share (Lin & Smith 2019, Fig. 5)."""

from __future__ import annotations

import streamlit as st

from n2o_core import figures
from ui import data, page
from ui.shell import through_app

through_app()
st.header("Token overlap")
st.caption(
    "For every sampled query: the share of its distinct words that occur in each of its k neighbors, "
    "averaged over the neighbors; bars are the mean over queries with a 95% confidence interval."
)
lo = page.loaded()
s = lo.settings
k = min(s.k, lo.k_max)
names = tuple(lo.names)
df, random_level = data.token_overlap(data.loaded_key(lo), names, k, s.seed, lo)
order = df.sort_values("mean", ascending=False)
st.plotly_chart(
    data.figure(
        "tokens",
        (data.loaded_key(lo), names, k, s.seed),
        lambda: figures.token_overlap_bars(order, random_level=random_level),
    ),
    key="tokens",
)
st.caption(
    f"k = {k} · {len(lo.pool):,} queries (all samples pooled) · words are lowercased tokens, stop words "
    f"kept · dotted line: the same measure for {k} random sentences per query ({random_level:.3f}). "
    "Embedders far above the line find neighbors by shared words; transformers often find paraphrases "
    "with fewer shared words."
)
st.dataframe(order.assign(**{c: order[c].round(4) for c in ("mean", "ci_low", "ci_high")}), hide_index=True)
