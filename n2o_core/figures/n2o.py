"""Pure plotly figure builders for the dashboard: data in, `go.Figure` out (no Streamlit, no I/O).

Every builder takes plain arrays / frames as produced by `n2o_core.analyses.overlap` and returns a figure;
nothing here computes N2O itself except the embedder ordering for the heatmap. The look (palette, layout, embedder
colours) comes from `n2o_core.figures.style`; the HEROS figures are in `n2o_core.figures.heros`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from n2o_core.analyses.overlap import times_chance
from n2o_core.errors import N2OError
from n2o_core.figures.style import NEUTRAL, PALETTE, base_layout, embedder_colors, heatmap_range, reference_line
from n2o_core.text import escape_markup

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


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Round tick values (steps of 1, 2, 2.5 or 5 × 10^e) inside [lo, hi], about `target` of them."""
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
        return [float(lo)] if np.isfinite(lo) else []
    raw = (hi - lo) / max(target - 1, 1)
    e = 10.0 ** np.floor(np.log10(raw))
    step = next(m * e for m in (1, 2, 2.5, 5, 10) if m * e >= raw * (1 - 1e-9))
    first = np.ceil(lo / step - 1e-9) * step
    ticks = np.arange(first, hi + step * 1e-9, step)
    return [float(round(t, 12)) for t in ticks]


#: Extend the N2O colour scale down to the chance level when that costs at most this share of the data's range.
CHANCE_EXTEND_MAX = 0.5


def n2o_heatmap(
    mean: np.ndarray,
    names: Sequence[str],
    *,
    std: np.ndarray | None = None,
    chance: float | None = None,
    k: int | None = None,
    title: str | None = None,
    extend_to_chance: bool | None = None,
    zrange: tuple[float, float] | None = None,
    cells_vs_chance: bool = False,
) -> go.Figure:
    """Annotated N2O matrix whose colours span the off-diagonal (between-embedder) values.

    `zrange`: a fixed colour scale instead (the partial heatmap keeps one while embedders come in;
    `partial_heatmap`). `cells_vs_chance`: each cell also shows its value as a multiple of chance, on a second line
    (when chance is a large share of the values: `analyses.face_value.chance_in_cells`).

    Trace 0 holds the off-diagonal means (diagonal NaN, no text, no hover); trace 1 paints the diagonal a
    neutral grey outside the colour scale, its hover giving the self-overlap (1 unless queries lack
    neighbors). zmin/zmax come from the off-diagonal values (`heatmap_range`: 0-1 with fewer than two
    embedders, value ± 0.05 when every pair has the same value). Hover: mean ± std over query samples, the
    chance level k/(N−1) and the value as a multiple of chance.

    The chance level is a tick labelled "chance" on the colour bar. When it lies below the off-diagonal
    minimum, `extend_to_chance` decides whether the scale is extended down to it: None (default) extends when
    the extension is at most CHANCE_EXTEND_MAX × the data's range (chance is then the scale's floor, and the
    colours still separate the pairs); otherwise, or with False, the scale stays on the data and the colour
    bar's title says that chance lies below it. Chance above every pair is never added to the scale either
    (the title says so).
    """
    mean = np.asarray(mean, float)
    n = len(names)
    if mean.shape != (n, n):
        raise N2OError(f"The N2O matrix is {mean.shape} but {n} embedder names were given.")
    std = np.zeros_like(mean) if std is None else np.asarray(std, float)
    off = ~np.eye(n, dtype=bool)
    c = float(chance) if chance is not None and np.isfinite(chance) else float("nan")
    if zrange is not None:
        zmin, zmax = float(zrange[0]), float(zrange[1])
        chance_off = "above" if np.isfinite(c) and c > zmax else "below" if np.isfinite(c) and c < zmin else ""
    else:
        zmin, zmax, chance_off = _chance_range(mean[off], c, extend_to_chance)
    custom, hover = _pair_hover(mean, std, c)
    labels = [escape_markup(e) for e in names]  # plotly reads tick and hover text as HTML
    fig = go.Figure(
        go.Heatmap(
            z=np.where(off, mean, np.nan),
            x=labels,
            y=labels,
            customdata=custom,
            zmin=zmin,
            zmax=zmax,
            colorscale="Viridis",
            text=_pair_text(mean, off, c if cells_vs_chance else None),
            texttemplate="%{text}",
            textfont=dict(size=12 if n <= 10 else 9),
            hovertemplate=hover + "<extra></extra>",
            hoverongaps=False,
            colorbar=_n2o_colorbar(zmin, zmax, c, chance_off, k, cells_vs_chance and np.isfinite(c)),
            name="N2O",
        )
    )
    fig.add_trace(_self_trace(mean, labels, off))
    fig.update_yaxes(autorange="reversed", tickfont=dict(size=12))
    fig.update_xaxes(tickangle=-35, tickfont=dict(size=12), side="bottom")
    size = max(360, 60 * n + 140)
    base_layout(fig, title, size)
    fig.update_layout(xaxis=dict(constrain="domain"), yaxis=dict(scaleanchor="x", constrain="domain"))
    # square cells and the colour bar right beside the matrix: the figure is as wide as the matrix, its row
    # labels and the bar (a front end shows it at this width rather than stretched to the page)
    fig.update_layout(width=heatmap_width(names, size))
    return fig


