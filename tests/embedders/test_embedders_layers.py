"""Every hidden layer from one forward pass (the `@layer=N` variants): MiniLM-L6's torch engine, `hf:` and `st:`
models; the last layer with the model's pooling equals the embedder's own vectors."""

from __future__ import annotations

import numpy as np
import pytest
from embedder_helpers import PARAPHRASES

from n2o_core.embedders import get_embedder
from n2o_core.embedders.hf import pooled_hidden_states
from n2o_core.embedders.sbert import MiniLMEmbedder, hidden_states_model, load_sentence_transformer, minilm_path
from n2o_core.errors import EmbedderError

TEXTS = [p[0] for p in PARAPHRASES] + ["Short.", "A much longer sentence with many more words than the others."]


def unit(X: np.ndarray) -> np.ndarray:
    return X / np.linalg.norm(X, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def minilm_layers():
    return MiniLMEmbedder("mean", engine="torch").encode_layers(TEXTS)


def test_minilm_gives_every_layer_each_pooled(minilm_layers):
    assert set(minilm_layers) == {"cls", "mean", "max"}
    for p, L in minilm_layers.items():
        assert L.shape == (7, len(TEXTS), 384) and L.dtype == np.float32 and np.isfinite(L).all(), p
        for a in range(7):  # the embeddings output and the 6 layers: each its own vectors
            for b in range(a + 1, 7):
                assert not np.allclose(L[a], L[b], atol=1e-3), (p, a, b)
    assert not np.allclose(minilm_layers["mean"], minilm_layers["max"], atol=1e-3)


def test_minilm_last_layer_equals_the_embedder(minilm_layers):
    for pooling in ("mean", "cls"):
        base = MiniLMEmbedder(pooling, engine="torch").encode(TEXTS)
        np.testing.assert_allclose(minilm_layers[pooling][-1], base, atol=1e-5, err_msg=pooling)


def test_layers_come_from_one_forward_pass(monkeypatch):
    model = load_sentence_transformer(str(minilm_path()))
    inner = hidden_states_model(model, "minilm")
    calls = []
    handle = inner.register_forward_hook(lambda *a: calls.append(1))
    try:
        seen = []
        out = MiniLMEmbedder("cls", engine="torch").encode_layers(
            TEXTS, ("mean", "max"), progress=lambda e: seen.append((e.stage, e.done, e.total))
        )
    finally:
        handle.remove()
    assert len(calls) == 1  # all 7 layers and both poolings of these 8 sentences: one batch, one pass
    assert set(out) == {"mean", "max"} and seen[-1] == ("embed", len(TEXTS), len(TEXTS))


def test_hf_last_layer_equals_each_pooling(minilm_dir):
    emb = get_embedder(f"hf:{minilm_dir}@mean")
    layers = emb.encode_layers(TEXTS, ("cls", "mean", "max", "last"))
    for pooling, L in layers.items():
        assert L.shape == (7, len(TEXTS), 384)
        base = get_embedder(f"hf:{minilm_dir}@{pooling}").encode(TEXTS)
        np.testing.assert_allclose(L[-1], base, atol=1e-5, err_msg=pooling)
    # and the layers of hf: and of the built-in MiniLM are the same network's
    np.testing.assert_allclose(
        layers["mean"][3], MiniLMEmbedder("mean", engine="torch").encode_layers(TEXTS)["mean"][3], atol=1e-4
    )


def test_st_last_layer_with_its_pooling_is_its_output(minilm_dir):
    emb = get_embedder(f"st:{minilm_dir}")
    assert emb.info.composition == "mean"
    layers = emb.encode_layers(TEXTS, ("mean",))
    # all-MiniLM-L6-v2's output is mean pooling, then Normalize: the same direction
    np.testing.assert_allclose(unit(layers["mean"][-1]), unit(emb.encode(TEXTS)), atol=1e-5)


def test_no_texts_no_layers_and_bad_input(minilm_dir):
    out = MiniLMEmbedder("mean", engine="torch").encode_layers([])
    assert {p: a.shape for p, a in out.items()} == {p: (7, 0, 384) for p in ("cls", "mean", "max")}
    with pytest.raises(EmbedderError, match="Unknown pooling 'sum'"):
        MiniLMEmbedder("mean", engine="torch").encode_layers(TEXTS, ("sum",))
    with pytest.raises(EmbedderError, match="no transformer layers"):
        hidden_states_model([object()], "st:static")

    class NoStates:
        def __call__(self, **kwargs):
            return type("Out", (), {"hidden_states": None})()

    with pytest.raises(EmbedderError, match="returns no hidden states"):
        pooled_hidden_states(NoStates(), {"attention_mask": None}, ("mean",))
