"""Similarity measures beyond N2O: linear and kernel CKA, CKNNA, mutual k-NN and Jaccard, RSA, Procrustes,
regression R², SVCCA and PWCCA (the paper's formula and the released code's) for every pair of the sidebar's
embedders, each with its permutation null and bootstrap interval; where the measures agree, where N2O and CKA
part, and a map of the embedders per measure. Opens on the result kept in the cache for the same settings, with
when it was computed; otherwise a button says how long a run takes here."""

from __future__ import annotations

import json
from datetime import datetime
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from n2o_core.corpora import Corpus
from n2o_core.figures import measures as figures_measures
from n2o_core.figures.n2o import cluster_order
from n2o_core.measures import DISPLAY_NAMES, MEASURE_IDS, display_name, get_measure
from n2o_core.measures.nulls import DEFAULT_BOOTSTRAP, DEFAULT_PERMUTATIONS
from n2o_core.measures.run import DEFAULT_SUBSAMPLE, TFIDF_SVD_DIM, MeasureComparison
from n2o_core.measures.stored import BENCHMARK, Stored, estimate_seconds, last_timing
from n2o_core.measures.summary import pwcca_gap, rank_movers, rank_table, similarity_matrix
from n2o_core.runtime.progress import how_long
from n2o_core.settings import Settings
from n2o_core.text import escape_markup
from ui import measures_runs as md
from ui import n2o_runs, nav, page, talk
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
    got = md.known(lo.ws, setup)  # computed in this process, or kept in the cache for these settings
    if got is None and on_talk:  # no button on a projector: the last result computed for these embedders and k
        got = md.latest(lo.ws, setup.embedders, setup.k)
    if got is None:
        note = st.empty()
        seconds, basis = _estimate(lo, setup)
        note.info(
            f"Nothing is computed yet for these settings. {len(setup.measures)} measures for {len(lo.names)} "
            f"embedders on {len(lo.corpus):,} sentences with {setup.permutations} permutations and "
            f"{setup.bootstrap} resamples should take {how_long(seconds)} ({basis}). The result is kept "
            "in the cache: the next visit with these settings opens on it (`python -m n2o_core warm --measures` "
            "fills it ahead of a talk)."
        )
        if not st.session_state.pop("measures_asked", False):  # set by the button's callback before this run
            st.button(f"Compute the measures ({how_long(seconds)})", type="primary", key="measures_run", on_click=_ask)
            st.stop()
        try:
            got = md.run(lo.ws, setup)
        except Exception as e:  # noqa: BLE001 - one sentence in place
            st.warning(escape_markup(message(e, "Computing the measures")), icon="⚠️")
            st.stop()
        note.empty()
    if not on_talk:
        st.caption(_computed_line(got))
    _results(got.result)


def _estimate(lo: n2o_runs.Loaded, setup: md.MeasureSetup) -> tuple[float, str]:
    """Seconds the run should take here and what the estimate is scaled from (the last run here, or the
    recorded benchmark)."""
    last = last_timing(lo.ws)
    pairs = len(setup.embedders) * (len(setup.embedders) - 1) // 2
    draws = setup.permutations + setup.bootstrap
    seconds = estimate_seconds(pairs, len(lo.corpus), len(setup.measures), draws, last)
    t = last or BENCHMARK
    what = f"{t.pairs} pairs of embedders, {t.sentences:,} sentences, {t.measures} measures, {t.draws} draws"
    if last is None:
        return seconds, f"scaled from the benchmark {t.where}: {what} in {t.seconds:.1f} s; longer on a busy machine"
    return seconds, f"scaled from the last run on this server's cache: {what} in {t.seconds:.1f} s"


def _computed_line(got: Stored) -> str:
    """When the shown result was computed and how long it took."""
    when = datetime.fromtimestamp(got.computed_at).strftime("%Y-%m-%d %H:%M")
    return f"Computed {when} (server time) in {got.seconds:.1f} s; kept in the cache for these settings."


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


