"""label_positions: labels of near points go different ways; a label at the plot's edge turns inward."""

from __future__ import annotations

from n2o_core.figures.labels import POSITIONS, label_positions


def test_near_points_take_different_positions():
    pos = label_positions([0.0, 0.01, 1.0], [0.5, 0.5, 0.0], ["paraphrase-minilm", "glove-6b-50d", "tfidf"])
    assert len(pos) == 3 and set(pos) <= set(POSITIONS)
    assert pos[0] != pos[1]


def test_a_label_at_the_right_edge_turns_left():
    pos = label_positions([0.0, 1.0], [0.0, 1.0], ["a", "paraphrase-minilm-l3-really-long"], width_px=400)
    assert "right" not in pos[1]


def test_no_points():
    assert label_positions([], [], []) == []
