"""The N2O comparison of several embedders on one corpus: the pipeline's per-embedder step (embed, search the
query pool once at k_max; `n2o_core.pipeline`) for each embedder, then N2O for any k <= k_max and every query
sample. The CLI calls `compare`; the dashboard prepares embedders one by one and calls `comparison`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from n2o_core.analyses.face_value import FaceValue, face_value
from n2o_core.analyses.overlap import (
    SampledN2O,
    chance_level,
    n2o_matrix,
    n2o_over_samples,
    pairs_frame,
    token_overlap_rows,
)
from n2o_core.corpus_workspace import Workspace
from n2o_core.limits import effective_k, k_max_for, require_embedders, validate_k
from n2o_core.pipeline import Prepared, plan_queries, prepare_all
from n2o_core.runtime.progress import Progress
from n2o_core.search.result import Neighbors

if TYPE_CHECKING:  # pandas is imported on first use (compare --vectors never needs it)
    import pandas as pd


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
    #: embedders left out, with the sentence that says why
    errors: dict[str, str] = field(default_factory=dict)
    #: token overlap (Fig. 5) of each embedder's neighbors at k over the pooled queries, counted over content words
    #: (`overlap.token_overlap_rows`: one dict per embedder; None until `add_token_overlap`)
    token_overlap: list[dict[str, Any]] | None = None
    #: `QueryPlan.sampling_note` of the plan the samples come from ('' when they are the samples asked)
    sampling_note: str = ""
    #: sentences the corpus-trained embedders were fit on (`Corpus.fit_texts`; None: the corpus size)
    fit_size: int | None = None

    def add_token_overlap(self, texts: Sequence[str], stop_words: frozenset[str] | None) -> None:
        """Compute the token overlap of every embedder's neighbors at k (stop words not counted when given)."""
        self.token_overlap = token_overlap_rows(texts, self.pool, self.neighbors, self.k, stop_words=stop_words)

    @property
    def chance(self) -> float:
        return chance_level(self.k, self.corpus_size)

    def face_value(self, fit_size: int | None = None) -> FaceValue:
        """What these numbers must be read against (`analyses.face_value`), with the corpus-trained embedders fit
        on `fit_size` sentences (default: the result's `fit_size`); its `notes()` are what the dashboard shows
        beside the heatmap and the CLI prints (and writes under "notes")."""
        return face_value(
            self.mean,
            self.k,
            self.corpus_size,
            embedders=self.embedders,
            fit_size=self.fit_size if fit_size is None else fit_size,
            sampling_note=self.sampling_note,
        )

    @property
    def mean(self) -> np.ndarray:
        return self.sampled.mean

    @property
    def worst_n2o_error(self) -> float | None:
        """Approximate search: the largest |N2O(approx) − N2O(exact)| of a pair on the held-out queries (None when
        exact, or not measured)."""
        err = self.n2o_error
        return float(np.nanmax(err)) if err is not None and np.isfinite(err).any() else None

    @property
    def std(self) -> np.ndarray:
        return self.sampled.std

    def neighbor_lists(self) -> dict[str, dict[str, list[int]]]:
        """{embedder: {query id (str): [k neighbor ids, nearest first]}} for every pooled query."""
        pool = [str(q) for q in np.asarray(self.pool).tolist()]
        return {e: dict(zip(pool, np.asarray(ids)[:, : self.k].tolist())) for e, ids in self.neighbors.items()}

    def to_frame(self) -> pd.DataFrame:
        """One row per unordered pair of embedders: a, b, n2o (mean over the samples), std, chance."""
        df = pairs_frame(self.mean, self.embedders)
        pos = {e: i for i, e in enumerate(self.embedders)}
        df["std"] = [float(self.std[pos[a], pos[b]]) for a, b in zip(df["a"], df["b"])]
        df["chance"] = self.chance
        return df

    def to_json(self) -> dict:
        """The CLI's JSON document ("notes": the face-value notes, `FaceValue.notes`, each id, level and text)."""
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
            "notes": [n.to_json() for n in self.face_value().notes()],
        }
        if any(v is not None for v in self.recall.values()):
            out["recall"] = {e: r for e, r in self.recall.items()}
        if self.n2o_error is not None:
            out["n2o_error"] = np.round(self.n2o_error, 6).tolist()
        if self.token_overlap is not None:
            out["token_overlap"] = {
                r["embedder"]: {"mean": r["mean"], "ci_low": r["ci_low"], "ci_high": r["ci_high"], "n": int(r["n"])}
                for r in self.token_overlap
            }
        return out


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
    progress: Progress | None = None,
    skip_failed: bool = False,
) -> ComparisonResult:
    """Embed the corpus with each embedder (cached), search the query pool at k_max (cached), compute N2O at k.

    k_max defaults to k (neighbors are searched at max(k, k_max), capped by N - 1). An embedder that fails
    raises its N2OError, unless `skip_failed` (then it is left out and named in the result's `errors`). Each
    embedder's stages are reported to `progress` (`pipeline.prepare_embedder`)."""
    n = len(ws.corpus)
    validate_k(k, n)
    require_embedders(embedder_ids, minimum=1)
    plan = plan_queries(n, n_queries, n_samples, seed)
    prepared = prepare_all(
        ws,
        embedder_ids,
        plan,
        k_max_for(n, max(k, k_max or k)),
        znorm=znorm,
        approx=approx,
        progress=progress,
        skip_failed=skip_failed,
    )
    res = comparison(prepared, k)
    res.fit_size = len(ws.corpus.fit_texts)
    return res


def comparison(prepared: Prepared, k: int, names: Sequence[str] | None = None) -> ComparisonResult:
    """N2O at k of the prepared embedders (or of `names` among them) for every query sample of the plan."""
    names = list(prepared.names if names is None else names)
    k = effective_k(k, prepared.k_max)
    plan = prepared.plan
    heads = {e: prepared.neighbors[e].head(k) for e in names}
    neighbors = {e: nb.ids for e, nb in heads.items()}
    sampled = n2o_over_samples(neighbors, plan.pool, list(plan.samples), k)
    checks = {e: nb for e, nb in heads.items() if nb.check_ids is not None}
    return ComparisonResult(
        names,
        k,
        plan.corpus_size,
        list(plan.samples),
        sampled,
        neighbors,
        plan.pool,
        {e: heads[e].recall for e in names},
        {e: prepared.seconds[e] for e in names if e in prepared.seconds},
        approximation_error(checks, names, k),
        {e: m for e, m in prepared.errors.items()},
        sampling_note=plan.sampling_note(),
    )


def approximation_error(checks: dict[str, Neighbors], names: list[str], k: int) -> np.ndarray | None:
    """|N2O of approximate neighbors - N2O of exact neighbors| per embedder pair, on the held-out queries
    every approximate search was checked on (None unless all embedders have the same held-out check)."""
    if not names or any(e not in checks for e in names):
        return None
    held = checks[names[0]].check_ids
    approx_ids = {e: checks[e].check_approx for e in names}
    exact_ids = {e: checks[e].check_exact for e in names}
    if held is None:
        return None
    for e in names:
        other = checks[e].check_ids
        if other is None or not np.array_equal(other, held):
            return None
    if any(v is None for v in (*approx_ids.values(), *exact_ids.values())):
        return None
    approx = n2o_matrix({e: v for e, v in approx_ids.items() if v is not None}, k)
    exact = n2o_matrix({e: v for e, v in exact_ids.items() if v is not None}, k)
    return np.abs(approx - exact)
