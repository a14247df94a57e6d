"""Pure plotly figure builders for the dashboard: data in, `go.Figure` out (no Streamlit, no I/O).

Every builder takes plain arrays / frames as produced by `n2o_core.overlap` (and the HEROS scorer) and
returns a figure; nothing here computes N2O itself except the embedder ordering for the heatmap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from .errors import N2OError

#: One qualitative palette for embedders across every figure (color by position in the chosen list).
PALETTE = (
    "#4C78A8",
    "#F58518",
    "#54A24B",
    "#E45756",
    "#72B7B2",
    "#B279A2",
    "#EECA3B",
    "#9D755D",
    "#FF9DA6",
    "#BAB0AC",
    "#1F77B4",
    "#17BECF",
)
_FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=13)


def _base_layout(fig: go.Figure, title: str | None, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left") if title else None,
        height=height,
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        font=_FONT,
        template="plotly_white",
    )
    return fig


def embedder_colors(names: Sequence[str]) -> dict[str, str]:
    """A stable color per embedder (by position)."""
    return {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}


# --------------------------------------------------------------------------- ordering


def cluster_order(M: np.ndarray) -> list[int]:
    """Row order that puts similar embedders together: average-linkage clustering on 1 - N2O,
    leaves in optimal order. Identity order for fewer than three embedders."""
    M = np.asarray(M, float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise N2OError(f"An N2O matrix must be square (got shape {M.shape}).")
    n = M.shape[0]
    if n < 3:
        return list(range(n))
    S = (M + M.T) / 2
    D = np.clip(1.0 - S, 0.0, None)
    np.fill_diagonal(D, 0.0)
    D = np.nan_to_num(D, nan=1.0)
    Z = linkage(squareform(D, checks=False), method="average", optimal_ordering=True)
    return [int(i) for i in leaves_list(Z)]


def reorder(M: np.ndarray, names: Sequence[str], order: Sequence[int]) -> tuple[np.ndarray, list[str]]:
    """Rows and columns of a square matrix, and its labels, permuted by `order`."""
    idx = np.asarray(order, int)
    M = np.asarray(M)
    return M[np.ix_(idx, idx)], [names[i] for i in idx]


# --------------------------------------------------------------------------- N2O heatmap (Fig. 3)


def n2o_heatmap(
    mean: np.ndarray,
    names: Sequence[str],
    *,
    std: np.ndarray | None = None,
    chance: float | None = None,
    k: int | None = None,
    title: str | None = None,
) -> go.Figure:
    """Annotated N2O matrix; hover shows mean ± std over query samples and the chance level."""
    mean = np.asarray(mean, float)
    n = len(names)
    if mean.shape != (n, n):
        raise N2OError(f"The N2O matrix is {mean.shape} but {n} embedder names were given.")
    std = np.zeros_like(mean) if std is None else np.asarray(std, float)
    chance_arr = np.full_like(mean, np.nan if chance is None else float(chance))
    custom = np.dstack([std, chance_arr])
    ratio = np.where(np.isfinite(chance_arr) & (chance_arr > 0), mean / np.where(chance_arr > 0, chance_arr, 1), np.nan)
    custom = np.dstack([custom, ratio])
    hover = "%{y} vs %{x}<br>N2O %{z:.3f} ± %{customdata[0]:.3f} (std over samples)"
    if chance is not None:
        hover += "<br>chance k/(N−1) = %{customdata[1]:.4f} (%{customdata[2]:.0f}× chance)"
    fig = go.Figure(
        go.Heatmap(
            z=mean,
            x=list(names),
            y=list(names),
            customdata=custom,
            zmin=0.0,
            zmax=1.0,
            colorscale="Viridis",
            texttemplate="%{z:.2f}",
            textfont=dict(size=12 if n <= 10 else 9),
            hovertemplate=hover + "<extra></extra>",
            colorbar=dict(title=dict(text=f"N2O@{k}" if k else "N2O"), thickness=14),
        )
    )
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=12))
    fig.update_xaxes(tickangle=-35, tickfont=dict(size=12), side="bottom")
    size = max(360, 60 * n + 140)
    _base_layout(fig, title, size)
    fig.update_layout(xaxis=dict(constrain="domain"), yaxis=dict(scaleanchor="x", constrain="domain"))
    return fig


# --------------------------------------------------------------------------- per-embedder box plot (Fig. 6)


def n2o_boxplot(
    dist: pd.DataFrame, *, chance: float | None = None, order: Sequence[str] | None = None, title: str | None = None
) -> go.Figure:
    """Each embedder's N2O with every other embedder (frame from `overlap.n2o_distribution`)."""
    missing = {"embedder", "other", "n2o"} - set(dist.columns)
    if missing:
        raise N2OError(f"The N2O distribution frame lacks column(s): {', '.join(sorted(missing))}.")
    names = list(order) if order is not None else list(dict.fromkeys(dist["embedder"]))
    colors = embedder_colors(names)
    fig = go.Figure()
    for name in names:
        sub = dist[dist["embedder"] == name]
        fig.add_trace(
            go.Box(
                y=sub["n2o"],
                name=name,
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
                marker=dict(color=colors[name], size=6),
                line=dict(color=colors[name]),
                customdata=sub["other"],
                hovertemplate=f"{name} vs %{{customdata}}<br>N2O %{{y:.3f}}<extra></extra>",
                showlegend=False,
            )
        )
    if chance is not None:
        fig.add_hline(
            y=chance,
            line_dash="dot",
            line_color="#888",
            annotation_text=f"chance {chance:.4f}",
            annotation_position="top left",
        )
    fig.update_yaxes(title="N2O with the other embedders", rangemode="tozero")
    return _base_layout(fig, title, 420)


