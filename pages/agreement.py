"""Where two embedders disagree: per-sentence N2O (every corpus sentence a query) of a pair and across all chosen
embedders, its distribution, two maps with linked selection, and the least and most agreed sentences."""

from __future__ import annotations

import functools
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st

from n2o_core.analyses import agreement as core
from n2o_core.corpora import Corpus
from n2o_core.figures.maps import MAX_POINTS, agreement_histogram, agreement_maps, selected_points_ids
from n2o_core.settings import Settings, param_choice, to_query
from n2o_core.text import escape_markup
from ui import agreement_runs, n2o_runs, nav
from ui.agreement_runs import AgreementData, MapJob
from ui.shell import through_app

through_app()

#: The maps' selection widget; the selected corpus ids live in SELECTION (not in the URL).
MAPS_KEY = "agree_maps"
SELECTION = "_agree_selection"
MAP_METHODS = {"pca": "PCA", "umap": "UMAP"}
MAP_DEFAULT = "pca"
BY = {"pair": "the pair", "all": "all pairs (mean)"}


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("agreement"))
    st.caption(
        "Every sentence of the corpus is a query: its per-sentence N2O is the share of its k nearest neighbors "
        "two embedders agree on, |NN_A(q) ∩ NN_B(q)| / k. Its mean over all sentences is the pair's N2O."
    )
    ad = agreement_runs.loaded(settings, corpus)
    names, k = ad.names, ad.k
    a, b = _pair(names)
    by = _by(names, a, b)
    st.query_params["pair"] = f"{a},{b}"

    pair_v = agreement_runs.values(ad.key, k, a, b, ad)
    all_v = agreement_runs.values(ad.key, k, None, None, ad) if len(names) > 2 else pair_v
    agr = ad.at(k)
    shown = pair_v if by == "pair" else all_v
    what = escape_markup(f"{a} vs {b}") if by == "pair" else f"mean over all {len(agr.pairs())} pairs"
    valid = agr.has_neighbors(a, b) if by == "pair" else agr.has_neighbors()

    _summary(ad, agr, a, b, pair_v, all_v)
    selected = _selected(ad)
    _maps(ad, a, b, shown, what, "N2O" if by == "pair" else "mean N2O", selected)
    if selected:
        _selection_table(ad, shown, valid, what, selected)
    else:
        _rankings(ad, shown, what, *((a, b) if by == "pair" else (None, None)))
    if ad.approx:
        rec = ", ".join(f"{escape_markup(e)} {r:.3f}" for e, r in agr.recall.items() if r is not None)
        st.caption(f"Approximate search (pynndescent): recall@{k} against exact search {rec or 'not measured'}.")


# --------------------------------------------------------------------------- choices (pair and `by` in the URL)


def _pair(names: list[str]) -> tuple[str, str]:
    """Embedders A and B: from `pair=A,B` on a session's first visit, then from the two select boxes."""
    a0, b0 = st.session_state.get("w_agree_a"), st.session_state.get("w_agree_b")
    if a0 is None:
        a0, b0, note = core.pair_param(st.query_params, names)
        if note:
            st.warning(escape_markup(note))
    elif a0 not in names or b0 not in names or a0 == b0:  # the sidebar's embedders changed
        a0, b0, _ = core.pair_param({"pair": f"{a0},{b0}"}, names)
    st.session_state["w_agree_a"] = a0
    c1, c2 = st.columns(2)
    a = c1.selectbox("Embedder A", names, key="w_agree_a")
    others = [e for e in names if e != a]
    if st.session_state.get("w_agree_b") not in others:
        st.session_state["w_agree_b"] = b0 if b0 in others else others[0]
    b = c2.selectbox("Embedder B", others, key="w_agree_b")
    return a, b


def _by(names: list[str], a: str, b: str) -> str:
    """What colours the maps and orders the rankings: the pair, or the mean over all pairs (3+ embedders)."""
    if len(names) < 3:
        return "pair"
    if "w_agree_by" not in st.session_state:
        by, note = param_choice(st.query_params, "by", list(BY), "pair")
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_agree_by"] = by
    labels = {"pair": escape_markup(f"{a} vs {b}"), "all": f"mean over all {len(names) * (len(names) - 1) // 2} pairs"}
    by = (
        st.segmented_control(
            "Colour the maps and rank the sentences by",
            list(BY),
            format_func=lambda v: labels[v],
            key="w_agree_by",
            help="Mean pairwise agreement: a sentence's per-sentence N2O averaged over every pair of the "
            "embedders chosen in the sidebar.",
        )
        or "pair"
    )
    st.query_params["by"] = by
    return by


# --------------------------------------------------------------------------- numbers and distributions


