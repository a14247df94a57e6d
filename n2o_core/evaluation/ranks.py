"""Embedders ranked under several scorings (human similarity's four, probing's classifiers), as the pages show
them: which embedders change rank between the scorings, and a rank with its move against the first scoring."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def moves(ranks: pd.DataFrame, columns: Sequence[str]) -> pd.Series:
    """Per row (one embedder), whether its rank differs between the rank `columns` (a missing rank is not a
    move)."""
    return ranks[list(columns)].nunique(axis=1) > 1


def rank_with_move(rank: float | None, move: float) -> str:
    """A rank with its move against the first scoring (positive = up) as an arrow: "3 ▲2" (up two places), "5 ▼1",
    "4 =" (no move); "" without a rank."""
    if rank is None or pd.isna(rank):
        return ""
    m = int(move)
    return f"{int(rank)} " + ("=" if m == 0 else f"▲{m}" if m > 0 else f"▼{-m}")
