"""Stop words as a composition choice of averaged word vectors (the -nostop rows and wv:<path>@nostop).

The stop list is sentence-transformers' (`n2o_core.text.SBERT_STOP_WORDS`); averaged GloVe built with
sentence-transformers (`WordEmbeddings` + `WhitespaceTokenizer` + mean pooling) drops it, ours keeps every token
unless a -nostop row is chosen.
"""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import PARAPHRASES, make_corpus

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.embedders import get_embedder
from n2o_core.embedders.base import AVERAGE_ALL_TOKENS, AVERAGE_NO_STOP_WORDS
from n2o_core.embedders.static import average, load_glove_6b_50d
from n2o_core.embedders.trained_vectors import TrainedVectorsEmbedder
from n2o_core.storage.cache import Cache
from n2o_core.text import SBERT_STOP_WORDS, content_tokens, tokenize

PAIR = ["The deal was approved.", "The deal was not approved."]
#: Other sentence / negation pairs that differ only by stop words ("never", "no", "cannot", "did not").
PAIRS = [
    PAIR,
    ["The bank sold shares.", "The bank never sold shares."],
    ["Investors found buyers.", "Investors found no buyers."],
    ["The storm hit the coast.", "The storm did not hit the coast."],
    ["Farmers sell the harvest.", "Farmers cannot sell the harvest."],
]
TRAINED = ("word2vec", "fasttext", "fasttext-sub")


def sbert_stop_words() -> list[str]:
    try:  # sentence-transformers >= 5.x
        from sentence_transformers.sentence_transformer.modules.tokenizer import ENGLISH_STOP_WORDS
    except ImportError:  # older releases
        from sentence_transformers.models.tokenizer import ENGLISH_STOP_WORDS
    return list(ENGLISH_STOP_WORDS)


def test_the_stop_list_is_sentence_transformers_default():
    words = sbert_stop_words()
    assert len(words) == len(set(words)) == len(SBERT_STOP_WORDS) == 386
    assert frozenset(words) == SBERT_STOP_WORDS
    assert {"not", "no", "nor", "never", "cannot", "does", "did", "was"} <= SBERT_STOP_WORDS


def test_content_tokens():
    assert content_tokens("The deal was NOT approved, wasn't it?", SBERT_STOP_WORDS) == ["deal", "approved", "wasn't"]
    assert content_tokens("The deal was approved.") == tokenize("The deal was approved.")


def test_glove_nostop_gives_a_sentence_and_its_negation_one_vector():
    keep, drop = get_embedder("glove-6b-50d"), get_embedder("glove-6b-50d-nostop")
    assert keep.info.composition == AVERAGE_ALL_TOKENS and drop.info.composition == AVERAGE_NO_STOP_WORDS
    assert keep.fingerprint() != drop.fingerprint()
    for pair in PAIRS:
        X, Y = keep.encode(pair), drop.encode(pair)
        assert not np.array_equal(X[0], X[1]), pair  # every token kept: the negation moves the vector
        np.testing.assert_array_equal(Y[0], Y[1])  # stop words dropped: identical
        assert np.abs(Y[0]).sum() > 0
    table = load_glove_6b_50d()
    expected = np.mean([table.vectors[table.index[w]] for w in ("deal", "approved")], axis=0)
    np.testing.assert_allclose(drop.encode(PAIR[:1])[0], expected, rtol=1e-6, atol=1e-7)
    assert not drop.encode(["It was not the one."]).any()  # only stop words: a zero row


def test_glove_nostop_equals_sentence_transformers_averaged_glove():
    """The route of sentence-transformers' average_word_embeddings_glove models, on the same GloVe vectors."""
    try:
        from sentence_transformers.sentence_transformer.modules import Pooling, WordEmbeddings
        from sentence_transformers.sentence_transformer.modules.tokenizer import WhitespaceTokenizer
    except ImportError:  # older releases
        from sentence_transformers.models import Pooling, WhitespaceTokenizer, WordEmbeddings
    from sentence_transformers import SentenceTransformer

    table = load_glove_6b_50d()
    # as WordEmbeddings.from_text_file builds it: a zero padding row first, the default stop list
    vocab = ["PADDING_TOKEN", *table.words]
    weights = np.vstack([np.zeros((1, table.dim), np.float32), table.vectors])
    words = WordEmbeddings(WhitespaceTokenizer(vocab), weights)
    model = SentenceTransformer(modules=[words, Pooling(table.dim, "mean")], device="cpu")
    texts = [s for pair in PAIRS for s in pair] + [p[0] for p in PARAPHRASES] + make_corpus(20)
    ref = model.encode(texts, convert_to_numpy=True)
    ours = get_embedder("glove-6b-50d-nostop").encode(texts)
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-6)
    # and the all-tokens row is not what sentence-transformers computes
    assert not np.allclose(get_embedder("glove-6b-50d").encode(texts), ref, atol=1e-3)


