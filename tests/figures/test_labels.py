"""label_positions: labels of near points go different ways; a label at the plot's edge turns inward.
clear_placements: no label box or leader line comes near any marker, checked geometrically on random layouts."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.figures.labels import (
    CLEARANCE,
    POSITIONS,
    box_point_distance,
    clear_placements,
    clusters,
    label_positions,
    place_labels,
    segment_point_distance,
    text_box,
)


def test_near_points_take_different_positions():
    pos = label_positions([0.0, 0.01, 1.0], [0.5, 0.5, 0.0], ["paraphrase-minilm", "glove-6b-50d", "tfidf"])
    assert len(pos) == 3 and set(pos) <= set(POSITIONS)
    assert pos[0] != pos[1]


def test_a_label_at_the_right_edge_turns_left():
    pos = label_positions([0.0, 1.0], [0.0, 1.0], ["a", "paraphrase-minilm-l3-really-long"], width_px=400)
    assert "right" not in pos[1]


def test_no_points():
    assert label_positions([], [], []) == []


def test_the_cost_rule_can_cover_a_point_and_the_clear_rule_does_not():
    """Three points in a row 14 px apart with long labels: label_positions' best textposition for the middle one
    covers a neighbour; clear_placements keeps every box off every marker."""
    xs, ys, names = [100.0, 114.0, 128.0], [100.0, 100.0, 100.0], ["paraphrase-minilm-l3-mean"] * 3
    sizes = [text_box([n], 11) for n in names]
    got = clear_placements(xs, ys, sizes, radius_px=5.5, frame=(0, 0, 250, 250))
    for p, x, y in zip(got, xs, ys):
        assert p.clear
        assert min(box_point_distance(p.box(x, y), qx, qy) for qx, qy in zip(xs, ys)) >= 5.5 + CLEARANCE


@pytest.mark.parametrize("seed", range(40))
def test_random_layouts_keep_every_label_and_leader_clear(seed):
    """Up to 12 points in a 250 px panel, every other layout with a tight cluster of three; each label (one per
    group of touching markers) and its leader line keep off every marker outside its group."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 13))
    xs, ys = rng.uniform(28, 222, n), rng.uniform(28, 222, n)
    if seed % 2:  # a tight cluster of three, as two MiniLM models and tf-idf often are
        xs[:3], ys[:3] = 120 + rng.normal(0, 6, 3)[: min(3, n)], 120 + rng.normal(0, 6, 3)[: min(3, n)]
    names = ["x" * int(rng.integers(4, 26)) for _ in range(n)]
    labels = place_labels(xs.tolist(), ys.tolist(), names, font_px=11, radius_px=5.5, frame=(0, 0, 250, 250))
    assert sorted(i for g in labels for i in g.members) == list(range(n))
    pts = list(zip(xs, ys))
    for g in labels:
        p = g.placement
        box = p.box(g.x, g.y)
        assert p.clear and all(box_point_distance(box, *q) >= 5.5 + CLEARANCE - 1e-9 for q in pts)
        if p.leader:
            end = (min(max(g.x, box[0]), box[2]), min(max(g.y, box[1]), box[3]))
            others = [q for j, q in enumerate(pts) if j not in g.members]
            assert all(segment_point_distance((g.x, g.y), end, q) >= 5.5 + CLEARANCE - 1e-9 for q in others)


def test_clusters_chain_touching_points():
    assert clusters([0.0, 5.0, 9.0, 40.0], [0.0, 0.0, 0.0, 0.0], 6.0) == [[0, 1, 2], [3]]
    assert clusters([], [], 6.0) == []
