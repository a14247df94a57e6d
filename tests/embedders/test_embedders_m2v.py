"""model2vec: distilled once, saved (safetensors, manifest) and reused; zero rows; quiet distillation.

The default tests distill a tiny random BERT that uses a 120-token cut of MiniLM's tokenizer (under a second),
which runs the same wrapper code as the real model, and the default `model2vec` embedder itself, made by the
registry, on all-MiniLM-L6-v2 with its real weights but its vocabulary cut to ~320 tokens (`cut_minilm`: a few
seconds of distillation). Distilling the real all-MiniLM-L6-v2 with its whole vocabulary (29,525 forward passes:
80 s idle, several minutes on a busy two-core machine) is @slow and goes into the session cache once.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from embedder_helpers import PARAPHRASES, make_corpus, paraphrase_margins

from n2o_core.embedders import get_embedder, m2v, sbert
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.loading import quiet_libraries
from n2o_core.embedders.m2v import Model2VecEmbedder
from n2o_core.text import tokenize

TINY_INFO = EmbedderInfo("tiny-m2v", "static (averaged)", "model2vec", 16, "a tiny random BERT", default=False)
TEXTS = ["The team won the final.", "", "\u2603\u2603", "The team lost the final on monday.", "Zebra!"]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory, minilm_dir) -> Path:
    """A 1-layer, 32-wide random BERT whose tokenizer is MiniLM's, cut to the test corpus' words and letters."""
    import torch
    from transformers import BertConfig, BertModel

    d = tmp_path_factory.mktemp("tiny-bert")
    spec = json.loads((minilm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    chars = list("abcdefghijklmnopqrstuvwxyz0123456789.,'!")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    for t in sorted({w for s in make_corpus() for w in tokenize(s)}) + chars + ["##" + c for c in chars]:
        if t not in vocab:
            vocab.append(t)
    ids = {t: i for i, t in enumerate(vocab)}
    spec["model"]["vocab"] = ids
    for added in spec["added_tokens"]:
        added["id"] = ids[added["content"]]
    for name, tok in spec["post_processor"].get("special_tokens", {}).items():
        tok["ids"] = [ids[name]]
    (d / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    (d / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    for f in ("tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(minilm_dir / f, d / f)
    torch.manual_seed(0)
    cfg = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    with quiet_libraries():
        BertModel(cfg).save_pretrained(str(d))
    return d


def tiny(cache_dir, source, pca_dims=16):
    return Model2VecEmbedder(cache_dir, source=source, pca_dims=pca_dims, info=TINY_INFO)


def test_distilled_once_saved_and_reused(tiny_bert, tmp_path, capfd):
    a = tiny(tmp_path, tiny_bert)
    seen = []
    X = a.encode(TEXTS, progress=lambda e: seen.append((e.stage, e.done, e.total)))
    assert a.distilled_now and seen[-1] == ("embed", 5, 5)
    assert X.shape == (5, 16) and X.dtype == np.float32 and np.isfinite(X).all()
    err = capfd.readouterr()
    assert "Encoding tokens" not in err.out + err.err  # model2vec's progress bar is silenced
    folder = a.model_dir
    assert (folder / "manifest.json").is_file() and (folder / "model" / "model.safetensors").is_file()
    assert not any(p.suffix in (".pkl", ".pt", ".bin") for p in folder.rglob("*"))
    b = tiny(tmp_path, tiny_bert)
    np.testing.assert_array_equal(b.encode(TEXTS), X)
    assert not b.distilled_now and b.fingerprint() == a.fingerprint()
    assert tiny(tmp_path, tiny_bert, pca_dims=8).fingerprint() != a.fingerprint()


def test_rows_unit_norm_or_exactly_zero(tiny_bert, tmp_path):
    X = tiny(tmp_path, tiny_bert).encode(TEXTS)
    norms = np.linalg.norm(X, axis=1)
    assert norms[1] == 0 and norms[2] == 0  # empty text / only unknown characters: zero rows, not NaN
    np.testing.assert_allclose(norms[[0, 3, 4]], 1.0, atol=1e-3)
    assert not np.allclose(X[0], X[3])


def test_corrupt_saved_model_is_distilled_again(tiny_bert, tmp_path):
    a = tiny(tmp_path, tiny_bert)
    X = a.encode(TEXTS)
    weights = a.model_dir / "model" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    b = tiny(tmp_path, tiny_bert)
    np.testing.assert_allclose(b.encode(TEXTS), X, atol=1e-6)
    assert b.distilled_now


def test_without_cache_dir_the_model_is_kept_in_memory(tiny_bert, monkeypatch):
    monkeypatch.setattr(m2v, "_MEMO", {})
    a = tiny(None, tiny_bert)
    a.encode(TEXTS[:1])
    b = tiny(None, tiny_bert)
    b.encode(TEXTS[:1])
    assert a.distilled_now and not b.distilled_now and a.model_dir is None


@pytest.mark.slow
def test_real_model2vec_is_distilled_once_per_session(session_cache):
    a = get_embedder("model2vec", session_cache)
    X = a.encode(TEXTS)
    assert X.shape == (5, 256) and np.isfinite(X).all()
    assert not X[1].any()
    b = get_embedder("model2vec", session_cache)
    np.testing.assert_array_equal(b.encode(TEXTS), X)
    assert not b.distilled_now and b.fingerprint() == a.fingerprint()


@pytest.fixture(scope="module")
def cut_minilm(tmp_path_factory, minilm_dir) -> Path:
    """all-MiniLM-L6-v2 with its real weights, its vocabulary cut to ~320 tokens and renumbered: the special
    tokens, every word piece of the test sentences, letters, digits and punctuation (alone and as ##pieces), then
    the most frequent words. Each kept token keeps its own input embedding row; the six layers are untouched.
    """
    import torch
    from safetensors.torch import load_file, save_file
    from tokenizers import Tokenizer

    d = tmp_path_factory.mktemp("minilm-cut")
    spec = json.loads((minilm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = spec["model"]["vocab"]
    texts = TEXTS + [s for p in PARAPHRASES for s in p] + make_corpus()
    keep = {vocab[t] for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")}
    keep.update(i for e in Tokenizer.from_file(str(minilm_dir / "tokenizer.json")).encode_batch(texts) for i in e.ids)
    for c in "abcdefghijklmnopqrstuvwxyz0123456789.,'!?-":
        keep.update(vocab[t] for t in (c, "##" + c) if t in vocab)
    words = sorted(i for i in vocab.values() if i >= vocab["the"])  # the vocabulary's words, most frequent first
    keep.update(words[: max(0, 320 - len(keep))])
    old = sorted(keep)
    new = {o: n for n, o in enumerate(old)}
    token = {i: t for t, i in vocab.items()}
    spec["model"]["vocab"] = {token[o]: n for n, o in enumerate(old)}
    for added in spec["added_tokens"]:
        added["id"] = new[added["id"]]
    for special in spec["post_processor"].get("special_tokens", {}).values():
        special["ids"] = [new[i] for i in special["ids"]]
    (d / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    (d / "vocab.txt").write_text("\n".join(token[o] for o in old) + "\n", encoding="utf-8")
    for f in ("tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(minilm_dir / f, d / f)
    config = json.loads((minilm_dir / "config.json").read_text(encoding="utf-8"))
    config["vocab_size"] = len(old)
    (d / "config.json").write_text(json.dumps(config), encoding="utf-8")
    weights = load_file(str(minilm_dir / "model.safetensors"))
    (name,) = [k for k in weights if k.endswith("word_embeddings.weight")]
    weights[name] = weights[name][torch.tensor(old)].contiguous()
    save_file(weights, str(d / "model.safetensors"), metadata={"format": "pt"})
    return d


def test_default_model2vec_on_minilm_with_a_cut_vocabulary(cut_minilm, tmp_path, monkeypatch):
    """The built-in `model2vec` row end to end (registry, real MiniLM layers, real distillation, PCA to 256-d,
    save, reload), only over a smaller vocabulary."""
    monkeypatch.setattr(sbert, "minilm_path", lambda: cut_minilm)
    a = get_embedder("model2vec", tmp_path)
    assert a.info == default_info("model2vec") and a.source == cut_minilm and a.pca_dims == 256
    X = a.encode(TEXTS)
    assert a.distilled_now and X.shape == (5, 256) and X.dtype == np.float32
    norms = np.linalg.norm(X, axis=1)
    np.testing.assert_allclose(norms[[0, 3, 4]], 1.0, atol=1e-3)
    assert norms[1] == 0 and norms[2] == 0  # empty / only unknown characters: zero rows
    assert (paraphrase_margins(a.encode) > 0).all()  # MiniLM's token vectors carry meaning
    b = get_embedder("model2vec", tmp_path)
    np.testing.assert_array_equal(b.encode(TEXTS), X)
    assert not b.distilled_now and b.fingerprint() == a.fingerprint()
    assert a.fingerprint() != m2v.Model2VecEmbedder(tmp_path, source=cut_minilm, pca_dims=128).fingerprint()
