"""Memory a long-running process can give back: what is loaded once per process and only needed again for new work
(WordNet, the spaCy pipelines, embedding models and their ONNX/OpenVINO sessions) is registered here with the
function that drops it, and stamped at each use; `release_idle(after_s)` drops what has not been used for
`after_s` seconds, then returns freed heap pages to the system (glibc's malloc_trim).

Nothing computed is lost: corpus embeddings and neighbors stay (memory-mapped from the disk cache), and a dropped
model or lexicon is loaded again on its next use (a free-text query, new HEROS pairs, a new probing parse), from
the disk cache where it was fitted or exported. A holder that is still in use keeps its own reference, so a
release never breaks a computation under way.

The dashboard runs `release_idle(release_after_s())` in a background thread (`ui/release.py`); the CLI and the
Python API never release (a script ends anyway). `N2O_RELEASE_AFTER_S` sets the idle time (default 60 s;
0 keeps everything loaded, as before).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import threading
import time
from collections.abc import Callable

__all__ = [
    "DEFAULT_RELEASE_AFTER_S",
    "RELEASE_ENV",
    "collect",
    "loaded",
    "registered",
    "release_after_s",
    "release_all",
    "release_idle",
    "trim_heap",
    "used",
]

RELEASE_ENV = "N2O_RELEASE_AFTER_S"
DEFAULT_RELEASE_AFTER_S = 60.0

_LOCK = threading.Lock()
#: name -> (monotonic time of the last use, the function that drops it)
_HELD: dict[str, tuple[float, Callable[[], object]]] = {}


def release_after_s() -> float:
    """Seconds of disuse after which the dashboard drops a registered holder ($N2O_RELEASE_AFTER_S; 0 = never)."""
    raw = os.environ.get(RELEASE_ENV, "").strip()
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_RELEASE_AFTER_S
    except ValueError:
        return DEFAULT_RELEASE_AFTER_S


def loaded(name: str, release: Callable[[], object]) -> None:
    """Register `name` as held in memory (used now), with the function that drops it."""
    with _LOCK:
        _HELD[name] = (time.monotonic(), release)


def used(name: str) -> None:
    """Stamp a use of `name` (no-op when it is not registered)."""
    with _LOCK:
        if name in _HELD:
            _HELD[name] = (time.monotonic(), _HELD[name][1])


def registered() -> list[str]:
    """Names held now."""
    with _LOCK:
        return sorted(_HELD)


def release_idle(after_s: float, now: float | None = None) -> list[str]:
    """Drop every holder unused for more than `after_s` seconds (a collection and a heap trim follow when one was
    dropped); returns their names. A release function that fails is skipped (the holder is forgotten)."""
    now = time.monotonic() if now is None else now
    with _LOCK:
        idle = [(n, rel) for n, (t, rel) in _HELD.items() if now - t > after_s]
        for n, _ in idle:
            del _HELD[n]
    for _, rel in idle:
        with contextlib.suppress(Exception):
            rel()
    if idle:
        collect()
    return [n for n, _ in idle]


def collect() -> None:
    """A full garbage collection, then `trim_heap`: big arrays caught in reference cycles (a dashboard turns off
    Streamlit's collection after every run) are freed and their pages returned."""
    gc.collect()
    trim_heap()


def release_all() -> list[str]:
    """Drop every holder now (tests; a server asked to shrink)."""
    return release_idle(-1.0)


def trim_heap() -> bool:
    """Return free heap pages to the system (glibc malloc_trim); False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.malloc_trim(0))
    except (OSError, AttributeError):
        return False
