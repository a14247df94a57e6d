"""Pure plotly figure builders for the HEROS page (Chiang et al., Heros): the embedder × subset heatmap of
(baseline-normalized) similarity, as in the paper's Figure 1, and grouped bars with bootstrap CIs. Frames in (the
HEROS scorer's results: embedder, subset, n, raw, normalized, ci_low, ci_high), `go.Figure` out; no Streamlit,
no I/O."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from n2o_core.errors import N2OError
from n2o_core.figures.style import base_layout, embedder_colors, heatmap_range
from n2o_core.text import escape_markup

_HEROS_COLUMNS = ("embedder", "subset", "n", "raw", "normalized", "ci_low", "ci_high")
#: Display names of the Heros subsets (as in the paper's Figure 1).
HEROS_LABELS = {
    "synonym": "Synonym",
    "antonym": "Antonym",
    "typo": "Typo",
    "random": "Random (corpus word)",
    "negation_main": "Negation (Main)",
    "negation_antonym": "Negation (Antonym)",
}


#: The Random subset's label when its words came from a masked LM (Heros' own way; `mlm_model=`).
RANDOM_MLM_LABEL = "Random MLM"


def subset_label(subset: str, mlm: bool = False) -> str:
    """A subset's display name; the Random subset is named by how its words were drawn (offline: a corpus word
    with the target's tag; `mlm`: a masked-LM fill, as in the paper)."""
    if subset == "random" and mlm:
        return RANDOM_MLM_LABEL
    return HEROS_LABELS.get(subset, subset)


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
    mlm: bool = False,
) -> go.Figure:
    """Embedder (rows, order of appearance) × subset (columns, Heros' order) heatmap with each value written
    in its cell, as in Heros' Figure 1.

    `value`: "normalized" (baseline-normalized (s − b)/(1 − b), the paper's "similarity") or "raw" (mean
    cosine). Colours (sequential Viridis) span the cells' values, widened to the median 95% CI when the values lie
    closer than that (`colour_scale`); a line above the cells states the scale. `relative_to` (a subset, e.g.
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
        ci = custom[:, :, 3] - custom[:, :, 2] if value == "normalized" else None
        zmin, zmax, note = colour_scale(z, ci, decimals)
        scale = dict(colorscale="Viridis", zmin=zmin, zmax=zmax)
        fmt = f"{{:.{decimals}f}}"
        cb = label
    else:
        z = vals - ref_vals
        ref_name = subset_label(str(relative_to), mlm)
        custom = np.dstack([custom, np.broadcast_to(ref_vals, z.shape)])
        hover += f"<br>{label} minus {ref_name}: %{{z:+.3f}} ({ref_name}: %{{customdata[5]:.3f}})"
        m = float(np.nanmax(np.abs(z))) if np.isfinite(z).any() else 0.0
        m = m if m > 0 else 0.05
        scale = dict(colorscale="RdBu", zmid=0.0, zmin=-m, zmax=m)
        fmt = f"{{:+.{decimals}f}}"
        cb = f"minus {ref_name}"
        note = f"Colour scale: ±{m:.{decimals + 1}f}, the largest difference from {ref_name} (0 = white)."
    text = np.array([[fmt.format(v) if np.isfinite(v) else "" for v in row] for row in z], dtype=object)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[subset_label(c, mlm) for c in subsets],
            y=[escape_markup(n) for n in names],
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
    base_layout(fig, title, max(340, 34 * len(names) + 200))
    fig.add_annotation(
        text=note, xref="paper", yref="paper", x=0, y=1.0, xanchor="left", yanchor="bottom", showarrow=False,
        font=dict(size=12), align="left",
    )  # fmt: skip
    fig.update_layout(margin=dict(t=(fig.layout.margin.t or 20) + 24))
    return fig


def colour_scale(
    values: np.ndarray, ci_widths: np.ndarray | None = None, decimals: int = 2
) -> tuple[float, float, str]:
    """(zmin, zmax, the sentence that states it) for a HEROS heatmap of `values`.

    HEROS cells often lie close together (0.88–0.99): a 0–1 scale would paint them all one colour, a scale over
    their range alone paints a 0.01 difference as dark against light. So the scale spans the cells' range, widened
    (about its middle) to the median width of the cells' 95% CIs (`ci_widths`) when the range is narrower than that,
    so that differences within the noise look alike; the sentence says which."""
    v = np.asarray(values, float)
    lo, hi = heatmap_range(v, bounds=(-1.0, 1.0))
    d = decimals + 1
    finite = v[np.isfinite(v)]
    span = f"the cells' range ({finite.min():.{d}f} to {finite.max():.{d}f})" if finite.size else "no values"
    w = np.asarray(ci_widths, float) if ci_widths is not None else np.array([])
    w = w[np.isfinite(w)]
    ci = float(np.median(w)) if w.size else 0.0
    if ci > hi - lo and finite.size:
        mid = (lo + hi) / 2
        lo, hi = mid - ci / 2, mid + ci / 2
        return (
            lo,
            hi,
            (
                f"Colour scale: {lo:.{d}f} to {hi:.{d}f}, {span} widened to the median 95% CI ({ci:.{d}f} wide): "
                "cells within the noise look alike. Not 0 to 1."
            ),
        )
    tail = f"; the median 95% CI is {ci:.{d}f} wide" if ci > 0 else ""
    return lo, hi, f"Colour scale: {lo:.{d}f} to {hi:.{d}f}, {span}{tail}. Not 0 to 1: read the numbers in the cells."


def _fit_range(lo: np.ndarray, hi: np.ndarray, pad: float = 0.08) -> list[float] | None:
    """[low, high] around the finite values with `pad` × span (at least 0.01) of room on each side."""
    v = np.concatenate([np.asarray(lo, float).ravel(), np.asarray(hi, float).ravel()])
    v = v[np.isfinite(v)]
    if not v.size:
        return None
    a, b = float(v.min()), float(v.max())
    room = max(pad * (b - a), 0.01)
    return [a - room, b + room]


def heros_bars(results: pd.DataFrame, *, title: str | None = None, mlm: bool = False) -> go.Figure:
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
                x=[subset_label(str(c), mlm) for c in sub["subset"]],
                y=v,
                name=escape_markup(name),
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
                    f"{escape_markup(name)}<br>%{{x}}<br>normalized %{{y:.3f}} "
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
    return base_layout(fig, title, 460)
