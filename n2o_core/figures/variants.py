"""Figures of the Variants analysis (pure builders: a result of `evaluation.variants` in, a go.Figure out).

- `layer_matrices`: a layer x layer matrix of N2O beside one of linear CKA (rows: the layers of A; columns: the
  layers of B, or A's own), the chance level in the N2O panel's title, and in each panel the best-matching column
  of every row ringed (for a model against itself the diagonal, always 1, is left blank and out of the choice;
  against an embedder without layers, one column, the best row is ringed instead).
- `compression_curves`: N2O with the full-precision exact neighbors against bytes per vector (log scale), one
  curve per family, the chance level and the knee marked; beside it the needle MRR and STS Spearman of each
  variant against the same bytes (does the quality follow the neighbors?).
- `index_tradeoff`: recall@k (= N2O with exact search) against milliseconds per query, one point per setting,
  exact search and the tool's default named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from n2o_core.figures.labels import label_positions
from n2o_core.figures.style import PALETTE, base_layout, reference_line
from n2o_core.text import escape_markup

if TYPE_CHECKING:
    from n2o_core.evaluation.variants.compression import Compression
    from n2o_core.evaluation.variants.index import IndexSweep
    from n2o_core.evaluation.variants.layers import LayerComparison

__all__ = ["FAMILY_COLORS", "compression_curves", "index_tradeoff", "layer_label", "layer_matrices"]

#: One colour per compression family, the same in both panels.
FAMILY_COLORS: dict[str, str] = {
    "dims": PALETTE[0],
    "pca": PALETTE[1],
    "int8": PALETTE[2],
    "binary": PALETTE[3],
    "binary+rescore": PALETTE[5],
}
#: The ring around each row's best-matching cell.
BEST_COLOR = "#E45756"


def layer_label(eid: str, base: str | None = None) -> str:
    """'layer 3' for `base@layer=3` (the base named when it is not `base`), the id itself otherwise."""
    head, sep, tail = eid.rpartition("@layer=")
    if not sep or not tail.isdigit():
        return eid
    return f"layer {tail}" if base in (None, head) else f"{head} layer {tail}"


def layer_matrices(lc: LayerComparison) -> go.Figure:
    """N2O (left) and linear CKA (right) of every row layer with every column (see the module docstring)."""
    rows = [escape_markup(layer_label(r, lc.a)) for r in lc.rows]
    cols = [escape_markup(layer_label(c, lc.a)) for c in lc.cols]
    titles = (f"N2O at k = {lc.k} (chance {lc.chance:.4f})", "linear CKA")
    fig = make_subplots(rows=1, cols=2, subplot_titles=titles, horizontal_spacing=0.08)
    for col, (M, best, name) in enumerate(((lc.n2o, lc.best_n2o, "N2O"), (lc.cka, lc.best_cka, "linear CKA")), 1):
        M = np.array(M, float)
        shown = M.copy()
        if lc.within:
            np.fill_diagonal(shown, np.nan)
        vals = shown[np.isfinite(shown)]
        lo, hi = (float(vals.min()), float(vals.max())) if vals.size else (0.0, 1.0)
        fig.add_trace(
            go.Heatmap(
                z=shown,
                x=cols,
                y=rows,
                text=[[f"{v:.2f}" for v in r] for r in M],
                texttemplate="%{text}",
                colorscale="Blues",
                zmin=lo,
                zmax=hi if hi > lo else lo + 1e-9,
                showscale=False,
                hovertemplate=f"{name}<br>%{{y}} · %{{x}}: %{{z:.4f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        if len(cols) == 1:  # one column: every row's best is that column; ring the row that matches it best
            at, ring, what = ([cols[0]], [rows[int(np.nanargmax(M[:, 0]))]], "best layer")
        else:
            at, ring, what = ([cols[j] for j in best], rows, "best match of each row")
        fig.add_trace(
            go.Scatter(
                x=at,
                y=ring,
                mode="markers",
                marker=dict(symbol="square-open", size=26, color=BEST_COLOR, line=dict(width=2.5)),
                name=what,
                showlegend=col == 1,
                hovertemplate=f"{what} ({name}): %{{y}} · %{{x}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", automargin=True)  # the column layers under each matrix, room made for them
    fig.update_yaxes(showticklabels=False, row=1, col=2)
    base_layout(fig, None, max(320, 60 + 42 * len(rows)))
    fig.update_layout(
        margin=dict(t=60),
        legend=dict(orientation="h", x=1, xanchor="right", y=1.06, yanchor="bottom", bgcolor="rgba(255,255,255,0)"),
    )
    return fig


def compression_curves(comp: Compression) -> go.Figure:
    """N2O with the original against bytes per vector (left) and the variants' quality against the same bytes
    (right: needle MRR solid, STS Spearman dashed), one colour per family (see the module docstring)."""
    has_quality = any(p.needle_mrr is not None or p.sts_spearman is not None for p in comp.points)
    titles = (f"N2O with {escape_markup(comp.embedder)}'s exact neighbors (k = {comp.k})", "quality of each variant")
    fig = make_subplots(rows=1, cols=2 if has_quality else 1, subplot_titles=titles[: 2 if has_quality else 1])
    families = list(dict.fromkeys(p.family for p in comp.points))
    for fam in families:
        pts = sorted((p for p in comp.points if p.family == fam), key=lambda p: p.bytes_per_vector)
        color = FAMILY_COLORS.get(fam, PALETTE[-1])
        names = [escape_markup(p.variant) for p in pts]
        fig.add_trace(
            go.Scatter(
                x=[p.bytes_per_vector for p in pts],
                y=[p.n2o_with_original for p in pts],
                error_y=dict(type="data", array=[p.n2o_std for p in pts], thickness=1, width=3),
                mode="lines+markers",
                name=fam,
                legendgroup=fam,
                line=dict(color=color),
                customdata=np.array([[n, p.dims] for n, p in zip(names, pts)], dtype=object),
                hovertemplate="%{customdata[0]}<br>%{customdata[1]} dims · %{x:,} bytes<br>N2O %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        if not has_quality:
            continue
        for metric, dash, label in (("needle_mrr", "solid", "needle MRR"), ("sts_spearman", "dash", "STS Spearman")):
            got = [(p, getattr(p, metric)) for p in pts if getattr(p, metric) is not None]
            if not got:
                continue
            fig.add_trace(
                go.Scatter(
                    x=[p.bytes_per_vector for p, _ in got],
                    y=[v for _, v in got],
                    mode="lines+markers",
                    name=f"{fam}: {label}",
                    legendgroup=fam,
                    showlegend=False,
                    line=dict(color=color, dash=dash),
                    marker=dict(symbol="circle" if dash == "solid" else "diamond"),
                    customdata=[escape_markup(p.variant) for p, _ in got],
                    hovertemplate=f"%{{customdata}}<br>%{{x:,}} bytes<br>{label} %{{y:.3f}}<extra></extra>",
                ),
                row=1,
                col=2,
            )
    knee = next((p for p in comp.points if p.variant == comp.knee), None)
    if knee is not None:
        fig.add_trace(
            go.Scatter(
                x=[knee.bytes_per_vector],
                y=[knee.n2o_with_original],
                mode="markers",
                marker=dict(symbol="star", size=18, color="#222", line=dict(color="white", width=1)),
                name=f"knee: {escape_markup(knee.variant)}",
                hovertemplate="the knee (Kneedle on the frontier)<br>%{x:,} bytes · N2O %{y:.3f}<extra></extra>",
            ),
            row=1,
            col=1,
        )
    fig.add_hline(y=comp.chance, line=dict(color="#555", dash="dot", width=1.5), row=1, col=1)
    ticks = sorted({p.bytes_per_vector for p in comp.points})  # every size named (plotly's log minor ticks are small)
    fig.update_xaxes(
        type="log", tickvals=ticks, ticktext=[f"{b:,}" for b in ticks], title_text="bytes per vector (log scale)"
    )
    fig.update_yaxes(title_text="N2O with the original", rangemode="tozero", row=1, col=1)
    if has_quality:
        fig.update_yaxes(title_text="needle MRR (solid) · STS Spearman (dashed)", row=1, col=2)
    base_layout(fig, None, 460)
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="lines", line=dict(color="#555", dash="dot"), name="chance"))
    fig.update_layout(margin=dict(t=60), legend=dict(orientation="h", x=0, y=-0.18, yanchor="top"))
    return fig


def index_tradeoff(sweep: IndexSweep) -> go.Figure:
    """Recall@k against milliseconds per query, one point per search setting (see the module docstring)."""
    pts = [p for p in sweep.points if np.isfinite(p.query_seconds_per_query)]
    labels = [
        "exact" if p.n_neighbors is None else f"n_neighbors={p.n_neighbors}" + (" (default)" if p.default else "")
        for p in pts
    ]
    x = [1000 * p.query_seconds_per_query for p in pts]
    y = [p.recall for p in pts]
    fig = go.Figure(
        go.Scatter(
            x=x,
            y=y,
            mode="markers+text",
            text=labels,
            textposition=label_positions(x, y, labels, width_px=900, height_px=340, log_x=True),
            marker=dict(
                size=[16 if p.default or p.n_neighbors is None else 11 for p in pts],
                color=[PALETTE[3] if p.n_neighbors is None else PALETTE[0] for p in pts],
                symbol=["diamond" if p.n_neighbors is None else "circle" for p in pts],
            ),
            customdata=[[lab, p.build_seconds] for lab, p in zip(labels, pts)],
            hovertemplate="%{customdata[0]}<br>%{x:.3f} ms per query · build %{customdata[1]:.2f} s"
            f"<br>recall@{sweep.k} %{{y:.3f}}<extra></extra>",
            showlegend=False,
        )
    )
    steps = [m * 10.0**e for e in range(-4, 4) for m in (1, 3)]  # 1-3-10 steps, full-size labels in talk mode
    ticks = [v for v in steps if x and min(x) / 2 <= v <= max(x) * 2]
    fig.update_xaxes(type="log", tickvals=ticks, ticktext=[f"{v:g}" for v in ticks])
    fig.update_xaxes(title_text="milliseconds per query (log scale)")
    fig.update_yaxes(title_text=f"recall@{sweep.k} = N2O with exact search")
    base_layout(fig, None, 420)
    reference_line(fig, 1.0, "exact search finds every neighbor")
    return fig
