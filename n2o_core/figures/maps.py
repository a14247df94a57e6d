"""Pure plotly builders for the per-sentence agreement views: two embedders' 2-D maps side by side, coloured by
per-sentence N2O, and the distribution of per-sentence N2O. Data in, `go.Figure` out (no Streamlit, no I/O).

Maps use WebGL (`go.Scattergl`). Every point carries its corpus id as `customdata`, so a box/lasso selection
in either panel gives corpus ids, and `selected_ids` highlights the same sentences in both panels (plotly's
`selectedpoints`: the rest are dimmed). Sentence texts in hover labels are HTML-escaped, trimmed to
`HOVER_CHARS` and wrapped.

Size: coordinates, colours and ids go out as base64 typed arrays, so the figure JSON is dominated by the hover
texts, which every panel carries; its size, and the time to build and serialize it, grow with the points drawn
(measured: benchmarks/README.md, 'Measurements behind the code's choices'). `MAX_POINTS`
(20,000) is the default cap: above it the same fixed random subset (selected sentences always kept) is drawn
in every panel. WebGL draws 38k points without trouble; what a Streamlit rerun pays is building and sending
the JSON, so pass `max_points=None` only for an explicit "draw all" choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from n2o_core.errors import N2OError
from n2o_core.figures.style import FONT, TEXT, darken, reference_line
from n2o_core.text import escape_markup

#: Characters of a sentence shown in its hover label (the rest becomes "…").
HOVER_CHARS = 120
#: Hover lines are wrapped at this width.
HOVER_WIDTH = 60
#: Points drawn per panel by default; beyond this a fixed random subset is drawn.
MAX_POINTS = 20_000
#: Sequential, colour-blind-safe scale: dark = the embedders share few neighbors, yellow = many.
COLORSCALE = "Viridis"
_DIM = "rgba(170,170,170,0.25)"


def _wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap (a long word is cut at width); one pass, much faster than textwrap on 38k labels."""
    lines = []
    while len(text) > width:
        cut = text.rfind(" ", 0, width + 1)
        if cut <= 0:
            cut = width
        lines.append(text[:cut].rstrip())
        text = text[cut:].lstrip()
    lines.append(text)
    return lines


def hover_label(text: str, max_chars: int = HOVER_CHARS, width: int = HOVER_WIDTH) -> str:
    """A sentence for a hover box: trimmed to max_chars ("…" appended), wrapped at width, HTML-escaped, lines
    joined by <br> (plotly renders a small HTML subset in hover labels, so raw '<' or '&' must be escaped)."""
    t = " ".join(str(text).split())
    if len(t) > max_chars:
        t = t[: max_chars - 1].rstrip() + "…"
    return "<br>".join(escape_markup(line) for line in _wrap(t, width))


def hover_labels(texts: Sequence[str], max_chars: int = HOVER_CHARS, width: int = HOVER_WIDTH) -> list[str]:
    """hover_label of every text (a page can cache this per corpus and pass it to agreement_maps)."""
    return [hover_label(t, max_chars, width) for t in texts]


def downsample(
    n: int, max_points: int | None, *, keep: Sequence[int] | np.ndarray | None = None, seed: int = 0
) -> np.ndarray:
    """Sorted ids of the points to draw: all n when n <= max_points, else a fixed random subset of max_points
    that contains every id in `keep` (e.g. the selected sentences)."""
    if max_points is None or n <= max_points:
        return np.arange(n)
    if max_points < 1:
        raise N2OError(f"max_points must be positive (got {max_points}).")
    keep_arr = np.unique(np.asarray(list(keep) if keep is not None else [], np.int64))
    keep_arr = keep_arr[(keep_arr >= 0) & (keep_arr < n)]
    rest = np.setdiff1d(np.arange(n), keep_arr)
    m = max(0, max_points - len(keep_arr))
    picked = np.random.default_rng(seed).choice(rest, size=min(m, len(rest)), replace=False)
    return np.sort(np.concatenate([keep_arr, picked]))


