"""The same-recipe reference (analyses.seed_reference): N2O between two trainings of a corpus-trained recipe that
differ in the seed alone, checked against an exact search of both vector sets written out here; the second training
kept like an embedding."""

from __future__ import annotations

import numpy as np
import pytest
from synthetic_text import write_corpus

from n2o_core.errors import N2OError


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    d = tmp_path_factory.mktemp("seedref")
    return Workspace(load_corpus(str(write_corpus(d / "corpus.txt", 200))), cache=Cache(d / "cache"))


def test_same_recipe_reference_is_a_second_training_cached_like_an_embedding(ws, monkeypatch):
    """Two trainings of fastText's recipe that differ in the seed alone: the N2O of their neighbors, computed here
    from an exact search of both vector sets; the second training is kept (a second call trains nothing)."""
    from n2o_core.analyses import seed_reference as sr
    from n2o_core.analyses.overlap import n2o
    from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder
    from n2o_core.pipeline import plan_queries
    from n2o_core.search.exact import exact_knn

    assert sr.has_seed_reference(ws, "fasttext") and sr.has_seed_reference(ws, "word2vec-nostop")
    assert not sr.has_seed_reference(ws, "glove-6b-50d") and not sr.has_seed_reference(ws, "tfidf")
    with pytest.raises(N2OError, match="no same-recipe reference"):
        sr.same_recipe_n2o(ws, "glove-6b-50d", [np.arange(5)], 5)
    plan = plan_queries(len(ws.corpus), 30, 3, seed=4)
    ref = sr.same_recipe_n2o(ws, "fasttext", plan.samples, 10)
    assert (ref.seed, ref.other_seed, ref.k) == (13, 14, 10)
    own = ws.embeddings("fasttext")
    other = sr.second_training(ws, "fasttext")
    assert other.shape == own.shape and not np.allclose(other, own)  # another seed, another training
    mine = exact_knn(np.asarray(own), 10, query_ids=plan.pool).ids
    theirs = exact_knn(np.asarray(other), 10, query_ids=plan.pool).ids
    by_hand = [n2o(mine[plan.rows(i)], theirs[plan.rows(i)], 10) for i in range(3)]
    assert ref.per_sample == pytest.approx(tuple(by_hand))
    assert 0 < ref.mean < 1 and ref.std == pytest.approx(np.std(by_hand, ddof=1))
    assert sr.second_training_cached(ws, "fasttext")
    monkeypatch.setattr(TrainedVectorsEmbedder, "fit", lambda *a, **k: pytest.fail("trained again"))
    again = sr.same_recipe_n2o(ws, "fasttext", plan.samples, 10)
    assert again.per_sample == ref.per_sample
