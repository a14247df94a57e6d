"""N2O heatmap: the matrix, each embedder's spread (Fig. 6), robustness across k and query samples (§6), downloads."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from n2o_core.analyses import anisotropy, face_value, overlap
from n2o_core.analyses.compare import ComparisonResult
from n2o_core.corpora import Corpus
from n2o_core.export import report
from n2o_core.export import tables as export
from n2o_core.figures import n2o as figures
from n2o_core.settings import HEATMAP_VIEWS, Settings, param_choice, settings_dict
from n2o_core.text import escape_markup
from ui import downloads, n2o_runs, nav, page, seed_reference, sidebar
from ui.guard import shown
from ui.shell import through_app

through_app()


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("heatmap"))
    st.caption(
        "Share of k nearest neighbors that two embedders agree on, averaged over the queries of each "
        "sample and then over the samples."
    )
    live = st.empty()

    def draw_partial(lo: n2o_runs.Loaded) -> None:
        """While embedders are still being prepared, show the matrix of those already done, every chosen embedder
        in the sidebar's order on a fixed colour scale (nothing moves as the others come in)."""
        res = n2o_runs.partial_comparison(lo)
        fig = figures.partial_heatmap(
            res.mean, lo.names, list(settings.embedders), std=res.std, chance=res.chance, k=res.k
        )
        live.plotly_chart(fig, key=f"partial-{len(lo.names)}", width="content")
        st.session_state.setdefault(PARTIAL_DRAWN, set()).add(_partial_key(lo))

    lo = page.loaded(settings, corpus, on_ready=draw_partial)
    live.empty()
    k, names = lo.k, tuple(lo.names)
    res = n2o_runs.comparison(lo.key, names, k, lo)
    fv = n2o_runs.face_value(lo, res)
    fkey = (lo.key, names, k, settings.order)

    def heat() -> go.Figure:
        order = figures.cluster_order(res.mean) if settings.order == "cluster" else list(range(len(names)))
        M, labels = figures.reorder(res.mean, list(names), order)
        SD, _ = figures.reorder(res.std, list(names), order)
        return figures.n2o_heatmap(M, labels, std=SD, chance=res.chance, k=k, cells_vs_chance=fv.chance_in_cells)

    fig = n2o_runs.figure("heatmap", fkey, heat)
    if _partial_key(lo) in st.session_state.get(PARTIAL_DRAWN, ()):
        lo_v, hi_v = fig.data[0].zmin, fig.data[0].zmax
        st.caption(
            f"All {len(names)} embedders are in: the matrix is now "
            f"{'ordered by clustering' if settings.order == 'cluster' else 'in the sidebar order'} and its colours "
            f"span {lo_v:.2f}–{hi_v:.2f} (while embedders came in: the sidebar order and a fixed 0–1 scale)."
        )
    _face_value_notes(fv)

    # One section at a time (kept in the link as view=): only what is on screen is computed, sent and drawn.
    if "w_hview" not in st.session_state:
        view, note = param_choice(st.query_params, "view", list(HEATMAP_VIEWS), "matrix")
        if note:
            st.warning(escape_markup(note))
        st.session_state["w_hview"] = view
    view = (
        st.segmented_control(
            "View",
            list(HEATMAP_VIEWS),
            format_func=page.option_labels(HEATMAP_VIEWS),
            key="w_hview",
            label_visibility="collapsed",
        )
        or "matrix"
    )
    st.query_params["view"] = view

    if view == "matrix":
        _matrix(lo, res, fig, names)
    elif view == "box":
        _box(lo, res, names, fkey)
    elif view == "robustness":
        _robustness(lo, res, names)
    else:
        _downloads(lo, res, fig, names)
    page.approximate_note(lo, k, list(names))


#: Session state: the settings (`_partial_key`) this session saw a partial heatmap for, while embedders came in;
#: the complete one then says once it is in (and keeps saying it for these settings), never after a view that was
#: complete at once (all from the cache).
PARTIAL_DRAWN = "heatmap_partial_drawn"


def _partial_key(lo: n2o_runs.Loaded) -> tuple:
    """What a partial heatmap was drawn for: the corpus, the chosen embedders, the query samples and the search."""
    s = lo.settings
    return (lo.corpus.fingerprint, tuple(s.embedders), lo.plan.key, lo.k_max, s.znorm, s.approx)


#: Said after the chance note when every cell shows its multiple of chance.
CELLS_VS_CHANCE = " Each cell's second line is its N2O as a multiple of chance."


def _face_value_notes(fv: face_value.FaceValue) -> None:
    """What the numbers must be read against on this corpus: chance, k's share, the query samples, corpus-trained
    embedders fit on too few sentences (nothing on a large corpus); in talk mode one line each."""
    for n in fv.notes():
        text = n.text + (CELLS_VS_CHANCE if n.id == "chance" and fv.chance_in_cells else "")
        page.note(text, short=n.short, level=n.level)


