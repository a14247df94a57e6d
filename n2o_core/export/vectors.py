"""Write a corpus's vectors to a .npy file (`python -m n2o_core embed ... --out FILE.npy`).

One float32 row per corpus sentence, in corpus order (the loaded corpus: after deduplication and any
--max-sentences sample), exactly the rows the cache holds (not L2-normalized), so anyone can compare them with
their own encoder. float16 storage is widened to float32. tf-idf (sparse) is densified when the dense array
takes at most MAX_DENSE_BYTES (1 GiB); beyond that the write is refused with an N2OError (use --max-sentences,
or the cache's own .npz). The file is written atomically (`storage.fileio.atomic_write`: a temporary name beside
the target, fsynced, then renamed).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from n2o_core.errors import N2OError
from n2o_core.storage.fileio import atomic_write

MAX_DENSE_BYTES = 1 << 30


def save_vectors(path: str | os.PathLike, X: np.ndarray | sp.spmatrix, max_dense_bytes: int | None = None) -> Path:
    """Write X as a C-ordered float32 .npy at `path` (".npy" appended when missing); returns the path written.
    `max_dense_bytes` defaults to MAX_DENSE_BYTES."""
    max_dense_bytes = MAX_DENSE_BYTES if max_dense_bytes is None else max_dense_bytes
    out = Path(path).expanduser()
    if out.suffix != ".npy":
        out = out.with_name(out.name + ".npy")
    n, d = X.shape
    if n * d * 4 > max_dense_bytes:
        raise N2OError(
            f"The vectors would take {n * d * 4 / 2**30:.1f} GiB as a dense float32 array ({n} x {d}), more than "
            f"the {max_dense_bytes / 2**30:.1f} GiB allowed for --out; use --max-sentences to embed fewer sentences."
        )
    dense = np.asarray(X.toarray()) if sp.issparse(X) else np.asarray(X)  # type: ignore[union-attr]
    dense = np.ascontiguousarray(dense, dtype=np.float32)
    try:
        atomic_write(out, lambda f: np.save(f, dense, allow_pickle=False))
    except OSError as e:
        raise N2OError(f"Cannot write {out}: {e.strerror or e}.") from e
    return out
