"""Embedders ranked under several scorings as the pages show them (n2o_core.evaluation.ranks)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from n2o_core.evaluation.ranks import moves, rank_with_move


def test_a_rank_with_its_move_as_an_arrow():
    assert rank_with_move(3, 2) == "3 ▲2"
    assert rank_with_move(5.0, -1.0) == "5 ▼1"
    assert rank_with_move(4, 0) == "4 ="
    assert rank_with_move(None, 1) == "" and rank_with_move(np.nan, 0) == ""


def test_which_embedders_change_rank_between_the_columns():
    ranks = pd.DataFrame({"r1": [1, 2, 3, 4], "r2": [2, 1, 3, np.nan], "r3": [1, 2, 3, 4]})
    assert moves(ranks, ["r1", "r2", "r3"]).tolist() == [True, True, False, False]  # a missing rank is no move
    assert moves(ranks, ["r1", "r3"]).tolist() == [False] * 4
