"""Figures of the similarity measures beyond N2O (pure builders: a `MeasureComparison` in, a go.Figure out).

- `measure_matrices`: one embedders x embedders matrix per measure, in the N2O heatmap's layout and in one
  embedder order for all; each panel's title carries its null (what two unrelated spaces give) and a cell whose
  permutation p is above 0.05 is marked "n.s.".
- `measure_agreement_heatmap`: Spearman correlation between every two measures over the embedder pairs.
- `embedder_maps`: classical MDS of 1 - similarity, one panel per measure, each embedder a labelled point in its
  family's colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from n2o_core.figures.labels import label_positions
from n2o_core.figures.style import base_layout, embedder_colors
from n2o_core.measures import get_measure
from n2o_core.measures.summary import classical_mds, similarity_matrix, value_matrix
from n2o_core.text import escape_markup

if TYPE_CHECKING:
    from n2o_core.measures.run import MeasureComparison

__all__ = ["embedder_maps", "measure_agreement_heatmap", "measure_matrices"]

#: The significance level of the "n.s." marks (a permutation p above it).
ALPHA = 0.05
#: Font size of the embedder labels on the maps.
LABEL_SIZE = 11


def _grid(n: int, cols: int) -> tuple[int, int]:
    cols = max(1, min(cols, n))
    return math.ceil(n / cols), cols


def _null_of(cmp: MeasureComparison, measure: str) -> float | None:
    vals = [r["null_mean"] for r in cmp.rows if r["measure"] == measure and r["null_mean"] is not None]
    vals = [v for v in vals if math.isfinite(v)]
    return float(np.mean(vals)) if vals else None


def _p_matrix(cmp: MeasureComparison, measure: str, names: Sequence[str]) -> np.ndarray:
    pos = {e: i for i, e in enumerate(names)}
    symmetric = get_measure(measure).symmetric
    out = np.full((len(names), len(names)), np.nan)
    for r in cmp.rows:
        if r["measure"] != measure:
            continue
        i, j = pos[r["a"]], pos[r["b"]]
        out[i, j] = r["p"]
        if symmetric:
            out[j, i] = r["p"]
    return out


def _three(x: float) -> str:
    """x to three decimals, without the minus sign of a value that rounds to zero ("-0.000")."""
    text = f"{x:.3f}"
    return "0.000" if text == "-0.000" else text


def measure_matrices(
    cmp: MeasureComparison, measures: Sequence[str] | None = None, order: Sequence[int] | None = None, cols: int = 3
) -> go.Figure:
    """One heatmap per measure (values as computed; row a, column b for a directional measure), embedders in
    `order` (e.g. the N2O heatmap's cluster order) in every panel."""
    measures = list(measures or cmp.measures)
    names = list(cmp.embedders)
    order = list(order) if order is not None else list(range(len(names)))
    labels = [escape_markup(names[i]) for i in order]  # plotly reads tick and hover text as HTML
    rows, cols = _grid(len(measures), cols)
    titles = []
    for msr in measures:
        null = _null_of(cmp, msr)
        titles.append(f"{msr}" + (f" (null {_three(null)})" if null is not None else ""))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles, horizontal_spacing=0.04, vertical_spacing=0.1)
    for idx, msr in enumerate(measures):
        m = get_measure(msr)
        M = value_matrix(cmp, msr)[np.ix_(order, order)]
        P = _p_matrix(cmp, msr, names)[np.ix_(order, order)]
        text = [
            [
                f"{M[i, j]:.2f}" + (" n.s." if np.isfinite(P[i, j]) and P[i, j] > ALPHA else "") if i != j else ""
                for j in range(len(order))
            ]
            for i in range(len(order))
        ]
        off = M[~np.eye(len(order), dtype=bool)]
        lo, hi = (float(np.nanmin(off)), float(np.nanmax(off))) if off.size else (0.0, 1.0)
        fig.add_trace(
            go.Heatmap(
                z=np.where(np.eye(len(order), dtype=bool), np.nan, M),
                x=labels,
                y=labels,
                text=text,
                texttemplate="%{text}",
                colorscale="Blues" if m.higher_is_similar else "Blues_r",
                zmin=lo,
                zmax=hi if hi > lo else lo + 1e-9,
                showscale=False,
                hovertemplate=f"{msr}<br>%{{y}} → %{{x}}: %{{z:.4f}}<extra></extra>",
            ),
            row=idx // cols + 1,
            col=idx % cols + 1,
        )
    fig.update_yaxes(autorange="reversed")
    _outer_ticks_only(fig, len(measures), rows, cols)
    return base_layout(fig, None, max(360, 330 * rows))


