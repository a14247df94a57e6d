"""Loading a model or a user's file: any failure as one EmbedderError sentence (never quoting a user's
file), local paths told from model names, chatty libraries kept quiet."""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from n2o_core.errors import EmbedderError, N2OError

__all__ = ["file_reason", "is_local_path", "loading", "quiet_libraries"]

log = logging.getLogger("n2o")


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
