"""npy: precomputed vectors: one row per corpus sentence, refused for other texts, bad files rejected clearly."""

from __future__ import annotations

import numpy as np
import pytest

from n2o_core.embedders import PrecomputedEmbedder, get_embedder, list_embedders, register_embedder
from n2o_core.errors import EmbedderError

TEXTS = ["first sentence", "second sentence", "third one", "a fourth"]


@pytest.fixture
def vectors_file(tmp_path):
    X = np.arange(12, dtype=np.float64).reshape(4, 3)
    X[2] = 0.0  # a sentence the outside model could not embed
    path = tmp_path / "vecs.npy"
    np.save(path, X)
    return path, X


def test_rows_of_the_corpus(vectors_file):
    path, X = vectors_file
    e = get_embedder(f"npy:{path}")
    assert e.info.dim == 3 and e.info.family == "user" and not e.info.default and e.info.family_group == "precomputed"
    e.fit(TEXTS)
    out = e.encode(TEXTS)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, X.astype(np.float32))
    out[0] = 99  # a copy: the embedder's rows are untouched
    assert e.encode(TEXTS)[0, 0] == 0
    assert PrecomputedEmbedder("other", path).fingerprint() == e.fingerprint()


def test_other_texts_are_refused(vectors_file):
    path, _ = vectors_file
    e = PrecomputedEmbedder("vecs", path)
    e.fit(TEXTS)
    with pytest.raises(EmbedderError, match="4 rows but 1 sentence"):
        e.encode(["a free-text query"])
    with pytest.raises(EmbedderError, match="another corpus"):
        e.encode(["w", "x", "y", "z"])
    with pytest.raises(EmbedderError, match="4 rows but 3"):
        e.fit(TEXTS[:3])


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda p: np.save(p, np.array([[1.0, np.nan], [0.0, 1.0]])), "NaN or infinite values in 1 row"),
        (lambda p: np.save(p, np.ones(5)), "2-D array"),
        (lambda p: np.save(p, np.zeros((0, 4))), "2-D array"),
        (lambda p: np.save(p, np.array([["a", "b"]])), "must hold numbers"),
        (lambda p: np.save(p, np.array([{"a": 1}], dtype=object), allow_pickle=True), "not a readable"),
        (lambda p: p.write_bytes(b"\x93NUMPY garbage"), "not a readable"),
        (lambda p: p.write_bytes(b""), "not a readable"),
    ],
)
def test_bad_files(tmp_path, make, match):
    path = tmp_path / "bad.npy"
    make(path)
    with pytest.raises(EmbedderError, match=match) as info:
        get_embedder(f"npy:{path}")
    assert "\n" not in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(EmbedderError, match="not found"):
        get_embedder(f"npy:{tmp_path / 'none.npy'}")


def test_a_replaced_file_is_loaded_again(vectors_file):
    path, X = vectors_file
    first = get_embedder(f"npy:{path}")
    assert get_embedder(f"npy:{path}") is first  # loaded once while the file is unchanged
    np.save(path, np.ones((4, 5)))
    second = get_embedder(f"npy:{path}")
    assert second is not first and second.info.dim == 5 and second.fingerprint() != first.fingerprint()


def test_register_under_a_name(vectors_file, monkeypatch):
    from n2o_core.embedders import registry

    monkeypatch.setattr(registry, "_USER", {})
    path, _ = vectors_file
    e = PrecomputedEmbedder("my-vectors-test", path)
    register_embedder(e)
    assert get_embedder("my-vectors-test") is e
    assert "my-vectors-test" in [r.id for r in list_embedders(include_user=True)]
    assert "my-vectors-test" not in [r.id for r in list_embedders()]
    with pytest.raises(EmbedderError, match="built-in"):
        register_embedder(PrecomputedEmbedder("tfidf", path))