def color_range(values: np.ndarray, k: int | None = None) -> tuple[float, float]:
    """(0, upper) for the colour scale: the 99th percentile of the values, so a few sentences with full
    agreement do not wash out the rest; at least 1/k (or a small positive value) so the scale is never empty."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    hi = float(np.quantile(v, 0.99)) if v.size else 1.0
    floor = 1.0 / k if k else 1e-6
    return 0.0, max(hi, floor)


def _check(coords: np.ndarray, values: np.ndarray, texts: Sequence[str]) -> None:
    c = np.asarray(coords)
    if c.ndim != 2 or c.shape[1] != 2:
        raise N2OError(f"Map coordinates must have shape (N, 2) (got {c.shape}).")
    if len(values) != c.shape[0] or len(texts) != c.shape[0]:
        raise N2OError(f"{c.shape[0]} points, {len(values)} values and {len(texts)} texts: one each per sentence.")


def _scatter(
    coords: np.ndarray,
    values: np.ndarray,
    labels: list[str],
    ids: np.ndarray,
    selected: np.ndarray | None,
    name: str,
    marker_size: float,
) -> dict:
    """One panel's trace (a dict: plotly validates it once, in add_trace) for the drawn ids (rows of the full
    arrays; labels[j] belongs to ids[j]); selected = corpus ids to highlight."""
    xy = np.asarray(coords, np.float32)[ids]
    trace = dict(
        type="scattergl",
        x=xy[:, 0],
        y=xy[:, 1],
        mode="markers",
        name=name,
        text=np.array(labels, dtype=object),
        customdata=ids.astype(np.int64),
        hovertemplate="%{text}<br><b>id %{customdata}</b> · N2O %{marker.color:.2f}<extra>"
        + escape_markup(name)
        + "</extra>",
        marker=dict(
            color=np.asarray(values, np.float32)[ids],
            coloraxis="coloraxis",
            size=marker_size,
            opacity=0.85,
            line=dict(width=0),
        ),
        showlegend=False,
    )
    if selected is not None:
        trace["selectedpoints"] = np.flatnonzero(np.isin(ids, selected)).tolist()
        trace["selected"] = dict(marker=dict(opacity=1.0, size=marker_size + 2))
        trace["unselected"] = dict(marker=dict(opacity=0.12, color=_DIM))
    return trace


def agreement_maps(
    coords: Sequence[np.ndarray],
    values: np.ndarray,
    texts: Sequence[str],
    names: Sequence[str],
    *,
    selected_ids: Sequence[int] | None = None,
    labels: Sequence[str] | None = None,
    k: int | None = None,
    max_points: int | None = MAX_POINTS,
    seed: int = 0,
    color_label: str = "N2O per sentence",
    title: str | None = None,
    height: int = 560,
    dragmode: str = "lasso",
) -> go.Figure:
    """One WebGL scatter per embedder map (side by side; usually two), every point a corpus sentence coloured
    by `values` (its per-sentence N2O), hover = escaped, trimmed sentence text with its id and value.

    `selected_ids` (corpus ids) are highlighted in every panel and the rest dimmed; an empty selection dims
    everything, None shows all normally. Sentences without coordinates (NaN: no vector) are not drawn; the
    panel title says how many. Above `max_points` sentences the same fixed random subset (plus the selected
    ids) is drawn in every panel. `labels`: hover_labels(texts), precomputed (e.g. cached per corpus by a page);
    computed for the drawn points when omitted. The corpus id of each point is its `customdata`
    (`selected_points_ids` reads them back from a selection event). `dragmode`: what a drag does at first
    ("lasso", "select" = box, "zoom", "pan"); the mode bar switches it."""
    if len(coords) != len(names) or not coords:
        raise N2OError(f"{len(coords)} maps for {len(names)} names: give one map per embedder name.")
    values = np.asarray(values, float)
    for c in coords:
        _check(c, values, texts)
    n = len(values)
    selected = None if selected_ids is None else np.asarray(list(selected_ids), np.int64)
    base = downsample(n, max_points, keep=selected, seed=seed)
    if labels is not None and len(labels) != n:
        raise N2OError(f"{len(labels)} hover labels for {n} sentences.")
    base_labels = [labels[int(i)] if labels is not None else hover_label(texts[int(i)]) for i in base]

    lo, hi = color_range(values, k)
    subtitles = []
    traces = []
    for c, name in zip(coords, names):
        c = np.asarray(c)
        ok = np.all(np.isfinite(c[base]), axis=1)
        ids = base[ok]
        missing = int((~np.all(np.isfinite(c), axis=1)).sum())
        shown = f"{len(ids):,} of {n:,} sentences" if len(ids) < n else f"{n:,} sentences"
        subtitles.append(
            f"<b>{escape_markup(name)}</b> · {shown}" + (f" ({missing:,} without a vector)" if missing else "")
        )
        panel_labels = [base_labels[p] for p in np.flatnonzero(ok)]
        traces.append(_scatter(c, values, panel_labels, ids, selected, name, 4.0 if len(ids) > 5000 else 6.0))
    fig = make_subplots(rows=1, cols=len(coords), subplot_titles=subtitles, horizontal_spacing=0.04)
    for j, tr in enumerate(traces, start=1):
        fig.add_trace(tr, row=1, col=j)
        fig.update_xaxes(showticklabels=False, showgrid=False, zeroline=False, row=1, col=j)
        fig.update_yaxes(showticklabels=False, showgrid=False, zeroline=False, row=1, col=j)
    fig.update_layout(
        coloraxis=dict(colorscale=COLORSCALE, cmin=lo, cmax=hi, colorbar=dict(title=color_label, thickness=12)),
        title=dict(text=title, x=0, xanchor="left") if title else None,
        height=height,
        margin=dict(l=10, r=10, t=70 if title else 40, b=10),
        font=dict(FONT, color=TEXT),
        template="plotly_white",
        dragmode=dragmode,
        hovermode="closest",
        uirevision="agreement-maps",  # keep zoom and pan when the selection changes
    )
    return darken(fig)


def selected_points_ids(points: Sequence[Mapping]) -> list[int]:
    """Sorted, distinct corpus ids of selected map points (a selection event's points: dicts whose `customdata`
    is the id `agreement_maps` gave the point, a number or a one-element list); points without one are
    skipped."""
    out: set[int] = set()
    for p in points:
        cd = p.get("customdata") if isinstance(p, Mapping) else None
        if isinstance(cd, (list, tuple)):
            cd = cd[0] if cd else None
        try:
            out.add(int(cd))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
    return sorted(out)


def agreement_histogram(
    values: np.ndarray,
    k: int,
    *,
    chance: float | None = None,
    label: str = "N2O per sentence",
    title: str | None = None,
    height: int = 320,
) -> go.Figure:
    """Distribution of per-sentence N2O: one bar per step of 1/k (values of a pair are multiples of 1/k; mean
    pairwise values are binned to the nearest step), with the mean and, if given, the chance level k/(N-1)."""
    if k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        raise N2OError("No per-sentence values to plot.")
    steps = np.clip(np.rint(v * k).astype(int), 0, k)
    counts = np.bincount(steps, minlength=k + 1)
    x = np.arange(k + 1) / k
    fig = go.Figure(
        go.Bar(
            x=x,
            y=counts,
            width=0.9 / k,
            marker_color="#4C78A8",
            customdata=np.column_stack([np.arange(k + 1), counts / v.size]),
            hovertemplate="N2O %{x:.2f} (%{customdata[0]:.0f} of "
            + str(k)
            + " neighbors shared): %{y:,} sentences (%{customdata[1]:.1%})<extra></extra>",
            showlegend=False,
        )
    )
    mean = float(v.mean())
    reference_line(fig, mean, f"mean {mean:.3f}", axis="x", color="#E45756", dash="solid")
    if chance is not None:
        reference_line(fig, chance, f"chance {chance:.3f}", axis="x")
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left") if title else None,
        height=height,
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        font=dict(FONT, color=TEXT),
        template="plotly_white",
        xaxis=dict(title=label, range=[-0.5 / k, min(1.0, v.max() + 2.0 / k) + 0.5 / k]),
        yaxis=dict(title="sentences"),
        bargap=0,
    )
    return darken(fig)