# --------------------------------------------------------------------------- robustness across k (§6)


def spearman_heatmap(R: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Spearman ρ between embedder-pair rankings at every two k (frame from `overlap.robustness_across_k`)."""
    if R.shape[0] != R.shape[1]:
        raise N2OError("The robustness matrix must be square.")
    labels = [str(v) for v in R.index]
    fig = go.Figure(
        go.Heatmap(
            z=R.to_numpy(float),
            x=labels,
            y=labels,
            zmin=-1.0,
            zmax=1.0,
            colorscale="RdBu",
            texttemplate="%{z:.2f}",
            textfont=dict(size=10),
            hovertemplate="k=%{y} vs k=%{x}<br>Spearman ρ %{z:.3f}<extra></extra>",
            colorbar=dict(title=dict(text="ρ"), thickness=14),
        )
    )
    fig.update_xaxes(title="k", type="category")
    fig.update_yaxes(title="k", type="category", autorange="reversed")
    return _base_layout(fig, title, 420)


def n2o_vs_k(curves: pd.DataFrame, *, chance: Sequence[float] | None = None, title: str | None = None) -> go.Figure:
    """N2O of each embedder pair as k grows. `curves`: columns pair, k, n2o; `chance` aligned with the ks."""
    missing = {"pair", "k", "n2o"} - set(curves.columns)
    if missing:
        raise N2OError(f"The N2O-vs-k frame lacks column(s): {', '.join(sorted(missing))}.")
    fig = go.Figure()
    for i, (pair, sub) in enumerate(curves.groupby("pair", sort=False)):
        fig.add_trace(
            go.Scatter(
                x=sub["k"],
                y=sub["n2o"],
                mode="lines+markers",
                name=str(pair),
                line=dict(color=PALETTE[i % len(PALETTE)], width=1.5),
                marker=dict(size=4),
                hovertemplate=f"{pair}<br>k=%{{x}} N2O %{{y:.3f}}<extra></extra>",
            )
        )
    if chance is not None:
        ks = sorted(curves["k"].unique())
        fig.add_trace(
            go.Scatter(x=ks, y=list(chance), mode="lines", name="chance k/(N−1)", line=dict(color="#888", dash="dot"))
        )
    fig.update_xaxes(title="k")
    fig.update_yaxes(title="N2O", rangemode="tozero")
    return _base_layout(fig, title, 420)


# --------------------------------------------------------------------------- bars with confidence intervals


def _ci_bars(
    df: pd.DataFrame,
    value: str,
    low: str,
    high: str,
    hover_extra: str,
    ytitle: str,
    title: str | None,
    colors: dict[str, str] | None = None,
) -> go.Figure:
    names = list(df["embedder"])
    colors = colors or embedder_colors(names)
    vals = df[value].to_numpy(float)
    fig = go.Figure(
        go.Bar(
            x=names,
            y=vals,
            marker_color=[colors.get(n, PALETTE[0]) for n in names],
            error_y=dict(
                type="data",
                symmetric=False,
                array=df[high].to_numpy(float) - vals,
                arrayminus=vals - df[low].to_numpy(float),
                thickness=1.5,
                width=6,
                color="#333",
            ),
            customdata=df[[low, high, "n"]].to_numpy(),
            hovertemplate="%{x}<br>" + hover_extra + "<extra></extra>",
        )
    )
    fig.update_yaxes(title=ytitle, rangemode="tozero")
    fig.update_xaxes(tickangle=-30)
    return _base_layout(fig, title, 420)


def token_overlap_bars(df: pd.DataFrame, *, random_level: float | None = None, title: str | None = None) -> go.Figure:
    """Mean token overlap between queries and their neighbors per embedder, 95% CI bars (Fig. 5).

    `df`: frame from `overlap.token_overlap_by_embedder` (embedder, mean, ci_low, ci_high, n)."""
    missing = {"embedder", "mean", "ci_low", "ci_high", "n"} - set(df.columns)
    if missing:
        raise N2OError(f"The token-overlap frame lacks column(s): {', '.join(sorted(missing))}.")
    fig = _ci_bars(
        df,
        "mean",
        "ci_low",
        "ci_high",
        "mean overlap %{y:.3f}<br>95% CI [%{customdata[0]:.3f}, %{customdata[1]:.3f}]<br>n = %{customdata[2]} queries",
        "share of query tokens in a neighbor",
        title,
    )
    if random_level is not None and np.isfinite(random_level):
        fig.add_hline(
            y=random_level,
            line_dash="dot",
            line_color="#888",
            annotation_text=f"random sentences {random_level:.3f}",
            annotation_position="top left",
        )
    return fig


def heros_bars(results: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Baseline-normalized similarity per subset (x) and embedder (color), 95% CI bars; raw cosine on hover.

    `results`: columns embedder, subset, n, raw, normalized, ci_low, ci_high (HEROS scorer)."""
    need = {"embedder", "subset", "n", "raw", "normalized", "ci_low", "ci_high"}
    missing = need - set(results.columns)
    if missing:
        raise N2OError(f"The HEROS results frame lacks column(s): {', '.join(sorted(missing))}.")
    names = list(dict.fromkeys(results["embedder"]))
    colors = embedder_colors(names)
    fig = go.Figure()
    for name in names:
        sub = results[results["embedder"] == name]
        v = sub["normalized"].to_numpy(float)
        fig.add_trace(
            go.Bar(
                x=list(sub["subset"]),
                y=v,
                name=name,
                marker_color=colors[name],
                error_y=dict(
                    type="data",
                    symmetric=False,
                    array=sub["ci_high"].to_numpy(float) - v,
                    arrayminus=v - sub["ci_low"].to_numpy(float),
                    thickness=1.2,
                    width=3,
                    color="#333",
                ),
                customdata=sub[["raw", "n", "ci_low", "ci_high"]].to_numpy(),
                hovertemplate=(
                    f"{name}<br>%{{x}}<br>normalized %{{y:.3f}} "
                    "[%{customdata[2]:.3f}, %{customdata[3]:.3f}]<br>raw cosine %{customdata[0]:.3f}"
                    "<br>n = %{customdata[1]} pairs<extra></extra>"
                ),
            )
        )
    fig.add_hline(y=0, line_color="#888", line_width=1)
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=-0.25))
    fig.update_yaxes(title="normalized similarity (s − b) / (1 − b)")
    return _base_layout(fig, title, 460)


def recall_bars(recall: dict[str, float | None], *, k: int, title: str | None = None) -> go.Figure:
    """Recall@k of approximate search against exact search, per embedder (None = exact)."""
    names = [n for n, r in recall.items() if r is not None]
    vals = [float(recall[n]) for n in names]
    colors = embedder_colors(list(recall))
    fig = go.Figure(
        go.Bar(
            x=names,
            y=vals,
            marker_color=[colors[n] for n in names],
            texttemplate="%{y:.3f}",
            hovertemplate="%{x}<br>recall@" + str(k) + " %{y:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(title=f"recall@{k}", range=[0, 1.05])
    return _base_layout(fig, title, 320)
