"""tf-idf: gensim's weights, sparse rows over |V|, fit required, deterministic, saved state reused."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from embedder_helpers import make_corpus

from n2o_core.embedders.tfidf import TfidfEmbedder
from n2o_core.errors import EmbedderError
from n2o_core.text import tokenize


def gensim_dense(fit_texts: list[str], texts: list[str]) -> np.ndarray:
    """Reference: gensim TfidfModel applied sentence by sentence, densified over the same vocabulary."""
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel

    dct = Dictionary(tokenize(t) for t in fit_texts)
    model = TfidfModel(dictionary=dct)
    out = np.zeros((len(texts), len(dct)))
    for r, t in enumerate(texts):
        for j, w in model[dct.doc2bow(tokenize(t))]:
            out[r, j] = w
    return out


def test_weights_match_gensim_tfidfmodel(corpus):
    e = TfidfEmbedder()
    e.fit(corpus)
    queries = [*corpus[:30], "The bank sold the shares, the bank sold the river.", "unknownword the team"]
    X = e.encode(queries)
    assert sp.isspmatrix_csr(X) and X.shape == (len(queries), e.dim) and e.dim == len(e.vocab)
    assert e.info.dim is None  # |V| depends on the corpus
    ref = gensim_dense(corpus, queries)
    np.testing.assert_allclose(X.toarray(), ref, atol=1e-6)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)


def test_word_in_every_sentence_weighs_zero_and_all_oov_row_is_empty(corpus):
    e = TfidfEmbedder()
    e.fit(corpus)
    X = e.encode(["the", "zyxw qwvk", "", "!!!", "the team"])
    assert X.getnnz(axis=1).tolist()[:4] == [0, 0, 0, 0]  # 'the' is in every sentence: idf 0, dropped
    assert X.getnnz(axis=1)[4] == 1
    assert np.isfinite(X.data).all()


def test_corpus_is_never_densified(corpus):
    e = TfidfEmbedder()
    e.fit(corpus)
    X = e.encode(corpus)
    assert sp.isspmatrix_csr(X)
    assert X.nnz < 0.2 * X.shape[0] * X.shape[1]  # few nonzeros per |V|-wide row, stored sparse
    assert X.has_sorted_indices


def test_requires_fit_and_a_nonempty_corpus():
    e = TfidfEmbedder()
    with pytest.raises(EmbedderError, match="fit"):
        e.encode(["a sentence"])
    with pytest.raises(EmbedderError, match="fit"):
        e.fingerprint()
    with pytest.raises(EmbedderError, match="empty corpus"):
        e.fit([])
    e.fit(["one two", "two three"])
    with pytest.raises(EmbedderError, match="list of sentences"):
        e.encode("a single string")


def test_deterministic_and_state_reused_from_cache(corpus, tmp_path):
    a = TfidfEmbedder(tmp_path)
    a.fit(corpus)
    assert not a.loaded_from_disk
    b = TfidfEmbedder(tmp_path)
    b.fit(corpus)
    assert b.loaded_from_disk and b.fingerprint() == a.fingerprint() and b.vocab == a.vocab
    c = TfidfEmbedder()  # no cache: retrained
    c.fit(corpus)
    assert c.fingerprint() == a.fingerprint()
    Xa, Xb, Xc = (e.encode(corpus[:50]) for e in (a, b, c))
    assert (Xa != Xb).nnz == 0 and (Xa != Xc).nnz == 0


def test_corrupt_state_is_retrained(corpus, tmp_path):
    a = TfidfEmbedder(tmp_path)
    a.fit(corpus)
    state = a.state_path(a.fingerprint())
    (state / "vocab.json").write_text('["tampered"]', encoding="utf-8")
    b = TfidfEmbedder(tmp_path)
    b.fit(corpus)
    assert not b.loaded_from_disk and b.vocab == a.vocab
    assert (b.encode(corpus[:5]) != a.encode(corpus[:5])).nnz == 0


def test_fingerprint_depends_on_the_fit_corpus(corpus):
    a, b = TfidfEmbedder(), TfidfEmbedder()
    a.fit(corpus)
    b.fit(make_corpus(seed=1))
    assert a.fingerprint() != b.fingerprint()


def test_vocabulary_dfs_and_idf_are_gensims_exactly(corpus):
    """The one-pass count gives gensim Dictionary's term ids, dfs and document count, and idf_from_dfs gives
    TfidfModel's idfs bit for bit (so the vectors, and their cache keys, did not change)."""
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel

    from n2o_core.embedders.tfidf import count_vocabulary, idf_from_dfs

    texts = [*corpus, "", "!!!", "zeta alpha zeta", "alpha beta"]  # empty documents count as documents
    docs = [tokenize(t) for t in texts]
    vocab, dfs, num_docs = count_vocabulary(docs)
    dct = Dictionary(docs)
    assert vocab == [dct[i] for i in range(len(dct))]
    assert dfs.tolist() == [dct.dfs[i] for i in range(len(dct))] and num_docs == dct.num_docs == len(texts)
    idfs = TfidfModel(dictionary=dct).idfs
    np.testing.assert_array_equal(idf_from_dfs(dfs, num_docs), [idfs[i] for i in range(len(dct))])


def test_a_vocabulary_gensim_would_prune_is_left_to_gensim(corpus, monkeypatch):
    from n2o_core.embedders import tfidf

    monkeypatch.setattr(tfidf, "GENSIM_PRUNE_AT", 5)
    with pytest.raises(ValueError):
        tfidf.count_vocabulary(tokenize(t) for t in corpus)
    e = TfidfEmbedder()
    e.fit(corpus)  # through gensim's Dictionary (which prunes only past its own limit at 10,000-document steps)
    monkeypatch.setattr(tfidf, "GENSIM_PRUNE_AT", 2_000_000)
    f = TfidfEmbedder()
    f.fit(corpus)
    assert e.vocab == f.vocab and (e.encode(corpus) != f.encode(corpus)).nnz == 0