def _matrix(lo: n2o_runs.Loaded, res: ComparisonResult, fig: go.Figure, names: tuple[str, ...]) -> None:
    s = lo.settings
    st.plotly_chart(fig, key="heatmap", width="content")
    st.caption(
        page.chance_caption(lo, res.k)
        + ". Colours span the off-diagonal values (the diagonal, each embedder with itself, is left blank); "
        "the colour bar marks chance. Hover a cell for mean ± std over the samples. "
        + (
            "Rows are ordered by hierarchical clustering on 1 − N2O."
            if s.order == "cluster"
            else "Rows are in the order chosen in the sidebar."
        )
    )
    with st.expander("Embedders and pairs"):
        rows = n2o_runs.embedder_rows(lo.ws, list(names))
        rows["zero vectors"] = [lo.ws.zero_vector_count(e) for e in names]
        rows[f"recall@{res.k}"] = [None if (r := res.recall.get(e)) is None else round(r, 4) for e in names]
        rows["prepared in (s)"] = [
            round(lo.prepared.seconds[e], 1) if e in lo.prepared.seconds else None for e in names
        ]
        refs = seed_reference.column(lo, list(names), res.k)
        rows.insert(rows.columns.get_loc("composition") + 1, seed_reference.COLUMN, refs)
        aniso = n2o_runs.anisotropy(lo, list(names))
        rows[ANISO] = [round(a.raw, 3) if (a := aniso.get(e)) else None for e in names]
        rows[ANISO_Z] = [round(a.znorm, 3) if (a := aniso.get(e)) else None for e in names]
        # wide enough for "OpenVINO bf16" (the precision is the point of the column)
        st.dataframe(
            rows, hide_index=True, column_config={"engine": st.column_config.TextColumn(width="medium"), **ANISO_HELP}
        )
        seed_reference.offer(list(names), refs)
        _anisotropy_note(aniso)
        st.dataframe(overlap.pairs_table(res.mean, list(names), res.chance), hide_index=True)
    if s.approx and any(v is not None for v in res.recall.values()):
        st.plotly_chart(
            figures.recall_bars(res.recall, k=res.k, title=f"Approximate search: recall@{res.k}"), key="recall"
        )


ANISO = "random-pair cosine"
ANISO_Z = "after z-norm"
ANISO_HELP = {
    ANISO: st.column_config.NumberColumn(
        help="Mean cosine between random sentence pairs (anisotropy, Ethayarajh 2019): near 0, directions spread "
        "out; near 1, every sentence vector points the same way and neighbors are decided by small differences."
    ),
    ANISO_Z: st.column_config.NumberColumn(help="The same after z-normalization (the sidebar switch)."),
}


def _anisotropy_note(aniso: dict[str, anisotropy.Anisotropy]) -> None:
    """What a high random-pair cosine means, with the z-normalization switch one click away."""
    high = [a for a in aniso.values() if a.high]
    if not high:
        return
    st.caption(
        f"{', '.join(a.embedder for a in high)}: random sentence pairs sit at a mean cosine of "
        f"{' / '.join(f'{a.raw:.2f}' for a in high)} (≥ {anisotropy.HIGH_ANISOTROPY}: anisotropic), so every "
        "sentence is close to every other and their neighbors are decided by small differences of cosine. "
        "z-normalization takes the common direction out (mean cosine "
        f"{' / '.join(f'{a.znorm:.2f}' for a in high)} after it) and can change the neighbors."
    )
    sidebar.znorm_button("heatmap_znorm")


def _boxplot(res: ComparisonResult, names: tuple[str, ...]) -> go.Figure:
    """Each embedder's N2O with the others (Fig. 6), by decreasing median (`overlap.box_order`)."""
    dist = overlap.n2o_distribution(res.mean, list(names))
    return figures.n2o_boxplot(dist, chance=res.chance, order=overlap.box_order(dist))


def _box(lo: n2o_runs.Loaded, res: ComparisonResult, names: tuple[str, ...], fkey: tuple) -> None:
    st.plotly_chart(n2o_runs.figure("box", fkey, lambda: _boxplot(res, names)), key="box")
    st.caption(
        "Each box: one embedder's N2O with every other embedder (Lin & Smith 2019, Fig. 6). "
        "High and tight = an embedder whose neighbors others share; the dotted line is chance."
    )


