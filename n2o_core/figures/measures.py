"""Figures of the similarity measures beyond N2O (pure builders: a `MeasureComparison` in, a go.Figure out).

- `measure_matrices`: one embedders x embedders matrix per measure, in the N2O heatmap's layout and in one
  embedder order for all; each panel's title carries the measure's display name, its null (what two unrelated
  spaces give) and, for a distance (Procrustes), that it is one: its colour scale runs the other way, so that in
  every panel darker means more alike. A cell whose permutation p is above 0.05 is marked "n.s.".
- `measure_agreement_heatmap`: Spearman correlation between every two measures over the embedder pairs.
- `embedder_maps`: classical MDS of 1 - similarity, one square panel per measure at a fixed pixel size and equal
  scales, each embedder a point in its family's colour, its label placed by `labels.clear_placements` so that no
  label (or its leader line) touches any point.

Measures are named by their display names (`n2o_core.measures.display_name`) everywhere on the figures; the ids
stay in the data (JSON, links).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from n2o_core.figures.labels import GroupLabel, place_labels
from n2o_core.figures.style import base_layout, embedder_colors
from n2o_core.measures import display_name, get_measure
from n2o_core.measures.summary import classical_mds, similarity_matrix, value_matrix
from n2o_core.text import escape_markup

if TYPE_CHECKING:
    from n2o_core.measures.run import MeasureComparison

__all__ = [
    "MapGeometry",
    "embedder_maps",
    "map_geometry",
    "map_labels",
    "measure_agreement_heatmap",
    "measure_matrices",
    "panel_title",
]

#: The significance level of the "n.s." marks (a permutation p above it).
ALPHA = 0.05
#: Font size of the embedder labels on the maps.
LABEL_SIZE = 11
#: Pixels above the first row of matrices: their two-line titles.
MATRIX_MARGIN_TOP_PX = 56
#: The maps' square panels (px; drawn at this size wherever a panel's column is at least this wide), the pixels
#: between two rows (their titles sit there), the margins above and below, and the markers' diameter.
MAP_PANEL_PX = 250
MAP_ROW_GAP_PX = 56
MAP_MARGIN_TOP_PX = 40
MAP_MARGIN_BOTTOM_PX = 10
MAP_MARKER_PX = 11
#: The leader lines' colour (a light embedder colour would not show).
LEADER_COLOR = "#777777"
#: Pixels kept free inside each side of a map panel, so that labels of points at the edge still fit.
MAP_INSET_PX = 28
#: How far (px: sideways, up and down) a label may leave its square panel at no cost: a column is wider than the
#: panel it holds, and a row's title sits above it.
MAP_SLACK_PX = (24, 4)


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


def panel_title(measure: str, null: float | None = None) -> str:
    """A measure's panel title: its display name, then on a second line (so that titles of panels side by side
    never meet) "distance" for a measure where lower = more alike and its null mean (three decimals) when known."""
    parts = ["distance"] if not get_measure(measure).higher_is_similar else []
    if null is not None:
        parts.append(f"null {_three(null)}")
    return display_name(measure) + (f"<br>({'; '.join(parts)})" if parts else "")


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
    titles = [panel_title(msr, _null_of(cmp, msr)) for msr in measures]
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
                colorscale="Blues" if m.higher_is_similar else "Blues_r",  # darker = more alike, always
                zmin=lo,
                zmax=hi if hi > lo else lo + 1e-9,
                showscale=False,
                hovertemplate=f"{display_name(msr)}<br>%{{y}} → %{{x}}: %{{z:.4f}}"
                + ("" if m.higher_is_similar else " (a distance: lower = more alike)")
                + "<extra></extra>",
            ),
            row=idx // cols + 1,
            col=idx % cols + 1,
        )
    fig.update_yaxes(autorange="reversed")
    _outer_ticks_only(fig, len(measures), rows, cols)
    base_layout(fig, None, max(360, 330 * rows))
    fig.update_layout(margin=dict(t=MATRIX_MARGIN_TOP_PX))  # the first row's two-line titles
    return fig


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
    names = [display_name(m) for m in measures]
    fig = go.Figure(
        go.Heatmap(
            z=R,
            x=names,
            y=names,
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


@dataclass(frozen=True)
class MapGeometry:
    """Where the embedder maps put things: the rows and columns of panels, each panel's side in px, and the
    figure's height (px) that gives the panels that side."""

    rows: int
    cols: int
    panel_px: int
    height_px: int

    @property
    def row_gap(self) -> float:
        """make_subplots' vertical_spacing for `MAP_ROW_GAP_PX` between rows."""
        plot = self.height_px - MAP_MARGIN_TOP_PX - MAP_MARGIN_BOTTOM_PX
        return MAP_ROW_GAP_PX / plot if self.rows > 1 else 0.0


def map_geometry(panels: int, cols: int = 3, panel_px: int = MAP_PANEL_PX) -> MapGeometry:
    """The geometry of `panels` square map panels, `cols` a row."""
    rows, cols = _grid(panels, cols)
    height = rows * panel_px + (rows - 1) * MAP_ROW_GAP_PX + MAP_MARGIN_TOP_PX + MAP_MARGIN_BOTTOM_PX
    return MapGeometry(rows, cols, panel_px, height)


