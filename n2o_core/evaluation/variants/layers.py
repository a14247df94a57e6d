"""Layer x layer comparison of one model with itself, or of one model's layers with another model's (or with a
plain embedder): N2O of every two layers on the same query samples (Lin & Smith 2019, as `compare` computes it)
and linear CKA (Kornblith et al. 2019) beside it, through the measures engine (`measures.run.feature_matrix`), with
the chance level k/(N-1) and, for each layer of A, the layer of B that matches it best.

Every layer comes from one cached forward pass (`variants.store.VariantStore.layer_ids`): `A@layer=0` is the
embeddings output, `A@layer=L` the last hidden layer, pooled as the base embedder pools (`@pool` to change it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from n2o_core.analyses.compare import compare
from n2o_core.errors import EmbedderError
from n2o_core.measures.run import feature_matrix
from n2o_core.runtime.progress import Progress, ProgressEvent, report, scoped

#: Stages reported to `progress` here: "layers" (forward pass, sentences), "neighbors" (embedders searched), "cka".


@dataclass
class LayerComparison:
    """N2O and linear CKA between the layers of `a` (rows) and those of `b` (columns; `a`'s own when `b` is None).

    n2o / n2o_std: mean and spread over the query samples; cka: linear CKA on every sentence; chance: k/(N-1);
    best_n2o[i] / best_cka[i]: the column that matches row i best (for a within-model matrix, the diagonal is
    left out: each layer's best other layer)."""

    a: str
    b: str | None
    rows: list[str]
    cols: list[str]
    n2o: np.ndarray
    n2o_std: np.ndarray
    cka: np.ndarray
    k: int
    corpus_size: int
    chance: float

    @property
    def within(self) -> bool:
        return self.b is None

    def _best(self, M: np.ndarray) -> list[int]:
        M = np.array(M, dtype=float)
        if self.within:
            np.fill_diagonal(M, -np.inf)
        return [int(np.argmax(r)) for r in M]

    @property
    def best_n2o(self) -> list[int]:
        return self._best(self.n2o)

    @property
    def best_cka(self) -> list[int]:
        return self._best(self.cka)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "rows": self.rows,
            "cols": self.cols,
            "k": self.k,
            "corpus_size": self.corpus_size,
            "chance": self.chance,
            "n2o": np.round(self.n2o, 6).tolist(),
            "n2o_std": np.round(self.n2o_std, 6).tolist(),
            "cka_linear": np.round(self.cka, 6).tolist(),
            "best_n2o": {r: self.cols[j] for r, j in zip(self.rows, self.best_n2o)},
            "best_cka": {r: self.cols[j] for r, j in zip(self.rows, self.best_cka)},
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> LayerComparison:
        """The comparison `to_json` wrote (values as rounded there)."""
        return cls(
            doc["a"],
            doc["b"],
            list(doc["rows"]),
            list(doc["cols"]),
            np.array(doc["n2o"], float),
            np.array(doc["n2o_std"], float),
            np.array(doc["cka_linear"], float),
            int(doc["k"]),
            int(doc["corpus_size"]),
            float(doc["chance"]),
        )


def searched(names: list[str], progress: Progress | None) -> Progress | None:
    """A pipeline `progress` that reports stage "neighbors" as embedders searched of len(names)."""
    if progress is None:
        return None
    done: list[str] = []

    def cb(event: ProgressEvent) -> None:
        if event.stage == "neighbors" and event.done >= event.total and event.item not in done:
            done.append(event.item)
            report(progress, "neighbors", len(done), len(names))

    return cb


def layers_refusal(ws: Any, eid: str) -> str | None:
    """Why `eid` has no layers to compare (one sentence; nothing is computed), or None when it has."""
    from n2o_core.variants.spec import parse_variant

    try:
        ws.variants.layers_of(parse_variant(f"{eid}@layer=0"))
    except EmbedderError as e:
        return str(e)
    return None


def layers_or_self(ws: Any, eid: str, progress: Progress | None = None) -> list[str]:
    """Every layer of `eid` (one cached forward pass), or `[eid]` for an embedder without layers (GloVe, tf-idf:
    one row of the matrix)."""
    try:
        return list(ws.variants.layer_ids(eid, scoped(progress, stage="layers")))
    except EmbedderError:
        return [eid]


def compare_layers(
    ws: Any,
    a: str,
    b: str | None = None,
    *,
    k: int = 10,
    n_queries: int = 100,
    n_samples: int = 5,
    seed: int = 0,
    progress: Progress | None = None,
) -> LayerComparison:
    """N2O and linear CKA between every layer of `a` and every layer of `b` (or of `a` itself): `a` must have
    layers (EmbedderError otherwise); `b` may be any embedder (a plain one is one column)."""
    rows = list(ws.variants.layer_ids(a, scoped(progress, stage="layers")))
    cols = rows if b is None else layers_or_self(ws, b, progress)
    names = list(dict.fromkeys(rows + cols))
    res = compare(ws, names, k, n_queries=n_queries, n_samples=n_samples, seed=seed, progress=searched(names, progress))
    pos = {e: i for i, e in enumerate(res.embedders)}
    ri, ci = [pos[r] for r in rows], [pos[c] for c in cols]
    report(progress, "cka", 0, 1)
    cka = feature_matrix(ws.embeddings, names, "cka_linear", seed=seed)
    report(progress, "cka", 1, 1)
    ni = [names.index(r) for r in rows], [names.index(c) for c in cols]
    return LayerComparison(
        a,
        b,
        rows,
        cols,
        res.mean[np.ix_(ri, ci)],
        res.std[np.ix_(ri, ci)],
        cka[np.ix_(*ni)],
        k,
        res.corpus_size,
        res.chance,
    )
