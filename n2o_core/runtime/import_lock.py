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
import sys
import threading
from collections.abc import Iterator

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


@contextlib.contextmanager
def hidden(*names: str) -> Iterator[None]:
    """While in the block, importing any of `names` fails (ImportError) unless it is imported already, so a
    library that imports it optionally goes without: spaCy's thinc imports torch when it can (~200 MB resident)
    though the pipelines here never run on it; OpenVINO imports its telemetry. Holds `heavy_imports()` (every
    heavy import in this package does), so no other thread's import sees the gap."""
    with heavy_imports():
        gone = [n for n in names if n not in sys.modules]
        for n in gone:
            sys.modules[n] = None  # type: ignore[assignment]  # the import system's "not importable" mark
        try:
            yield
        finally:
            for n in gone:
                if n in sys.modules and sys.modules[n] is None:
                    del sys.modules[n]


def openvino_import() -> object:
    """`import openvino`, without its telemetry (`TELEMETRY_MODULES`)."""
    with hidden(*TELEMETRY_MODULES):
        import openvino

    return openvino
