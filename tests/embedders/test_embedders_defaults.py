"""Every built-in embedder loads offline, embeds a few sentences, and has a stable, distinct fingerprint.

model2vec is distilled from MiniLM on first use (one to several minutes on two cores), so its row here is
@slow; the default run covers the model2vec wrapper end to end on a tiny model (test_embedders_m2v.py).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from embedder_helpers import PARAPHRASES, paraphrase_margins

from n2o_core.embedders import PAPER_EMBEDDER_IDS, get_embedder, list_embedders

SENTENCES = [p[0] for p in PARAPHRASES] + ["The team won the final on monday."]
SEMANTIC = ("minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean", "e5-small", "model2vec", "glove-6b-50d")
PARAMS = [pytest.param(i, marks=pytest.mark.slow) if i == "model2vec" else i for i in PAPER_EMBEDDER_IDS]


@pytest.fixture(scope="module")
def loaded(corpus, session_cache):
    """Embedders loaded (and fitted) once per module, keyed by id."""
    cache: dict[str, object] = {}

    def get(embedder_id: str):
        if embedder_id not in cache:
            e = get_embedder(embedder_id, session_cache)
            e.fit(corpus)
            cache[embedder_id] = e
        return cache[embedder_id]

    return get


def test_offline_environment_is_set():
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"


def test_the_ten_defaults_of_table_1():
    assert PAPER_EMBEDDER_IDS == (
        "tfidf",
        "glove-6b-50d",
        "word2vec",
        "fasttext",
        "fasttext-sub",
        "model2vec",
        "minilm-l6-mean",
        "minilm-l6-cls",
        "paraphrase-minilm-l3-mean",
        "e5-small",
    )
    rows = [r for r in list_embedders() if r.default]
    assert [r.id for r in rows] == list(PAPER_EMBEDDER_IDS)
    for r in rows:
        assert r.family and r.composition and r.data and "\n" not in r.data
        assert (r.dim is None) == (r.id == "tfidf")
        assert r.sparse == (r.id == "tfidf")
        assert r.corpus_trained == (r.id in ("tfidf", "word2vec", "fasttext", "fasttext-sub"))


@pytest.mark.parametrize("embedder_id", PARAMS)
def test_default_loads_offline_and_embeds(embedder_id, loaded, no_network):
    e = loaded(embedder_id)
    assert e.info.id == embedder_id
    seen: list[tuple[str, int, int]] = []
    X = e.encode(SENTENCES, progress=lambda ev: seen.append((ev.stage, ev.done, ev.total)))
    n = len(SENTENCES)
    assert seen and seen[-1] == ("embed", n, n)
    if embedder_id == "tfidf":
        assert sp.isspmatrix_csr(X) and X.dtype == np.float32
        assert X.shape == (n, len(e.vocab)) and len(e.vocab) > 20
        data = X.data
    else:
        assert isinstance(X, np.ndarray) and X.dtype == np.float32
        assert X.shape == (n, e.info.dim)
        data = X
        assert np.abs(X[:4]).sum(axis=1).min() > 0  # real sentences are not zero rows
        assert not np.allclose(X[0], X[1])
    assert np.isfinite(data).all()
    # the same sentence gives the same vector, alone or in a batch
    again = e.encode(SENTENCES[:1])
    first = X[:1].toarray() if sp.issparse(X) else X[:1]
    np.testing.assert_allclose(again.toarray() if sp.issparse(again) else again, first, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("embedder_id", [p for p in PARAMS if (getattr(p, "values", [p])[0]) in SEMANTIC])
def test_paraphrases_are_nearer_than_unrelated_sentences(embedder_id, loaded):
    margins = paraphrase_margins(loaded(embedder_id).encode)
    if embedder_id == "glove-6b-50d":  # averaged GloVe is dominated by function words: on average only
        assert margins.mean() > 0 and (margins > 0).sum() >= 3
    else:
        assert (margins > 0).all(), margins


@pytest.mark.parametrize("embedder_id", PARAMS)
def test_fingerprint_is_stable_across_instances(embedder_id, loaded, corpus, session_cache):
    other = get_embedder(embedder_id, session_cache)
    other.fit(corpus)
    fp = loaded(embedder_id).fingerprint()
    assert isinstance(fp, str) and len(fp) >= 16
    assert other.fingerprint() == fp


def test_fingerprints_differ_between_embedders(loaded):
    ids = [i for i in PAPER_EMBEDDER_IDS if i != "model2vec"]
    fps = {i: loaded(i).fingerprint() for i in ids}
    assert len(set(fps.values())) == len(ids), fps