def _square_range(xy: np.ndarray, panel_px: int) -> tuple[np.ndarray, float]:
    """(lower-left corner, span) of a square data window around the points that leaves `MAP_INSET_PX` free on
    every side of a `panel_px` panel (equal scales on both axes, as MDS distances need)."""
    lo, hi = np.nanmin(xy, axis=0), np.nanmax(xy, axis=0)
    extent = float(np.max(hi - lo))
    extent = extent if extent > 0 else 1.0
    span = extent * panel_px / (panel_px - 2 * MAP_INSET_PX)
    return (lo + hi) / 2 - span / 2, span


def map_labels(
    xy: np.ndarray, names: Sequence[str], panel_px: int = MAP_PANEL_PX
) -> tuple[np.ndarray, float, list[GroupLabel]]:
    """The data window (lower-left corner, span) of one map panel and its labels (`labels.place_labels` on the
    square panel in px, its frame widened by `MAP_SLACK_PX`: a column is wider than its panel), each anchor
    converted back to data coordinates."""
    corner, span = _square_range(xy, panel_px)
    px = (np.nan_to_num(xy) - corner) / span * panel_px
    slack_x, slack_y = MAP_SLACK_PX
    placed = place_labels(
        px[:, 0].tolist(),
        px[:, 1].tolist(),
        names,
        font_px=LABEL_SIZE,
        radius_px=MAP_MARKER_PX / 2,
        frame=(-slack_x, -slack_y, panel_px + slack_x, panel_px + slack_y),
    )
    scale = span / panel_px
    return corner, span, [replace(g, x=corner[0] + g.x * scale, y=corner[1] + g.y * scale) for g in placed]


def _label_annotation(label: GroupLabel, names: Sequence[str], axis: str) -> dict:
    """A label as an annotation at its anchor: shifted beside it, or at the end of a leader line."""
    p = label.placement
    text = "<br>".join(escape_markup(names[i]) for i in label.members)  # plotly reads annotation text as HTML
    common = dict(x=label.x, y=label.y, xref=f"x{axis}", yref=f"y{axis}", text=text, font=dict(size=LABEL_SIZE))
    common.update(borderpad=2, align="left" if p.dx > 0 else ("right" if p.dx < 0 else "center"))
    if not p.leader:
        return dict(common, showarrow=False, xanchor="center", yanchor="middle", xshift=p.dx, yshift=p.dy)
    return dict(
        common,
        showarrow=True,
        ax=p.dx,
        ay=-p.dy,  # plotly's ay points down
        axref="pixel",
        ayref="pixel",
        arrowhead=0,
        arrowwidth=1,
        arrowcolor=LEADER_COLOR,
        standoff=MAP_MARKER_PX / 2 + 1,
        xanchor="center",
        yanchor="middle",
    )


def embedder_maps(cmp: MeasureComparison, measures: Sequence[str] | None = None, cols: int = 3) -> go.Figure:
    """Classical MDS of 1 - similarity (both directions averaged; the Procrustes angle as its cosine), one square
    panel per measure at equal scales: embedders close together are alike under that measure. Each label is an
    annotation placed by `map_labels` (beside its point, or at the end of a leader line), clear of every point
    when the panel is drawn at `MAP_PANEL_PX` (its column at least that wide)."""
    measures = list(measures or cmp.measures)
    names = list(cmp.embedders)
    colors = embedder_colors(names)
    geo = map_geometry(len(measures), cols)
    fig = make_subplots(
        rows=geo.rows,
        cols=geo.cols,
        subplot_titles=[display_name(m) for m in measures],
        horizontal_spacing=0.06,
        vertical_spacing=geo.row_gap,
    )
    labels: list[dict] = []
    for idx, msr in enumerate(measures):
        S = similarity_matrix(cmp, msr)
        D = np.clip(np.max(np.diag(S)) - S, 0.0, None)
        np.fill_diagonal(D, 0.0)
        xy = classical_mds(np.nan_to_num(D, nan=float(np.nanmax(D)) if np.isfinite(D).any() else 1.0))
        corner, span, placed = map_labels(xy, names, geo.panel_px)
        row, col = idx // geo.cols + 1, idx % geo.cols + 1
        fig.add_trace(
            go.Scatter(
                x=xy[:, 0],
                y=xy[:, 1],
                mode="markers",
                text=[escape_markup(e) for e in names],
                marker=dict(size=MAP_MARKER_PX, color=[colors[e] for e in names]),
                hovertemplate="%{text}<extra>" + display_name(msr) + "</extra>",
                showlegend=False,
            ),
            row=row,
            col=col,
        )
        axis = "" if idx == 0 else str(idx + 1)
        fig.update_xaxes(range=[corner[0], corner[0] + span], constrain="domain", row=row, col=col)
        fig.update_yaxes(
            range=[corner[1], corner[1] + span],
            scaleanchor=f"x{axis}",
            scaleratio=1,
            constrain="domain",
            row=row,
            col=col,
        )
        labels += [_label_annotation(lab, names, axis) for lab in placed]
    for a in labels:
        fig.add_annotation(**a)
    fig.update_xaxes(showticklabels=False, zeroline=False, showgrid=False)
    fig.update_yaxes(showticklabels=False, zeroline=False, showgrid=False)
    base_layout(fig, None, geo.height_px)
    fig.update_layout(margin=dict(t=MAP_MARGIN_TOP_PX, b=MAP_MARGIN_BOTTOM_PX))
    return fig
