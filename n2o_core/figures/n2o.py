"""Pure plotly figure builders for the dashboard: data in, `go.Figure` out (no Streamlit, no I/O).

Every builder takes plain arrays / frames as produced by `n2o_core.analyses.overlap` (and the HEROS scorer) and
returns a figure; nothing here computes N2O itself except the embedder ordering for the heatmap.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from scipy.cluster.hierarchy import leaves_list, linkage
from scipy.spatial.distance import squareform

from n2o_core.errors import N2OError

#: A qualitative palette for things that are not embedders (embedders take their family's colour).
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
_NEUTRAL = "#e6e6e6"  # cells kept off a colour scale (the N2O diagonal)


def _base_layout(fig: go.Figure, title: str | None, height: int) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left") if title else None,
        height=height,
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        font=_FONT,
        template="plotly_white",
    )
    return fig


#: One hue per family group (`EmbedderInfo.family_group`), a few shades of it for the members of a group; the
#: first shade is the group's colour in legends and in the sidebar's markers.
FAMILY_COLORS: dict[str, tuple[str, ...]] = {
    "tf-idf": ("#8C564B", "#5E3A32", "#B07A6E"),  # brown
    "static averages": ("#1F77B4", "#0B3C6B", "#7DB8E0", "#3E5F8A", "#4FA3D9", "#08306B", "#A6CEE3"),  # blue
    "subword": ("#2CA02C", "#006D2C", "#74C476", "#41AB5D"),  # green
    "distilled": ("#9467BD", "#54278F", "#BCA0DC"),  # purple
    "transformers": ("#FF7F0E", "#A63603", "#FDAE6B", "#D94801", "#E6550D", "#7F2704"),  # orange
    "precomputed": ("#D62728", "#8E0F12", "#F28E8E", "#B8474A"),  # red
    "other": ("#7F7F7F", "#4D4D4D", "#B0B0B0"),  # grey
}


def embedder_colors(names: Sequence[str]) -> dict[str, str]:
    """A colour per embedder: the hue of its family group (`FAMILY_COLORS`) and a shade of it that depends on the
    embedder, not on its position, so an embedder has the same colour in every figure."""
    from n2o_core.embedders.user import family_slots

    out = {}
    for name, (group, slot) in family_slots(list(names)).items():
        shades = FAMILY_COLORS.get(group, FAMILY_COLORS["other"])
        out[name] = shades[slot % len(shades)]
    return out


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


def heatmap_range(
    values: np.ndarray, pad: float = 0.05, bounds: tuple[float, float] = (0.0, 1.0)
) -> tuple[float, float]:
    """(zmin, zmax) spanning the finite `values`; for no values `bounds`; for one distinct value v,
    [v − pad, v + pad] with each end clipped to `bounds` when v lies within them (so a single pair, e.g. two
    embedders, still gets a colour: mid-scale, or at the scale's end for a value on a bound)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if not v.size:
        return bounds
    lo, hi = float(v.min()), float(v.max())
    if hi > lo:
        return lo, hi
    inside = bounds[0] <= lo <= bounds[1] and bounds[1] > bounds[0]
    a = max(bounds[0], lo - pad) if inside else lo - pad
    b = min(bounds[1], hi + pad) if inside else hi + pad
    return a, b


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
) -> go.Figure:
    """Annotated N2O matrix whose colours span the off-diagonal (between-embedder) values.

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
    zmin, zmax = heatmap_range(mean[off])
    has_chance = chance is not None and bool(np.isfinite(chance))
    c = float(chance) if chance is not None and has_chance else float("nan")
    chance_off = ""  # "below" / "above" when chance is kept off the colour scale
    if has_chance and c > zmax:
        chance_off = "above"
    if has_chance and c < zmin:
        gap, span = zmin - c, zmax - zmin
        extend = extend_to_chance if extend_to_chance is not None else gap <= CHANCE_EXTEND_MAX * span
        if extend:
            zmin = c
        else:
            chance_off = "below"
    chance_arr = np.full_like(mean, c)
    ok = np.isfinite(chance_arr) & (chance_arr > 0)
    ratio = np.divide(mean, chance_arr, out=np.full_like(mean, np.nan), where=ok)
    custom = np.dstack([std, chance_arr, ratio])
    hover = "%{y} vs %{x}<br>N2O %{z:.3f} ± %{customdata[0]:.3f} (std over query samples)"
    if has_chance:
        hover += "<br>chance k/(N−1) = %{customdata[1]:.4g} (%{customdata[2]:.1f}× chance)"
    z = np.where(off, mean, np.nan)
    text = np.where(off, np.char.mod("%.2f", np.nan_to_num(mean)), "")
    text = np.where(off & ~np.isfinite(mean), "", text)

    ticks = nice_ticks(zmin, zmax)
    ticktext = [f"{t:g}" for t in ticks]
    cb_title = f"N2O@{k}" if k else "N2O"
    if has_chance and not chance_off:
        near = 0.08 * (zmax - zmin)
        keep = [i for i, t in enumerate(ticks) if abs(t - c) > near]
        ticks = [ticks[i] for i in keep] + [c]
        ticktext = [ticktext[i] for i in keep] + [f"chance {c:.2g}"]
    elif chance_off:
        cb_title += f"<br><sub>chance {c:.2g}<br>is {chance_off}<br>the scale</sub>"
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(names),
            y=list(names),
            customdata=custom,
            zmin=zmin,
            zmax=zmax,
            colorscale="Viridis",
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=12 if n <= 10 else 9),
            hovertemplate=hover + "<extra></extra>",
            hoverongaps=False,
            colorbar=dict(title=dict(text=cb_title), thickness=14, tickmode="array", tickvals=ticks, ticktext=ticktext),
            name="N2O",
        )
    )
    diag = np.where(off, np.nan, 0.0)
    self_text = np.where(off, "", "—")
    fig.add_trace(
        go.Heatmap(
            z=diag,
            x=list(names),
            y=list(names),
            customdata=np.where(off, np.nan, mean),
            colorscale=[[0, _NEUTRAL], [1, _NEUTRAL]],
            showscale=False,
            text=self_text,
            texttemplate="%{text}",
            textfont=dict(color="#888"),
            hovertemplate="%{y} with itself<br>self-overlap %{customdata:.3f} (share of neighbor slots filled;"
            " not on the colour scale)<extra></extra>",
            hoverongaps=False,
            name="self",
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
    return _base_layout(fig, title, 420)


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
    return _base_layout(fig, title, 480)


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


_HEROS_COLUMNS = ("embedder", "subset", "n", "raw", "normalized", "ci_low", "ci_high")
#: Display names of the Heros subsets (as in the paper's Figure 1).
HEROS_LABELS = {
    "synonym": "Synonym",
    "antonym": "Antonym",
    "typo": "Typo",
    "random": "Random MLM",
    "negation_main": "Negation (Main)",
    "negation_antonym": "Negation (Antonym)",
}


def _check_heros(results: pd.DataFrame) -> None:
    missing = set(_HEROS_COLUMNS) - set(results.columns)
    if missing:
        raise N2OError(f"The HEROS results frame lacks column(s): {', '.join(sorted(missing))}.")
    if results.duplicated(["embedder", "subset"]).any():
        raise N2OError("The HEROS results frame has more than one row for an embedder and subset.")


def _heros_subsets(subsets: Sequence[str]) -> list[str]:
    """Heros' own subsets in the paper's order, then any others in order of appearance."""
    present = list(dict.fromkeys(subsets))
    return [s for s in HEROS_LABELS if s in present] + [s for s in present if s not in HEROS_LABELS]


def heros_heatmap(
    results: pd.DataFrame,
    *,
    value: str = "normalized",
    relative_to: str | None = None,
    decimals: int = 2,
    title: str | None = None,
) -> go.Figure:
    """Embedder (rows, order of appearance) × subset (columns, Heros' order) heatmap with each value written
    in its cell, as in Heros' Figure 1.

    `value`: "normalized" (baseline-normalized (s − b)/(1 − b), the paper's "similarity") or "raw" (mean
    cosine). Colours span the data (`heatmap_range`, sequential Viridis). `relative_to` (a subset, e.g.
    "synonym") shows instead each subset's value minus that subset's value for the same embedder, on a
    diverging scale centred at 0 and symmetric (±max |difference|); the reference column (all 0) is left out.
    Hover: raw cosine, normalized value with its 95% bootstrap CI, n pairs (and the difference and reference
    value when relative). Missing (embedder, subset) cells are blank. `results`: HEROS scorer frame
    (columns embedder, subset, n, raw, normalized, ci_low, ci_high).
    """
    _check_heros(results)
    if value not in ("normalized", "raw"):
        raise N2OError(f'The HEROS heatmap shows "normalized" or "raw" values, not "{value}".')
    names = list(dict.fromkeys(results["embedder"]))
    subsets = _heros_subsets(list(results["subset"]))
    table = results.set_index(["embedder", "subset"])

    def grid(col: str, cols: Sequence[str]) -> np.ndarray:
        wide = table[col].unstack("subset").reindex(index=names, columns=list(cols))
        return wide.to_numpy(float)

    ref_vals = None
    if relative_to is not None:
        if relative_to not in subsets:
            raise N2OError(f'The reference subset "{relative_to}" is not in the HEROS results.')
        ref_vals = grid(value, [relative_to])  # (E, 1)
        subsets = [c for c in subsets if c != relative_to]
        if not subsets:
            raise N2OError(f'There is no subset besides "{relative_to}" to compare with it.')
    vals = grid(value, subsets)
    cols = ("raw", "normalized", "ci_low", "ci_high", "n")
    custom = np.dstack([grid(c, subsets) for c in cols])
    hover = (
        "%{y} · %{x}<br>normalized %{customdata[1]:.3f} (95% CI %{customdata[2]:.3f}–%{customdata[3]:.3f})"
        "<br>raw cosine %{customdata[0]:.3f}<br>n = %{customdata[4]:.0f} pairs"
    )
    label = "normalized similarity" if value == "normalized" else "raw cosine"
    if ref_vals is None:
        z = vals
        zmin, zmax = heatmap_range(z, bounds=(-1.0, 1.0))
        scale = dict(colorscale="Viridis", zmin=zmin, zmax=zmax)
        fmt = f"{{:.{decimals}f}}"
        cb = label
    else:
        z = vals - ref_vals
        ref_name = HEROS_LABELS.get(str(relative_to), str(relative_to))
        custom = np.dstack([custom, np.broadcast_to(ref_vals, z.shape)])
        hover += f"<br>{label} minus {ref_name}: %{{z:+.3f}} ({ref_name}: %{{customdata[5]:.3f}})"
        m = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 0.0
        m = m if m > 0 else 0.05
        scale = dict(colorscale="RdBu", zmid=0.0, zmin=-m, zmax=m)
        fmt = f"{{:+.{decimals}f}}"
        cb = f"minus {ref_name}"
    text = np.array([[fmt.format(v) if np.isfinite(v) else "" for v in row] for row in z], dtype=object)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[HEROS_LABELS.get(c, c) for c in subsets],
            y=names,
            customdata=custom,
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=12 if len(names) <= 12 else 9),
            hovertemplate=hover + "<extra></extra>",
            hoverongaps=False,
            colorbar=dict(title=dict(text=cb), thickness=14),
            **scale,
        )
    )
    fig.update_yaxes(autorange="reversed", type="category")
    fig.update_xaxes(type="category", tickangle=-30)
    return _base_layout(fig, title, max(320, 34 * len(names) + 180))


def _fit_range(lo: np.ndarray, hi: np.ndarray, pad: float = 0.08) -> list[float] | None:
    """[low, high] around the finite values with `pad` × span (at least 0.01) of room on each side."""
    v = np.concatenate([np.asarray(lo, float).ravel(), np.asarray(hi, float).ravel()])
    v = v[np.isfinite(v)]
    if not v.size:
        return None
    a, b = float(v.min()), float(v.max())
    room = max(pad * (b - a), 0.01)
    return [a - room, b + room]


def heros_bars(results: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Baseline-normalized similarity per subset (x) and embedder (color), 95% bootstrap CI bars; raw cosine
    on hover. The y-axis spans the values and CIs (with a little room), not 0-1, so the bars' lengths are
    not proportional to the values: read the axis, or use `heros_heatmap`.

    `results`: columns embedder, subset, n, raw, normalized, ci_low, ci_high (HEROS scorer)."""
    _check_heros(results)
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
    v = results["normalized"].to_numpy(float)
    yr = _fit_range(np.concatenate([v, results["ci_low"].to_numpy(float)]), results["ci_high"].to_numpy(float))
    if yr is not None and yr[0] < 0 < yr[1]:
        fig.add_hline(y=0, line_color="#888", line_width=1)
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=-0.25))
    fig.update_yaxes(title="normalized similarity (s − b) / (1 − b)", range=yr)
    return _base_layout(fig, title, 460)


def recall_bars(recall: dict[str, float | None], *, k: int, title: str | None = None) -> go.Figure:
    """Recall@k of approximate search against exact search, per embedder (None = exact)."""
    names = [n for n, r in recall.items() if r is not None]
    vals = [float(r) for r in recall.values() if r is not None]
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
