"""Quality beside agreement: per embedder, how much it agrees with the others (mean N2O) next to how it scores on
the paraphrase needle, human similarity and HEROS negation; a scatter of any two columns; CSV download. An
analysis not yet run for this corpus shows "—" and a button that runs it (nothing long runs by surprise)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from n2o_core.analyses.compare import ComparisonResult
from n2o_core.analyses.quality import QUALITY_COLUMNS, column_correlation, quality_csv, quality_display, quality_table
from n2o_core.corpora import Corpus
from n2o_core.evaluation.needle import combine_needle
from n2o_core.evaluation.sts import combine_sts
from n2o_core.figures import evaluation as figures_eval
from n2o_core.settings import HEROS_AVERAGING, NEEDLE_DEFAULT_SOURCE, SIMILARITY_DEFAULT_SOURCE, Settings, param_choice
from n2o_core.text import escape_markup
from ui import evaluation_runs as ev
from ui import heros_runs, n2o_runs, nav, page, talk
from ui.guard import message
from ui.shell import through_app

through_app()

LABELS = {k: c.label for k, c in QUALITY_COLUMNS.items()}
#: The scatter opens on two columns that differ between embedders (needle MRR on one-word edits is ~1 for all).
SCATTER_DEFAULT = ("n2o_mean", "sts_spearman")
_NEEDLE_DEFAULT_LABEL = (
    "the gensim Lee corpus's human-rated document pairs"
    if NEEDLE_DEFAULT_SOURCE == "builtin:lee"
    else f"SYNTHETIC ({NEEDLE_DEFAULT_SOURCE})"
)


def render(settings: Settings, corpus: Corpus | None) -> None:
    """Draw the page for the sidebar's settings and corpus."""
    st.header(nav.heading("quality"))
    on_talk = talk.active()  # on a projector: the table and the scatter, without the reading notes
    if not on_talk:
        st.caption(
            "Does an embedder that agrees with the others also do well on the quality measures? One row per "
            "embedder: its mean N2O with the others beside its paraphrase-needle MRR, its correlation with human "
            "similarity, its sensitivity to negation (HEROS) and its dimension."
        )
    lo = page.loaded(settings, corpus)
    names = lo.names
    res = n2o_runs.comparison(lo.key, tuple(names), lo.k, lo)
    ncfg, scfg = _configs(lo)
    n_per, _, _ = heros_runs.composition(lo)  # the HEROS page's run: one run serves both pages
    asked = st.session_state.pop("_quality_run", None)  # set by a button's callback, before this run
    if asked is not None:
        _run(asked, lo, ncfg, scfg, n_per)
    table = _quality_table(lo, res, ncfg, scfg, n_per)
    st.dataframe(
        quality_display(table),
        hide_index=True,
        column_config={c.label: st.column_config.Column(help=c.source) for c in QUALITY_COLUMNS.values()},
    )
    with st.expander("Where each column comes from", expanded=False):
        st.dataframe(_sources(lo, res, ncfg, scfg, n_per), hide_index=True)
    if not on_talk:
        st.caption(
            "The needle and human-similarity columns show the run last shown on their pages in this session (else "
            "the pages' defaults); HEROS negation sensitivity = normalized similarity (s − b)/(1 − b) of Synonym minus "
            "Negation (Main): positive means a negated sentence moves further from the original than a synonym swap. "
            "N2O says how alike two embedders are, not which is better: read it beside the quality columns."
        )
    st.download_button(
        "Table (CSV)", quality_csv(table), file_name="quality_vs_agreement.csv", mime="text/csv", key="dl_quality"
    )
    _scatter(table, names)


def _configs(lo: n2o_runs.Loaded) -> tuple[dict[str, Any], dict[str, Any]]:
    """Which run the needle and similarity columns show: the one last shown on its page in this session, else
    the page's default."""
    s = lo.settings
    fp = lo.corpus.fingerprint
    ncfg = ev.last("needle", fp) or {
        "pkey": ev.pair_key(NEEDLE_DEFAULT_SOURCE, {}, lo.corpus, s.seed),
        "fkey": ev.filter_key(None, None, ()),
        "label": _NEEDLE_DEFAULT_LABEL,
    }
    scfg = ev.last("sts", fp) or {
        "pkey": ev.pair_key(SIMILARITY_DEFAULT_SOURCE, {}, None, 0),
        "label": "gensim Lee corpus, 1,225 human-rated document pairs",
    }
    return ncfg, scfg


def _quality_table(
    lo: n2o_runs.Loaded, res: ComparisonResult, ncfg: dict[str, Any], scfg: dict[str, Any], n_per: int
) -> pd.DataFrame:
    """The table from the runs known so far, with a button for each analysis not yet run."""
    names = lo.names
    needle = ev.needle_known(lo, ncfg["pkey"], ncfg["fkey"])
    sts = ev.sts_known(lo.ws, scfg["pkey"], names)
    _, _, scored = heros_runs.composition(lo)
    heros = heros_runs.known(lo, n_per, lo.settings.seed, scored)
    todo = []
    if len(needle) < len(names):
        todo.append(("needle", f"Run the paraphrase needle on {ncfg['label']}"))
    if len(sts) < len(names):
        todo.append(("sts", f"Run human similarity on {scfg['label']}"))
    if len(set(heros.get("embedder", []))) < len(names):
        todo.append(("heros", f"Run HEROS ({n_per} minimal pairs per subset from {lo.corpus.name})"))
    if todo and not talk.active():  # no buttons on a projector
        st.caption("Columns whose analysis has not been run for this corpus and these embedders show —:")
        for col, (kind, label) in zip(st.columns(len(todo)), todo):
            col.button(
                escape_markup(label),
                key=f"run_{kind}",
                on_click=st.session_state.__setitem__,
                args=("_quality_run", kind),
            )
    needle_all, sts_all = combine_needle(list(needle.values())), combine_sts(list(sts.values()))
    return quality_table(
        names,
        n2o=res.mean,
        needle=needle_all.results if needle_all is not None else None,
        sts=sts_all.results if sts_all is not None else None,
        heros=heros if len(heros) else None,
        dims=ev.dims(lo),
    )


