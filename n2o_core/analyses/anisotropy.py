"""Anisotropy: how far an embedder's sentence vectors all point one way (Ethayarajh 2019, "How contextual are
contextualized word representations?": the mean cosine between randomly drawn pairs; 0 for directions spread
evenly, near 1 when every vector lies in a narrow cone).

Here it is the mean over *every* pair of distinct sentences with a vector (a zero vector has no direction), the
value random pairs estimate, computed exactly in one pass: with unit rows u_i and m of them,
mean_{i != j} u_i . u_j = (|sum_i u_i|^2 - m) / (m (m - 1)).
When it is high, every sentence is close to every other one and neighbors are decided by small differences of
cosine; z-normalization (per-dimension standardization over the corpus, Eger et al.) takes the common direction out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from n2o_core.corpus_workspace import Workspace
from n2o_core.search.rows import Standardizer, ZNormRows, prepare_rows

#: Mean cosine of random pairs from which an embedder is called anisotropic on the pages: random sentences then sit
#: closer than halfway between orthogonal and identical, and neighbors differ from them by a thin margin.
HIGH_ANISOTROPY = 0.5
_BLOCK = 65536


def mean_pair_cosine(X: np.ndarray | sp.spmatrix, standardizer: Standardizer | None = None) -> float:
    """Mean cosine over every pair of distinct non-zero rows of X (after z-normalization with `standardizer`),
    in float64; NaN with fewer than two non-zero rows."""
    d = X.shape[1]
    total = np.zeros(d, np.float64)
    m = 0
    for s in range(0, X.shape[0], _BLOCK):
        block = X[s : s + _BLOCK]
        rows, zero = prepare_rows(block, standardizer, dtype=np.float64)
        if isinstance(rows, ZNormRows):
            total += rows.sum(axis=0)
        else:
            total += np.asarray(rows.sum(axis=0), np.float64).ravel()
        m += int((~np.asarray(zero, bool)).sum())
    if m < 2:
        return float("nan")
    return float((total @ total - m) / (m * (m - 1)))


@dataclass(frozen=True)
class Anisotropy:
    """One embedder's mean cosine of random sentence pairs on a corpus: raw and after z-normalization."""

    embedder: str
    raw: float
    znorm: float

    @property
    def high(self) -> bool:
        """Whether the raw value is at least HIGH_ANISOTROPY."""
        return bool(np.isfinite(self.raw) and self.raw >= HIGH_ANISOTROPY)


def anisotropy(ws: Workspace, eid: str) -> Anisotropy:
    """`mean_pair_cosine` of the embedder's corpus vectors (cached embeddings), raw and z-normalized."""
    X = ws.embeddings(eid)
    return Anisotropy(eid, mean_pair_cosine(X), mean_pair_cosine(X, ws.standardizer(eid)))


def anisotropies(ws: Workspace, embedder_ids: Sequence[str]) -> dict[str, Anisotropy]:
    """`anisotropy` of each embedder, in the order given."""
    return {e: anisotropy(ws, e) for e in embedder_ids}


def implication(a: Anisotropy) -> str:
    """What a high value means, in one sentence (for a page or a report)."""
    return (
        f"{a.embedder}: random sentence pairs have a mean cosine of {a.raw:.2f} (anisotropy, Ethayarajh 2019), so "
        "every sentence is close to every other and its neighbors are decided by small differences of cosine; "
        f"z-normalization takes the common direction out (mean cosine {a.znorm:.2f} after it)."
    )
