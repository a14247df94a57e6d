"""One view as a small self-contained HTML file (figures + tables + a few lines of text) to attach to a paper or
a slide deck: no script, no network, nothing to install to open it.

Figures are drawn by `export.figure_image` as SVG (vector, sharp when printed) and embedded as data URIs, so
each figure keeps its own ids and styles; tables are escaped HTML (corpus text can never become markup); the
view's settings and its link are listed at the top, so a reader can reproduce it.

    html = html_report("N2O heatmap", [Figure(fig, "k = 10"), Table(pairs_df, "pairs")], meta={"corpus": "bbc"})
"""

from __future__ import annotations

import base64
import html
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go

import n2o_core.export.tables as export
from n2o_core.version import __version__

__all__ = ["Figure", "Table", "Text", "html_report"]


@dataclass(frozen=True)
class Figure:
    """A plotly figure, drawn as SVG; `title` above it, `caption` below."""

    fig: go.Figure
    caption: str = ""
    title: str = ""
    width: int = 900


@dataclass(frozen=True)
class Table:
    """A table; only its first `max_rows` rows go into the report (the CSV download has them all)."""

    df: pd.DataFrame
    caption: str = ""
    title: str = ""
    index: bool = False
    max_rows: int = 300


@dataclass(frozen=True)
class Text:
    """Plain text (escaped); blank lines separate paragraphs."""

    text: str
    title: str = ""


Block = Figure | Table | Text

_CSS = """
body{font-family:Inter,Helvetica,Arial,sans-serif;margin:2rem auto;max-width:1000px;padding:0 1rem;color:#222}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin:1.8rem 0 .4rem}
.meta{font-size:.85rem;color:#555;border-collapse:collapse;margin:.6rem 0 1rem}
.meta td{padding:1px 10px 1px 0;vertical-align:top}.meta td:first-child{color:#888}
figure{margin:0}figure img{max-width:100%;height:auto}
figcaption,.cap{font-size:.85rem;color:#555;margin:.3rem 0 1rem}
table.t{border-collapse:collapse;font-size:.82rem;width:100%}
table.t th,table.t td{border-bottom:1px solid #e5e5e5;padding:3px 6px;text-align:left;vertical-align:top}
table.t th{background:#f6f6f6}
footer{margin-top:2rem;font-size:.75rem;color:#999}
"""


def _figure(b: Figure) -> str:
    svg = export.figure_image(b.fig, "svg", width=b.width)
    uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")
    alt = html.escape(b.title or b.caption or "figure", quote=True)
    cap = f"<figcaption>{html.escape(b.caption)}</figcaption>" if b.caption else ""
    return f'<figure><img src="{uri}" alt="{alt}">{cap}</figure>'


def _cell(v: object) -> str:
    """A table cell as text: floats to 4 decimals (trailing zeros dropped), missing values empty."""
    if v is None:
        return ""
    if isinstance(v, (float, np.floating)):
        return "" if not np.isfinite(v) else f"{float(v):.4f}".rstrip("0").rstrip(".")
    try:
        if pd.isna(v):  # type: ignore[call-overload]
            return ""
    except (TypeError, ValueError):  # lists and arrays
        pass
    return str(v)


def _table(b: Table) -> str:
    df = b.df.reset_index() if b.index else b.df
    shown = df.head(b.max_rows)
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in shown.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>"
        for row in shown.itertuples(index=False, name=None)
    )
    more = (
        f'<p class="cap">The first {len(shown):,} of {len(df):,} rows; the CSV download has all of them.</p>'
        if len(df) > len(shown)
        else ""
    )
    cap = f'<p class="cap">{html.escape(b.caption)}</p>' if b.caption else ""
    return f'<table class="t"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}{cap}'


def _text(b: Text) -> str:
    return "".join(f"<p>{html.escape(p.strip())}</p>" for p in b.text.split("\n\n") if p.strip())


def html_report(
    title: str, blocks: Sequence[Block], meta: Mapping[str, object] | None = None, *, link: str | None = None
) -> str:
    """A self-contained HTML page: `title`, the `meta` key/value lines (corpus, k, settings, ...) and the link
    that reproduces the view, then each block in order. Figures need the SVG renderer (N2OError otherwise)."""
    rows = [f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>" for k, v in (meta or {}).items()]
    if link:
        href = html.escape(link, quote=True)
        shown = f'<a href="{href}">{html.escape(link)}</a>' if link.startswith(("http://", "https://")) else href
        rows.append(f"<tr><td>link</td><td>{shown}</td></tr>")
    meta_html = "".join(rows)
    parts = []
    for b in blocks:
        if b.title:
            parts.append(f"<h2>{html.escape(b.title)}</h2>")
        if isinstance(b, Figure):
            parts.append(_figure(b))
        elif isinstance(b, Table):
            parts.append(_table(b))
        else:
            parts.append(_text(b))
    made = time.strftime("%Y-%m-%d %H:%M")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        + (f'<table class="meta">{meta_html}</table>' if meta_html else "")
        + "".join(parts)
        + f"<footer>N2O Explorer {html.escape(__version__)} · {made}</footer></body></html>\n"
    )