#: The partial heatmap's colour scale, fixed while embedders come in (the final one spans the values).
PARTIAL_ZRANGE = (0.0, 1.0)


def partial_heatmap(
    mean: np.ndarray,
    ready: Sequence[str],
    names: Sequence[str],
    *,
    std: np.ndarray | None = None,
    chance: float | None = None,
    k: int | None = None,
) -> go.Figure:
    """The N2O heatmap while embedders are still being prepared: every embedder of `names` in that order (those not
    in `ready` blank), on the fixed colour scale PARTIAL_ZRANGE, so that nothing moves or recolours as embedders
    come in; `mean`/`std` are the matrices of `ready` (in that order). The complete heatmap then orders and colours
    once, from all the values."""
    pos = [list(names).index(e) for e in ready]
    full = np.full((len(names), len(names)), np.nan)
    full_sd = np.full_like(full, np.nan)
    full[np.ix_(pos, pos)] = np.asarray(mean, float)
    full_sd[np.ix_(pos, pos)] = np.zeros_like(full[np.ix_(pos, pos)]) if std is None else np.asarray(std, float)
    title = f"{len(ready)} of {len(names)} embedders ready; order and colours stay fixed until all are in"
    return n2o_heatmap(full, names, std=full_sd, chance=chance, k=k, title=title, zrange=PARTIAL_ZRANGE)


def heatmap_width(names: Sequence[str], height: int) -> int:
    """The width of an N2O heatmap of `height` px: the square matrix, the longest row label and the colour bar."""
    longest = max((len(str(n)) for n in names), default=4)
    # row labels (~7 px a character) beside the matrix, less the slanted column labels below it, which take
    # height from the square; then the colour bar with its ticks
    return int(height + 3 * longest + 100)


def _chance_range(values: np.ndarray, c: float, extend_to_chance: bool | None) -> tuple[float, float, str]:
    """(zmin, zmax, where chance is kept off the scale: "", "below" or "above") for the off-diagonal `values`
    and the chance level `c` (NaN: none); see `n2o_heatmap`."""
    zmin, zmax = heatmap_range(values)
    chance_off = ""
    if np.isfinite(c) and c > zmax:
        chance_off = "above"
    if np.isfinite(c) and c < zmin:
        gap, span = zmin - c, zmax - zmin
        extend = extend_to_chance if extend_to_chance is not None else gap <= CHANCE_EXTEND_MAX * span
        if extend:
            zmin = c
        else:
            chance_off = "below"
    return zmin, zmax, chance_off


def _pair_hover(mean: np.ndarray, std: np.ndarray, c: float) -> tuple[np.ndarray, str]:
    """Custom data (std, chance, multiple of chance) per cell and the hover template that reads it."""
    chance_arr = np.full_like(mean, c)
    ratio = times_chance(mean, c)
    hover = "%{y} vs %{x}<br>N2O %{z:.3f} ± %{customdata[0]:.3f} (std over query samples)"
    if np.isfinite(c):
        hover += "<br>chance k/(N−1) = %{customdata[1]:.4g} (%{customdata[2]:.1f}× chance)"
    return np.dstack([std, chance_arr, ratio]), hover


