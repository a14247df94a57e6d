"""The cached ONNX export: built once (also under concurrent builders), reused, rebuilt when damaged, keyed by
source model and variant; `run_batches` keeps input order with several workers. A fake exporter keeps it quick
(the real export is exercised once per session by test_embedders_sbert.py)."""

from __future__ import annotations

import threading
import time
from typing import ClassVar

import numpy as np
import pytest

from n2o_core.embedders import _onnx
from n2o_core.errors import EmbedderError


@pytest.fixture
def fake_export(monkeypatch):
    """Replace torch.onnx.export by a slow-ish file write; counts the builds."""
    calls = {"n": 0}

    def export(source, out):
        calls["n"] += 1
        time.sleep(0.2)  # long enough for concurrent builders to overlap
        out.write_bytes(b"graph of " + str(source).encode())

    monkeypatch.setattr(_onnx, "_export_fp32", export)
    return calls


@pytest.fixture(autouse=True)
def fresh_memo(monkeypatch):
    monkeypatch.setattr(_onnx, "_CHECKED", {})


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "model"
    src.mkdir()
    (src / "config.json").write_text("{}")
    return src


def test_built_once_then_reused(fake_export, source, tmp_path):
    path = _onnx.exported_model(source, tmp_path / "cache")
    assert path.read_bytes() == b"graph of " + str(source).encode()
    assert path.parent.parent.name == "onnx" and path.parent.parent.parent == tmp_path / "cache"
    assert _onnx.exported_model(source, tmp_path / "cache") == path
    assert fake_export["n"] == 1


def test_concurrent_builders_build_once(fake_export, source, tmp_path):
    paths, errors = [], []

    def build():
        try:
            paths.append(_onnx.exported_model(source, tmp_path / "cache"))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(paths)) == 1 and fake_export["n"] == 1
    leftovers = [p.name for p in (tmp_path / "cache" / "onnx").iterdir() if p.name.startswith(".tmp")]
    assert leftovers == []


def test_damaged_export_is_rebuilt(fake_export, source, tmp_path, monkeypatch):
    path = _onnx.exported_model(source, tmp_path / "cache")
    path.write_bytes(b"truncated")
    monkeypatch.setattr(_onnx, "_CHECKED", {})  # a new process: the export is verified again
    assert _onnx.exported_model(source, tmp_path / "cache") == path
    assert fake_export["n"] == 2 and path.read_bytes().startswith(b"graph of")


def test_key_follows_source_variant_and_versions(source, monkeypatch):
    key = _onnx.export_key(source)
    assert _onnx.export_key(source, "int8") != key
    (source / "model.safetensors").write_bytes(b"new weights")
    assert _onnx.export_key(source) != key
    newer = _onnx.export_key(source)
    monkeypatch.setattr(_onnx, "package_version", lambda dist: "99.0" if dist == "torch" else "1.0")
    assert _onnx.export_key(source) != newer
    with pytest.raises(EmbedderError, match="Unknown ONNX variant"):
        _onnx.exported_model(source, None, "fp8")


def test_user_cache_without_a_cache_folder(fake_export, source, tmp_path, monkeypatch):
    monkeypatch.setenv("N2O_MODEL_CACHE", str(tmp_path / "user"))
    assert _onnx.user_model_cache() == tmp_path / "user"
    assert _onnx.exported_model(source, None).is_relative_to(tmp_path / "user")
    monkeypatch.delenv("N2O_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _onnx.user_model_cache() == tmp_path / "xdg" / "n2o-explorer" / "models"


def test_failed_export_is_one_sentence_and_leaves_nothing(source, tmp_path, monkeypatch):
    def broken(src, out):
        raise RuntimeError("exporter exploded\nwith a traceback")

    monkeypatch.setattr(_onnx, "_export_fp32", broken)
    message = "Could not export model to ONNX: exporter exploded with a traceback"
    with pytest.raises(EmbedderError, match=message) as info:
        _onnx.exported_model(source, tmp_path / "cache")
    assert "\n" not in str(info.value)
    assert [p.name for p in (tmp_path / "cache" / "onnx").iterdir() if not p.name.endswith(".lock")] == []


@pytest.mark.parametrize("workers", [1, 3])
def test_run_batches_keeps_input_order(workers):
    texts = [f"{'x' * (i % 7)} sentence {i}" for i in range(25)]
    seen = []

    def encode(chunk):
        return {"id": np.array([[float(t.split()[-1])] for t in chunk]), "len": np.array([[len(t)] for t in chunk])}

    out = _onnx.run_batches(texts, 4, encode, lambda e: seen.append((e.done, e.total)), workers=workers)
    np.testing.assert_array_equal(out["id"][:, 0], np.arange(25))
    np.testing.assert_array_equal(out["len"][:, 0], [len(t) for t in texts])
    assert out["id"].dtype == np.float32 and [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1] == (25, 25)


class _FakeRequest:
    """An infer request that records how many first inferences overlap (`live` at most `peak`)."""

    state: ClassVar[dict[str, int]] = {"live": 0, "peak": 0, "calls": 0}
    lock = threading.Lock()

    def __init__(self):
        self.first = True

    def infer(self, feeds):
        s = _FakeRequest.state
        with _FakeRequest.lock:
            s["calls"] += 1
            if self.first:
                s["live"] += 1
                s["peak"] = max(s["peak"], s["live"])
        time.sleep(0.05)
        with _FakeRequest.lock:
            if self.first:
                s["live"] -= 1
        self.first = False
        self.out = np.asarray(feeds["x"], np.float32) * 2

    def get_tensor(self, name):
        return type("T", (), {"data": self.out})()


def test_openvino_first_inference_per_thread_runs_alone():
    """Each thread's first inference holds _OPENVINO (OpenVINO's binding deadlocked when two threads made their
    first one at once); later ones run side by side, and every thread gets its own request."""
    session = object.__new__(_onnx.OpenVinoSession)
    session.compiled = type("C", (), {"create_infer_request": staticmethod(_FakeRequest)})()
    session._local = threading.local()
    _FakeRequest.state.update(live=0, peak=0, calls=0)
    results: dict[int, list] = {}
    start = threading.Barrier(4)

    def work(i):
        start.wait()
        results[i] = [session.run(["y"], {"x": np.full(3, i + r)})[0] for r in range(3)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert _FakeRequest.state == {"live": 0, "peak": 1, "calls": 12}
    assert all(np.array_equal(results[i][r], np.full(3, 2.0 * (i + r))) for i in range(4) for r in range(3))


def test_openvino_set_up_waits_while_another_thread_is_inside_openvino():
    """Creating a session (here its first step, asking OpenVINO for the CPU's precision) takes the same lock as a
    first inference: while another thread holds it, set-up waits, and goes on once it is released."""
    pytest.importorskip("openvino")
    _onnx.openvino_precision.cache_clear()
    got: list[str] = []
    with _onnx._OPENVINO:
        t = threading.Thread(target=lambda: got.append(_onnx.openvino_precision()))
        t.start()
        t.join(1.0)
        assert t.is_alive() and not got  # waiting for the lock
    t.join(60)
    assert got and got[0] in ("bf16", "f32")
