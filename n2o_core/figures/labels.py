"""Where to put the text label of each point of a labelled scatter (pure geometry on estimated text boxes; no
plotly, no I/O):

- `label_positions` picks a plotly `textposition` per point from its neighbours so that labels overlap each other,
  other points and the plot's edges as little as the nine positions allow (a cost, not a rule):

    positions = label_positions(x, y, names, width_px=900, height_px=400)
    go.Scatter(x=x, y=y, text=names, mode="markers+text", textposition=positions, cliponaxis=False)

- `clear_placements` is a rule for plots whose pixel geometry is known (fixed axis ranges and panel size): no label
  box comes within `CLEARANCE` px of any point's marker. Each label takes the nearest admissible spot — beside its
  point (eight positions) or farther out on rings of 16 directions, with a leader line that also clears every
  other marker — the one overlapping the labels placed so far and leaving the frame least; a label for which no
  spot is admissible (a point buried in a cluster wider than `RINGS` rings) is reported (`Placement.clear`).
  `text_box` estimates a label's box; `clusters` groups markers that touch; `place_labels` names each group once
  (one name a line) and places it by `clear_placements`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "CLEARANCE",
    "POSITIONS",
    "GroupLabel",
    "Placement",
    "box_point_distance",
    "clear_placements",
    "clusters",
    "label_positions",
    "place_labels",
    "segment_point_distance",
    "text_box",
]

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


# --------------------------------------------------------------------------- a rule: labels clear of every point

#: Pixels between a label's box (or its leader line) and any point's marker.
CLEARANCE = 2.0
#: Rings of candidate spots beyond the eight beside the point, and the pixels between rings.
RINGS = 6
RING_STEP = 8.0
#: Pixels between a marker and a label placed beside it.
GAP = 3.0
#: What a ring farther out costs, in px² of overlap with another label or of the box outside the frame.
RING_COST = 40.0
#: Conservative glyph width and line height (fractions of the font size) for `text_box`: a sans-serif font's
#: widest lowercase, digits and hyphens stay within them, so an estimated box holds the drawn text.
_BOX_CHAR_W = 0.62
_BOX_LINE_H = 1.45


@dataclass(frozen=True)
class Placement:
    """Where one label goes: its box's centre relative to its point (px, y up), its size, whether a leader line
    joins them (the label is not beside its point) and whether the box and line clear every marker."""

    dx: float
    dy: float
    width: float
    height: float
    leader: bool
    clear: bool

    def box(self, px: float, py: float) -> Box:
        """The label's box (x0, y0, x1, y1; y up) for its point at (px, py)."""
        x, y = px + self.dx, py + self.dy
        return x - self.width / 2, y - self.height / 2, x + self.width / 2, y + self.height / 2


def text_box(lines: Sequence[str], font_px: float, pad_px: float = 2.0) -> tuple[float, float]:
    """(width, height) px of a label of these lines at `font_px`, padding included (an upper estimate)."""
    longest = max((len(t) for t in lines), default=1)
    return max(1, longest) * font_px * _BOX_CHAR_W + 2 * pad_px, max(1, len(lines)) * font_px * _BOX_LINE_H + 2 * pad_px


def box_point_distance(box: Box, px: float, py: float) -> float:
    """Distance from a point to a box (0 inside it)."""
    dx = max(box[0] - px, 0.0, px - box[2])
    dy = max(box[1] - py, 0.0, py - box[3])
    return math.hypot(dx, dy)


def segment_point_distance(a: tuple[float, float], b: tuple[float, float], p: tuple[float, float]) -> float:
    """Distance from p to the segment ab."""
    vx, vy = b[0] - a[0], b[1] - a[1]
    span = vx * vx + vy * vy
    t = 0.0 if span == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / span))
    return math.hypot(p[0] - a[0] - t * vx, p[1] - a[1] - t * vy)


def _candidates(w: float, h: float, r: float) -> list[tuple[float, float, bool]]:
    """(dx, dy, leader) of the box centre for an anchor of radius r, nearest first: the eight spots beside it,
    then `RINGS` rings of 16 directions, each `RING_STEP` px farther out."""
    near = GAP + r
    out = [
        (ux * (near + w / 2) if ux else 0.0, uy * (near + h / 2) if uy else 0.0, False)
        for ux, uy in ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))
    ]
    for ring in range(1, RINGS + 1):
        d = near + ring * RING_STEP
        for j in range(16):
            c, s = math.cos(j * math.pi / 8), math.sin(j * math.pi / 8)
            c, s = (0.0 if abs(c) < 1e-9 else c), (0.0 if abs(s) < 1e-9 else s)
            out.append((c * d + math.copysign(w / 2, c) * (c != 0), s * d + math.copysign(h / 2, s) * (s != 0), True))
    return out


def _ring(rank: int) -> int:
    """The ring of the candidate at `rank` in `_candidates` (0: beside the point)."""
    return 0 if rank < 8 else 1 + (rank - 8) // 16


