"""Download buttons every page uses the same way: tables as CSV/JSON, figures as PNG/SVG and the whole view as a
small self-contained HTML report. Files are made only when a button is clicked (deferred data), so a page costs
nothing more to draw; a figure or report that cannot be rendered is one sentence in place."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlencode

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from n2o_core.analyses.overlap import chance_level
from n2o_core.errors import N2OError
from n2o_core.export import report
from n2o_core.export import tables as export

from .n2o_runs import Loaded


def stem(text: str) -> str:
    """A file-name-safe version of `text`."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-")[:80] or "n2o"


def view_link() -> str:
    """The link that reproduces this view (absolute when the browser told the server its address); the heatmap's
    Downloads section is not a view to come back to, so the link opens its matrix."""
    params = {k: st.query_params.get(k) for k in st.query_params if k != "talk"}
    if params.get("view") == "downloads":
        params.pop("view")
    base = ""
    try:
        base = st.context.url or ""
    except Exception:  # noqa: BLE001 - no browser context (tests): a relative link
        base = ""
    return f"{base}?{urlencode(params)}"


def meta(lo: Loaded, k: int, names: Sequence[str] | None = None) -> dict[str, object]:
    """What a report or a JSON table says about the view: corpus, size, k, chance, embedders, search."""
    n = len(lo.corpus)
    s = lo.settings
    return {
        "corpus": f"{lo.corpus.name} ({lo.corpus.source})" if lo.corpus.source else lo.corpus.name,
        "sentences (N)": f"{n:,}",
        "k": k,
        "chance level k/(N−1)": round(chance_level(k, n), 5) if n > 1 else None,
        "embedders": ", ".join(names if names is not None else lo.names),
        "query samples": f"{len(lo.plan.samples)} × {len(lo.plan.samples[0])} (seed {s.seed})",
        "search": ("approximate" if s.approx else "exact") + (", z-normalized" if s.znorm else ""),
    }


def table(
    df: pd.DataFrame, name: str, label: str, *, meta_: Mapping[str, object] | None = None, index: bool = False
) -> None:
    """CSV and JSON buttons for one table, side by side."""
    c1, c2 = st.columns(2)
    c1.download_button(
        f"{label} (CSV)",
        lambda: export.table_csv(df, index=index),
        file_name=f"{stem(name)}.csv",
        mime="text/csv",
        on_click="ignore",
        key=f"dl-{stem(name)}-csv",
    )
    c2.download_button(
        f"{label} (JSON)",
        lambda: export.table_json(df, meta_, index=index),
        file_name=f"{stem(name)}.json",
        mime="application/json",
        on_click="ignore",
        key=f"dl-{stem(name)}-json",
    )


def _safe(make: Callable[[], bytes | str], what: str) -> bytes | str:
    """Run a deferred download; an export failure becomes a small text file that says why (never a crash)."""
    try:
        return make()
    except N2OError as e:
        return f"{what} could not be made: {e}\n"


def figure(fig_or_build: go.Figure | Callable[[], go.Figure], name: str, label: str = "Figure") -> None:
    """PNG and SVG buttons for one figure (a figure, or a function that builds it when clicked)."""

    def get() -> go.Figure:
        return fig_or_build() if callable(fig_or_build) else fig_or_build

    c1, c2 = st.columns(2)
    c1.download_button(
        f"{label} (PNG)",
        lambda: _safe(lambda: export.figure_image(get(), "png"), label),
        file_name=f"{stem(name)}.png",
        mime="image/png",
        on_click="ignore",
        key=f"dl-{stem(name)}-png",
    )
    c2.download_button(
        f"{label} (SVG)",
        lambda: _safe(lambda: export.figure_image(get(), "svg"), label),
        file_name=f"{stem(name)}.svg",
        mime="image/svg+xml",
        on_click="ignore",
        key=f"dl-{stem(name)}-svg",
    )


def html_report(
    title: str, blocks: Callable[[], Sequence[report.Block]], name: str, meta_: Mapping[str, object]
) -> None:
    """One button: the view as a self-contained HTML file (figures as SVG, tables, the settings and the link)."""
    link = view_link()
    st.download_button(
        "Whole view: HTML report",
        lambda: _safe(lambda: report.html_report(title, blocks(), meta_, link=link), "The report"),
        file_name=f"{stem(name)}.html",
        mime="text/html",
        on_click="ignore",
        key=f"dl-{stem(name)}-html",
        help="Figures (SVG) and tables in one small HTML file that opens anywhere without network: attach it to "
        "a paper or a slide deck.",
    )
