import json
import multiprocessing as mp

import numpy as np
import pytest
import scipy.sparse as sp

from n2o_core.errors import CacheError
from n2o_core.storage.cache import Cache


def test_dense_round_trip_is_memory_mapped(tmp_path):
    c = Cache(tmp_path)
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = c.save_dense("emb/x.npy", a, description="test")
    assert isinstance(got, np.memmap) and (got == a).all()
    assert (c.load_dense("emb/x.npy") == a).all()
    assert c.manifest()["entries"]["emb/x.npy"]["shape"] == [4, 3]


def test_env_var_sets_location(tmp_path, monkeypatch):
    monkeypatch.setenv("N2O_CACHE_DIR", str(tmp_path / "elsewhere"))
    assert Cache().root == tmp_path / "elsewhere"


@pytest.mark.parametrize("damage", ["truncate", "flip", "sidecar-garbage", "no-sidecar"])
def test_corrupt_entries_are_detected_and_removed(tmp_path, damage):
    c = Cache(tmp_path)
    a = np.random.default_rng(0).standard_normal((300, 50)).astype(np.float32)
    c.save_dense("e.npy", a)
    p = tmp_path / "e.npy"
    side = tmp_path / "e.npy.json"
    if damage == "truncate":
        p.write_bytes(p.read_bytes()[:-100])
    elif damage == "flip":
        b = bytearray(p.read_bytes())
        b[-5] ^= 0xFF
        p.write_bytes(bytes(b))
    elif damage == "sidecar-garbage":
        side.write_text("{not json")
    else:
        side.unlink()
    assert c.load_dense("e.npy") is None
    assert not p.exists()  # removed, so the caller rebuilds it
    assert (c.save_dense("e.npy", a) == a).all()


def test_pickled_npy_is_rejected(tmp_path):
    c = Cache(tmp_path)
    c.save_dense("o.npy", np.zeros(3))
    p = tmp_path / "o.npy"
    np.save(p, np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    meta = json.loads((tmp_path / "o.npy.json").read_text())
    from n2o_core.storage.fileio import head_tail_digest as _file_digest

    meta.update(bytes=p.stat().st_size, digest=_file_digest(p))  # a forged sidecar still can't make us unpickle
    (tmp_path / "o.npy.json").write_text(json.dumps(meta))
    assert c.load_dense("o.npy") is None


def test_json_round_trip_and_damage(tmp_path):
    c = Cache(tmp_path)
    doc = {"rows": [["synonym", "Prices rose.", None]], "n": 3, "ünï": "cödé"}
    c.save_json("heros/p.json", doc, description="test")
    assert c.load_json("heros/p.json") == doc
    assert c.manifest()["entries"]["heros/p.json"]["kind"] == "json"
    p = tmp_path / "heros" / "p.json"
    p.write_text(p.read_text()[:-3])  # truncated
    assert c.load_json("heros/p.json") is None
    assert not p.exists()
    assert c.load_json("heros/never.json") is None
    with pytest.raises(ValueError):
        c.save_json("bad.json", {"x": float("nan")})


def test_sparse_and_bundle_round_trip(tmp_path):
    c = Cache(tmp_path)
    m = sp.random(20, 100, density=0.1, format="csr", random_state=0, dtype=np.float32)
    c.save_sparse("t.npz", m)
    assert (c.load_sparse("t.npz") != m).nnz == 0
    c.save_bundle("b.npz", ids=np.arange(6).reshape(2, 3), sims=np.ones((2, 3), np.float32))
    got = c.load_bundle("b.npz")
    assert (got["ids"] == np.arange(6).reshape(2, 3)).all()


def _writer(root, seed):
    c = Cache(root)
    a = np.full((2000, 64), 1.5, np.float32)
    for _ in range(5):
        with c.lock("same.npy"):
            if c.load_dense("same.npy") is None:
                c.save_dense("same.npy", a)


def test_two_processes_writing_the_same_entry(tmp_path):
    ctx = mp.get_context("spawn")
    ps = [ctx.Process(target=_writer, args=(str(tmp_path), s)) for s in range(2)]
    for p in ps:
        p.start()
    for p in ps:
        p.join(60)
        assert p.exitcode == 0
    got = Cache(tmp_path).load_dense("same.npy")
    assert got is not None and got.shape == (2000, 64) and float(got[5, 5]) == 1.5
    assert not list(tmp_path.glob(".same.npy.*.tmp"))


def test_unwritable_location_is_a_clear_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(CacheError, match="cannot be written"):
        Cache(f / "sub")
