"""What approximate search does to an embedder's neighbors: for each setting of the approximate index the tool
has (pynndescent's graph degree `n_neighbors`; the tool's default is `search.approx.approx_n_neighbors`), its
N2O with exact search on the same queries -- recall@k, the share of the exact k nearest it finds -- against its
query time per query and its build time, beside exact search's own time (recall 1).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from n2o_core.analyses.overlap import n2o
from n2o_core.pipeline import plan_queries
from n2o_core.runtime.progress import Progress, report
from n2o_core.search.approx import ExactFallback, approx_n_neighbors, approx_query, build_index, warm_approx
from n2o_core.search.exact import exact_knn
from n2o_core.search.rows import prepare_rows

#: Graph degrees tried (pynndescent's `n_neighbors`); the tool's default for k is added.
DEGREES: tuple[int, ...] = (10, 20, 40, 60, 100)


@dataclass
class IndexPoint:
    """One search setting: its recall@k (= N2O with exact search), seconds per query and to build (0: exact)."""

    setting: str
    n_neighbors: int | None
    recall: float
    query_seconds_per_query: float
    build_seconds: float
    default: bool = False
    fell_back_to_exact: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "setting": self.setting,
            "n_neighbors": self.n_neighbors,
            "recall_at_k": round(self.recall, 6),
            "n2o_with_exact": round(self.recall, 6),
            "query_seconds_per_query": self.query_seconds_per_query,
            "build_seconds": round(self.build_seconds, 4),
            "default": self.default,
            "fell_back_to_exact": self.fell_back_to_exact,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> IndexPoint:
        """The point `to_json` wrote (a missing time, NaN, may come back as None)."""
        per_query = doc["query_seconds_per_query"]
        return cls(
            doc["setting"],
            doc["n_neighbors"],
            float(doc["recall_at_k"]),
            np.nan if per_query is None else float(per_query),
            float(doc["build_seconds"]),
            bool(doc["default"]),
            bool(doc["fell_back_to_exact"]),
        )


@dataclass
class IndexSweep:
    """Exact search and every approximate setting for one embedder, on `n_queries` corpus queries at k."""

    embedder: str
    k: int
    corpus_size: int
    n_queries: int
    points: list[IndexPoint]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "embedder": self.embedder,
            "k": self.k,
            "corpus_size": self.corpus_size,
            "n_queries": self.n_queries,
            "points": [p.to_json() for p in self.points],
            "notes": self.notes,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> IndexSweep:
        """The sweep `to_json` wrote."""
        points = [IndexPoint.from_json(p) for p in doc["points"]]
        return cls(doc["embedder"], int(doc["k"]), int(doc["corpus_size"]), int(doc["n_queries"]), points, doc["notes"])


def index_sweep(
    ws: Any,
    eid: str,
    *,
    k: int = 10,
    degrees: Sequence[int] = DEGREES,
    n_queries: int = 500,
    seed: int = 0,
    progress: Progress | None = None,
) -> IndexSweep:
    """Recall@k and query time of exact search and of pynndescent at each graph degree (see the module
    docstring), on `n_queries` corpus sentences drawn with `seed` (one sample: the queries the times are for)."""
    X = ws.embeddings(eid)
    n = X.shape[0]
    q = plan_queries(n, n_queries, 1, seed).pool
    t0 = time.perf_counter()
    exact = exact_knn(X, k, query_ids=q)
    points = [IndexPoint("exact", None, 1.0, (time.perf_counter() - t0) / len(q), 0.0)]
    default = approx_n_neighbors(k, n)
    chosen = sorted({min(int(d), n - 1) for d in (*degrees, default) if int(d) >= 2})
    Xn, zero = prepare_rows(X, None)
    report(progress, "index", 0, len(chosen))
    warm_approx(block=True)  # pynndescent's one-time compile, not counted in any build time
    for i, nn in enumerate(chosen):
        report(progress, "index", i, len(chosen))
        t0 = time.perf_counter()
        index = build_index(Xn, k, n_neighbors=nn, seed=seed)
        built = time.perf_counter() - t0
        if isinstance(index, ExactFallback):
            points.append(IndexPoint(f"pynndescent n_neighbors={nn}", nn, 1.0, np.nan, built, nn == default, True))
            continue
        t0 = time.perf_counter()
        ids, _ = approx_query(index, Xn[q], q, k, zero)
        per_query = (time.perf_counter() - t0) / len(q)
        recall = n2o(ids, exact.ids, k)
        points.append(IndexPoint(f"pynndescent n_neighbors={nn}", nn, recall, per_query, built, nn == default))
    report(progress, "index", len(chosen), len(chosen))
    notes = [
        f"Recall@{k} is N2O with exact search on the same {len(q):,} queries; times are this machine's, measured "
        "once (not a benchmark)."
    ]
    return IndexSweep(eid, k, n, len(q), points, notes)