def _leader_end(box: Box, px: float, py: float) -> tuple[float, float]:
    """The point of the box nearest to (px, py): where a leader line from the point meets the label."""
    return min(max(px, box[0]), box[2]), min(max(py, box[1]), box[3])


def clear_placements(
    xs: Sequence[float],
    ys: Sequence[float],
    sizes: Sequence[tuple[float, float]],
    *,
    radius_px: float,
    frame: Box,
    points: Sequence[tuple[float, float]] | None = None,
    anchor_radii: Sequence[float] | None = None,
    owners: Sequence[Sequence[int]] | None = None,
) -> list[Placement]:
    """One `Placement` per label anchor at pixel coordinates (xs, ys; y up), labels of `sizes` (width, height px;
    `text_box`), markers of `radius_px` at `points` (default: the anchors), inside `frame` (x0, y0, x1, y1) where
    possible. An anchor may stand for several markers (`owners`: their indices in `points`; default: the anchor's
    own) within its `anchor_radii` (default `radius_px`). Admissible spots keep the box `CLEARANCE` px off every
    marker and a leader line `CLEARANCE` px off every marker the label does not name; among them a label takes
    the one with the least cost (overlap with the labels placed so far x3, area outside the frame x10,
    `RING_COST` per ring out), the nearest on a tie."""
    n = len(xs)
    anchors = [(float(xs[i]), float(ys[i])) for i in range(n)]
    dots = [(float(x), float(y)) for x, y in points] if points is not None else anchors
    radii = [float(r) for r in anchor_radii] if anchor_radii is not None else [float(radius_px)] * n
    named = [set(o) for o in owners] if owners is not None else [{i} for i in range(n)]
    keep = radius_px + CLEARANCE
    placed: list[Box] = []
    out: list[Placement | None] = [None] * n
    for i in sorted(range(n), key=lambda i: anchors[i]):
        w, h = sizes[i]
        px, py = anchors[i]
        others = [q for j, q in enumerate(dots) if j not in named[i]]
        best: tuple[float, ...] | None = None
        choice = Placement(0.0, radii[i] + GAP + h / 2, w, h, False, False)
        for rank, (dx, dy, leader) in enumerate(_candidates(w, h, radii[i])):
            box = (px + dx - w / 2, py + dy - h / 2, px + dx + w / 2, py + dy + h / 2)
            hits = sum(max(0.0, keep - box_point_distance(box, qx, qy)) for qx, qy in dots)
            if leader:
                end = _leader_end(box, px, py)
                hits += sum(max(0.0, keep - segment_point_distance((px, py), end, q)) for q in others)
            cost = 3 * sum(_overlap(box, p) for p in placed) + 10 * (w * h - _overlap(box, frame))
            key = (hits, cost + RING_COST * _ring(rank), rank)
            if best is None or key < best:
                best, choice = key, Placement(dx, dy, w, h, leader, hits == 0)
        out[i] = choice
        placed.append(choice.box(px, py))
    return [p for p in out if p is not None]


def clusters(xs: Sequence[float], ys: Sequence[float], within_px: float) -> list[list[int]]:
    """Groups of points (indices, in order) chained by distances below `within_px` (single linkage): markers that
    touch or nearly so, which one label names together."""
    n = len(xs)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            if math.hypot(xs[i] - xs[j], ys[i] - ys[j]) < within_px:
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


@dataclass(frozen=True)
class GroupLabel:
    """One label of `place_labels`: the points it names (indices; markers that touch are named together), its
    anchor (their centroid, px) and where its box goes."""

    members: tuple[int, ...]
    x: float
    y: float
    placement: Placement


def place_labels(
    xs: Sequence[float], ys: Sequence[float], names: Sequence[str], *, font_px: float, radius_px: float, frame: Box
) -> list[GroupLabel]:
    """Labels for points at pixel coordinates (y up) with markers of `radius_px`: points whose markers touch
    (`clusters` within a marker's diameter) share one label, one name a line, anchored at their centroid; each
    label placed by `clear_placements`, clear of every marker."""
    groups = clusters(xs, ys, 2 * radius_px)
    centres = [(sum(xs[i] for i in g) / len(g), sum(ys[i] for i in g) / len(g)) for g in groups]
    radii = [max(math.hypot(xs[i] - cx, ys[i] - cy) for i in g) + radius_px for g, (cx, cy) in zip(groups, centres)]
    placed = clear_placements(
        [c[0] for c in centres],
        [c[1] for c in centres],
        [text_box([str(names[i]) for i in g], font_px) for g in groups],
        radius_px=radius_px,
        frame=frame,
        points=list(zip(xs, ys)),
        anchor_radii=radii,
        owners=groups,
    )
    return [GroupLabel(tuple(g), c[0], c[1], p) for g, c, p in zip(groups, centres, placed, strict=True)]
