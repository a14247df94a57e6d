"""The same-recipe reference of a corpus-trained embedder: N2O between two trainings of the same recipe (the same
texts, hyperparameters and code) that differ in the training seed alone.

word2vec and fastText are trained here on the corpus itself, so their neighbors carry the noise of one training:
two seeds of one recipe do not agree at 1, and an N2O between two corpus-trained embedders is read against this
ceiling, not against 1. The second training is the embedder's own recipe with seed `REFERENCE_SEED_STEP` above
it; its trained state is kept in the workspace's model cache like any fitted embedder's, its vectors and the
neighbors of each query pool in the workspace's cache, so the reference costs one training per corpus, once.

    ref = same_recipe_n2o(ws, "fasttext", plan.samples, k=10)      # SeedReference: mean, std over the samples
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from n2o_core.errors import N2OError
from n2o_core.storage.fileio import hash_key

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace

#: The second training's seed is the recipe's own plus this.
REFERENCE_SEED_STEP = 1


@dataclass(frozen=True)
class SeedReference:
    """N2O at k between an embedder and the same recipe trained with another seed: mean and std over the query
    samples (each sample's value in `per_sample`), and the two seeds."""

    embedder: str
    seed: int
    other_seed: int
    k: int
    per_sample: tuple[float, ...]

    @property
    def mean(self) -> float:
        return float(np.mean(self.per_sample))

    @property
    def std(self) -> float:
        return float(np.std(self.per_sample, ddof=1)) if len(self.per_sample) > 1 else 0.0


def _recipe(ws: Workspace, eid: str) -> Any | None:
    """The embedder's trainable recipe (a built-in `TrainedVectorsEmbedder`), or None for any other embedder."""
    from n2o_core.embedders.catalog import builtin
    from n2o_core.embedders.registry import BUILTIN_EMBEDDER_IDS
    from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder

    if eid not in BUILTIN_EMBEDDER_IDS or not ws.info(eid).corpus_trained:
        return None
    emb = builtin(eid).make(ws.cache.path("models"))
    return emb if isinstance(emb, TrainedVectorsEmbedder) else None


def has_seed_reference(ws: Workspace, eid: str) -> bool:
    """Whether `eid` is trained on the corpus with a seed (word2vec, fastText and their -nostop rows): whether
    `same_recipe_n2o` applies to it."""
    return _recipe(ws, eid) is not None


def _second(ws: Workspace, eid: str) -> tuple[Any, str]:
    from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder

    emb = _recipe(ws, eid)
    if emb is None:
        raise N2OError(f"'{eid}' is not trained on the corpus with a seed: it has no same-recipe reference.")
    other = TrainedVectorsEmbedder(
        eid,
        ws.cache.path("models"),
        preset=emb.preset,
        stop_words=emb.stop_words,
        seed=int(emb.hyper["seed"]) + REFERENCE_SEED_STEP,
    )
    key = other.planned_fingerprint(ws.corpus.fit_fingerprint)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in eid)
    return other, f"same-recipe/{ws.corpus.fingerprint}/{safe}-{key}"


def second_training_cached(ws: Workspace, eid: str) -> bool:
    """Whether the second training's vectors of `eid` on this corpus are in the cache (nothing is trained)."""
    return _recipe(ws, eid) is not None and ws.cache.has(_second(ws, eid)[1] + ".npy")


def second_training(ws: Workspace, eid: str) -> np.ndarray:
    """The corpus's vectors under `eid`'s recipe trained with the other seed (float32, one row per sentence): from
    the cache, else trained on the corpus's fit texts (the state kept in the model cache) and stored."""
    other, rel = _second(ws, eid)
    with ws.cache.lock(rel + ".npy"):
        got = ws.cache.load_dense(rel + ".npy")
        if got is not None and got.shape[0] == len(ws.corpus):
            return got
        other.fit(list(ws.corpus.fit_texts))
        X = np.asarray(other.encode(list(ws.corpus.texts)), np.float32)
        return ws.cache.save_dense(
            rel + ".npy", X, description=f"{eid} trained with seed {other.hyper['seed']} on {ws.corpus.name}"
        )


def _neighbor_ids(ws: Workspace, eid: str, pool: np.ndarray, k: int) -> np.ndarray:
    """The second training's k neighbors of the pooled queries (exact search, raw cosine), cached per pool and k."""
    from n2o_core.search.exact import exact_knn

    _, rel = _second(ws, eid)
    knn = f"{rel}-knn-{hash_key(pool.tobytes().hex())}-k{k}.npz"
    with ws.cache.lock(knn):
        got = ws.cache.load_bundle(knn)
        if got is not None and got["ids"].shape == (len(pool), k):
            return got["ids"]
        res = exact_knn(second_training(ws, eid), k, query_ids=pool)
        ws.cache.save_bundle(knn, description=f"{k}-NN of {len(pool)} queries, {eid} (other seed)", ids=res.ids)
        return res.ids


def same_recipe_n2o(
    ws: Workspace, eid: str, samples: Sequence[np.ndarray], k: int, own_ids: np.ndarray | None = None
) -> SeedReference:
    """N2O at k between `eid` and its recipe trained with the other seed, over each query sample (exact search on
    raw cosine for both). `own_ids`: `eid`'s own k (or more) neighbors of the pooled queries (row i = the i-th
    smallest sampled id), when the caller has them; else they come from the workspace. N2OError for an embedder
    without a seed."""
    from n2o_core.analyses.overlap import n2o

    other, _ = _second(ws, eid)
    pool = np.unique(np.concatenate([np.asarray(s, np.int64) for s in samples]))
    mine = ws.neighbors(eid, pool, k).ids if own_ids is None else np.asarray(own_ids)[:, :k]
    if mine.shape != (len(pool), k):
        raise N2OError(f"{eid}: expected the neighbors of {len(pool)} pooled queries, got {mine.shape[0]} rows.")
    theirs = _neighbor_ids(ws, eid, pool, k)
    per = []
    for s in samples:
        rows = np.searchsorted(pool, np.asarray(s, np.int64))
        per.append(n2o(mine[rows], theirs[rows], k))
    seed = int(other.hyper["seed"]) - REFERENCE_SEED_STEP
    return SeedReference(eid, seed, seed + REFERENCE_SEED_STEP, k, tuple(per))