def _outer_ticks_only(fig: go.Figure, n: int, rows: int, cols: int) -> None:
    """Every panel shows the embedders in one order: name them once, on the first column (rows) and on the lowest
    panel of each column, so no panel's tick labels run into its neighbour's or the title below."""
    for idx in range(n):
        row, col = idx // cols + 1, idx % cols + 1
        if col > 1:
            fig.update_yaxes(showticklabels=False, row=row, col=col)
        if idx + cols < n:
            fig.update_xaxes(showticklabels=False, row=row, col=col)


def measure_agreement_heatmap(cmp: MeasureComparison) -> go.Figure:
    """Measure x measure Spearman correlation over the embedder pairs (1 on the diagonal; blank where undefined)."""
    measures = list(cmp.measures)
    pos = {m: i for i, m in enumerate(measures)}
    R = np.eye(len(measures))
    for row in cmp.measure_agreement():
        rho = row["spearman"]
        R[pos[row["m1"]], pos[row["m2"]]] = R[pos[row["m2"]], pos[row["m1"]]] = np.nan if rho is None else rho
    text = [["" if not np.isfinite(v) else f"{v:+.2f}" for v in r] for r in R]
    fig = go.Figure(
        go.Heatmap(
            z=R,
            x=measures,
            y=measures,
            text=text,
            texttemplate="%{text}",
            colorscale="RdBu",
            zmin=-1,
            zmax=1,
            colorbar=dict(title="Spearman", thickness=14, len=0.8),
            hovertemplate="%{y} vs %{x}: %{z:+.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(tickangle=-90)  # twelve names side by side: upright, none runs into the next
    return base_layout(fig, f"Do the measures rank the {len(cmp.embedders)} embedders' pairs alike?", 520)


def embedder_maps(cmp: MeasureComparison, measures: Sequence[str] | None = None, cols: int = 3) -> go.Figure:
    """Classical MDS of 1 - similarity (both directions averaged; the Procrustes angle as its cosine), one panel
    per measure: embedders close together are alike under that measure."""
    measures = list(measures or cmp.measures)
    names = list(cmp.embedders)
    colors = embedder_colors(names)
    rows, cols = _grid(len(measures), cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=measures, horizontal_spacing=0.06, vertical_spacing=0.1)
    for idx, msr in enumerate(measures):
        S = similarity_matrix(cmp, msr)
        D = np.clip(np.max(np.diag(S)) - S, 0.0, None)
        np.fill_diagonal(D, 0.0)
        xy = classical_mds(np.nan_to_num(D, nan=float(np.nanmax(D)) if np.isfinite(D).any() else 1.0))
        fig.add_trace(
            go.Scatter(
                x=xy[:, 0],
                y=xy[:, 1],
                mode="markers+text",
                text=[escape_markup(e) for e in names],
                textposition=label_positions(
                    xy[:, 0].tolist(), xy[:, 1].tolist(), names, width_px=260, height_px=260, font_px=LABEL_SIZE
                ),
                textfont=dict(size=LABEL_SIZE),
                cliponaxis=False,
                marker=dict(size=11, color=[colors[e] for e in names]),
                hovertemplate="%{text}<extra>" + msr + "</extra>",
                showlegend=False,
            ),
            row=idx // cols + 1,
            col=idx % cols + 1,
        )
    fig.update_xaxes(showticklabels=False, zeroline=False)
    fig.update_yaxes(showticklabels=False, zeroline=False)
    return base_layout(fig, None, max(360, 330 * rows))
