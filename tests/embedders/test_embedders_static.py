"""Averaged static vectors: GloVe 6B 50d and user word-vector files (wv:), format sniffing, clear errors."""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import cosine

from n2o_core.embedders import get_embedder
from n2o_core.embedders.keys import stable_hash
from n2o_core.embedders.static import average, load_word_vectors, sniff_format
from n2o_core.errors import EmbedderError
from n2o_core.text import tokenize


@pytest.fixture(scope="module")
def w2v_model(corpus):
    from gensim.models import Word2Vec

    return Word2Vec(
        [tokenize(t) for t in corpus], vector_size=12, min_count=2, epochs=2, workers=1, seed=1, hashfxn=stable_hash
    )


@pytest.fixture(scope="module")
def vector_files(tmp_path_factory, w2v_model, corpus):
    """word2vec .bin/.txt, GloVe .txt (no header) and fastText .bin written by gensim."""
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    d = tmp_path_factory.mktemp("wv")
    kv = w2v_model.wv
    kv.save_word2vec_format(str(d / "w2v.bin"), binary=True)
    kv.save_word2vec_format(str(d / "w2v.txt"), binary=False)
    lines = (d / "w2v.txt").read_text(encoding="utf-8").splitlines()
    (d / "glove.txt").write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    ft = FastText(
        [tokenize(t) for t in corpus],
        vector_size=12,
        min_count=2,
        epochs=2,
        min_n=3,
        max_n=5,
        bucket=3000,
        workers=1,
        seed=1,
        hashfxn=stable_hash,
    )
    save_facebook_model(ft, str(d / "ft.bin"))
    return d


@pytest.mark.parametrize(
    "name,fmt",
    [("w2v.bin", "word2vec-bin"), ("w2v.txt", "word2vec-txt"), ("glove.txt", "glove-txt"), ("ft.bin", "fasttext-bin")],
)
def test_formats_are_sniffed(vector_files, name, fmt):
    assert sniff_format(vector_files / name) == fmt


@pytest.mark.parametrize("name", ["w2v.bin", "w2v.txt", "glove.txt"])
def test_word_vector_files_average_known_tokens(vector_files, w2v_model, name):
    e = get_embedder(f"wv:{vector_files / name}")
    assert e.info.dim == 12 and e.info.family == "user" and e.info.composition == "average, all tokens"
    assert e.info.family_group == "static averages" and not e.info.default
    e.fit(["anything"])  # pretrained: no-op
    texts = ["The team won the final zzqx.", "qqqq wwww", "The bank sold shares."]
    X = e.encode(texts)
    assert X.shape == (3, 12) and X.dtype == np.float32 and np.isfinite(X).all()
    kv = w2v_model.wv
    for r in (0, 2):
        known = [w for w in tokenize(texts[r]) if w in kv.key_to_index]
        np.testing.assert_allclose(X[r], np.mean([kv[w] for w in known], axis=0), rtol=1e-4, atol=1e-5)
    assert not X[1].any()  # only unknown words: zero row
    assert get_embedder(f"wv:{vector_files / name}").fingerprint() == e.fingerprint()


def test_fasttext_bin_gives_subword_vectors_like_gensim(vector_files):
    from gensim.models.fasttext import load_facebook_vectors

    e = get_embedder(f"wv:{vector_files / 'ft.bin'}")
    assert e.table.subwords and "subword" in e.info.data and e.info.family_group == "subword"
    ref = load_facebook_vectors(str(vector_files / "ft.bin"))
    X = e.encode(["teamwork", "The stormy bankers"])
    np.testing.assert_allclose(X[0], ref["teamwork"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        X[1], np.mean([ref[w] for w in ("the", "stormy", "bankers")], axis=0), rtol=1e-4, atol=1e-5
    )


def test_fingerprints_differ_between_files(vector_files):
    fps = {get_embedder(f"wv:{vector_files / n}").fingerprint() for n in ("w2v.bin", "w2v.txt", "glove.txt", "ft.bin")}
    assert len(fps) == 4


def test_cased_vocabulary_falls_back_to_lowercase(tmp_path):
    f = tmp_path / "cased.txt"
    f.write_text("2 3\nParis 1 0 0\nparis 0 1 0\n", encoding="utf-8")
    f2 = tmp_path / "cased2.txt"
    f2.write_text("1 3\nLondon 0 0 2\n", encoding="utf-8")
    table, fmt = load_word_vectors(f)
    assert fmt == "word2vec-txt"
    np.testing.assert_array_equal(average(table, ["paris"])[0], [0, 1, 0])  # exact lowercase form wins
    table2, _ = load_word_vectors(f2)
    np.testing.assert_array_equal(average(table2, ["LONDON london"])[0], [0, 0, 2])


@pytest.mark.parametrize(
    "content,match",
    [
        (b"", "Could not load word vectors"),
        (b"\x00\x01\x02garbage\xff\xfe" * 20, "Could not load word vectors"),
        (b"3 4\nthe 1 2 3 4\ncat 1 2\n", "Could not load word vectors"),
        (b"2 2\nthe 1 nan\ncat 1 2\n", "NaN or infinite"),
    ],
)
def test_corrupt_word_vector_files_raise_one_clear_sentence(tmp_path, content, match):
    f = tmp_path / "bad.vec"
    f.write_bytes(content)
    with pytest.raises(EmbedderError, match=match) as info:
        get_embedder(f"wv:{f}")
    assert "\n" not in str(info.value)


def test_truncated_binary_file_is_an_error(vector_files, tmp_path):
    data = (vector_files / "w2v.bin").read_bytes()
    f = tmp_path / "cut.bin"
    f.write_bytes(data[: len(data) // 2])
    with pytest.raises(EmbedderError, match=r"Could not load word vectors from cut\.bin"):
        get_embedder(f"wv:{f}")
    g = tmp_path / "cut_ft.bin"
    g.write_bytes((vector_files / "ft.bin").read_bytes()[:5000])
    with pytest.raises(EmbedderError, match=r"Could not load word vectors from cut_ft\.bin"):
        get_embedder(f"wv:{g}")


def test_missing_file(tmp_path):
    with pytest.raises(EmbedderError, match="not found"):
        get_embedder(f"wv:{tmp_path / 'nope.bin'}")


def test_glove_semantics_and_oov(no_network):
    e = get_embedder("glove-6b-50d")
    X = e.encode(["king queen", "prince princess", "stock market", "qqzxw", ""])
    assert X.shape == (5, 50) and np.isfinite(X).all()
    assert cosine(X[0], X[1]) > cosine(X[0], X[2]) + 0.2
    assert not X[3].any() and not X[4].any()
