"""Where to put the text label of each point of a labelled scatter so that no two labels overlap, no label
covers another point and none runs off the plot: `label_positions` picks a plotly `textposition` per point from
its neighbours (pure geometry on estimated text boxes; no plotly, no I/O).

    positions = label_positions(x, y, names, width_px=900, height_px=400)
    go.Scatter(x=x, y=y, text=names, mode="markers+text", textposition=positions, cliponaxis=False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["POSITIONS", "label_positions"]

#: The positions tried, in order of preference (ties go to the first).
POSITIONS = (
    "top center",
    "bottom center",
    "middle right",
    "middle left",
    "top right",
    "top left",
    "bottom right",
    "bottom left",
)
#: Average glyph width and line height as a fraction of the font size (a sans-serif font).
_CHAR_W = 0.58
_LINE_H = 1.25

Box = tuple[float, float, float, float]


def _box(position: str, px: float, py: float, w: float, h: float, r: float) -> Box:
    """The label's box (x0, y0, x1, y1; y up) for a point at (px, py) with a marker of radius r."""
    vert, horiz = position.split()
    if horiz == "center":
        x0 = px - w / 2
    elif horiz == "right":
        x0 = px + (r if vert == "middle" else 0.0)
    else:
        x0 = px - w - (r if vert == "middle" else 0.0)
    if vert == "top":
        y0 = py + r
    elif vert == "bottom":
        y0 = py - r - h
    else:
        y0 = py - h / 2
    return x0, y0, x0 + w, y0 + h


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _scaled(values: Sequence[float], size: float, log: bool) -> list[float]:
    """Values mapped onto 0..size px as plotly's autorange would roughly place them (a 5% pad each side)."""
    v = [math.log10(x) if log and x > 0 else float(x) for x in values]
    lo, hi = min(v), max(v)
    span = hi - lo
    if span <= 0:
        return [size / 2] * len(v)
    pad = 0.05 * span
    return [(x - lo + pad) / (span + 2 * pad) * size for x in v]


def label_positions(
    x: Sequence[float],
    y: Sequence[float],
    labels: Sequence[str],
    *,
    width_px: float = 800,
    height_px: float = 400,
    font_px: float = 12,
    marker_px: float = 12,
    log_x: bool = False,
    log_y: bool = False,
) -> list[str]:
    """A plotly textposition per point: each label in turn (left to right) takes the position whose estimated box
    overlaps the labels placed so far, the other points and the plot's edges least (`width_px` x `height_px`: the
    plot area)."""
    n = len(labels)
    if n == 0:
        return []
    xs = _scaled(x, width_px, log_x)
    ys = _scaled(y, height_px, log_y)
    r = marker_px / 2 + 2
    h = font_px * _LINE_H
    dots = [(xs[i] - r, ys[i] - r, xs[i] + r, ys[i] + r) for i in range(n)]
    frame = (0.0, 0.0, width_px, height_px)
    placed: list[Box] = []
    out = [POSITIONS[0]] * n
    for i in sorted(range(n), key=lambda i: (xs[i], ys[i])):
        w = max(1, len(str(labels[i]))) * font_px * _CHAR_W
        best, best_cost = POSITIONS[0], math.inf
        for pos in POSITIONS:
            box = _box(pos, xs[i], ys[i], w, h, r)
            inside = _overlap(box, frame)
            cost = 4 * (w * h - inside)  # the part outside the plot
            cost += sum(_overlap(box, p) for p in placed) * 3
            cost += sum(_overlap(box, d) for j, d in enumerate(dots) if j != i)
            if cost < best_cost - 1e-9:
                best, best_cost = pos, cost
        out[i] = best
        placed.append(_box(best, xs[i], ys[i], w, h, r))
    return out
