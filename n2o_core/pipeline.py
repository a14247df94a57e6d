"""The pipeline both front ends run, one embedder at a time: embed the corpus (cached), then search the k_max
nearest neighbors of the query pool (cached). The CLI's `compare` loops over `prepare_embedder`; the dashboard
calls it embedder by embedder to draw partial results. One corpus sentence or a free-text query is searched the
same way.

    plan = plan_queries(len(ws.corpus), n_queries=100, n_samples=5, seed=0)
    prepared = prepare_all(ws, ["tfidf", "glove-6b-50d"], plan, k_max_for(len(ws.corpus)))
    prepared.comparison(k=10)      # N2O at k for every sample (compare.ComparisonResult)

Changing k (<= k_max) or the sample only slices the cached neighbor arrays; nothing is embedded or searched.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .errors import N2OError
from .fileio import hash_key
from .limits import validate_k
from .neighbors import Neighbors, exact_knn
from .overlap import draw_query_samples, query_pool

if TYPE_CHECKING:
    from .compare import ComparisonResult
    from .workspace import Workspace

#: Called as on_stage(embedder_id, stage, done, total), stage in {"embed", "neighbors"}.
StageProgress = Callable[[str, str, int, int], None]


# --------------------------------------------------------------------------- query samples


@dataclass(frozen=True)
class QueryPlan:
    """Random query samples and their pool (sorted union); neighbors are searched once for the pool."""

    corpus_size: int
    samples: tuple[np.ndarray, ...]
    pool: np.ndarray

    @property
    def pool_key(self) -> str:
        """Hash of the pooled query ids (the neighbor arrays depend on the pool only)."""
        return hash_key(np.asarray(self.pool, np.int64).tobytes().hex())

    @property
    def key(self) -> str:
        """Hash of every sample (N2O values depend on how the pool is split into samples)."""
        return hash_key([np.asarray(s, np.int64).tobytes().hex() for s in self.samples])

    def rows(self, sample: int) -> np.ndarray:
        """Rows of the pool arrays that hold sample `sample`."""
        return np.searchsorted(self.pool, self.samples[sample])


def plan_queries(n: int, n_queries: int = 100, n_samples: int = 5, seed: int = 0) -> QueryPlan:
    """`n_samples` random samples of `n_queries` corpus ids each (the paper: 5 x 100), seeded."""
    samples = draw_query_samples(n, n_queries, n_samples, seed)
    return QueryPlan(n, tuple(samples), query_pool(samples))


# --------------------------------------------------------------------------- the per-embedder step


def prepare_embedder(
    ws: Workspace,
    eid: str,
    pool: np.ndarray,
    k_max: int,
    *,
    znorm: bool = False,
    approx: bool = False,
    on_stage: StageProgress | None = None,
) -> Neighbors:
    """Embed the corpus with `eid` (cached) and search the k_max nearest neighbors of every pooled query (cached).

    Raises N2OError (EmbedderError) with one sentence when the embedder cannot be used."""
    ws.embeddings(eid, progress=(lambda d, t: on_stage(eid, "embed", d, t)) if on_stage else None)
    return ws.neighbors(
        eid,
        pool,
        k_max,
        znorm=znorm,
        approx=approx,
        progress=(lambda d, t: on_stage(eid, "neighbors", d, t)) if on_stage else None,
    )


@dataclass
class Prepared:
    """Neighbors at k_max of the pooled queries for each embedder that worked; errors of those that did not."""

    plan: QueryPlan
    k_max: int
    znorm: bool = False
    approx: bool = False
    neighbors: dict[str, Neighbors] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """Embedders with neighbors, in the order they were prepared."""
        return list(self.neighbors)

    @property
    def key(self) -> str:
        """Hash of everything the neighbor arrays and N2O values depend on (samples included)."""
        return hash_key(self.plan.key, self.k_max, self.znorm, self.approx, self.names)

    def ids_at(self, k: int, names: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Neighbor ids at k (a slice of the k_max arrays) per embedder."""
        return {e: self.neighbors[e].ids[:, :k] for e in (names if names is not None else self.names)}

    def comparison(self, k: int, names: Sequence[str] | None = None) -> ComparisonResult:
        """N2O of every pair of (the given) embedders at k <= k_max, for every query sample."""
        from .compare import comparison

        return comparison(self, k, names)


def prepare_all(
    ws: Workspace,
    embedder_ids: Sequence[str],
    plan: QueryPlan,
    k_max: int,
    *,
    znorm: bool = False,
    approx: bool = False,
    on_stage: StageProgress | None = None,
    on_done: Callable[[Prepared, str], None] | None = None,
    skip_failed: bool = True,
) -> Prepared:
    """`prepare_embedder` for each embedder in turn. With `skip_failed`, an embedder that fails is recorded in
    `.errors` (its sentence) and the others go on; otherwise its error is raised. `on_done(prepared, eid)` is
    called after each embedder, so a front end can draw partial results."""
    out = Prepared(plan, k_max, znorm, approx)
    for eid in embedder_ids:
        t0 = time.perf_counter()
        try:
            out.neighbors[eid] = prepare_embedder(
                ws, eid, plan.pool, k_max, znorm=znorm, approx=approx, on_stage=on_stage
            )
            out.seconds[eid] = time.perf_counter() - t0
        except N2OError as e:
            if not skip_failed:
                raise
            out.errors[eid] = str(e)
        if on_done is not None:
            on_done(out, eid)
    return out


# --------------------------------------------------------------------------- one query


def search_corpus_sentence(ws: Workspace, eid: str, qid: int, k: int, *, znorm: bool = False) -> Neighbors:
    """The k nearest neighbors of corpus sentence `qid` (itself excluded), exact, one row."""
    n = len(ws.corpus)
    if not 0 <= int(qid) < n:
        raise N2OError(f"Query id {qid} is outside the corpus (0..{n - 1}).")
    validate_k(k, n)
    X = ws.embeddings(eid)
    std = ws.standardizer(eid) if znorm else None
    return exact_knn(X, k, query_ids=np.array([int(qid)], np.int64), standardizer=std)


def search_free_text(ws: Workspace, eid: str, text: str, k: int, *, znorm: bool = False) -> Neighbors:
    """The k nearest corpus sentences of a typed sentence, embedded on the fly; one row."""
    return ws.search_text(eid, text, min(k, len(ws.corpus)), znorm=znorm)


def neighbors_of_pooled(prepared: Prepared, eid: str, qid: int) -> Neighbors | None:
    """The row of a pooled query in the prepared arrays (None when `qid` is not in the pool)."""
    pool = prepared.plan.pool
    pos = int(np.searchsorted(pool, qid))
    if pos >= len(pool) or pool[pos] != qid:
        return None
    nb = prepared.neighbors[eid]
    return Neighbors(nb.ids[pos : pos + 1], nb.sims[pos : pos + 1], nb.recall)
