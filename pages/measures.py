"""Similarity measures beyond N2O: linear and kernel CKA, CKNNA, mutual k-NN and Jaccard, RSA, Procrustes,
regression R², SVCCA and PWCCA for every pair of the sidebar's embedders, each with its permutation null and
bootstrap interval; where the measures agree, where N2O and CKA part, and a map of the embedders per measure."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.figures import measures as figures_measures
from n2o_core.figures.n2o import cluster_order
from n2o_core.measures import MEASURE_IDS, get_measure
from n2o_core.measures.nulls import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS
from n2o_core.measures.run import DEFAULT_SUBSAMPLE, TFIDF_SVD_DIM, MeasureComparison
from n2o_core.measures.summary import rank_movers, rank_table, similarity_matrix
from n2o_core.settings import Settings
from n2o_core.text import escape_markup
from ui import data, nav, page, talk
from ui import measures_data as md
from ui.guard import message
from ui.shell import through_app

through_app()


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("measures"))
    on_talk = talk.active()
    if not on_talk:  # on a projector the matrices are the view
        _intro()
    lo = page.loaded(settings, corpus)
    setup = _controls(lo)
    res = md.known(lo.ws, setup)
    if res is None and on_talk:  # no button on a projector: the last result computed for these embedders and k
        res = md.latest(lo.ws, setup.embedders, setup.k)
    if res is None:
        note = st.empty()
        note.info(
            f"Computing every measure for {len(lo.names)} embedders on {len(lo.corpus):,} sentences with "
            f"{setup.permutations} permutations takes a while: about 30 s for six embedders, 5,000 sentences and 100 "
            "permutations on two cores, growing with the pairs and the draws (benchmarks/README.md); the result is "
            "kept for this server process."
        )
        if not st.session_state.pop("measures_asked", False):  # set by the button's callback before this run
            st.button("Compute the measures", type="primary", key="measures_run", on_click=_ask)
            st.stop()
        try:
            res = md.run(lo.ws, setup)
        except Exception as e:  # noqa: BLE001 - one sentence in place
            st.warning(escape_markup(message(e, "Computing the measures")), icon="⚠️")
            st.stop()
        note.empty()
    _results(res)


def _intro() -> None:
    """What the page compares, above the controls."""
    st.caption(
        "N2O is one local view of how alike two embedders are. Researchers also compare embedding spaces with "
        "kernel and geometric measures (CKA, RSA, Procrustes, CCA) and with neighborhood alignment (mutual k-NN, "
        "CKNNA). Each value comes with what two unrelated spaces give (a permutation null: the rows of B "
        "shuffled) and a bootstrap interval over sentences. Neighborhoods use cosine, as N2O does; CKA, RSA, "
        "Procrustes, regression and CCA take the vectors as embedded (centred inside each formula); tf-idf "
        f"enters through its {TFIDF_SVD_DIM}-dimension truncated SVD."
    )


def _ask() -> None:
    """The button's callback: remembered across the rerun that the app may make before the page is drawn."""
    st.session_state["measures_asked"] = True


def _controls(lo: data.Loaded) -> md.MeasureSetup:
    """The measures, null and subsample choices (k is the sidebar's)."""
    c1, c2, c3 = st.columns([3, 1, 1])
    chosen = c1.multiselect("Measures", list(MEASURE_IDS), default=list(MEASURE_IDS), key="w_measures")
    perms = c2.number_input("Permutations", 0, 1000, DEFAULT_PERMUTATIONS, step=50, key="w_measure_perms")
    sub = c3.number_input("Kernel subsample", 0, 20_000, DEFAULT_SUBSAMPLE, step=1000, key="w_measure_sub")
    if not chosen:
        st.info("Choose at least one measure.")
        st.stop()
    order = [m for m in MEASURE_IDS if m in chosen]
    return md.MeasureSetup(
        tuple(lo.names), lo.k, tuple(order), int(perms), DEFAULT_BOOTSTRAP, int(sub), lo.settings.seed
    )


