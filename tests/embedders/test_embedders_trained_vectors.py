"""word2vec / fastText trained on the corpus: fit required, deterministic, saved state reused, subword OOV vectors."""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import make_corpus

from n2o_core.corpora import fingerprint_texts
from n2o_core.embedders import get_embedder
from n2o_core.embedders.static import VectorTable, average
from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder
from n2o_core.errors import EmbedderError
from n2o_core.text import tokenize

IDS = ("word2vec", "fasttext", "fasttext-sub")


@pytest.mark.parametrize("embedder_id", IDS)
def test_fit_encode_shape_and_oov(embedder_id, corpus):
    e = get_embedder(embedder_id)
    with pytest.raises(EmbedderError, match="fit"):
        e.encode(["The team won."])
    e.fit(corpus)
    X = e.encode(["The team won the final.", "zzqv xxkw", "", "The bank raised prices."])
    assert X.shape == (4, 100) == (4, e.info.dim) and X.dtype == np.float32 and np.isfinite(X).all()
    assert not X[2].any()  # no token at all: zero row
    if embedder_id == "fasttext-sub":
        assert np.abs(X[1]).sum() > 0  # unknown words get char n-gram vectors
    else:
        assert not X[1].any()  # only unknown words: zero row
    assert np.abs(X[[0, 3]]).sum(axis=1).min() > 0


@pytest.mark.parametrize("embedder_id", IDS)
def test_same_corpus_gives_identical_vectors(embedder_id, corpus):
    """One worker thread + fixed seed + stable hash: bit-identical across trainings (and processes)."""
    a, b = TrainedVectorsEmbedder(embedder_id), TrainedVectorsEmbedder(embedder_id)
    big = make_corpus(3000, seed=3)  # several 10,000-word jobs per epoch: thread scheduling would show here
    a.fit(big)
    b.fit(big)
    assert a.fingerprint() == b.fingerprint()
    np.testing.assert_array_equal(a.encode(big[:200]), b.encode(big[:200]))
    np.testing.assert_array_equal(a.table.vectors, b.table.vectors)


def test_fingerprints_differ_by_corpus_and_by_id(corpus):
    fps = set()
    for embedder_id in IDS:
        for texts in (corpus, make_corpus(seed=5)):
            e = TrainedVectorsEmbedder(embedder_id)
            fps.add(e.planned_fingerprint(fingerprint_texts(texts)))
    assert len(fps) == 6


@pytest.mark.parametrize("embedder_id", ["word2vec", "fasttext-sub"])
def test_saved_state_is_reused(embedder_id, corpus, tmp_path):
    a = TrainedVectorsEmbedder(embedder_id, tmp_path)
    a.fit(corpus)
    assert not a.loaded_from_disk
    files = sorted(p.name for p in a.state_path(a.fingerprint()).iterdir())
    assert "vectors.npy" in files and "vocab.json" in files and "manifest.json" in files
    assert ("ngrams.npy" in files) == (embedder_id == "fasttext-sub")
    assert not any(f.endswith((".pkl", ".model")) for f in files)
    b = TrainedVectorsEmbedder(embedder_id, tmp_path)
    b.fit(corpus)
    assert b.loaded_from_disk and b.fingerprint() == a.fingerprint()
    texts = [*corpus[:20], "unseenword teamwork"]
    np.testing.assert_array_equal(a.encode(texts), b.encode(texts))


def test_subword_vectors_match_gensim(corpus):
    """Our vectorized OOV recipe and averaging agree with gensim's FastTextKeyedVectors."""
    from gensim.models import FastText

    from n2o_core.embedders.keys import stable_hash

    model = FastText(
        [tokenize(t) for t in corpus],
        vector_size=16,
        min_count=2,
        epochs=2,
        min_n=3,
        max_n=5,
        bucket=5000,
        workers=1,
        seed=1,
        hashfxn=stable_hash,
    )
    table = VectorTable.from_keyed_vectors(model.wv)
    assert table.subwords
    oov = ["teamwork", "bankers", "xq", "stormy"]
    np.testing.assert_allclose(table.oov_vectors(oov), np.stack([model.wv[w] for w in oov]), rtol=1e-5, atol=1e-6)
    sentence = "The stormy team won the bankers' final"
    expected = np.mean([model.wv[w] for w in tokenize(sentence)], axis=0)
    np.testing.assert_allclose(average(table, [sentence])[0], expected, rtol=1e-5, atol=1e-6)
    kv = table.to_keyed_vectors()
    np.testing.assert_allclose(kv["teamwork"], model.wv["teamwork"], rtol=1e-5, atol=1e-6)


def test_corpus_without_repeated_words_is_a_clear_error():
    e = TrainedVectorsEmbedder("word2vec")
    with pytest.raises(EmbedderError, match="no word occurs 2\\+ times"):
        e.fit(["alpha beta", "gamma delta"])
    with pytest.raises(EmbedderError, match="empty corpus"):
        e.fit([])


def test_training_progress_counts_sentences_times_epochs_and_changes_nothing(corpus):
    seen = []
    a, b = TrainedVectorsEmbedder("fasttext-sub"), TrainedVectorsEmbedder("fasttext-sub")
    a.fit(corpus, progress=lambda e: seen.append((e.stage, e.done, e.total)))
    b.fit(corpus)
    n = sum(1 for t in corpus if tokenize(t))
    assert seen == [("train", i * n, 5 * n) for i in range(6)]
    np.testing.assert_array_equal(a.table.vectors, b.table.vectors)
    np.testing.assert_array_equal(a.table.ngrams, b.table.ngrams)
