"""What a neighbor search returns: `Neighbors` (ids and cosines, nearest first), `NO_NEIGHBOR` and `recall_of`.

A query with no neighbors (a zero vector, see `n2o_core.search.rows`) has a row of `NO_NEIGHBOR` ids and cosine 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from n2o_core.errors import N2OError

NO_NEIGHBOR = -1


def recall_of(approx_ids: np.ndarray, exact_ids: np.ndarray) -> float:
    """Mean fraction of each query's exact neighbors that the approximate search found (1.0 when none)."""
    hits = total = 0
    for a, e in zip(approx_ids, exact_ids):
        truth = set(int(i) for i in e if i >= 0)
        hits += len(truth.intersection(int(i) for i in a if i >= 0))
        total += len(truth)
    return hits / total if total else 1.0


@dataclass
class Neighbors:
    """k nearest neighbors of q queries, nearest first."""

    ids: np.ndarray  # (q, k) int64, NO_NEIGHBOR where a query has no neighbors (zero vector)
    sims: np.ndarray  # (q, k) float32 cosine, 0.0 where ids == NO_NEIGHBOR
    recall: float | None = None  # approximate search: recall@k against exact on held-out queries
    seconds: float = 0.0
    # approximate search only: held-out query ids and their exact / approximate neighbor ids (h, k)
    check_ids: np.ndarray | None = None
    check_exact: np.ndarray | None = None
    check_approx: np.ndarray | None = None

    @property
    def k(self) -> int:
        return int(self.ids.shape[1])

    def head(self, k: int) -> Neighbors:
        """The k nearest (k <= self.k): a view, no search."""
        if k > self.k:
            raise N2OError(f"k={k} is larger than the {self.k} neighbors computed.")
        if self.check_ids is None or self.check_exact is None or self.check_approx is None:
            return Neighbors(self.ids[:, :k], self.sims[:, :k], self.recall, self.seconds)
        ex, ap = self.check_exact[:, :k], self.check_approx[:, :k]
        return Neighbors(self.ids[:, :k], self.sims[:, :k], recall_of(ap, ex), self.seconds, self.check_ids, ex, ap)