def _results(res: MeasureComparison) -> None:
    base = "mutual_knn" if "mutual_knn" in res.measures else res.measures[0]
    order = cluster_order(similarity_matrix(res, base))
    if talk.active():  # one screen: the matrices alone at the top, four panels a row
        st.plotly_chart(figures_measures.measure_matrices(res, order=order, cols=4), key="measures_matrices")
    else:
        _matrices(res, order, base)
    _agreement(res)
    _movers(res)
    st.subheader("Embedder maps")
    st.plotly_chart(figures_measures.embedder_maps(res), key="measures_maps")
    st.caption("Classical MDS of 1 − similarity under each measure: embedders close together are alike under it.")
    _how_to_read(res)
    st.download_button(
        "Download the measures (JSON, as `measures --json`)",
        json.dumps(res.to_json()),
        file_name=f"measures-k{res.k}.json",
        mime="application/json",
        key="measures_json",
    )
    with st.expander("All values"):
        st.dataframe(res.to_frame().round(4), hide_index=True)


def _matrices(res: MeasureComparison, order: list[int], base: str) -> None:
    """The setup line, then every measure's matrix with how to read it."""
    st.caption(
        f"N = {res.corpus_size:,} sentences · k = {res.k} · RBF CKA and RSA on a seeded subsample of "
        f"{res.subsample:,} · nulls: {res.permutations} permutations (feature and kernel measures on "
        f"{res.null_subsample:,} sentences) · intervals: {res.bootstrap} bootstrap resamples · seed {res.seed}. "
        f"Embedders in the order that clusters them under {base}."
    )
    st.subheader("Every measure, every pair")
    st.plotly_chart(figures_measures.measure_matrices(res, order=order), key="measures_matrices")
    st.caption(
        "Each panel's title gives its null: the mean value when the rows of one space are shuffled (what unrelated "
        "spaces give). 'n.s.': the permutation p is above 0.05. Directional measures (regression R², PWCCA, "
        "CKNNA) read row → column."
    )


def _agreement(res: MeasureComparison) -> None:
    st.subheader("Where the measures agree")
    if len(res.embedders) < 3:
        st.info("With two embedders there is one pair: choose at least three to compare the measures' rankings.")
        return
    st.plotly_chart(figures_measures.measure_agreement_heatmap(res), key="measures_agreement")
    ranks = rank_table(res)
    st.caption(
        f"Spearman correlation between two measures over the {len(ranks)} embedder pairs (directional measures "
        "averaged over both directions). Below: every pair's rank under each measure (1 = most similar)."
    )
    st.dataframe(ranks, hide_index=True)


def _movers(res: MeasureComparison) -> None:
    if not {"mutual_knn", "cka_linear"} <= set(res.measures) or len(res.embedders) < 3:
        return
    st.subheader("Local vs global: N2O and CKA")
    movers = rank_movers(res).head(5)
    params = {k: v for k, v in st.query_params.to_dict().items() if k != "pair"}
    lines = []
    for r in movers.itertuples():
        link = "agreement?" + urlencode({**params, "pair": f"{r.a},{r.b}"})
        lines.append(
            f"- **{escape_markup(r.a)} · {escape_markup(r.b)}**: rank {r.mutual_knn} by N2O (mutual k-NN), "
            f"{r.cka_linear} by linear CKA "
            f"([where they disagree, sentence by sentence]({link}))"
        )
    st.markdown("\n".join(lines))
    st.caption("The pairs whose rank moves most between the local measure (shared neighbors) and the global one.")


def _how_to_read(res: MeasureComparison) -> None:
    with st.expander("How to read each measure"):
        rows = [
            {
                "measure": m,
                "name": get_measure(m).name,
                "higher is": "more similar" if get_measure(m).higher_is_similar else "less similar",
                "range": f"{get_measure(m).value_range[0]:g} to {get_measure(m).value_range[1]:g}",
                "unchanged under": get_measure(m).invariances,
                "how to read": get_measure(m).how_to_read,
                "reference": get_measure(m).reference,
            }
            for m in res.measures
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
