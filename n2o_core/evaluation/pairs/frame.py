"""Pairs and where they come from: `PairSource`, `Pairs` (a frame with FRAME_COLUMNS, scores on the 0-5 STS scale),
`FilteredPairs`, and `pairs_from_records`, which validates columns into `Pairs` (see the package docstring)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.text import token_set

#: Columns of `Pairs.frame`: `row` is the 0-based position in the loaded source (before any filter).
FRAME_COLUMNS = ["row", "sentence1", "sentence2", "score", "genre"]
#: The STS Benchmark's headerless layout.
STSB_COLUMNS = ["genre", "file", "year", "id", "score", "sentence1", "sentence2"]
#: synthetic:<rule> -> the HEROS subset whose rule makes the second sentence.
SYNTHETIC_RULES = {"heros-synonym": "synonym", "heros-typo": "typo"}
SYNTHETIC_DEFAULT_N = 100


@dataclass(frozen=True)
class PairSource:
    """Where pairs come from. `label` is one line for every output; synthetic ones say they are synthetic."""

    spec: str
    kind: str  # "sts-b", "table", "hf", "heros", "lee", "synthetic"
    label: str
    synthetic: bool = False
    scored: bool = True
    score_scale: float | None = 5.0  # the source's own maximum score (5 or 1); frame scores are on 0-5
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "kind": self.kind,
            "label": self.label,
            "synthetic": self.synthetic,
            "scored": self.scored,
            "score_scale": self.score_scale,
            "notes": list(self.notes),
        }


@dataclass
class Pairs:
    """Pairs in a frame with FRAME_COLUMNS (score on 0-5, NaN when the source has none; genre "" if unknown)."""

    frame: pd.DataFrame
    source: PairSource
    extra: dict[str, Any] = field(default_factory=dict)  # source-specific data (Lee: documents, indices)

    def __len__(self) -> int:
        return len(self.frame)

    @property
    def queries(self) -> list[str]:
        return self.frame["sentence1"].tolist()

    @property
    def paraphrases(self) -> list[str]:
        return self.frame["sentence2"].tolist()

    @property
    def scores(self) -> np.ndarray:
        return self.frame["score"].to_numpy(np.float64)

    @property
    def genres(self) -> list[str]:
        """The distinct genres the pairs name, sorted ("" for unknown left out)."""
        return sorted(g for g in set(self.frame["genre"]) if g)


@dataclass
class FilteredPairs:
    """The pairs left after the filters, how many each filter dropped (applied in order), and the settings."""

    pairs: Pairs
    dropped: dict[str, int]
    filters: dict[str, Any]
    n_loaded: int


def normalize_space(text: Any) -> str:
    """`text` as a string with whitespace runs made one space (as corpus sentences are)."""
    return " ".join(str(text).split())


def column_key(name: Any) -> str:
    """A column name compared loosely: lowercase, letters, digits and underscores only."""
    return "".join(c for c in str(name).lower() if c.isalnum() or c == "_")


def _score_scale(values: np.ndarray, scale: float | None) -> float:
    if scale is not None:
        if not (math.isfinite(scale) and scale > 0):
            raise N2OError(f"--scale must be a positive number (got {scale}).")
        return float(scale)
    return 1.0 if values.size and float(np.max(values)) <= 1.0 else 5.0


def pairs_from_records(
    s1: Sequence[Any],
    s2: Sequence[Any],
    scores: Sequence[Any] | None,
    genres: Sequence[Any] | None,
    source: PairSource,
    *,
    scale: float | None = None,
    lines: Sequence[int] | None = None,
) -> Pairs:
    """Validated `Pairs` from columns: non-empty sentences, a query with word tokens, numeric scores in
    [0, scale] (rescaled to 0-5). `lines`: where each record sits in the source, for error messages."""
    where = [f"line {ln}" for ln in lines] if lines is not None else [f"pair {i + 1}" for i in range(len(s1))]
    name = source.spec
    if not len(s1):
        raise N2OError(f"'{name}' has no pairs.")
    q = [normalize_space(t) if t is not None else "" for t in s1]
    p = [normalize_space(t) if t is not None else "" for t in s2]
    for i in range(len(q)):
        if not q[i] or q[i] in ("nan", "None"):
            raise N2OError(f"'{name}', {where[i]}: sentence1 is empty.")
        if not p[i] or p[i] in ("nan", "None"):
            raise N2OError(f"'{name}', {where[i]}: sentence2 is empty.")
        if not token_set(q[i]):
            raise N2OError(f"'{name}', {where[i]}: the query (sentence1) {q[i]!r} has no word tokens.")
    if scores is None:
        sc = np.full(len(q), np.nan)
        source = replace(source, scored=False, score_scale=None)
    else:
        vals = []
        for i, v in enumerate(scores):
            try:
                x = float(v)
            except (TypeError, ValueError):
                x = math.nan
            if not math.isfinite(x):
                raise N2OError(f"'{name}', {where[i]}: score {str(v)!r} is not a number.")
            vals.append(x)
        sc = np.asarray(vals, np.float64)
        top = _score_scale(sc, scale)
        bad = np.flatnonzero((sc < 0) | (sc > top))
        if bad.size:
            i = int(bad[0])
            raise N2OError(
                f"'{name}', {where[i]}: score {sc[i]:g} is outside the 0-{top:g} scale"
                + (" (give --scale MAX for another scale)." if scale is None else ".")
            )
        sc = sc * (5.0 / top)
        source = replace(source, scored=True, score_scale=top)
    g = [normalize_space(x) if x is not None else "" for x in genres] if genres is not None else [""] * len(q)
    frame = pd.DataFrame({"row": np.arange(len(q)), "sentence1": q, "sentence2": p, "score": sc, "genre": g})
    return Pairs(frame[FRAME_COLUMNS], source)