def _controls(lo: n2o_runs.Loaded) -> md.MeasureSetup:
    """The measures (every one unless the user removes some; each chip shown), null and subsample choices (k is
    the sidebar's)."""
    chosen = st.multiselect(
        f"Measures: all {len(MEASURE_IDS)} unless you remove some",
        list(MEASURE_IDS),
        default=list(MEASURE_IDS),
        format_func=display_name,
        key="w_measures",
        wrap=True,
    )
    c2, c3, _ = st.columns([1, 1, 3])
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
    if talk.active():  # one screen: the matrices alone at the top, three panels a row (titles at 24 px fit)
        st.plotly_chart(figures_measures.measure_matrices(res, order=order, cols=3), key="measures_matrices")
    else:
        _matrices(res, order, base)
    _agreement(res)
    _movers(res)
    st.subheader("Embedder maps")
    st.plotly_chart(figures_measures.embedder_maps(res), key="measures_maps")
    st.caption(
        "Classical MDS of 1 − similarity under each measure (the Procrustes angle as its cosine), equal scales on "
        "both axes: embedders close together are alike under it. Markers that touch share one label."
    )
    _how_to_read(res)
    st.download_button(
        "Download the measures (JSON, as `measures --json`)",
        json.dumps(res.to_json()),
        file_name=f"measures-k{res.k}.json",
        mime="application/json",
        key="measures_json",
    )
    with st.expander("All values"):
        frame = res.to_frame().round(4)
        frame.insert(2, "name", frame["measure"].map(display_name))
        st.dataframe(frame, hide_index=True)


def _matrices(res: MeasureComparison, order: list[int], base: str) -> None:
    """The setup line, then every measure's matrix with how to read it."""
    st.caption(
        f"N = {res.corpus_size:,} sentences · k = {res.k} · RBF CKA and RSA on a seeded subsample of "
        f"{res.subsample:,} · nulls: {res.permutations} permutations (feature and kernel measures on "
        f"{res.null_subsample:,} sentences) · intervals: {res.bootstrap} bootstrap resamples · seed {res.seed}. "
        f"Embedders in the order that clusters them under {display_name(base)}."
    )
    st.subheader("Every measure, every pair")
    st.plotly_chart(figures_measures.measure_matrices(res, order=order), key="measures_matrices")
    st.caption(
        "Each panel's title gives its null: the mean value when the rows of one space are shuffled (what unrelated "
        "spaces give). 'n.s.': the permutation p is above 0.05. Darker means more alike in every panel: the "
        "Procrustes angle is a distance (radians, lower = more alike), so its scale runs the other way. "
        "Directional measures (regression R², both PWCCAs, CKNNA) read row → column."
    )
    _pwcca_note(res)


def _pwcca_note(res: MeasureComparison) -> None:
    """Which PWCCA the page shows, and how far the released code's value is from the paper's formula's."""
    paper, released = display_name("pwcca"), display_name("pwcca_released")
    what = (
        f"**Two PWCCAs.** *{paper}* is Morcos et al. (2018)'s definition: canonical correlations weighted by how "
        "much of A's activations each canonical variate accounts for. *{released}* is what their released code "
        "(google/svcca, `compute_pwcca`) computes, and what ReSi and most papers report: it weights by the "
        "centered activations rotated with the whitened-space directions (no inverse square root) plus each "
        "dimension's mean, from the side with fewer dimensions; it has no null or interval here (each draw would "
        "need its own full decomposition). Use it to compare with published numbers."
    ).replace("{released}", released)
    if {"pwcca", "pwcca_released"} <= set(res.measures):
        gap = pwcca_gap(res)
        if gap is not None:
            what += (
                f" Here the released code's value minus the paper's ranges from {gap.low:+.3f} to "
                f"{gap.high:+.3f} over the {gap.pairs} ordered pairs (largest for {escape_markup(gap.a)} → "
                f"{escape_markup(gap.b)}: "
                f"{gap.paper:.3f} by the paper's formula, {gap.released:.3f} by the released code)."
            )
    elif "pwcca" in res.measures:
        what += f" Only *{paper}* is shown: add *{released}* to the measures to compare."
    elif "pwcca_released" in res.measures:
        what += f" Only *{released}* is shown: add *{paper}* to the measures to compare."
    else:
        return
    st.caption(what)


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
    st.dataframe(ranks.rename(columns=DISPLAY_NAMES), hide_index=True)


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
                "measure": get_measure(m).name,
                "id": m,
                "higher is": "more similar" if get_measure(m).higher_is_similar else "less similar",
                "range": f"{get_measure(m).value_range[0]:g} to {get_measure(m).value_range[1]:g}",
                "unchanged under": get_measure(m).invariances,
                "how to read": get_measure(m).how_to_read,
                "reference": get_measure(m).reference,
            }
            for m in res.measures
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