def _robustness(lo: n2o_runs.Loaded, res: ComparisonResult, names: tuple[str, ...]) -> None:
    if len(names) < 3:
        st.info("Robustness compares rankings of embedder pairs: choose at least three embedders.")
        return
    rkey = (lo.key, names, lo.k_max, res.k)
    c1, c2 = st.columns(2)
    with c1, shown("Robustness across k"):
        R, curves = n2o_runs.robustness_across_k(lo.key, names, lo)
        summ = overlap.off_diagonal_summary(R.to_numpy())
        m1, m2 = st.columns(2)
        m1.metric("mean Spearman ρ between k", f"{summ['mean']:.3f}")
        m2.metric("lowest ρ", f"{summ['min']:.3f}")
        st.plotly_chart(
            n2o_runs.figure("spearman", rkey, lambda: figures.spearman_heatmap(R, title="Across k")), key="spearman"
        )
        st.caption(
            "Spearman ρ between the rankings of embedder pairs by N2O at two values of k, over all "
            f"{len(lo.plan.pool):,} pooled queries (paper §6: mean 0.996). ρ near 1: the conclusions do not "
            "depend on k."
        )
    with c2, shown("Robustness across query samples"):
        S, sizes = n2o_runs.robustness_across_samples(lo.key, names, res.k, lo)
        if len(S) < 2:
            st.info("Robustness across samples needs at least two query samples (sidebar: Samples).")
        else:
            summ = overlap.off_diagonal_summary(S.to_numpy())
            m1, m2 = st.columns(2)
            m1.metric("mean Spearman ρ between samples", f"{summ['mean']:.3f}")
            m2.metric("lowest ρ", f"{summ['min']:.3f}")
            st.plotly_chart(
                n2o_runs.figure(
                    "samples", rkey, lambda: figures.samples_heatmap(S, title=f"Across query samples, k = {res.k}")
                ),
                key="samples",
            )
            st.caption(
                f"Spearman ρ between the pair rankings of every two of the {len(S)} query samples at k = {res.k} "
                "(paper §6: mean 0.994 over five samples of 100)."
            )
    with st.expander("Sample size: how far the ranking moves with fewer queries per sample"):
        st.plotly_chart(n2o_runs.figure("sizes", rkey, lambda: figures.sample_size_curve(sizes)), key="sizes")
        st.caption(
            "Each sample cut to n of its queries (20 random cuts per n), N2O averaged over the samples as on the "
            "matrix, compared with the full-size matrix: Spearman ρ of the pair rankings (mean and worst cut) and "
            "the mean absolute N2O difference. The paper reports only the spread across samples; this checks "
            "that the sample size is large enough."
        )
    with st.expander("N2O of each pair as k grows"):
        ks = sorted(curves["k"].unique())
        chances = [overlap.chance_level(kk, len(lo.corpus)) for kk in ks]
        st.plotly_chart(n2o_runs.figure("curves", rkey, lambda: figures.n2o_vs_k(curves, chance=chances)), key="curves")


def _downloads(lo: n2o_runs.Loaded, res: ComparisonResult, fig: go.Figure, names: tuple[str, ...]) -> None:
    k = res.k
    st.download_button(
        "Matrix (CSV)",
        lambda: export.matrix_csv(res.mean, res.std, list(names), k=k, chance=res.chance),
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
    sims = {e: lo.prepared.neighbors[e].sims for e in names}
    c1, c2 = st.columns(2)
    c1.download_button(
        "Neighbors with sentences (CSV)",
        lambda: export.neighbors_csv(lo.corpus.texts, [int(q) for q in lo.plan.pool], res.neighbors, sims, k),
        file_name=f"neighbors-k{k}.csv",
        mime="text/csv",
        on_click="ignore",
        help="One row per (query, embedder, rank): the query's and the neighbor's ids and sentences and the cosine.",
    )
    c2.download_button(
        "Neighbors (JSON)",
        lambda: export.neighbors_json(
            corpus_meta,
            settings_dict(lo.settings),
            lo.plan.pool,
            list(lo.plan.samples),
            res.neighbors,
            sims,
            k,
            texts=lo.corpus.texts,
        ),
        file_name=f"neighbors-k{k}.json",
        mime="application/json",
        on_click="ignore",
        help="Ids and cosines of every pooled query's neighbors, with each sentence's text under \"texts\".",
    )
    downloads.figure(fig, f"n2o-k{k}", "Heatmap")
    pairs = overlap.pairs_table(res.mean, list(names), res.chance)
    embs = n2o_runs.embedder_rows(lo.ws, list(names))
    meta = downloads.meta(lo, k, names)
    downloads.table(pairs, f"n2o-pairs-k{k}", "Pairs", meta_=meta)

    def blocks() -> list[report.Block]:
        return [
            report.Figure(fig, page.chance_caption(lo, k, markdown=False), title="N2O of every pair"),
            report.Figure(
                _boxplot(res, names),
                "Each box: one embedder's N2O with every other embedder (Lin & Smith 2019, Fig. 6).",
                title="N2O per embedder",
            ),
            report.Table(pairs, "Unordered pairs, most similar first.", title="Pairs"),
            report.Table(embs, title="Embedders"),
        ]

    downloads.html_report("N2O heatmap", blocks, f"n2o-heatmap-k{k}", meta)
