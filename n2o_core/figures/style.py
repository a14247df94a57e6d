"""The one look of every figure: palette, font, base layout, embedder colours, the colour range of a heatmap, and
the rank-bump chart the evaluation and probing figures share. Pure plotly (no Streamlit, no I/O).

    fig = base_layout(go.Figure(...), "title", 420)        # title top left, small margins, white template
    colors = embedder_colors(["tfidf", "glove-6b-50d"])     # name -> colour (its family's hue, a fixed shade)
    colors = colors_for(names, color_order)                 # the same, with a page's own order of embedders
    zmin, zmax = heatmap_range(values)                      # a colour range for values, even for one value
    big = for_talk(fig, height=880)                         # a copy for a projector: fonts >= 24 px, taller
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from n2o_core.text import escape_markup

__all__ = [
    "FAMILY_COLORS",
    "FONT",
    "NEUTRAL",
    "PALETTE",
    "TALK_FONT_PX",
    "TALK_FONT_SCALE",
    "TEXT",
    "base_layout",
    "bump_chart",
    "colors_for",
    "darken",
    "embedder_colors",
    "for_talk",
    "heatmap_range",
    "reference_line",
]

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
#: The font of every figure.
FONT = dict(family="Inter, Helvetica, Arial, sans-serif", size=13)
#: Text, tick labels and axis titles: dark enough for print and a projector (Streamlit's theme greys them).
TEXT = "#1f2330"
#: Cells kept off a colour scale (the N2O diagonal).
NEUTRAL = "#e6e6e6"


def base_layout(fig: go.Figure, title: str | None, height: int) -> go.Figure:
    """The house layout on `fig` (changed in place and returned): title top left, `height` px, small margins
    (more room on top for a title), `FONT`, white template."""
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left") if title else None,
        height=height,
        margin=dict(l=10, r=10, t=50 if title else 20, b=10),
        font=dict(FONT, color=TEXT),
        template="plotly_white",
    )
    return darken(fig)


def darken(fig: go.Figure) -> go.Figure:
    """Dark tick labels, axis titles, legend and colour-bar text on every axis and trace of `fig` (in place)."""
    dark = dict(tickfont=dict(color=TEXT), title=dict(font=dict(color=TEXT)))
    fig.update_xaxes(**dark)
    fig.update_yaxes(**dark)
    fig.update_layout(legend=dict(font=dict(color=TEXT)))
    for trace in fig.data:
        if "colorbar" in trace:
            trace.update(colorbar=dict(tickfont=dict(color=TEXT), title=dict(font=dict(color=TEXT))))
    return fig


def reference_line(
    fig: go.Figure, value: float, label: str, *, axis: str = "y", color: str = "#555", dash: str = "dot"
) -> go.Figure:
    """A dotted reference line at `value` on the `axis` ("y": horizontal, "x": vertical), named in the legend
    (top right, above the plot) rather than written on the plot, where a label can cover a bar or a tick."""
    if axis == "y":
        fig.add_hline(y=value, line=dict(color=color, dash=dash, width=1.5))
    else:
        fig.add_vline(x=value, line=dict(color=color, dash=dash, width=1.5))
    fig.add_trace(
        go.Scatter(x=[None], y=[None], mode="lines", line=dict(color=color, dash=dash, width=1.5), name=label)
    )
    fig.update_layout(
        showlegend=True,
        legend=dict(orientation="h", x=1, xanchor="right", y=1.0, yanchor="bottom", bgcolor="rgba(255,255,255,0)"),
    )
    return fig


# --------------------------------------------------------------------------- embedder colours

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


def colors_for(names: Sequence[str], color_order: Sequence[str] | None) -> dict[str, str]:
    """One colour per embedder by its position in `color_order` (the chosen embedders; default: sorted names),
    so an embedder keeps its colour across figures."""
    order = list(color_order) if color_order is not None else sorted(names)
    order += [n for n in names if n not in order]
    return embedder_colors(order)


# --------------------------------------------------------------------------- colour range


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


# --------------------------------------------------------------------------- rank-bump chart


def bump_chart(
    names: Sequence[str],
    ranks: Sequence[Sequence[int]],
    stages: Sequence[str],
    colors: Mapping[str, str],
    *,
    rank_title: str,
    tags: Sequence[str] | None = None,
    customdata: Sequence[Sequence[float]] | None = None,
    hover_detail: str = "",
    min_height: int = 300,
    right_margin: int = 170,
    zeroline: bool | None = None,
    title: str | None = None,
) -> go.Figure:
    """Each embedder's rank (1 = best) at each stage (x, e.g. a scoring or a classifier), one line per embedder,
    labelled with its name (and `tags[i]`) at its right end. Lines of embedders whose rank changes are bold; the
    others thin and dotted. `customdata[i]` (one value per stage) can be read by `hover_detail`, which follows
    "rank %{y}" in the hover. The right margin leaves room for the labels."""
    fig = go.Figure()
    for i, (e, row) in enumerate(zip(names, ranks)):
        shown = escape_markup(e)  # plotly reads legend, label and hover text as HTML
        y = list(row)
        moved = len(set(y)) > 1
        tag = tags[i] if tags is not None else ""
        fig.add_trace(
            go.Scatter(
                x=list(stages),
                y=y,
                mode="lines+markers+text",
                name=shown,
                text=[""] * (len(y) - 1) + [f" {shown}{tag}"],
                textposition="middle right",
                cliponaxis=False,
                customdata=customdata[i] if customdata is not None else None,
                line=dict(color=colors[e], width=3.5 if moved else 1.5, dash="solid" if moved else "dot"),
                marker=dict(size=11 if moved else 7, color=colors[e]),
                opacity=1.0 if moved else 0.55,
                hovertemplate=f"{shown}<br>%{{x}}: rank %{{y}}{hover_detail}<extra></extra>",
            )
        )
    n = len(names)
    yaxis: dict[str, Any] = dict(title=rank_title, autorange=False, range=[n + 0.5, 0.5], dtick=1)
    if zeroline is not None:
        yaxis["zeroline"] = zeroline
    fig.update_yaxes(**yaxis)
    fig.update_xaxes(title=None, range=[-0.3, len(stages) - 0.7])
    fig.update_layout(showlegend=False)
    fig = base_layout(fig, title, max(min_height, 80 + 40 * n))
    fig.update_layout(margin=dict(l=10, r=right_margin, t=50 if title else 20, b=10))
    return fig


# --------------------------------------------------------------------------- talk mode (a projector)

#: In talk mode no text of a figure is smaller than this (px): ticks, axis and colour-bar titles, legends, cell
#: and point labels, annotations, hover labels; what a front end's theme would size is given a size here.
TALK_FONT_PX = 24
#: ... and every explicit font size is this many times larger (a 16 px title becomes 32 px).
TALK_FONT_SCALE = 2.0
#: Without a `height`, a figure is this many times taller in talk mode.
TALK_HEIGHT_SCALE = 1.3
#: Trace types whose text (cell values, point and bar labels) gets a size (others have no `textfont`).
_TEXT_TRACES = frozenset({"heatmap", "bar", "scatter", "scattergl", "histogram"})


def for_talk(
    figure: go.Figure | Mapping[str, Any],
    *,
    height: int | None = None,
    font_scale: float = TALK_FONT_SCALE,
    min_font: float = TALK_FONT_PX,
) -> dict[str, Any]:
    """A copy of a plotly figure (go.Figure or its dict) for a projector, as a dict: every explicit font size
    `font_scale` times larger and none under `min_font` px, including the text a front end's theme would size
    (each axis's ticks and title, the legend, colour bars, hover labels, trace text), and no text set smaller by
    <sub> or <sup>; margins and colour bars grown with the fonts; small multiples of heatmaps read by their colours
    (their cell values no longer fit); rings around cell values grown with them;
    `height` px tall (default TALK_HEIGHT_SCALE times taller). A fixed width (the N2O heatmap's: a square
    matrix with its row labels and colour bar beside it) keeps the square: the part of it as wide as the figure
    is tall grows with the height, the rest (labels, colour bar) with the fonts."""
    d = figure.to_dict() if isinstance(figure, go.Figure) else copy.deepcopy(dict(figure))
    layout = d.setdefault("layout", {})
    traces = d.setdefault("data", [])
    _talk_text(layout, traces, font_scale, min_font)
    _small_multiples_by_colour(layout, traces)
    _rings_around_values(traces, font_scale)
    _talk_size(layout, height, font_scale)
    return d


def _rings_around_values(traces: list[dict[str, Any]], font_scale: float) -> None:
    """Open squares drawn around a heatmap's cell values (a best match) grow with the values' text, so that the
    ring stays around the value instead of crossing it (in place)."""
    for t in traces:
        marker = t.get("marker") or {}
        if t.get("type") == "scatter" and marker.get("symbol") == "square-open" and marker.get("size"):
            marker["size"] = float(marker["size"]) * font_scale


def _talk_text(layout: dict[str, Any], traces: list[dict[str, Any]], font_scale: float, min_font: float) -> None:
    """Every font of a figure's dict at least `min_font` px, explicit sizes `font_scale` times larger (in place)."""
    _full_size(layout)
    _full_size(traces)
    base = dict(layout.get("font") or {})
    base_size = max(min_font, float(base.get("size") or 12) * font_scale)  # 12: plotly's default size
    _grow_fonts(layout, font_scale, min_font)
    _grow_fonts(traces, font_scale, min_font)
    layout["font"] = dict(base, size=round(base_size, 1))
    for key in [k for k in layout if k.startswith(("xaxis", "yaxis"))] or ["xaxis", "yaxis"]:
        axis = layout.setdefault(key, {})
        _set_min_font(axis, "tickfont", min_font)
        _set_min_font(axis, "title", min_font, inner="font")
    for key in ("legend", "hoverlabel"):
        _set_min_font(layout, key, min_font, inner="font")
    title = layout.get("title")
    if title and (isinstance(title, str) or (isinstance(title, dict) and title.get("text"))):
        _set_min_font(layout, "title", round(min_font * 1.25), inner="font")
    for ann in layout.get("annotations") or []:
        _set_min_font(ann, "font", min_font)
    bars = [t["colorbar"] for t in traces if isinstance(t.get("colorbar"), dict)]
    bars += [a["colorbar"] for k, a in layout.items() if k.startswith("coloraxis") and "colorbar" in (a or {})]
    for bar in bars:
        _set_min_font(bar, "tickfont", min_font)
        _set_min_font(bar, "title", min_font, inner="font")
        if isinstance(bar.get("thickness"), (int, float)):
            bar["thickness"] = round(bar["thickness"] * font_scale)
    for trace in traces:
        if trace.get("type") in _TEXT_TRACES:
            _set_min_font(trace, "textfont", min_font)


def _talk_size(layout: dict[str, Any], height: int | None, font_scale: float) -> None:
    """`height` px (default TALK_HEIGHT_SCALE times taller), margins grown with the fonts, and a fixed width
    grown as `for_talk` says (in place)."""
    old_h = float(layout.get("height") or 450)  # plotly's default height
    new_h = float(height) if height else old_h * TALK_HEIGHT_SCALE
    layout["height"] = round(new_h)
    margin = layout.get("margin")
    if isinstance(margin, dict):
        layout["margin"] = {k: round(v * font_scale) if isinstance(v, (int, float)) else v for k, v in margin.items()}
    if isinstance(layout.get("width"), (int, float)):
        old_w = float(layout["width"])
        if old_w > old_h:  # the square loses the (grown) margins above and below it
            m = layout.get("margin") or {}
            square = new_h - float(m.get("t") or 0) - float(m.get("b") or 0)
            layout["width"] = round(square + font_scale * (old_w - old_h))
        else:
            layout["width"] = round(old_w * new_h / old_h)


#: Side-by-side heatmaps that keep their cell values in talk mode: at most this many panels of at most this many
#: columns (two 7 x 7 layer matrices: cells of ~100 px at 1920 px, where a 24 px "0.45" takes ~50).
_VALUES_KEPT_PANELS = 2
_VALUES_KEPT_COLUMNS = 8
#: Column labels this short ("layer 6"), at most `_VALUES_KEPT_COLUMNS` of them, stay under the panels even when
#: they repeat the rows: they fit upright.
_SHORT_COLUMN_LABEL = 8


def _columns(trace: dict[str, Any]) -> list[Any]:
    """A heatmap trace's column labels (its first row of values where it names none)."""
    x = trace.get("x")
    return list(x) if x is not None else list((trace.get("z") or [[]])[0])


def _small_multiples_by_colour(layout: dict[str, Any], traces: list[dict[str, Any]]) -> None:
    """Heatmaps on several panels (small multiples, e.g. one per similarity measure) keep their colours and hover
    but lose their cell values: at a projector's text size the values no longer fit in their cells (two panels
    of at most 8 columns keep them: their cells are wide enough). Panels whose
    columns are their rows (the same names in the same order) name them once, on the rows (every row): the
    slanted column labels would take a third of the height; a few short ones (`_SHORT_COLUMN_LABEL`, the layers of
    a small model) stay, upright (in place)."""
    heatmaps = [t for t in traces if t.get("type") == "heatmap"]
    panels = len({(t.get("xaxis") or "x", t.get("yaxis") or "y") for t in heatmaps})
    if panels < 2:
        return
    widest = max(len(_columns(t)) for t in heatmaps)
    keep_values = panels <= _VALUES_KEPT_PANELS and widest <= _VALUES_KEPT_COLUMNS  # two panels of few columns
    for t in heatmaps:
        if not keep_values:
            t.pop("texttemplate", None)
            t.pop("text", None)
        # every row named (plotly would thin the labels of short panels to every other one)
        layout.setdefault("yaxis" + (t.get("yaxis") or "y")[1:], {}).update(tickmode="linear", tick0=0, dtick=1)
        columns = list(t["x"]) if t.get("x") is not None else []
        longest = max(map(len, map(str, columns)), default=0)
        upright = len(columns) <= _VALUES_KEPT_COLUMNS and longest <= _SHORT_COLUMN_LABEL
        if columns == list(t.get("y") or []) and not upright:
            layout.setdefault("xaxis" + (t.get("xaxis") or "x")[1:], {})["showticklabels"] = False


#: Plotly's pseudo-HTML tags that set their text at 70% of its font (a colour bar's "chance 0.05 is below the
#: scale"): in talk mode that text is written at the full size.
_SHRINKING_TAGS = ("<sub>", "</sub>", "<sup>", "</sup>")


def _full_size(node: Any) -> None:
    """Every string inside a figure's dict without the tags that shrink it (`_SHRINKING_TAGS`), in place."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, val in list(items):
        if isinstance(val, str) and "<su" in val:
            for tag in _SHRINKING_TAGS:
                val = val.replace(tag, "")
            node[key] = val
        elif isinstance(val, (dict, list)):
            _full_size(val)


def _set_min_font(holder: dict[str, Any], key: str, min_font: float, inner: str | None = None) -> None:
    """`holder[key]["size"]` (with `inner`: `holder[key][inner]["size"]`, e.g. a title's font) at least
    `min_font`, set where the figure leaves it to the theme (in place)."""
    part = holder.get(key)
    part = dict(part) if isinstance(part, dict) else {"text": part} if isinstance(part, str) else {}
    holder[key] = part
    if inner is not None:
        _set_min_font(part, inner, min_font)
        return
    size = part.get("size")
    part["size"] = max(min_font, float(size)) if isinstance(size, (int, float)) else min_font


def _grow_fonts(node: Any, scale: float, min_font: float) -> None:
    """Every `size` inside a font-like dict (font, tickfont, textfont, title.font, ...) `scale` times larger and
    at least `min_font`, in place."""
    if isinstance(node, dict):
        for key, val in node.items():
            if isinstance(val, dict) and key.endswith("font") and isinstance(val.get("size"), (int, float)):
                val["size"] = round(max(min_font, val["size"] * scale), 1)
            _grow_fonts(val, scale, min_font)
    elif isinstance(node, list):
        for v in node:
            _grow_fonts(v, scale, min_font)