def _summary(ad: AgreementData, agr: core.Agreement, a: str, b: str, pair_v: np.ndarray, all_v: np.ndarray) -> None:
    n, k = len(ad.corpus), ad.k
    summ = core.summarize(pair_v)  # every sentence: one without neighbors counts as 0, as compare counts it
    c = st.columns(5)
    c[0].metric(escape_markup(f"N2O {a} vs {b}"), f"{summ['mean']:.3f}")
    c[1].metric("median per sentence", f"{summ['median']:.3f}")
    c[2].metric("no shared neighbor", f"{summ['share_zero']:.1%}")
    c[3].metric("half or more shared", f"{summ['share_half_or_more']:.1%}")
    c[4].metric("chance k/(N−1)", f"{agr.chance:.4f}")
    missing = int((~agr.has_neighbors(a, b)).sum())
    name, a, b = escape_markup(ad.corpus.name), escape_markup(a), escape_markup(b)  # markdown from here on
    st.caption(
        f"Corpus **{name}**: N = {n:,} sentences, every one a query · k = {k} · "
        f"{'approximate' if ad.approx else 'exact'} search{' · z-normalized' if ad.settings.znorm else ''}. "
        f"The mean over all {n:,} sentences is exactly N2O({a}, {b}) as the heatmap and `compare` compute it "
        f"when every sentence is a query (`compare --queries {n} --samples 1`); the heatmap's value comes from "
        "sampled queries instead."
        + (
            f" {missing:,} sentence(s) have no vector under {a} or {b}: their N2O is 0 by convention (counted "
            "in the mean, as compare counts them) and they are left out of the rankings."
            if missing
            else ""
        )
    )
    cols = st.columns(2 if len(ad.names) > 2 else 1)
    with cols[0]:
        st.plotly_chart(
            n2o_runs.figure(
                "agree-hist",
                (ad.key, k, a, b),
                lambda: agreement_histogram(pair_v, k, chance=agr.chance, title=f"{a} vs {b}"),  # escaped above
            ),
            key="agree_hist",
        )
    if len(ad.names) > 2:
        with cols[1]:
            title = f"Mean pairwise agreement ({len(agr.pairs())} pairs of {len(ad.names)} embedders)"
            st.plotly_chart(
                n2o_runs.figure(
                    "agree-hist-all",
                    (ad.key, k),
                    lambda: agreement_histogram(
                        all_v, k, chance=agr.chance, title=title, label="mean per-sentence N2O over pairs"
                    ),
                ),
                key="agree_hist_all",
            )
        with st.expander("Every pair: N2O with every sentence a query"):
            pm = agreement_runs.pair_means(ad.key, k, ad)
            fmt = {"n2o": st.column_config.NumberColumn("N2O", format="%.4f")}
            st.dataframe(pm, hide_index=True, column_config=fmt)
    st.caption(
        f"Bars: sentences per value (one bar per shared neighbor, steps of 1/k); red line: the mean; dotted "
        f"line: chance k/(N−1) = {agr.chance:.4f}."
    )


# --------------------------------------------------------------------------- maps with linked selection


def _selected(ad: AgreementData) -> list[int] | None:
    """The corpus ids selected on the maps in this session (for this corpus), or None."""
    got = st.session_state.get(SELECTION)
    if not got or got[0] != ad.corpus.fingerprint:
        return None
    ids = [i for i in got[1] if 0 <= i < len(ad.corpus)]
    return ids or None


def _on_select(fingerprint: str) -> None:
    """A box or lasso selection in either map (or its clearing): keep the selected corpus ids."""
    event = st.session_state.get(MAPS_KEY) or {}
    points = (event.get("selection") or {}).get("points") or []
    ids = selected_points_ids(points)
    st.session_state[SELECTION] = (fingerprint, ids) if ids else None


def _clear() -> None:
    st.session_state[SELECTION] = None


def _method() -> str:
    if "w_agree_map" not in st.session_state:
        method, note = param_choice(st.query_params, "map", list(MAP_METHODS), MAP_DEFAULT)
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_agree_map"] = method
    method = (
        st.segmented_control("Map", list(MAP_METHODS), format_func=lambda m: MAP_METHODS[m], key="w_agree_map")
        or MAP_DEFAULT
    )
    st.query_params["map"] = method
    return method


