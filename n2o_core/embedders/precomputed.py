"""Vectors computed elsewhere: a .npy file with one row per corpus sentence, in corpus order.

They cover exactly the corpus they were computed for, so `encode` returns the rows for the whole corpus and
refuses anything else (free-text queries included). Rows with NaN or infinite values are rejected at load time.
An all-zero row is allowed (a sentence the outside model could not embed).

The file is memory-mapped, never copied into memory: the search reads it tile by tile, and the operating system
keeps the pages it has read for the next process. It is identified by `fileio.file_identity` (path, size,
modification time and its first and last MiB), not by hashing all of it. Replace a vectors file by writing a new
one and renaming it over the old: overwriting it in place while a process has it mapped changes (or, if shorter,
invalidates) what that process reads.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from n2o_core.corpora import fingerprint_texts
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.batches import check_texts
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import file_reason
from n2o_core.errors import EmbedderError
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.fileio import file_identity

_CHECK_ROWS = 1 << 16  # rows per block of the finiteness check


def load_vectors(path: str | os.PathLike) -> np.ndarray:
    """A read-only memory map of a finite (n, d) .npy array of numbers (no pickle), else EmbedderError.

    Nothing is copied: the rows keep the file's dtype (the search converts float16 and other dtypes tile by
    tile). The finiteness check reads the file once, block by block."""
    return load_vectors_with_norms(path)[0]


def load_vectors_with_norms(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray | None]:
    """`load_vectors`, and for float32 rows their inverse norms from the same read (`neighbors.row_inverse_norms`,
    the search's own kernel, which also tells whether every value is finite), for `exact_knn(row_inv=...)`; None
    for other dtypes."""
    p = Path(path).expanduser()
    if not p.exists():
        raise EmbedderError(f"Vectors file not found: {p}.")
    if not p.is_file():
        raise EmbedderError(f"{p} is not a regular file: vectors are a .npy file.")
    try:
        arr = np.load(p, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError, EOFError) as exc:  # numpy's message may quote the file's first bytes
        raise EmbedderError(f"{p.name} is not a readable .npy array of numbers ({file_reason(exc)}).") from None
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise EmbedderError(f"{p.name} must hold a 2-D array (one row per sentence); its shape is {arr.shape}.")
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise EmbedderError(f"{p.name} must hold numbers; its dtype is {arr.dtype}.")
    row_inv = None
    if arr.dtype == np.float32 and arr.flags.c_contiguous:
        from n2o_core.search.exact import row_inverse_norms

        row_inv, finite = row_inverse_norms(arr)
        bad = np.zeros(0, np.int64) if finite else nonfinite_rows(arr)
    else:
        bad = nonfinite_rows(arr)
    if bad.size:
        raise EmbedderError(f"{p.name} has NaN or infinite values in {bad.size} row(s) (first: row {int(bad[0])}).")
    return arr, row_inv


def nonfinite_rows(arr: np.ndarray) -> np.ndarray:
    """Indices of the rows holding NaN or infinite values, read block by block.

    A block is first summed row by row (float32/float64, by BLAS: any NaN or infinity makes its row's sum
    non-finite; float16 by its exponent bits); only a block that fails is checked value by value (a sum can also
    overflow with finite values)."""
    if not np.issubdtype(arr.dtype, np.floating):
        return np.zeros(0, np.int64)
    bad: list[np.ndarray] = []
    ones = np.ones(arr.shape[1], arr.dtype) if arr.dtype in (np.float32, np.float64) else None
    for start in range(0, arr.shape[0], _CHECK_ROWS):
        block = np.asarray(arr[start : start + _CHECK_ROWS])
        if ones is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                if np.isfinite(block @ ones).all():
                    continue
        elif arr.dtype == np.float16 and not ((block.view(np.uint16) & 0x7C00) == 0x7C00).any():
            continue
        rows = np.flatnonzero(~np.isfinite(block).all(axis=1))
        bad.append(rows + start)
    return np.concatenate(bad) if bad else np.zeros(0, np.int64)


class PrecomputedEmbedder:
    """Precomputed corpus vectors registered under `name`; cannot embed free text."""

    def __init__(self, name: str, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        self.vectors, self.row_inv = load_vectors_with_norms(self.path)
        self.identity = file_identity(self.path)
        self._fit_fp: str | None = None
        self.info = EmbedderInfo(
            name,
            "user",
            "n/a",
            int(self.vectors.shape[1]),
            f"precomputed vectors from {self.path.name} ({self.vectors.shape[0]:,} rows)",
            default=False,
            family_group="precomputed",
        )

    def fingerprint(self) -> str:
        """Identity of the vectors: the file's `file_identity` when it was loaded."""
        return digest("precomputed", EMBEDDER_CODE_VERSION, self.identity)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Remember which corpus the rows belong to (row count checked now)."""
        texts = check_texts(texts)
        self._check_count(texts)
        self._fit_fp = fingerprint_texts(texts)

    def _check_count(self, texts: list[str]) -> None:
        n = self.vectors.shape[0]
        if len(texts) != n:
            raise EmbedderError(
                f"Precomputed vectors '{self.info.id}' have {n:,} rows but {len(texts):,} sentence(s) were given: "
                "they cover only the corpus they were computed for and cannot embed other or free text."
            )

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = check_texts(texts)
        self._check_count(texts)
        if self._fit_fp is not None and fingerprint_texts(texts) != self._fit_fp:
            raise EmbedderError(
                f"Precomputed vectors '{self.info.id}' belong to another corpus and cannot embed these sentences."
            )
        report(progress, "embed", len(texts), len(texts))
        return np.array(self.vectors, dtype=np.float32)  # a float32 copy: callers may change it