def _pair_text(mean: np.ndarray, off: np.ndarray, chance: float | None = None) -> np.ndarray:
    """Each off-diagonal value with two decimals (and, given `chance`, its multiple of chance below it, "1.6×");
    blank on the diagonal and where the value is missing."""
    text = np.char.mod("%.2f", np.nan_to_num(mean))
    if chance is not None and np.isfinite(chance) and chance > 0:
        text = np.char.add(np.char.add(text, "<br>"), np.char.mod("%.1f×", times_chance(np.nan_to_num(mean), chance)))
    text = np.where(off, text, "")
    return np.where(off & ~np.isfinite(mean), "", text)


def _n2o_colorbar(
    zmin: float, zmax: float, c: float, chance_off: str, k: int | None, vs_chance: bool = False
) -> dict[str, Any]:
    """The colour bar: round ticks, plus a "chance" tick when chance is on the scale (ticks too near it dropped),
    else a title that says where chance lies (and, with `vs_chance`, that each cell's second line is × chance)."""
    ticks = nice_ticks(zmin, zmax)
    ticktext = [f"{t:g}" for t in ticks]
    cb_title = f"N2O@{k}" if k else "N2O"
    if vs_chance:
        cb_title += "<br><sub>(× chance<br>below)</sub>"
    if np.isfinite(c) and not chance_off:
        near = 0.08 * (zmax - zmin)
        keep = [i for i, t in enumerate(ticks) if abs(t - c) > near]
        ticks = [ticks[i] for i in keep] + [c]
        ticktext = [ticktext[i] for i in keep] + [f"chance {c:.2g}"]
    elif chance_off:
        cb_title += f"<br><sub>chance {c:.2g}<br>is {chance_off}<br>the scale</sub>"
    return dict(title=dict(text=cb_title), thickness=14, tickmode="array", tickvals=ticks, ticktext=ticktext)


def _self_trace(mean: np.ndarray, names: Sequence[str], off: np.ndarray) -> go.Heatmap:
    """The diagonal in a neutral grey off the colour scale, its hover giving the self-overlap."""
    return go.Heatmap(
        z=np.where(off, np.nan, 0.0),
        x=list(names),
        y=list(names),
        customdata=np.where(off, np.nan, mean),
        colorscale=[[0, NEUTRAL], [1, NEUTRAL]],
        showscale=False,
        text=np.where(off | ~np.isfinite(mean), "", "—"),
        texttemplate="%{text}",
        textfont=dict(color="#888"),
        hovertemplate="%{y} with itself<br>self-overlap %{customdata:.3f} (share of neighbor slots filled;"
        " not on the colour scale)<extra></extra>",
        hoverongaps=False,
        name="self",
    )


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
                name=escape_markup(name),
                boxpoints="all",
                jitter=0.3,
                pointpos=0,
                marker=dict(color=colors[name], size=6),
                line=dict(color=colors[name]),
                customdata=[escape_markup(o) for o in sub["other"]],
                hovertemplate=f"{escape_markup(name)} vs %{{customdata}}<br>N2O %{{y:.3f}}<extra></extra>",
                showlegend=False,
            )
        )
    fig.update_yaxes(title="N2O with the other embedders", rangemode="tozero")
    fig = base_layout(fig, title, 420)
    if chance is not None:
        reference_line(fig, chance, f"chance {chance:.4f}")
    return fig


# --------------------------------------------------------------------------- robustness across k (§6)


def spearman_heatmap(R: pd.DataFrame, *, title: str | None = None, axis_title: str = "k") -> go.Figure:
    """Spearman ρ between embedder-pair rankings at every two settings: every two k (frame from
    `overlap.robustness_across_k`, the default axis title) or every two query samples (`samples_heatmap`).
    Fixed −1..1 diverging scale: ρ has a natural zero, and a uniformly dark map means "stable"."""
    if R.shape[0] != R.shape[1]:
        raise N2OError("The robustness matrix must be square.")
    labels = [str(v) for v in R.index]
    sep = "=" if len(axis_title) <= 2 else " "
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
            hovertemplate=f"{axis_title}{sep}%{{y}} vs {axis_title}{sep}%{{x}}<br>Spearman ρ %{{z:.3f}}<extra></extra>",
            colorbar=dict(title=dict(text="ρ"), thickness=14),
        )
    )
    fig.update_xaxes(title=axis_title, type="category")
    fig.update_yaxes(title=axis_title, type="category", autorange="reversed")
    return base_layout(fig, title, 420)


