"""all-MiniLM-L6-v2: mean and [CLS] from one forward pass; `st:<path>` user models; load errors."""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import PARAPHRASES

from n2o_core.embedders import get_embedder, sbert
from n2o_core.errors import EmbedderError

TEXTS = [p[0] for p in PARAPHRASES] + [p[1] for p in PARAPHRASES] + ["Short.", "A much longer sentence " * 8]


@pytest.fixture
def counted_encode(monkeypatch):
    """Counts calls of the loaded MiniLM SentenceTransformer's encode (one per batch of forward passes)."""
    model = sbert.load_sentence_transformer(str(sbert.minilm_path()))
    calls = {"n": 0, "texts": 0}
    real = model.encode

    def encode(sentences, *args, **kwargs):
        calls["n"] += 1
        calls["texts"] += len(sentences)
        return real(sentences, *args, **kwargs)

    monkeypatch.setattr(model, "encode", encode)
    monkeypatch.setattr(sbert, "_POOLED", type(sbert._POOLED)())
    return calls


def test_mean_and_cls_share_one_forward_pass(counted_encode):
    mean = get_embedder("minilm-l6-mean")
    cls = get_embedder("minilm-l6-cls")
    Xm = mean.encode(TEXTS)
    assert counted_encode["texts"] == len(TEXTS)
    Xc = cls.encode(TEXTS)
    assert counted_encode["texts"] == len(TEXTS)  # served from the shared pooled outputs
    assert Xm.shape == Xc.shape == (len(TEXTS), 384)
    assert not np.allclose(Xm, Xc)
    # other texts are a new pass
    cls.encode(TEXTS[:3])
    assert counted_encode["texts"] == len(TEXTS) + 3


def test_mean_pooling_is_the_models_own_sentence_embedding(minilm_dir):
    """Same direction as SentenceTransformer.encode (which mean-pools, then normalizes)."""
    model = sbert.load_sentence_transformer(str(sbert.minilm_path()))
    ref = model.encode(TEXTS, convert_to_numpy=True, normalize_embeddings=True)
    X = get_embedder("minilm-l6-mean").encode(TEXTS)
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    assert np.einsum("ij,ij->i", Xn, ref).min() > 0.9999


def test_cls_is_the_first_token_state():
    import torch

    model = sbert.load_sentence_transformer(str(sbert.minilm_path()))
    with torch.inference_mode():
        feats = model.tokenize(["The cat is sleeping on the sofa."])
        out = model[0](feats)["token_embeddings"][0, 0].numpy()
    X = get_embedder("minilm-l6-cls").encode(["The cat is sleeping on the sofa.", "Another one."])
    np.testing.assert_allclose(X[0], out, atol=1e-4)


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
    M = get_embedder("minilm-l6-mean").encode(TEXTS)
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
