"""First imports of heavy libraries, one at a time across threads.

The dashboard prepares embedders on two threads (`pipeline.Preparation`) and preloads models on a third
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
import threading
from collections.abc import Iterator

_LOCK = threading.RLock()


@contextlib.contextmanager
def heavy_imports() -> Iterator[None]:
    """Hold the process-wide lock for importing heavy libraries (re-entrant)."""
    with _LOCK:
        yield
