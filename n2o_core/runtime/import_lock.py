"""First imports of heavy libraries, one at a time across threads.

The dashboard prepares embedders on several threads (`pipeline.Preparation`) and preloads models on another
(`ui/preload.py`). Python imports each module once, under a lock of its own, but a library may look at *another*
library that is still being imported in a different thread: scipy's array-API helpers, which run while
`scipy.stats` is imported (gensim imports it), read `sys.modules["torch"].Tensor`, and a torch import under way
elsewhere (the MiniLM ONNX export, sentence-transformers) is then a partially initialized module. On a machine's
first cold start (no export yet) that failed word2vec with "partially initialized module 'torch' has no attribute
'Tensor'" (seen 2026-11-24). Every first import of torch, transformers, sentence-transformers, gensim, scipy.stats,
model2vec, spaCy, umap and pynndescent in this package runs inside `heavy_imports()`, so no two run at once; once
a library is imported, entering the block costs a lock acquisition.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
import threading
from collections.abc import Iterator
from typing import Any

_LOCK = threading.RLock()


@contextlib.contextmanager
def heavy_imports() -> Iterator[None]:
    """Hold the process-wide lock for importing heavy libraries (re-entrant)."""
    with _LOCK:
        yield


#: What `openvino_import` hides: OpenVINO's telemetry, which `import openvino` starts (openvino.tools.ovc sends a
#: "general_import" event): it forks the server (multiprocessing, fork) to post to Google Analytics; in a
#: multi-threaded server the fork can hang on an import lock and stay for good, ~400 MB resident
#: (benchmarks/results/memory.txt), and this project makes no network calls. Without the package, OpenVINO uses
#: its own stub.
TELEMETRY_MODULES = ("openvino_telemetry",)


class _Refused(importlib.abc.MetaPathFinder):
    """The one finder `hidden` uses, at the front of `sys.meta_path` from this module's import on: it makes
    importing the names the *calling thread* hides (and their submodules) fail with ModuleNotFoundError, and finds
    nothing otherwise. It stays in place: taking a finder out of `sys.meta_path` while another thread's import walks
    the list (importlib iterates the live list) shifts the walk past the next finder, which can be PathFinder."""

    def __init__(self) -> None:
        self.local = threading.local()

    def names(self) -> frozenset[str]:
        """The top-level names the calling thread hides now."""
        names: frozenset[str] = getattr(self.local, "names", frozenset())
        return names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname.partition(".")[0] in self.names():
            raise ModuleNotFoundError(f"No module named {fullname!r} (not imported here)", name=fullname)
        return None


_REFUSED = _Refused()
sys.meta_path.insert(0, _REFUSED)  # inserted once, never removed (see _Refused)


@contextlib.contextmanager
def hidden(*names: str) -> Iterator[None]:
    """While in the block, importing any of `names` in this thread fails (ImportError) unless it is imported
    already, so a library that imports it optionally goes without: spaCy's thinc imports torch when it can
    (~200 MB resident) though the pipelines here never run on it; OpenVINO imports its telemetry. Holds
    `heavy_imports()` (every heavy import in this package does), so no other thread's heavy import runs beside it.

    The import is refused by a finder at the front of `sys.meta_path` (`_Refused`), for the calling thread only,
    never by a None entry in `sys.modules`: libraries ask `sys.modules` whether torch is there (scipy's array-API
    helpers read `sys.modules["torch"].Tensor` when the key exists, at import and on every call), so a None entry
    failed a similarity-measures page that imported scipy.stats while another visitor's page loaded spaCy (seen
    2026-11-27: "'NoneType' object has no attribute 'Tensor'"); and another thread that imports torch meanwhile
    gets torch."""
    with heavy_imports():
        before = _REFUSED.names()
        _REFUSED.local.names = before | {n for n in names if n not in sys.modules}
        try:
            yield
        finally:
            _REFUSED.local.names = before


def openvino_import() -> object:
    """`import openvino`, without its telemetry (`TELEMETRY_MODULES`)."""
    with hidden(*TELEMETRY_MODULES):
        import openvino

    return openvino
