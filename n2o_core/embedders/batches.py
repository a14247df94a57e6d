"""Encoding in batches and checking what comes out: length-sorted batches, rows back in input order,
finite float32 results, a list of sentences (never one string)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from n2o_core.errors import EmbedderError
from n2o_core.runtime.progress import Progress, report

__all__ = ["check_texts", "encode_in_batches", "finish", "length_batches"]


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


def check_texts(texts: Sequence[str]) -> list[str]:
    """A list of str (a lone string is a common mistake: it would be iterated character by character)."""
    if isinstance(texts, str):
        raise EmbedderError("encode() takes a list of sentences, not a single string.")
    return [str(t) for t in texts]