def samples_heatmap(R: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Spearman ρ between the embedder-pair rankings of every two query samples
    (frame from `overlap.robustness_across_samples`)."""
    return spearman_heatmap(R, title=title, axis_title="query sample")


def sample_size_curve(df: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Robustness to the number of queries per sample (frame from `overlap.robustness_to_sample_size`).

    Top: Spearman ρ of the pair ranking against the full-size ranking (mean over repeats, and the minimum);
    bottom: mean |N2O difference| over pairs (mean over repeats, and the maximum). Log-scaled x (queries per
    sample)."""
    from plotly.subplots import make_subplots  # noqa: PLC0415 - only this builder needs it

    missing = {"n", "repeats", "rho_mean", "rho_min", "abs_diff_mean", "abs_diff_max"} - set(df.columns)
    if missing:
        raise N2OError(f"The sample-size frame lacks column(s): {', '.join(sorted(missing))}.")
    df = df.sort_values("n")
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.55, 0.45])
    series = [
        (1, "rho_mean", "ρ, mean over repeats", PALETTE[0], None, ".3f"),
        (1, "rho_min", "ρ, worst repeat", PALETTE[0], "dot", ".3f"),
        (2, "abs_diff_mean", "|ΔN2O|, mean over repeats", PALETTE[1], None, ".4f"),
        (2, "abs_diff_max", "|ΔN2O|, worst repeat", PALETTE[1], "dot", ".4f"),
    ]
    for row, col, name, color, dash, fmt in series:
        fig.add_trace(
            go.Scatter(
                x=df["n"],
                y=df[col],
                mode="lines+markers",
                name=name,
                line=dict(color=color, width=1 if dash else 2, dash=dash),
                marker=dict(size=5),
                customdata=df["repeats"].to_numpy(),
                hovertemplate=f"n = %{{x}} queries per sample<br>{name}: %{{y:{fmt}}}"
                " (%{customdata} repeats)<extra></extra>",
            ),
            row=row,
            col=1,
        )
    ticks = dict(type="log", tickmode="array", tickvals=list(df["n"]), ticktext=[str(n) for n in df["n"]])
    fig.update_xaxes(**ticks, row=1, col=1)
    fig.update_xaxes(**ticks, title="queries per sample (log scale)", row=2, col=1)
    fig.update_yaxes(title="ρ vs full size", row=1, col=1)
    fig.update_yaxes(title="mean |ΔN2O|", rangemode="tozero", row=2, col=1)
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return base_layout(fig, title, 480)


def n2o_vs_k(curves: pd.DataFrame, *, chance: Sequence[float] | None = None, title: str | None = None) -> go.Figure:
    """N2O of each embedder pair as k grows. `curves`: columns pair, k, n2o; `chance`: one value per distinct
    k, in ascending order of k."""
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
                name=escape_markup(pair),
                line=dict(color=PALETTE[i % len(PALETTE)], width=1.5),
                marker=dict(size=4),
                hovertemplate=f"{escape_markup(pair)}<br>k=%{{x}} N2O %{{y:.3f}}<extra></extra>",
            )
        )
    if chance is not None:
        ks = sorted(curves["k"].unique())
        fig.add_trace(
            go.Scatter(x=ks, y=list(chance), mode="lines", name="chance k/(N−1)", line=dict(color="#888", dash="dot"))
        )
    fig.update_xaxes(title="k")
    fig.update_yaxes(title="N2O", rangemode="tozero")
    return base_layout(fig, title, 420)


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
            x=[escape_markup(n) for n in names],
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
            showlegend=False,
        )
    )
    fig.update_yaxes(title=ytitle, rangemode="tozero")
    fig.update_xaxes(tickangle=-30)
    return base_layout(fig, title, 420)


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
        reference_line(fig, random_level, f"random sentences {random_level:.3f}")
    return fig


def recall_bars(recall: dict[str, float | None], *, k: int, title: str | None = None) -> go.Figure:
    """Recall@k of approximate search against exact search, per embedder (None = exact)."""
    names = [n for n, r in recall.items() if r is not None]
    vals = [float(r) for r in recall.values() if r is not None]
    colors = embedder_colors(list(recall))
    fig = go.Figure(
        go.Bar(
            x=[escape_markup(n) for n in names],
            y=vals,
            marker_color=[colors[n] for n in names],
            texttemplate="%{y:.3f}",
            hovertemplate="%{x}<br>recall@" + str(k) + " %{y:.3f}<extra></extra>",
        )
    )
    fig.update_yaxes(title=f"recall@{k}", range=[0, 1.05])
    return base_layout(fig, title, 320)
