"""Shared fit/fingerprint/persistence logic of corpus-trained embedders (tf-idf, word2vec, fastText)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..corpora import fingerprint_texts
from ..errors import EmbedderError
from ._state import read_manifest, state_dir, write_state
from ._util import EMBEDDER_CODE_VERSION, check_texts, digest
from .base import EmbedderInfo


class CorpusTrained:
    """Base class: `fit` trains once per (fit texts, hyperparameters), reusing a saved state when there is one.

    Subclasses implement `params()`, `_train(texts)`, `_save(folder) -> meta` and `_load(folder, meta)`.
    Embedders that share a trained state but encode differently (word2vec and word2vec-nostop) override
    `state_name()` (the saved state's name, default the id) and `output_params()` (what changes the output only).
    """

    info: EmbedderInfo

    def __init__(self, cache_dir: str | os.PathLike | None = None):
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._fingerprint: str | None = None
        self.loaded_from_disk = False  # whether the last fit reused a saved state

    # -- to implement
    def params(self) -> dict[str, Any]:
        raise NotImplementedError

    def _train(self, texts: list[str]) -> None:
        raise NotImplementedError

    def _save(self, folder: Path) -> dict[str, Any]:
        raise NotImplementedError

    def _load(self, folder: Path, meta: dict[str, Any]) -> None:
        raise NotImplementedError

    # -- may override
    def state_name(self) -> str:
        """Name of the trained state; embedders that train alike share it (and its saved folder)."""
        return self.info.id

    def output_params(self) -> list[str]:
        """Settings that change `encode` but not the trained state (part of the fingerprint, not the state's)."""
        return []

    # -- protocol
    def planned_fingerprint(self, fit_fingerprint: str) -> str:
        """The fingerprint `fit` will give for texts whose `fingerprint_texts` is `fit_fingerprint`."""
        return digest(self.info.id, EMBEDDER_CODE_VERSION, self.params(), *self.output_params(), fit_fingerprint)

    def state_fingerprint(self, fit_fingerprint: str) -> str:
        """Identity of the trained state for these fit texts (equal to the fingerprint unless shared)."""
        return digest(self.state_name(), EMBEDDER_CODE_VERSION, self.params(), fit_fingerprint)

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            raise EmbedderError(f"Embedder '{self.info.id}' is trained on the corpus: call fit(texts) first.")
        return self._fingerprint

    def state_path(self, state_fingerprint: str) -> Path | None:
        """Folder where the fitted state with `state_fingerprint` lives (None without a cache_dir)."""
        if self.cache_dir is None:
            return None
        return state_dir(self.cache_dir, f"state-{self.state_name()}", state_fingerprint)

    def fit(self, texts: Sequence[str]) -> None:
        texts = check_texts(texts)
        fit_fp = fingerprint_texts(texts)
        fp = self.planned_fingerprint(fit_fp)
        if fp == self._fingerprint:
            return
        path = self.state_path(self.state_fingerprint(fit_fp))
        if path is not None:
            meta = read_manifest(path)
            if meta is not None:
                try:
                    self._load(path, meta)
                    self._fingerprint, self.loaded_from_disk = fp, True
                    return
                except Exception:  # noqa: BLE001 - an unreadable state is retrained below
                    pass
        if not texts:
            raise EmbedderError(f"Embedder '{self.info.id}' cannot be trained on an empty corpus.")
        self._train(texts)
        self._fingerprint, self.loaded_from_disk = fp, False
        if path is not None:
            write_state(path, self._save)

    def _require_fit(self) -> None:
        if self._fingerprint is None:
            raise EmbedderError(f"Embedder '{self.info.id}' is trained on the corpus: call fit(texts) before encode.")
