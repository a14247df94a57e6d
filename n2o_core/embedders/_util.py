"""Small helpers shared by the embedder backends: hashing, batching, error wrapping, result checks."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from n2o_core.errors import EmbedderError, N2OError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.fileio import hash_key

log = logging.getLogger("n2o")

#: Bumped when a backend changes the vectors it returns for the same model and settings.
EMBEDDER_CODE_VERSION = "1"


def digest(*parts: object) -> str:
    """Short stable hash of JSON-able parts (`fileio.hash_key` with 20 hex digits, the length embedder keys use)."""
    return hash_key(*parts, length=20)


def stable_hash(text: str) -> int:
    """Process-independent string hash (gensim's default `hash` is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


def package_version(dist: str) -> str:
    """Installed version of a distribution, or 'missing'."""
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "missing"


def package_file(dist: str, suffix: str) -> Path:
    """Absolute path of the first file of an installed distribution whose name ends with `suffix`."""
    from importlib import metadata

    try:
        files = metadata.files(dist) or []
    except metadata.PackageNotFoundError:
        raise EmbedderError(f"The Python package '{dist}' is not installed (pip install {dist}).") from None
    for f in files:
        if str(f).endswith(suffix):
            path = Path(str(f.locate()))
            if path.is_file():
                return path
    raise EmbedderError(f"The package '{dist}' is installed but its file '*{suffix}' is missing; reinstall it.")


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return f"the Python package '{exc.name.split('.')[0]}' is not installed"
    text = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
    return text if len(text) <= 240 else text[:237] + "..."


def file_reason(exc: BaseException) -> str:
    """Why a user's file could not be read, in words that never quote it: a parser's message may carry the
    file's bytes (`could not convert string to float: 'root:x:0:0'`), so only the exception's kind is named."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        return f"the Python package '{exc.name.split('.')[0]}' is not installed"
    if isinstance(exc, PermissionError):
        return "the server may not read it"
    if isinstance(exc, IsADirectoryError):
        return "a folder stands where a file was expected"
    if isinstance(exc, FileNotFoundError):
        return "a file it needs is missing"
    if isinstance(exc, MemoryError):
        return "the server ran out of memory reading it"
    if isinstance(exc, UnicodeDecodeError):
        return f"it is not UTF-8 text (byte {exc.start:,})"
    return f"its content is not in a format this loader reads ({type(exc).__name__})"


@contextlib.contextmanager
def loading(what: str, action: str = "load", user_file: bool = False) -> Iterator[None]:
    """Turn any failure while loading (or another `action` on) `what` into an EmbedderError with one sentence.
    `user_file`: `what` is a file or folder a user named, so the sentence never quotes the exception (it may
    carry the file's content, `file_reason`); the exception goes to the server log (logger 'n2o')."""
    try:
        yield
    except N2OError:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - third-party loaders raise anything
        if not user_file:
            raise EmbedderError(f"Could not {action} {what}: {_reason(exc)}.") from exc
        log.warning("could not %s %s", action, what, exc_info=exc)
        raise EmbedderError(f"Could not {action} {what}: {file_reason(exc)}; the details are in the log.") from None


def is_local_path(name_or_path: str) -> bool:
    """Whether a model name is a path on this machine (absolute, ~, ./, or an existing relative path)."""
    if name_or_path.startswith(("/", "~", ".", "\\")):
        return True
    try:
        return Path(name_or_path).expanduser().exists()
    except OSError:
        return True


@contextlib.contextmanager
def quiet_libraries() -> Iterator[None]:
    """Silence chatty third-party output while a model loads or distills, then restore it.

    transformers' per-load "LOAD REPORT" tables (logged as warnings) and its "Loading weights" bars are
    hidden; errors are still logged and exceptions still raised. model2vec's "Encoding tokens" bar is
    disabled for the duration (its `tqdm` is wrapped with disable=True). Only libraries already imported are
    touched (import them first), so this never pulls in a heavy package.
    """
    restore: list[Callable[[], None]] = []
    try:
        tf_logging = sys.modules.get("transformers.utils.logging")
        if tf_logging is not None:
            level = tf_logging.get_verbosity()
            bars = tf_logging.is_progress_bar_enabled()
            tf_logging.set_verbosity_error()
            tf_logging.disable_progress_bar()
            restore.append(lambda: tf_logging.set_verbosity(level))
            if bars:
                restore.append(tf_logging.enable_progress_bar)
        m2v_inference = sys.modules.get("model2vec.distill.inference")
        if m2v_inference is not None and hasattr(m2v_inference, "tqdm"):
            original = getattr(m2v_inference, "tqdm")  # noqa: B009 - a module attribute mypy cannot see
            setattr(m2v_inference, "tqdm", functools.partial(original, disable=True))  # noqa: B010
            restore.append(lambda: setattr(m2v_inference, "tqdm", original))
        yield
    finally:
        for undo in reversed(restore):
            undo()


def length_batches(texts: Sequence[str], batch_size: int) -> list[np.ndarray]:
    """Index batches with texts sorted by length (less padding); stable, deterministic."""
    order = np.argsort(np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts)), kind="stable")
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def encode_in_batches(
    texts: Sequence[str],
    batch_size: int,
    encode_batch: Callable[[list[str]], np.ndarray],
    dim: int | None,
    progress: Progress | None = None,
) -> np.ndarray:
    """(n, d) float32 from `encode_batch` run on length-sorted batches; rows in input order, progress per batch."""
    out = np.zeros((len(texts), dim), dtype=np.float32) if dim else None
    done = 0
    for idx in length_batches(texts, batch_size):
        vec = np.asarray(encode_batch([texts[i] for i in idx]), dtype=np.float32).reshape(len(idx), -1)
        if out is None:
            out = np.zeros((len(texts), vec.shape[1]), dtype=np.float32)
        out[idx] = vec
        done += len(idx)
        report(progress, "embed", done, len(texts))
    return out if out is not None else np.zeros((0, 0), dtype=np.float32)


def finish(arr: np.ndarray, embedder_id: str) -> np.ndarray:
    """C-contiguous float32, checked finite (EmbedderError otherwise)."""
    out = np.ascontiguousarray(arr, dtype=np.float32)
    bad = ~np.isfinite(out).all(axis=1) if out.ndim == 2 and out.size else np.zeros(0, dtype=bool)
    if bad.any():
        raise EmbedderError(
            f"Embedder '{embedder_id}' produced NaN or infinite values for {int(bad.sum())} sentence(s)."
        )
    return out


def set_torch_threads() -> None:
    """Use every core for torch matmuls (called lazily, after torch is imported)."""
    with heavy_imports():
        import torch

    n = os.cpu_count() or 1
    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


def check_texts(texts: Sequence[str]) -> list[str]:
    """A list of str (a lone string is a common mistake: it would be iterated character by character)."""
    if isinstance(texts, str):
        raise EmbedderError("encode() takes a list of sentences, not a single string.")
    return [str(t) for t in texts]
