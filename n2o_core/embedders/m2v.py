"""model2vec: a static model distilled once from the local all-MiniLM-L6-v2, then reused.

Distillation (model2vec.distill: one forward pass per vocabulary token, PCA to 256-d, SIF weights) is slow
(measured: benchmarks/README.md, 'Measurements behind the code's choices'). With a cache_dir the result is saved with
`StaticModel.save_pretrained` (safetensors + tokenizer JSON, no pickle) under <cache_dir>/model2vec/<key>, built in a
temporary folder and moved into place atomically; later processes load it quickly. Without a cache_dir the distilled
model is kept for the life of the process. Distillation runs lazily, on the first `encode`. The built-in `model2vec` row
passes the per-user model cache (`_onnx.user_model_cache`): the distilled model depends on the installed MiniLM and
model2vec only, so it is distilled once per machine, not once per workspace cache.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from n2o_core.embedders.base import EmbedderInfo
from n2o_core.embedders.batches import check_texts, finish
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.keys import EMBEDDER_CODE_VERSION, digest
from n2o_core.embedders.loading import loading, quiet_libraries
from n2o_core.embedders.packages import package_version
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.memo import LRU
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.fileio import file_identity
from n2o_core.storage.manifest_folder import folder_path, read_manifest, write_folder

BATCH = 1024
PCA_DIMS = 256
_MEMO: LRU[str, Any] = LRU(4)
_LOCK = threading.Lock()


class Model2VecEmbedder:
    """Distilled static embeddings (mean of token vectors, L2-normalized by model2vec)."""

    def __init__(
        self,
        cache_dir: str | os.PathLike | None = None,
        source: str | os.PathLike | None = None,
        pca_dims: int = PCA_DIMS,
        info: EmbedderInfo | None = None,
    ):
        if source is None:
            from n2o_core.embedders.sbert import minilm_path

            source = minilm_path()
        self.source = Path(source)
        self.pca_dims = int(pca_dims)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.info = info or default_info("model2vec")
        self.key = digest(
            "model2vec", EMBEDDER_CODE_VERSION, file_identity(self.source), self.pca_dims, package_version("model2vec")
        )
        self._model: Any = None
        self.distilled_now = False  # whether this instance ran the distillation

    def fingerprint(self) -> str:
        return digest(self.info.id, self.key)

    def fit(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Pretrained: nothing to fit (distillation does not look at the corpus)."""

    @property
    def model_dir(self) -> Path | None:
        return folder_path(self.cache_dir, "model2vec", self.key) if self.cache_dir is not None else None

    def _distill(self) -> Any:
        with heavy_imports():
            from model2vec.distill import distill

        with quiet_libraries():
            return distill(str(self.source), pca_dims=self.pca_dims)

    def load(self) -> Any:
        """The StaticModel: from memory, from the cache folder, or distilled now (and saved)."""
        with _LOCK:
            if self._model is not None:
                return self._model
            with loading(f"model2vec distilled from {self.source.name}"):
                with heavy_imports():
                    from model2vec import StaticModel

                folder = self.model_dir
                if folder is not None and read_manifest(folder) is not None:
                    self._model = StaticModel.from_pretrained(str(folder / "model"), force_download=False)
                elif folder is None and self.key in _MEMO:
                    self._model = _MEMO[self.key]
                else:
                    model = self._distill()
                    self.distilled_now = True
                    if folder is not None:

                        def build(tmp: Path) -> dict[str, Any]:
                            model.save_pretrained(str(tmp / "model"))
                            return {"source": str(self.source), "pca_dims": self.pca_dims}

                        write_folder(folder, build)
                        model = StaticModel.from_pretrained(str(folder / "model"), force_download=False)
                    else:
                        _MEMO[self.key] = model
                    self._model = model
            return self._model

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        texts = check_texts(texts)
        model = self.load()
        out = np.zeros((len(texts), model.dim), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            chunk = texts[start : start + BATCH]
            out[start : start + len(chunk)] = model.encode(list(chunk), use_multiprocessing=False, batch_size=BATCH)
            report(progress, "embed", start + len(chunk), len(texts))
        return finish(out, self.info.id)
