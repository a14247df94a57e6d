"""Quality beside agreement: one row per embedder with how much it agrees with the others (N2O) and how it scores
on the seeds' quality measures, so the two can be read side by side (pure; no Streamlit, no I/O).

Columns (`QUALITY_COLUMNS`; a column whose analysis was not run is NaN):

- ``n2o_mean``: the embedder's mean N2O with every other compared embedder: the mean of its row of the N2O matrix
  (mean over query samples, at the chosen k) without the diagonal (Lin & Smith 2019, §4-5).
- ``needle_mrr``: mean reciprocal rank of each query's paraphrase in the corpus (N2O §8, Table 3;
  `n2o_core.evaluation.needle`).
- ``sts_spearman``: Spearman correlation of raw cosine with human similarity scores (the "UCP" setting of Eger
  et al., Pitfalls; `n2o_core.evaluation.sts`).
- ``negation_sensitivity``: HEROS normalized similarity of the Synonym subset minus that of the Negation (Main)
  subset, (s - b)/(1 - b) averaged per subset (Chiang et al.; `evaluation.heros`). Positive: negating the main verb
  moves a sentence further from the original than swapping one word for a synonym, i.e. the embedder notices
  negation; about 0 or negative: it does not. This difference is this project's summary of Heros' Figure 1,
  not a number the paper reports.
- ``dim``: the embedding dimension (tf-idf: its vocabulary size). Pitfalls: comparing embedders of different
  sizes is unfair where size itself drives the score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.runtime.import_lock import heavy_imports

__all__ = [
    "QUALITY_COLUMNS",
    "QualityColumn",
    "column_correlation",
    "embedder_dims",
    "mean_n2o_with_others",
    "negation_sensitivity",
    "quality_csv",
    "quality_display",
    "quality_table",
]


@dataclass(frozen=True)
class QualityColumn:
    """A column of the quality table: its label, where it comes from, and whether higher is better."""

    label: str
    source: str
    higher_is_better: bool | None


#: Column key -> (label, source). Order = the table's order.
QUALITY_COLUMNS: dict[str, QualityColumn] = {
    "n2o_mean": QualityColumn(
        "Mean N2O with the others",
        "N2O heatmap (Lin & Smith 2019 §4-5): the embedder's row of the N2O matrix at k, mean over query samples, "
        "averaged over the other embedders",
        None,
    ),
    "needle_mrr": QualityColumn(
        "Needle MRR",
        "Paraphrase needle (N2O §8, Table 3): mean of 1/rank of each query's paraphrase among the corpus sentences",
        True,
    ),
    "sts_spearman": QualityColumn(
        "Human-similarity Spearman",
        "Human similarity (Eger et al., Pitfalls): Spearman ρ of raw cosine with the human scores",
        True,
    ),
    "negation_sensitivity": QualityColumn(
        "HEROS negation sensitivity",
        "HEROS (Chiang et al.): normalized similarity (s − b)/(1 − b) of Synonym minus that of Negation (Main); "
        "positive = a negated sentence moves further than a synonym swap",
        True,
    ),
    "dim": QualityColumn(
        "Dimension",
        "The embedder's vector size (tf-idf: its vocabulary); Pitfalls: compare embedders of equal size",
        None,
    ),
}


def embedder_dims(ws: Any, names: Sequence[str]) -> dict[str, int]:
    """Each embedder's dimension: the registry's, or the width of its corpus embeddings when it depends on the
    corpus (tf-idf: the vocabulary size; read from the cache, computed when missing)."""
    out = {}
    for e in names:
        dim = None if ws.is_precomputed(e) else ws.info(e).dim
        out[e] = int(dim) if dim else int(ws.embeddings(e).shape[1])
    return out


def mean_n2o_with_others(M: np.ndarray, names: Sequence[str]) -> pd.Series:
    """Per embedder, the mean of its row of the N2O matrix `M` without the diagonal (NaN entries skipped; NaN for
    a single embedder)."""
    M = np.asarray(M, np.float64)
    n = len(names)
    if M.shape != (n, n):
        raise N2OError(f"An N2O matrix for {n} embedders must be {n} x {n} (got shape {M.shape}).")
    off = ~np.eye(n, dtype=bool)
    vals = []
    for i in range(n):
        row = M[i][off[i]]
        row = row[np.isfinite(row)]
        vals.append(float(row.mean()) if row.size else float("nan"))
    return pd.Series(vals, index=list(names), name="n2o_mean", dtype=np.float64)


def negation_sensitivity(results: pd.DataFrame) -> pd.Series:
    """Per embedder: normalized similarity of the Synonym subset minus that of the Negation (Main) subset, from a
    HEROS results frame (embedder, subset, normalized, ...). NaN where either subset is missing."""
    missing = {"embedder", "subset", "normalized"} - set(results.columns)
    if missing:
        raise N2OError(f"The HEROS results frame lacks column(s): {', '.join(sorted(missing))}.")
    if results.empty:
        return pd.Series(dtype=np.float64, name="negation_sensitivity")
    wide = results.pivot_table(index="embedder", columns="subset", values="normalized", aggfunc="mean", sort=False)
    syn = wide["synonym"] if "synonym" in wide else pd.Series(np.nan, index=wide.index)
    neg = wide["negation_main"] if "negation_main" in wide else pd.Series(np.nan, index=wide.index)
    return (syn - neg).astype(np.float64).rename("negation_sensitivity")


def _by_embedder(frame: pd.DataFrame | None, column: str, what: str) -> pd.Series | None:
    if frame is None:
        return None
    if "embedder" not in frame.columns or column not in frame.columns:
        raise N2OError(f"The {what} results lack the column(s) embedder / {column}.")
    return pd.Series(frame[column].to_numpy(np.float64), index=frame["embedder"].tolist())


def quality_table(
    names: Sequence[str],
    *,
    n2o: np.ndarray | None = None,
    needle: pd.DataFrame | None = None,
    sts: pd.DataFrame | None = None,
    heros: pd.DataFrame | None = None,
    dims: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """One row per embedder in `names` (in that order), the QUALITY_COLUMNS after an ``embedder`` column.

    `n2o`: the N2O matrix of `names` (mean over samples); `needle`: `NeedleResult.results` (embedder, mrr);
    `sts`: `STSResult.results` (embedder, spearman); `heros`: HEROS results rows (embedder, subset, normalized);
    `dims`: embedder -> dimension. Anything not given, or an embedder missing from it, is NaN."""
    names = list(names)
    out = pd.DataFrame({"embedder": names})
    cols: dict[str, pd.Series | None] = {
        "n2o_mean": mean_n2o_with_others(n2o, names) if n2o is not None else None,
        "needle_mrr": _by_embedder(needle, "mrr", "needle"),
        "sts_spearman": _by_embedder(sts, "spearman", "human-similarity"),
        "negation_sensitivity": negation_sensitivity(heros) if heros is not None else None,
        "dim": pd.Series({e: float(d) for e, d in dims.items()}, dtype=np.float64) if dims is not None else None,
    }
    for key, series in cols.items():
        if series is None:
            out[key] = np.nan
        else:
            out[key] = [float(series[e]) if e in series.index else np.nan for e in names]
    return out[["embedder", *QUALITY_COLUMNS]]


def column_correlation(table: pd.DataFrame, x: str, y: str) -> tuple[float, int]:
    """Spearman ρ between two columns of the quality table over the embedders that have both values, and how
    many those are (NaN below 3 or when a column is constant)."""
    with heavy_imports():
        from scipy import stats

    for c in (x, y):
        if c not in table.columns:
            raise N2OError(f"The quality table has no column '{c}'.")
    both = table[[x, y]].astype(np.float64).dropna()
    n = len(both)
    if n < 3 or both[x].nunique() < 2 or both[y].nunique() < 2:
        return float("nan"), n
    return float(stats.spearmanr(both[x], both[y])[0]), n


NOT_RUN = "—"


def quality_display(table: pd.DataFrame, digits: int = 4) -> pd.DataFrame:
    """The table as shown: column labels, values as text with `digits` decimals (dimension as a whole number with
    thousands separators), and NOT_RUN ("—") where an analysis was not run."""
    out = pd.DataFrame({"embedder": table["embedder"]})
    for key, col in QUALITY_COLUMNS.items():
        fmt = "{:,.0f}" if key == "dim" else f"{{:.{digits}f}}"
        out[col.label] = [NOT_RUN if pd.isna(v) else fmt.format(float(v)) for v in table[key]]
    return out


def quality_csv(table: pd.DataFrame) -> str:
    """The table as CSV (empty cells where an analysis was not run; dimension as a whole number)."""
    out = table.copy()
    if "dim" in out.columns:
        out["dim"] = out["dim"].astype("Int64")
    return out.to_csv(index=False, float_format="%.6g")
