"""N2O heatmap: the matrix, each embedder's spread (Fig. 6), robustness across k (§6), downloads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from n2o_core import figures, overlap
from n2o_core.ui_state import settings_dict
from ui import data, export, page
from ui.guard import shown
from ui.shell import through_app

through_app()
st.header("N2O heatmap")
st.caption(
    "Share of k nearest neighbors that two embedders agree on, averaged over the queries of each "
    "sample and then over the samples."
)

live = st.empty()


def _draw_partial(lo: data.Loaded) -> None:
    """While embedders are still being prepared, show the matrix of those already done."""
    k = min(lo.settings.k, lo.k_max)
    names = lo.names
    res = overlap.n2o_over_samples(lo.ids_at(k), lo.pool, lo.samples, k)
    live.plotly_chart(
        figures.n2o_heatmap(
            res.mean,
            names,
            std=res.std,
            chance=overlap.chance_level(k, len(lo.corpus)),
            k=k,
            title=f"{len(names)} embedders ready so far",
        ),
        key=f"partial-{len(names)}",
    )


lo = page.loaded(on_ready=_draw_partial)
live.empty()
s = lo.settings
k = min(s.k, lo.k_max)
names = tuple(lo.names)
key = data.loaded_key(lo)
res = data.sampled_n2o(key, names, k, lo)
chance = overlap.chance_level(k, len(lo.corpus))

fkey = (key, names, k, len(lo.samples), s.order)


def _heat():
    order = figures.cluster_order(res.mean) if s.order == "cluster" else list(range(len(names)))
    M, labels = figures.reorder(res.mean, list(names), order)
    SD, _ = figures.reorder(res.std, list(names), order)
    return figures.n2o_heatmap(M, labels, std=SD, chance=chance, k=k)


heat = data.figure("heatmap", fkey, _heat)

# One section at a time (kept in the link as view=): only what is on screen is computed, sent and drawn.
VIEWS = {"matrix": "Matrix", "box": "Per embedder", "robustness": "Robustness across k", "downloads": "Downloads"}
if "w_hview" not in st.session_state:
    v = st.query_params.get("view", "matrix")
    st.session_state["w_hview"] = v if v in VIEWS else "matrix"
view = (
    st.segmented_control("View", list(VIEWS), format_func=VIEWS.get, key="w_hview", label_visibility="collapsed")
    or "matrix"
)
st.query_params["view"] = view

if view == "matrix":
    st.plotly_chart(heat, key="heatmap")
    st.caption(
        page.chance_caption(lo, k)
        + ". Hover a cell for mean ± std over the samples. "
        + (
            "Rows are ordered by hierarchical clustering on 1 − N2O."
            if s.order == "cluster"
            else "Rows are in the order chosen in the sidebar."
        )
    )
    with st.expander("Embedders and pairs"):
        infos = data.embedder_infos()
        rows = []
        for e in names:
            inf = infos.get(e)
            nb = lo.neighbors[e]
            rows.append(
                {
                    "embedder": e,
                    "family": inf.family if inf else "",
                    "dimension": data.dim_label(inf, lo.ws, e),
                    "composition": inf.composition if inf else "",
                    f"recall@{lo.k_max}": None if nb.recall is None else round(nb.recall, 4),
                    "prepared in (s)": round(lo.seconds[e], 1) if e in lo.seconds else None,
                }
            )
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        pairs = overlap.pairs_frame(res.mean, list(names))
        pairs["× chance"] = (pairs["n2o"] / chance).round(1)
        st.dataframe(pairs.round(4), hide_index=True)
    if s.approx:
        recall = {e: lo.neighbors[e].recall for e in names}
        if any(v is not None for v in recall.values()):
            st.plotly_chart(
                figures.recall_bars(recall, k=lo.k_max, title=f"Approximate search: recall@{lo.k_max}"), key="recall"
            )

if view == "box":

    def _box():
        dist = overlap.n2o_distribution(res.mean, list(names))
        box_order = list(dist.groupby("embedder")["n2o"].median().sort_values(ascending=False).index)
        return figures.n2o_boxplot(dist, chance=chance, order=box_order)

    st.plotly_chart(data.figure("box", fkey, _box), key="box")
    st.caption(
        "Each box: one embedder's N2O with every other embedder (Lin & Smith 2019, Fig. 6). "
        "High and tight = an embedder whose neighbors others share; the dotted line is chance."
    )

if view == "robustness":
    if len(names) < 3:
        st.info("Robustness across k ranks embedder pairs: choose at least three embedders.")
    else:
        with shown("Robustness across k"):
            R, curves = data.robustness(key, names, lo.k_max, lo)
            summ = overlap.off_diagonal_summary(R.to_numpy())
            c1, c2 = st.columns(2)
            c1.metric("mean Spearman ρ between k", f"{summ['mean']:.3f}")
            c2.metric("lowest ρ", f"{summ['min']:.3f}")
            rkey = (key, names, lo.k_max, len(lo.samples))
            st.plotly_chart(data.figure("spearman", rkey, lambda: figures.spearman_heatmap(R)), key="spearman")
            st.caption(
                "Spearman ρ between the rankings of embedder pairs by N2O at two values of k, over all "
                f"{len(lo.pool):,} pooled queries (paper §6). ρ near 1: the conclusions do not depend on k."
            )
            with st.expander("N2O of each pair as k grows"):
                ks = sorted(curves["k"].unique())
                chances = [overlap.chance_level(kk, len(lo.corpus)) for kk in ks]
                st.plotly_chart(
                    data.figure("curves", rkey, lambda: figures.n2o_vs_k(curves, chance=chances)), key="curves"
                )

if view == "downloads":
    st.download_button(
        "Matrix (CSV)",
        lambda: export.matrix_csv(res.mean, res.std, list(names), k=k, chance=chance),
        file_name=f"n2o-k{k}.csv",
        mime="text/csv",
        on_click="ignore",
    )
    corpus_meta = {
        "name": lo.corpus.name,
        "source": lo.corpus.source,
        "fingerprint": lo.corpus.fingerprint,
        "n": len(lo.corpus),
    }
    st.download_button(
        "Neighbors (JSON)",
        lambda: export.neighbors_json(
            corpus_meta,
            settings_dict(s),
            lo.pool,
            lo.samples,
            lo.ids_at(k),
            {e: lo.neighbors[e].sims for e in names},
            k,
        ),
        file_name=f"neighbors-k{k}.json",
        mime="application/json",
        on_click="ignore",
    )
    if export.chrome_path() is None:
        st.caption("PNG/SVG export needs Chromium on the server; the camera icon on the chart saves a PNG.")
    else:
        c1, c2 = st.columns(2)
        c1.download_button(
            "Heatmap (PNG)",
            lambda: export.figure_image(heat, "png"),
            file_name=f"n2o-k{k}.png",
            mime="image/png",
            on_click="ignore",
        )
        c2.download_button(
            "Heatmap (SVG)",
            lambda: export.figure_image(heat, "svg"),
            file_name=f"n2o-k{k}.svg",
            mime="image/svg+xml",
            on_click="ignore",
        )
