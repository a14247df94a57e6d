"""The N2O comparison of several embedders on one corpus: embed (cached), search neighbors for the query
pool once at k_max, then N2O for any k <= k_max and every query sample."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import N2OError
from .neighbors import Neighbors
from .overlap import SampledN2O, chance_level, draw_query_samples, n2o_matrix, n2o_over_samples, query_pool
from .workspace import Workspace

#: Called as on_stage(embedder_id, stage, done, total), stage in {"embed", "neighbors"}.
StageProgress = Callable[[str, str, int, int], None]


@dataclass
class ComparisonResult:
    """N2O of every embedder pair at k, averaged over query samples."""

    embedders: list[str]
    k: int
    corpus_size: int
    samples: list[np.ndarray]
    sampled: SampledN2O
    neighbors: dict[str, np.ndarray]  # embedder -> (len(pool), k) ids for the pool
    pool: np.ndarray
    recall: dict[str, float | None] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    #: approximate search: |N2O(approx) - N2O(exact)| per pair on the held-out recall queries (None if exact)
    n2o_error: np.ndarray | None = None

    @property
    def chance(self) -> float:
        return chance_level(self.k, self.corpus_size)

    @property
    def mean(self) -> np.ndarray:
        return self.sampled.mean

    @property
    def std(self) -> np.ndarray:
        return self.sampled.std

    def neighbor_lists(self) -> dict[str, dict[str, list[int]]]:
        """{embedder: {query id (str): [k neighbor ids, nearest first]}} for every pooled query."""
        return {
            e: {str(int(q)): [int(i) for i in ids[r, : self.k]] for r, q in enumerate(self.pool)}
            for e, ids in self.neighbors.items()
        }

    def to_json(self) -> dict:
        """The CLI's JSON document."""
        out = {
            "embedders": list(self.embedders),
            "k": int(self.k),
            "corpus_size": int(self.corpus_size),
            "chance": float(self.chance),
            "samples": [
                {"queries": [int(q) for q in s], "n2o": np.round(m, 6).tolist()}
                for s, m in zip(self.samples, self.sampled.per_sample)
            ],
            "mean": np.round(self.mean, 6).tolist(),
            "std": np.round(self.std, 6).tolist(),
            "neighbors": self.neighbor_lists(),
        }
        if any(v is not None for v in self.recall.values()):
            out["recall"] = {e: r for e, r in self.recall.items()}
        if self.n2o_error is not None:
            out["n2o_error"] = np.round(self.n2o_error, 6).tolist()
        return out


def validate_k(k: int, n: int) -> None:
    """k must be positive and leave k neighbors besides the query."""
    if k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    if n < k + 1:
        raise N2OError(f"The corpus has {n} sentences, fewer than k + 1 = {k + 1}: lower k or use a larger corpus.")


def compare(
    ws: Workspace,
    embedder_ids: Sequence[str],
    k: int,
    *,
    n_queries: int = 100,
    n_samples: int = 5,
    seed: int = 0,
    k_max: int | None = None,
    znorm: bool = False,
    approx: bool = False,
    on_stage: StageProgress | None = None,
) -> ComparisonResult:
    """Embed the corpus with each embedder (cached), search the query pool at k_max (cached), compute N2O at k."""
    n = len(ws.corpus)
    validate_k(k, n)
    if len(embedder_ids) < 1:
        raise N2OError("Choose at least one embedder.")
    if len(set(embedder_ids)) != len(embedder_ids):
        raise N2OError("An embedder was given twice.")
    k_max = max(k, k_max or k)
    k_max = min(k_max, n - 1)
    samples = draw_query_samples(n, n_queries, n_samples, seed)
    pool = query_pool(samples)
    neighbors: dict[str, np.ndarray] = {}
    recall: dict[str, float | None] = {}
    seconds: dict[str, float] = {}
    checks: dict[str, Neighbors] = {}
    for eid in embedder_ids:
        t0 = time.perf_counter()
        ws.embeddings(eid, progress=(lambda d, t, e=eid: on_stage(e, "embed", d, t)) if on_stage else None)
        nb = ws.neighbors(
            eid,
            pool,
            k_max,
            znorm=znorm,
            approx=approx,
            progress=(lambda d, t, e=eid: on_stage(e, "neighbors", d, t)) if on_stage else None,
        )
        nb = nb.head(k)
        neighbors[eid] = nb.ids
        recall[eid] = nb.recall
        if nb.check_ids is not None:
            checks[eid] = nb
        seconds[eid] = time.perf_counter() - t0
    sampled = n2o_over_samples(neighbors, pool, samples, k)
    return ComparisonResult(
        list(embedder_ids),
        k,
        n,
        samples,
        sampled,
        neighbors,
        pool,
        recall,
        seconds,
        approximation_error(checks, list(embedder_ids), k),
    )


def approximation_error(checks: dict[str, Neighbors], names: list[str], k: int) -> np.ndarray | None:
    """|N2O of approximate neighbors - N2O of exact neighbors| per embedder pair, on the held-out queries
    every approximate search was checked on (None unless all embedders have the same held-out check)."""
    if not names or any(e not in checks for e in names):
        return None
    held = checks[names[0]].check_ids
    if any(not np.array_equal(checks[e].check_ids, held) for e in names):
        return None
    approx = n2o_matrix({e: checks[e].check_approx for e in names}, k)
    exact = n2o_matrix({e: checks[e].check_exact for e in names}, k)
    return np.abs(approx - exact)
