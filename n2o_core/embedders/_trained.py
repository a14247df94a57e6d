"""Shared fit/fingerprint/persistence logic of corpus-trained embedders (tf-idf, word2vec, fastText)."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from n2o_core.corpora import fingerprint_texts
from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.batches import check_texts
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.errors import EmbedderError
from n2o_core.runtime.progress import Progress
from n2o_core.storage.manifest_folder import folder_path, read_manifest, write_folder

_STATE_LOCKS: dict[tuple, threading.Lock] = {}
_STATE_LOCKS_GUARD = threading.Lock()


def _state_lock(name: str, state_fp: str, cache_dir: Path | None) -> threading.Lock:
    """One lock per trained state in this process: two embedders sharing a state (`state_name`) that fit at the
    same time in two threads train it once; the second loads what the first saved."""
    with _STATE_LOCKS_GUARD:
        return _STATE_LOCKS.setdefault((name, state_fp, str(cache_dir)), threading.Lock())


class CorpusTrained:
    """Base class: `fit` trains once per (fit texts, hyperparameters), reusing a saved state when there is one.

    Subclasses implement `params()`, `_train(texts, progress)`, `_save(folder) -> meta` and `_load(folder, meta)`;
    `_train` may report stage "train" to `progress` while it trains (word2vec / fastText: sentences x epochs).
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

    def _train(self, texts: list[str], progress: Progress | None = None) -> None:
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
        return folder_path(self.cache_dir, f"state-{self.state_name()}", state_fingerprint)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Train on `texts`, or load the state saved for them; stage "train" reported to `progress` while training."""
        texts = check_texts(texts)
        fit_fp = fingerprint_texts(texts)
        fp = self.planned_fingerprint(fit_fp)
        if fp == self._fingerprint:
            return
        state_fp = self.state_fingerprint(fit_fp)
        with _state_lock(self.state_name(), state_fp, self.cache_dir):  # word2vec and word2vec-nostop train once
            self._fit(texts, fp, self.state_path(state_fp), progress)

    def _fit(self, texts: list[str], fp: str, path: Path | None, progress: Progress | None) -> None:
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
        self._train(texts, progress)
        self._fingerprint, self.loaded_from_disk = fp, False
        if path is not None:
            write_folder(path, self._save)

    def _require_fit(self) -> None:
        if self._fingerprint is None:
            raise EmbedderError(f"Embedder '{self.info.id}' is trained on the corpus: call fit(texts) before encode.")