def _sources(
    lo: n2o_runs.Loaded, res: ComparisonResult, ncfg: dict[str, Any], scfg: dict[str, Any], n_per: int
) -> pd.DataFrame:
    """Where each column comes from, and which run this table shows."""
    s = lo.settings
    return pd.DataFrame(
        [
            {
                "column": LABELS["n2o_mean"],
                "source": QUALITY_COLUMNS["n2o_mean"].source,
                "this table": f"{page.chance_caption(lo, res.k, markdown=False)}",
            },
            {
                "column": LABELS["needle_mrr"],
                "source": QUALITY_COLUMNS["needle_mrr"].source,
                "this table": f"pairs: {ncfg['label']}; filters {_filters_text(ncfg['fkey'])}"
                + ("; z-normalized" if s.znorm else ""),
            },
            {
                "column": LABELS["sts_spearman"],
                "source": QUALITY_COLUMNS["sts_spearman"].source,
                "this table": f"pairs: {scfg['label']}; corpus-trained embedders fit on {lo.corpus.name}",
            },
            {
                "column": LABELS["negation_sensitivity"],
                "source": QUALITY_COLUMNS["negation_sensitivity"].source,
                "this table": f"{n_per} pairs per subset made from {lo.corpus.name}, seed {s.seed}, "
                + heros_averaging_text(lo)
                + ("; z-normalized" if s.znorm else ""),
            },
            {"column": LABELS["dim"], "source": QUALITY_COLUMNS["dim"].source, "this table": ""},
        ]
    )


def _scatter(table: pd.DataFrame, names: list[str]) -> None:
    """Any two columns against each other (the choice kept in the URL as qx= and qy=), with their correlation."""
    if not talk.active():
        st.subheader("Any two columns")
    keys = list(QUALITY_COLUMNS)
    for w, param, default in (("w_qx", "qx", SCATTER_DEFAULT[0]), ("w_qy", "qy", SCATTER_DEFAULT[1])):
        if w not in st.session_state:  # the link's value counts once; then the control decides
            v, note = param_choice(st.query_params, param, keys, default)
            if note:
                st.warning(escape_markup(note))
            st.session_state[w] = v
    c1, c2 = st.columns(2)
    x = c1.selectbox("x", keys, format_func=page.option_labels(LABELS), key="w_qx")
    y = c2.selectbox("y", keys, format_func=page.option_labels(LABELS), key="w_qy")
    st.query_params["qx"], st.query_params["qy"] = x, y
    st.plotly_chart(figures_eval.quality_scatter(table, x, y, labels=LABELS, color_order=names), key="quality_scatter")
    rho, n = column_correlation(table, x, y)
    st.caption(
        f"Spearman ρ over the {n} embedders with both values: "
        + ("not defined (fewer than 3, or a constant column)" if rho != rho else f"**{rho:.2f}**")
        + ". With this few embedders a correlation is a hint, not evidence."
    )


def heros_averaging_text(lo: n2o_runs.Loaded) -> str:
    """How the HEROS column averaged word vectors (as on the HEROS page)."""
    _, avg, _ = heros_runs.composition(lo)
    return f"averaged word vectors: {HEROS_AVERAGING.get(avg, avg)}"


def _filters_text(fkey: tuple) -> str:
    min_score, max_overlap, genres = fkey
    parts = [
        f"score ≥ {min_score:g}" if min_score is not None else "no score filter",
        f"overlap < {max_overlap:g}" if max_overlap is not None else "no overlap filter",
    ]
    if genres:
        parts.append("genres " + ", ".join(genres))
    return ", ".join(parts)


def _run(kind: str, lo: n2o_runs.Loaded, ncfg: dict[str, Any], scfg: dict[str, Any], n_per: int) -> None:
    """Run one analysis for the loaded embedders (progress shown by the ui wrappers); errors in place."""
    try:
        if kind == "needle":
            pairs = ev.pairs(ncfg["pkey"], lo.corpus)
            fpairs = ev.filtered(ncfg["pkey"], ncfg["fkey"], pairs)
            _, errors = ev.needle(lo, fpairs, ncfg["pkey"], ncfg["fkey"])
        elif kind == "sts":
            pairs = ev.pairs(scfg["pkey"])
            _, errors = ev.sts(lo.ws, pairs, scfg["pkey"], lo.names)
        else:
            _, _, scored = heros_runs.composition(lo)
            _, errors = heros_runs.run(lo, n_per, lo.settings.seed, scored)
    except Exception as e:  # noqa: BLE001 - one sentence in place
        st.warning(escape_markup(message(e, "The analysis")), icon="⚠️")
        return
    for eid, msg in errors.items():
        st.error(f"**{escape_markup(eid)}** is left out: {escape_markup(msg)}", icon="⚠️")
