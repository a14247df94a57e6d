"""npy: precomputed vectors: one row per corpus sentence, refused for other texts, bad files rejected clearly."""

from __future__ import annotations

import os

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
        # float32 rows are checked by the search's norms kernel, the rows found value by value
        (lambda p: np.save(p, np.array([[1, 2], [np.inf, 0], [3, np.nan]], np.float32)), r"2 row\(s\) \(first: row 1"),
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
    path, _X = vectors_file
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


# --------------------------------------------------------------------------- through the workspace


def _workspace(tmp_path, n=40, d=6, dtype=np.float32, seed=0):
    from n2o_core.corpora import from_texts
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    corpus = from_texts([f"sentence number {i}" for i in range(n)])
    X = np.random.default_rng(seed).standard_normal((n, d)).astype(dtype)
    path = tmp_path / "mine.npy"
    np.save(path, X)
    ws = Workspace(corpus, cache=Cache(tmp_path / "cache"))
    ws.add_vectors("mine", path)
    return ws, path, X


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_workspace_memory_maps_the_file_and_never_copies_it(tmp_path, dtype):
    ws, path, X = _workspace(tmp_path, dtype=dtype)
    A = ws.embeddings("mine")
    assert isinstance(A, np.memmap) and A.dtype == dtype and not A.flags.writeable
    assert str(A.filename) == str(path.resolve())  # the rows are the file's pages, not a copy in memory
    assert A is ws.embeddings("mine") is ws.embedder("mine").vectors  # one mapping while the file is unchanged
    np.testing.assert_array_equal(A, X)
    nb = ws.neighbors("mine", np.arange(5), 3)
    Xn = X.astype(np.float64) / np.linalg.norm(X.astype(np.float64), axis=1, keepdims=True)
    S = Xn[:5] @ Xn.T
    S[np.arange(5), np.arange(5)] = -np.inf
    np.testing.assert_array_equal(nb.ids, np.argsort(-S, axis=1, kind="stable")[:, :3])


def _rewrite_keeping_size_and_mtime(path, X, in_place: bool):
    st = path.stat()
    if in_place:  # the same file (inode), bytes changed where they are
        with open(path, "r+b") as f:
            f.seek(st.st_size - X.nbytes)
            f.write(X.tobytes())
    else:  # a new file renamed over the old one
        tmp = path.with_name("new.npy")
        np.save(tmp, X)
        tmp.replace(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


@pytest.mark.parametrize("where,in_place", [("end", False), ("start", True), ("end", True)])
def test_a_changed_file_of_the_same_size_gets_a_new_key_and_new_neighbors(tmp_path, where, in_place):
    """Same size, same modification time, new bytes in the first or last MiB of a 3.2 MB file: a new cache key,
    the new rows, and neighbors searched again (not the cached result of the old file)."""
    ws, path, X = _workspace(tmp_path, n=20_000, d=40)
    assert path.stat().st_size > 3 << 20  # larger than the 2 MiB the identity reads
    key = ws.embedder_key("mine")
    first = ws.neighbors("mine", np.arange(5), 3)
    changed = 19_999 if where == "end" else 1
    Y = X.copy()
    Y[changed] = 2 * X[0]  # now the nearest neighbor of query 0 (cosine 1)
    _rewrite_keeping_size_and_mtime(path, Y, in_place)
    assert ws.embedder_key("mine") != key
    np.testing.assert_array_equal(ws.embeddings("mine"), Y)
    again = ws.neighbors("mine", np.arange(5), 3)
    assert first.ids[0, 0] != changed
    assert again.ids[0, 0] == changed and again.sims[0, 0] == pytest.approx(1.0)


def test_nonfinite_rows_are_found_in_every_dtype_and_large_finite_rows_pass(tmp_path):
    from n2o_core.embedders.precomputed import nonfinite_rows

    X = np.full((70_000, 4), 3e38, np.float32)  # each row's sum overflows, yet every value is finite
    assert nonfinite_rows(X).size == 0
    X[[5, 69_999], 1] = [np.inf, np.nan]
    assert nonfinite_rows(X).tolist() == [5, 69_999]
    with np.errstate(over="ignore"):
        H = X.astype(np.float16)  # 3e38 overflows float16: every row is infinite there
    assert nonfinite_rows(H).tolist() == list(range(70_000))
    H = np.ones((10, 3), np.float16)
    H[7, 2] = -np.inf
    assert nonfinite_rows(H).tolist() == [7]
    assert nonfinite_rows(np.ones((3, 2), np.int16)).size == 0


def test_float32_files_keep_the_inverse_norms_their_check_computed(tmp_path):
    """A float32 file's finiteness check is a pass of the search's norms kernel: its inverse row norms are kept for
    the exact search (0 for a zero row); other dtypes get none."""
    X = np.random.default_rng(0).standard_normal((70_000, 5)).astype(np.float32)  # two blocks of the check
    X[3] = 0
    np.save(tmp_path / "f32.npy", X)
    e = PrecomputedEmbedder("f32", tmp_path / "f32.npy")
    norms = np.linalg.norm(X.astype(np.float64), axis=1)
    want = np.divide(1, norms, out=np.zeros_like(norms), where=norms > 0)
    np.testing.assert_allclose(e.row_inv, want, rtol=1e-6)
    assert e.row_inv[3] == 0
    np.save(tmp_path / "f16.npy", X[:10].astype(np.float16))
    assert PrecomputedEmbedder("f16", tmp_path / "f16.npy").row_inv is None
