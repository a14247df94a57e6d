"""Where the measures agree and where they part: matrices, ranks, rank movers and embedder maps of one
`MeasureComparison` (pure functions; the Measures page, the CLI and the API draw or print them).

- `value_matrix`: an embedders x embedders matrix of one measure as computed (row = a, column = b: for a
  directional measure such as regression R², row a predicts column b); the diagonal is the measure's value for a
  space with itself (1, or 0 for the Procrustes angle).
- `similarity_matrix`: the same oriented so that higher = more similar and symmetric (both directions averaged),
  the input of the clustering and of the embedder maps.
- `rank_table`: every unordered pair's rank under each measure (1 = the most similar pair).
- `rank_movers`: the pairs whose rank moves most between two measures (by default N2O's mutual k-NN and linear
  CKA): a local and a global view of the same two spaces.
- `classical_mds`: Torgerson's classical multidimensional scaling of a distance matrix (1 - similarity).
- `pwcca_gap`: how far the released code's PWCCA lies from the paper's formula's over the ordered pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from n2o_core.measures import get_measure
from n2o_core.measures.engine import pairs_of

if TYPE_CHECKING:
    from n2o_core.measures.run import MeasureComparison

__all__ = ["PwccaGap", "classical_mds", "pwcca_gap", "rank_movers", "rank_table", "similarity_matrix", "value_matrix"]


def value_matrix(cmp: MeasureComparison, measure: str) -> np.ndarray:
    """(n, n) values as computed: row a, column b (a directional measure reads "a to b")."""
    names = cmp.embedders
    m = get_measure(measure)
    out = np.full((len(names), len(names)), m.self_value)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j and (m.symmetric is False or i < j):
                out[i, j] = cmp.value(a, b, measure)
                if m.symmetric:
                    out[j, i] = out[i, j]
    return out


def similarity_matrix(cmp: MeasureComparison, measure: str) -> np.ndarray:
    """(n, n) symmetric similarities (higher = more similar; both directions of a directional measure averaged,
    the Procrustes angle as its cosine); the diagonal is the similarity of a space with itself."""
    names = cmp.embedders
    m = get_measure(measure)
    sims = cmp.pair_similarities(measure)
    out = np.full((len(names), len(names)), m.similarity(m.self_value))
    pos = {e: i for i, e in enumerate(names)}
    for (a, b), s in zip(pairs_of(names), sims):
        out[pos[a], pos[b]] = out[pos[b], pos[a]] = s
    return out


def rank_table(cmp: MeasureComparison) -> pd.DataFrame:
    """One row per unordered pair ("a", "b"), one column per measure: the pair's rank among all pairs under that
    measure (1 = the most similar; ties share the lower rank)."""
    pairs = pairs_of(cmp.embedders)
    df = pd.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs]})
    for msr in cmp.measures:
        df[msr] = pd.Series(cmp.pair_similarities(msr)).rank(ascending=False, method="min").astype("Int64")
    return df


def rank_movers(cmp: MeasureComparison, m1: str = "mutual_knn", m2: str = "cka_linear") -> pd.DataFrame:
    """Pairs sorted by how far their rank moves between measures m1 and m2: columns a, b, rank under each,
    the move (rank under m2 minus rank under m1) and its size."""
    ranks = rank_table(cmp)
    if m1 not in ranks or m2 not in ranks:
        return pd.DataFrame(columns=["a", "b", m1, m2, "move", "size"])
    out = ranks[["a", "b", m1, m2]].copy()
    out["move"] = (out[m2] - out[m1]).astype(int)
    out["size"] = out["move"].abs()
    return out.sort_values(["size", m1], ascending=[False, True], ignore_index=True)


def classical_mds(D: np.ndarray, dims: int = 2) -> np.ndarray:
    """Torgerson's classical MDS: the `dims` leading coordinates of the double-centred squared distances
    (B = -1/2 J D² J, eigenvectors scaled by the square roots of their eigenvalues; negative ones clipped).
    Signs are fixed so that each axis's largest coordinate is positive (the same map every run)."""
    D = np.asarray(D, np.float64)
    n = D.shape[0]
    if n == 0:
        return np.zeros((0, dims))
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ (D**2) @ J
    vals, vecs = np.linalg.eigh((B + B.T) / 2)
    order = np.argsort(vals)[::-1][:dims]
    coords = vecs[:, order] * np.sqrt(np.clip(vals[order], 0.0, None))
    if coords.shape[1] < dims:
        coords = np.pad(coords, ((0, 0), (0, dims - coords.shape[1])))
    for j in range(dims):
        if coords[np.argmax(np.abs(coords[:, j])), j] < 0:
            coords[:, j] = -coords[:, j]
    return coords


@dataclass(frozen=True)
class PwccaGap:
    """The released code's PWCCA minus the paper's formula's (Morcos et al. 2018) over the ordered pairs that have
    both: its lowest and highest value, how many pairs, and the pair of the largest gap with its two values."""

    low: float
    high: float
    pairs: int
    a: str
    b: str
    paper: float
    released: float


def pwcca_gap(cmp: MeasureComparison) -> PwccaGap | None:
    """How far `pwcca_released` lies from `pwcca` (see `PwccaGap`); None unless both were computed for some pair."""
    if not {"pwcca", "pwcca_released"} <= set(cmp.measures):
        return None
    f = cmp.to_frame()
    both = f[f.measure == "pwcca"].merge(f[f.measure == "pwcca_released"], on=["a", "b"], suffixes=("", "_r"))
    diff = (both.value_r - both.value).dropna()
    if not len(diff):
        return None
    top = both.loc[diff.abs().idxmax()]
    return PwccaGap(
        float(diff.min()), float(diff.max()), len(diff), str(top.a), str(top.b), float(top.value), float(top.value_r)
    )
