"""paraphrase-MiniLM-L3-v2 through onnxruntime: shape, batch independence, semantics, tokenizer fit."""

from __future__ import annotations

import os

import numpy as np
from embedder_helpers import PARAPHRASES, paraphrase_margins

from n2o_core.embedders import get_embedder, onnx_minilm

TEXTS = [p[0] for p in PARAPHRASES] + ["Short.", "word " * 300]


def test_shape_truncation_and_batch_independence():
    e = get_embedder("paraphrase-minilm-l3-mean")
    X = e.encode(TEXTS)
    assert X.shape == (len(TEXTS), 384) == (len(TEXTS), e.info.dim) and np.isfinite(X).all()
    for i in (0, 4, 5):  # alone (no padding) == inside a padded batch; 300 words are truncated to 128 tokens
        np.testing.assert_allclose(e.encode([TEXTS[i]])[0], X[i], atol=1e-4)
    assert e.encode([]).shape == (0, 384)


def test_tokenizer_matches_the_graph_vocabulary():
    """The borrowed MiniLM-L6 tokenizer fits: paraphrases win by a clear margin, unknown ids never occur."""
    session, tok, _ = onnx_minilm._load()
    (ids_input,) = [i for i in session.get_inputs() if i.name == "input_ids"]
    enc = tok.encode("Tokenization of uncommon words like zymurgy.")
    assert enc.ids[0] == 101 and enc.ids[-1] == 102 and 100 not in enc.ids  # [CLS] ... [SEP], no [UNK]
    assert ids_input.type == "tensor(int64)"
    margins = paraphrase_margins(get_embedder("paraphrase-minilm-l3-mean").encode)
    assert margins.min() > 0.05, margins


def test_parallel_batches_agree_with_one_call_at_a_time():
    """The fast layout (batches of 8 on one worker per core) vs the earlier one (batches of 32, one call at a time
    over all cores): the same graph and runtime, so the same vectors up to float summation order."""
    texts = [*TEXTS, *(p[1] for p in PARAPHRASES)]
    fast = get_embedder("paraphrase-minilm-l3-mean").encode(texts)
    ref = onnx_minilm.OnnxMiniLMEmbedder(batch_size=32, workers=1, intra_threads=os.cpu_count() or 1).encode(texts)
    cos = np.einsum("ij,ij->i", fast, ref) / (np.linalg.norm(fast, axis=1) * np.linalg.norm(ref, axis=1))
    assert cos.min() >= 0.99999, cos