@pytest.fixture(scope="module")
def fit_texts() -> list[str]:
    """The test corpus plus the negation pairs, each twice (every word reaches min_count=2)."""
    return make_corpus() + [s for pair in PAIRS for s in pair] * 2


@pytest.mark.parametrize("embedder_id", TRAINED)
def test_trained_nostop_shares_the_state_and_drops_stop_words(embedder_id, fit_texts, tmp_path):
    keep = get_embedder(embedder_id, tmp_path)
    keep.fit(fit_texts)
    drop = get_embedder(f"{embedder_id}-nostop", tmp_path)
    drop.fit(fit_texts)
    assert not keep.loaded_from_disk and drop.loaded_from_disk  # trained once, for both rows
    np.testing.assert_array_equal(drop.table.vectors, keep.table.vectors)
    assert drop.fingerprint() != keep.fingerprint()
    for pair in PAIRS:
        X, Y = keep.encode(pair), drop.encode(pair)
        assert not np.array_equal(X[0], X[1])
        np.testing.assert_array_equal(Y[0], Y[1])
        assert np.abs(Y[0]).sum() > 0
    texts = fit_texts[:30]
    np.testing.assert_array_equal(drop.encode(texts), average(keep.table, texts, stop_words=SBERT_STOP_WORDS))


def test_trained_nostop_alone_trains_like_its_base(fit_texts):
    a = TrainedVectorsEmbedder("word2vec")
    b = TrainedVectorsEmbedder("word2vec-nostop", preset="word2vec", stop_words=SBERT_STOP_WORDS)
    a.fit(fit_texts)
    b.fit(fit_texts)
    np.testing.assert_array_equal(a.table.vectors, b.table.vectors)  # no cache: trained again, identically
    assert b.state_fingerprint("x") == a.state_fingerprint("x") and b.fingerprint() != a.fingerprint()


def test_word_vector_files_with_nostop(tmp_path):
    f = tmp_path / "tiny.txt"  # GloVe text format: word, then its vector
    f.write_text("the 1 0 0\ndeal 0 2 0\nwas 0 0 4\nnot 8 8 8\napproved 0 0 2\n", encoding="utf-8")
    keep, drop = get_embedder(f"wv:{f}"), get_embedder(f"wv:{f}@nostop")
    assert drop.info.id == f"wv:{f}@nostop" and drop.info.composition == AVERAGE_NO_STOP_WORDS
    assert keep.info.composition == AVERAGE_ALL_TOKENS and drop.fingerprint() != keep.fingerprint()
    np.testing.assert_allclose(keep.encode(PAIR), [[1 / 4, 2 / 4, 6 / 4], [9 / 5, 10 / 5, 14 / 5]])
    np.testing.assert_allclose(drop.encode(PAIR), [[0, 1, 1], [0, 1, 1]])


def test_a_workspace_embeds_nostop_rows_and_reuses_the_trained_state(fit_texts, tmp_path):
    ws = Workspace(from_texts(fit_texts), cache=Cache(tmp_path))
    keep = ws.embeddings("fasttext")
    drop = ws.embeddings("fasttext-nostop")
    assert ws.embedder("fasttext-nostop").loaded_from_disk
    assert ws.embedder_key("fasttext") != ws.embedder_key("fasttext-nostop")
    assert ws.info("fasttext-nostop").composition == AVERAGE_NO_STOP_WORDS
    rows = [ws.corpus.texts.index(s) for s in PAIR]
    drop, keep = np.asarray(drop), np.asarray(keep)
    np.testing.assert_array_equal(drop[rows[0]], drop[rows[1]])
    assert not np.array_equal(keep[rows[0]], keep[rows[1]])