def _maps(
    ad: AgreementData, a: str, b: str, values: np.ndarray, what: str, color_label: str, selected: list[int] | None
) -> None:
    st.subheader("Maps")
    c1, c2, c3 = st.columns([2, 2, 1])
    with c1:
        method = _method()
    n = len(ad.corpus)
    draw_all = False
    if n > MAX_POINTS:
        draw_all = c2.toggle(
            "Draw all points",
            key="w_agree_all",
            help=f"Above {MAX_POINTS:,} sentences a fixed random subset is drawn (selected sentences always are): "
            "WebGL draws every point, but each rerun sends every point's hover text.",
        )
    c3.button("Clear selection", on_click=_clear, disabled=not selected, key="agree_clear")
    st.caption(
        "PCA appears at once. UMAP (umap-learn on the exact neighbor graph the agreement uses) runs in the "
        "background while the PCA maps stay on screen; the first UMAP map in a server process also compiles "
        "umap-learn's numba code (30 s to 2 minutes on 2 shared cores). Maps are cached on disk."
        if method == "pca"
        else "UMAP on each embedder's exact cosine neighbor graph (the search the agreement uses); computed in "
        "the background and cached on disk. Distances between clusters on a UMAP map mean little."
    )

    maps, pending, notes = {}, [], []
    for eid in (a, b):
        if method == "umap":
            got = agreement_runs.umap_map(ad, eid)
            if isinstance(got, MapJob):
                if got.error:
                    notes.append(f"UMAP for {eid}: {got.error} The PCA map is shown.")
                else:
                    pending.append(got)
            else:
                maps[eid] = got
                if got.note:
                    notes.append(f"{eid}: {got.note}")
        if eid not in maps:
            try:
                maps[eid] = agreement_runs.pca_map(ad, eid)
            except core.N2OError as e:
                st.warning(escape_markup(f"No map for {eid}: {e}"), icon="⚠️")
                return
    for note in notes:
        st.warning(escape_markup(note))
    if any(note.startswith("UMAP for ") for note in notes) and st.button("Try UMAP again", key="agree_umap_retry"):
        agreement_runs.forget_map_errors()
        st.rerun()
    if pending:
        _watch(pending)

    max_points = None if draw_all else MAX_POINTS
    sel = tuple(selected) if selected else None
    labels = [f"{e} · {maps[e].method.upper()}" for e in (a, b)]
    key = (ad.key, ad.k, a, b, what, tuple(maps[e].method for e in (a, b)), max_points, sel)
    fig = agreement_runs.maps_figure(
        key,
        lambda: agreement_maps(
            [maps[a].coords, maps[b].coords],
            values,
            ad.corpus.texts,
            labels,
            selected_ids=sel,
            labels=agreement_runs.hover_labels(ad.corpus.fingerprint, ad.corpus),
            k=ad.k,
            max_points=max_points,
            color_label=color_label,
            dragmode="select",
        ),
    )
    st.plotly_chart(
        fig,
        key=MAPS_KEY,
        on_select=functools.partial(_on_select, ad.corpus.fingerprint),
        selection_mode=("box", "lasso"),
    )
    drawn = min(n, max_points) if max_points else n
    st.caption(
        f"Colour: per-sentence N2O ({what}). Drag a box (or pick the lasso in the chart's toolbar) on either map: "
        "the same sentences are highlighted on both, and the tables below show them. Hover a point for its "
        "sentence."
        + (
            f" {drawn:,} of {n:,} sentences drawn (a fixed random subset; selected ones always drawn)."
            if drawn < n
            else ""
        )
    )


@st.fragment(run_every=2.0)
def _watch(jobs: list[MapJob]) -> None:
    """Progress of the background UMAP jobs; the whole page reruns when they are done."""
    if all(j.finished.is_set() for j in jobs):
        st.rerun(scope="app")
    # not a `with` block: leaving one would mark the status complete while the jobs still run
    box = st.status(
        "UMAP maps are being computed in the background; the PCA maps are shown meanwhile…",
        state="running",
        expanded=True,
    )
    for j in jobs:
        box.markdown(j.describe())
        if j.fraction is not None:
            box.progress(j.fraction)


# --------------------------------------------------------------------------- rankings and what distinguishes them


