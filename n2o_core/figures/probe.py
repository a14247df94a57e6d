"""Pure plotly figure builders for the probing page (SentEval's probing tasks, Conneau et al. 2018): the accuracy
heatmap of one classifier and how the embedders' ranking moves from one classifier to another (Pitfalls' point
that a ranking under logistic regression need not hold under an MLP). Frames in (`ProbeResult.table`,
`ProbeResult.ranking`), `go.Figure` out; no Streamlit, no I/O."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from n2o_core.errors import N2OError
from n2o_core.evaluation.probe.report import BASELINE_LABELS, CLASSIFIER_LABELS
from n2o_core.figures.style import base_layout, bump_chart, colors_for, heatmap_range
from n2o_core.text import escape_markup


def accuracy_heatmap(table: pd.DataFrame, *, classifier: str = "lr", title: str | None = None) -> go.Figure:
    """Row (baselines first, then the embedders) × task heatmap of test accuracy in percent, each value written in
    its cell, as the paper's Table 2 reads. `table`: `ProbeResult.table(classifier)` (index: task names; columns:
    majority, length, then the embedders). Colours span the embedders' accuracies (the baselines' rows use the
    same scale); a missing cell is blank. Hover: the accuracy and its gain over the majority baseline."""
    if "majority" not in table.columns:
        raise N2OError("The probing table lacks its majority column.")
    if table.empty:
        raise N2OError("There is no probing task with results to draw.")
    rows = list(table.columns)
    labels = [BASELINE_LABELS.get(r, escape_markup(r)) for r in rows]  # plotly reads tick and hover text as HTML
    z = table.T.to_numpy(float) * 100  # rows x tasks
    gain = z - table["majority"].to_numpy(float)[None, :] * 100
    emb = [i for i, r in enumerate(rows) if r not in BASELINE_LABELS]
    zmin, zmax = heatmap_range(z[emb] if emb else z, pad=1.0, bounds=(0.0, 100.0))
    text = np.array([[f"{v:.1f}" if np.isfinite(v) else "" for v in row] for row in z], dtype=object)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(table.index),
            y=labels,
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=12 if len(rows) <= 12 else 9),
            customdata=gain,
            hovertemplate="%{y} · %{x}<br>accuracy %{z:.1f}%<br>%{customdata:+.1f} points over the majority class"
            "<extra></extra>",
            hoverongaps=False,
            colorscale="Viridis",
            zmin=zmin,
            zmax=zmax,
            colorbar=dict(title=dict(text="accuracy %"), thickness=14),
        )
    )
    n_base = sum(r in BASELINE_LABELS for r in rows)
    if 0 < n_base < len(rows):  # a white rule between the baselines and the embedders
        y = n_base - 0.5
        fig.add_shape(type="line", xref="paper", x0=0, x1=1, y0=y, y1=y, line=dict(color="white", width=4))
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category")
    if title is None:
        title = f"Test accuracy (%), {CLASSIFIER_LABELS.get(classifier, classifier)}"
    return base_layout(fig, title, max(280, 34 * len(rows) + 150))


def ranking_bump(
    ranking: pd.DataFrame,
    classifiers: Sequence[str],
    *,
    title: str | None = None,
    color_order: Sequence[str] | None = None,
) -> go.Figure:
    """Each embedder's rank (1 = best mean accuracy) under each classifier, one line per embedder; lines of
    embedders whose rank changes are bold and labelled with the change, the others thin and dotted.
    `ranking`: `ProbeResult.ranking()` (embedder, rank_<classifier>, mean_<classifier>)."""
    cols = [f"rank_{c}" for c in classifiers]
    missing = [c for c in ["embedder", *cols] if c not in ranking.columns]
    if missing:
        raise N2OError(f"The probing ranking lacks column(s): {', '.join(missing)}.")
    names = ranking["embedder"].tolist()
    rows: list[list[int]] = []
    tags: list[str] = []
    means: list[list[float]] = []
    for _, row in ranking.iterrows():
        y = [int(row[c]) for c in cols]
        change = y[0] - y[-1]
        moved = len(set(y)) > 1
        rows.append(y)
        tags.append("" if not moved else f" ({'▲' if change > 0 else '▼'}{abs(change)})" if change else " (moves)")
        means.append([float(row.get(f"mean_{c}", np.nan)) * 100 for c in classifiers])
    return bump_chart(
        names,
        rows,
        [CLASSIFIER_LABELS.get(c, c) for c in classifiers],
        colors_for(names, color_order),
        rank_title="rank (1 = best mean accuracy)",
        tags=tags,
        customdata=means,
        hover_detail=", mean accuracy %{customdata:.1f}%",
        min_height=260,
        right_margin=220,
        title=title,
    )
