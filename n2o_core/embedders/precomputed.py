"""Vectors computed elsewhere: a .npy file with one row per corpus sentence, in corpus order.

They cover exactly the corpus they were computed for, so `encode` returns the rows for the whole corpus and
refuses anything else (free-text queries included). Rows with NaN or infinite values are rejected at load time.
An all-zero row is allowed (a sentence the outside model could not embed).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..corpora import fingerprint_texts
from ..errors import EmbedderError
from ._util import EMBEDDER_CODE_VERSION, check_texts, digest, file_sha256, report
from .base import EmbedderInfo, Progress


def load_vectors(path: str | os.PathLike) -> np.ndarray:
    """A finite float32 (n, d) matrix from a .npy file (no pickle), else EmbedderError."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise EmbedderError(f"Vectors file not found: {p}.")
    try:
        arr = np.load(p, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError, EOFError) as exc:
        raise EmbedderError(f"{p.name} is not a readable .npy array of numbers ({exc}).") from exc
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise EmbedderError(f"{p.name} must hold a 2-D array (one row per sentence); its shape is {arr.shape}.")
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise EmbedderError(f"{p.name} must hold numbers; its dtype is {arr.dtype}.")
    out = np.array(arr, dtype=np.float32)  # copy: detaches from the file
    bad = np.flatnonzero(~np.isfinite(out).all(axis=1))
    if bad.size:
        raise EmbedderError(f"{p.name} has NaN or infinite values in {bad.size} row(s) (first: row {int(bad[0])}).")
    return out


class PrecomputedEmbedder:
    """Precomputed corpus vectors registered under `name`; cannot embed free text."""

    def __init__(self, name: str, path: str | os.PathLike):
        self.path = Path(path).expanduser()
        self.vectors = load_vectors(self.path)
        self._sha = file_sha256(self.path)
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
        return digest("precomputed", EMBEDDER_CODE_VERSION, self._sha)

    def fit(self, texts: Sequence[str]) -> None:
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
        report(progress, len(texts), len(texts))
        return self.vectors.copy()
