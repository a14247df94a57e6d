"""Pure plotly figure builders for the evaluation pages: paraphrase needle (N2O §8), human similarity (Pitfalls)
and quality beside agreement. Data in (the cores' frames), `go.Figure` out; no Streamlit, no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from n2o_core.errors import N2OError
from n2o_core.evaluation.sts import SCORING_LABELS  # the scorings' display names, defined once
from n2o_core.figures.labels import label_positions
from n2o_core.figures.style import PALETTE, base_layout, bump_chart, colors_for
from n2o_core.text import escape_markup

SYNTHETIC_TAG = "SYNTHETIC pairs"


def _need(df: pd.DataFrame, cols: Sequence[str], what: str) -> None:
    missing = set(cols) - set(df.columns)
    if missing:
        raise N2OError(f"The {what} frame lacks column(s): {', '.join(sorted(missing))}.")


def needle_mrr(
    results: pd.DataFrame,
    *,
    synthetic: bool = False,
    title: str | None = None,
    color_order: Sequence[str] | None = None,
) -> go.Figure:
    """MRR per embedder as a dot with its bootstrap 95% CI, best on top (N2O Table 3 as a figure).

    `results`: `NeedleResult.results` (embedder, mrr, mrr_ci_low, mrr_ci_high, top1, top5, n). The default title
    says how many pairs the intervals rest on; with `synthetic`, it says the pairs are synthetic."""
    _need(results, ("embedder", "mrr", "mrr_ci_low", "mrr_ci_high", "top1", "top5", "n"), "needle results")
    df = results.sort_values("mrr", ascending=True, kind="stable")  # plotly draws the first category at the bottom
    names = df["embedder"].tolist()
    colors = colors_for(names, color_order)
    mrr = df["mrr"].to_numpy(float)
    lo, hi = df["mrr_ci_low"].to_numpy(float), df["mrr_ci_high"].to_numpy(float)
    fig = go.Figure(
        go.Scatter(
            x=mrr,
            y=[escape_markup(n) for n in names],
            mode="markers",
            marker=dict(size=12, color=[colors[n] for n in names], line=dict(width=1, color="#333")),
            error_x=dict(
                type="data",
                symmetric=False,
                array=np.nan_to_num(hi - mrr),
                arrayminus=np.nan_to_num(mrr - lo),
                thickness=1.5,
                width=6,
                color="#333",
            ),
            customdata=np.column_stack([lo, hi, df["top1"], df["top5"], df["n"]]),
            hovertemplate="%{y}<br>MRR %{x:.3f}<br>95% CI [%{customdata[0]:.3f}, %{customdata[1]:.3f}]"
            "<br># top %{customdata[2]} · # top-5 %{customdata[3]} of %{customdata[4]} pairs<extra></extra>",
            showlegend=False,
        )
    )
    top = float(np.nanmax(hi)) if np.isfinite(hi).any() else 1.0
    fig.update_xaxes(title="MRR (1 = every paraphrase ranked first)", range=[0, min(1.04, top * 1.08) or 1.04])
    fig.update_yaxes(title=None)
    if title is None:
        counts = sorted(set(df["n"].astype(int)))
        n = f"{counts[0]:,} pairs" if len(counts) == 1 else f"{counts[0]:,}–{counts[-1]:,} pairs"
        title = f"Paraphrase rank: MRR with bootstrap 95% CI, {n}"
    if synthetic and SYNTHETIC_TAG not in title:
        title = f"{SYNTHETIC_TAG} · {title}"
    return base_layout(fig, title, max(260, 60 + 38 * len(names)))


def correlation_bars(results: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """The four correlations with human scores per embedder, grouped bars (`STSResult.results`)."""
    _need(results, ("embedder", "dim", *SCORING_LABELS), "human-similarity results")
    names = results["embedder"].tolist()
    fig = go.Figure()
    shades = ("#4C78A8", "#9ECAE9", "#F58518", "#FFBF79")
    for color, (key, label) in zip(shades, SCORING_LABELS.items()):
        fig.add_trace(
            go.Bar(
                x=[escape_markup(n) for n in names],
                y=results[key].to_numpy(float),
                name=label,
                marker_color=color,
                customdata=results["dim"].to_numpy(),
                hovertemplate="%{x} (%{customdata}-d)<br>" + label + " %{y:.3f}<extra></extra>",
            )
        )
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    fig.update_yaxes(title="correlation with human scores")
    fig.update_xaxes(tickangle=-30)
    return base_layout(fig, title, 420)


def rank_bump(ranks: pd.DataFrame, *, title: str | None = None, color_order: Sequence[str] | None = None) -> go.Figure:
    """Each embedder's rank (1 = best) under the four scorings, as a bump chart: one line per embedder across
    Pearson, Spearman, Pearson z-norm, Spearman z-norm. Lines of embedders whose rank changes are bold; the
    others thin and dotted. `ranks`: `sts.rank_table` output (embedder, rank_<scoring>)."""
    cols = [f"rank_{s}" for s in SCORING_LABELS]
    _need(ranks, ("embedder", *cols), "rank")
    rows = [[int(row[c]) for c in cols] for _, row in ranks.iterrows()]
    names = ranks["embedder"].tolist()
    return bump_chart(
        names,
        rows,
        list(SCORING_LABELS.values()),
        colors_for(names, color_order),
        rank_title="rank (1 = highest correlation)",
        min_height=300,
        right_margin=170,
        zeroline=False,
        title=title,
    )


def quality_scatter(
    table: pd.DataFrame,
    x: str,
    y: str,
    *,
    labels: Mapping[str, str] | None = None,
    title: str | None = None,
    color_order: Sequence[str] | None = None,
) -> go.Figure:
    """One point per embedder at (table[x], table[y]), labelled with its name; rows missing either value are
    left out (and named in the subtitle). `labels`: column -> axis title."""
    _need(table, ("embedder", x, y), "quality")
    labels = dict(labels or {})
    both = table[["embedder", x, y]].copy()
    both[x] = both[x].astype(float)
    both[y] = both[y].astype(float)
    ok = both[x].notna() & both[y].notna()
    shown = both[ok]
    colors = colors_for(table["embedder"].tolist(), color_order)
    log_x = x == "dim" and len(shown) > 0 and shown[x].max() / max(shown[x].min(), 1) > 50
    log_y = y == "dim" and len(shown) > 0 and shown[y].max() / max(shown[y].min(), 1) > 50
    names = shown["embedder"].tolist()
    fig = go.Figure(
        go.Scatter(
            x=shown[x],
            y=shown[y],
            mode="markers+text",
            text=[escape_markup(n) for n in names],
            textposition=label_positions(
                shown[x].tolist(),
                shown[y].tolist(),
                names,
                width_px=850,
                height_px=360,
                font_px=13,
                log_x=log_x,
                log_y=log_y,
            ),
            cliponaxis=False,
            marker=dict(size=12, color=[colors.get(e, PALETTE[0]) for e in names]),
            hovertemplate="%{text}<br>" + labels.get(x, x) + " %{x:.4g}<br>" + labels.get(y, y) + " %{y:.4g}"
            "<extra></extra>",
            showlegend=False,
        )
    )
    fig.update_xaxes(title=labels.get(x, x), type="log" if log_x else None)
    fig.update_yaxes(title=labels.get(y, y), type="log" if log_y else None)
    left_out = both.loc[~ok, "embedder"].tolist()
    if left_out:
        title = (title or "") + f"<br><sup>not shown (no value): {escape_markup(', '.join(left_out))}</sup>"
    fig = base_layout(fig, title, 460)
    return fig.update_layout(margin=dict(l=20, r=30, t=70 if title else 40, b=20))