def query_link(settings: Settings, qid: int) -> str:
    """The query explorer for one corpus sentence, with the shared settings of this view."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{'/' + base if base else ''}/query?{urlencode({**to_query(settings), 'qid': str(int(qid))})}"


def _table(ad: AgreementData, ids: np.ndarray, values: np.ndarray, key: str) -> None:
    feats = agreement_runs.features(ad.corpus.fingerprint, ad.corpus)
    df = core.ranking_frame(ids, values, ad.corpus.texts, feats)
    df.insert(0, "query explorer", [query_link(ad.settings, i) for i in df["id"]])
    st.dataframe(
        df.drop(columns=["id"]),
        hide_index=True,
        key=key,
        column_config={
            "query explorer": st.column_config.LinkColumn(
                "id", display_text=r"qid=(\d+)", help="Open this sentence in the query explorer"
            ),
            "n2o": st.column_config.NumberColumn("N2O", format="%.3f"),
            "text": st.column_config.TextColumn("sentence", width="large"),
            "n_tokens": st.column_config.NumberColumn("words"),
            "rare_share": st.column_config.NumberColumn("rare words", format="percent"),
        },
    )


def _groups(table: pd.DataFrame) -> None:
    cfg = {
        "sentences": st.column_config.NumberColumn(format="%d"),
        "n2o": st.column_config.NumberColumn("N2O", format="%.3f"),
        "n_tokens": st.column_config.NumberColumn("words (mean)", format="%.1f"),
        "n_tokens_median": st.column_config.NumberColumn("words (median)", format="%.1f"),
        "rare_share": st.column_config.NumberColumn("rare words", format="percent"),
    }
    topics = [c for c in table.columns if c.startswith("label: ")]
    cfg.update({c: st.column_config.NumberColumn(c, format="percent") for c in topics})
    st.dataframe(table, column_config=cfg)
    st.caption(
        f"Words: word tokens per sentence. Rare words: share of a sentence's tokens seen at most {core.RARE_MAX} "
        "times in the text the corpus-trained embedders are fit on (the whole built-in corpus when a sample is "
        "compared)." + (" label: share of each topic in the group." if topics else "")
    )


def _page(end: str, ties: core.ExtremeTies | None, top: int) -> int:
    """The page (0 first) of the `end` list ("low" or "high") to show: a pager when more sentences tie at that end
    than one list shows, else the first page."""
    n = 0 if ties is None else (ties.n_low if end == "low" else ties.n_high)
    key = f"w_agree_{end}_page"
    pages = -(-n // top)
    if pages <= 1:
        st.session_state.pop(key, None)
        return 0
    if int(st.session_state.get(key, 1)) > pages:  # fewer ties now (another pair, k or list length)
        del st.session_state[key]
    return int(st.session_state.get(key, 1)) - 1


def _ties(end: str, ties: core.ExtremeTies | None, top: int) -> None:
    """'2,460 sentences tied at 0; 10 shown at random', with the pager through them."""
    said = ties.sentence(end, top) if ties is not None else ""
    if not said or ties is None:
        return
    n = ties.n_low if end == "low" else ties.n_high
    pages = -(-n // top)
    c1, c2 = st.columns([3, 1])
    c1.info(
        f"{said} (a fixed random order, not a ranking): page through them to see the others.", icon=":material/info:"
    )
    c2.number_input(f"Page (of {pages:,})", 1, pages, 1, key=f"w_agree_{end}_page")


def _rankings(ad: AgreementData, values: np.ndarray, what: str, a: str | None, b: str | None) -> None:
    st.subheader("Least and most agreed sentences")
    top = st.slider("Sentences per list", 5, 50, 10, step=5, key="w_agree_top")
    low, high, deciles, ties = agreement_runs.rankings(ad.key, ad.k, a, b, top, ad)
    lp, hp = _page("low", ties, top), _page("high", ties, top)
    if lp or hp:
        low, high, deciles, ties = agreement_runs.rankings(ad.key, ad.k, a, b, top, ad, lp, hp)
    if deciles is None:
        st.info("No sentence has neighbors under these embedders: nothing to rank.")
        return
    tabs = st.tabs(["Least agreed", "Most agreed", "What distinguishes them"])
    with tabs[0]:
        _ties("low", ties, top)
        _table(ad, low, values, "agree_low")
        st.caption(f"Lowest per-sentence N2O ({what}) first; equal values in a fixed random order.")
    with tabs[1]:
        _ties("high", ties, top)
        _table(ad, high, values, "agree_high")
        st.caption(f"Highest per-sentence N2O ({what}) first; equal values in a fixed random order.")
    with tabs[2]:
        _groups(deciles)
        st.caption(f"The 10% least and most agreed sentences ({what}) against all ranked sentences.")


def _selection_table(ad: AgreementData, values: np.ndarray, valid: np.ndarray, what: str, selected: list[int]) -> None:
    sel = np.asarray(selected, np.int64)
    st.subheader(f"Selected: {len(sel):,} sentence{'s' if len(sel) != 1 else ''}")
    feats = agreement_runs.features(ad.corpus.fingerprint, ad.corpus)
    ranked = sel[valid[sel]]
    _groups(core.group_table(values, feats, {f"selected ({len(ranked):,})": ranked, "all": np.flatnonzero(valid)}))
    _table(ad, core.by_value(sel, values), values, "agree_selected")
    st.caption(
        f"Selected sentences by per-sentence N2O ({what}), lowest first. “Clear selection” above the maps "
        "brings back the rankings."
    )
