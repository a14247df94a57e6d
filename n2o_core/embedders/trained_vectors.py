"""word2vec and fastText trained on the corpus itself, then averaged (see `static.average`).

Training (gensim): 100 dimensions, 5 epochs, window 5, min_count 2, one worker thread, fixed seed and a
process-independent `hashfxn` (gensim's default is Python's salted `hash`).
- `word2vec`: skip-gram (sg=1), like the original word2vec tool's recommended setting.
- `fasttext`: CBOW without character n-grams (max_n=0, so no buckets).
- `fasttext-sub`: CBOW with char 3-6-grams hashed into 200,000 buckets (gensim's default 2M buckets would
  cost 800 MB per model); unknown words get subword vectors.

Stop words: `-nostop` rows train exactly like their all-tokens row (same preset, every token) and only average
without `stop_words`; they reuse that row's saved state (`state_name` is the preset) but have their own
fingerprint, so their vectors are cached apart.

Determinism: with one worker, the same texts and settings give bit-identical vectors in every process (tested). With
more workers gensim's results depend on thread scheduling once the corpus spans several 10,000-word jobs (measured:
vectors differing by up to 0.05 between two 2-worker trainings of 3,000 sentences), and on two shared cores a second
worker bought no speed (measured: benchmarks/README.md, 'Measurements behind the code's choices'), so `workers=1` is the
default. The fitted state is saved and reused either way.

Saved state (no pickle): vocab.json (words in row order), vectors.npy, and for subwords ngrams.npy with
min_n/max_n/bucket in the manifest, enough to rebuild out-of-vocabulary vectors without retraining.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from n2o_core.embedders._trained import CorpusTrained
from n2o_core.embedders.batches import check_texts, finish
from n2o_core.embedders.infos import default_info
from n2o_core.embedders.keys import stable_hash
from n2o_core.embedders.static import VectorTable, average, stop_words_tag
from n2o_core.errors import EmbedderError
from n2o_core.runtime.import_lock import heavy_imports
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.manifest_folder import load_json, load_npy, save_json, save_npy
from n2o_core.text import tokenize

#: Hyperparameters per built-in id.
PRESETS: dict[str, dict[str, Any]] = {
    "word2vec": {"algorithm": "word2vec", "sg": 1, "min_n": 0, "max_n": 0, "bucket": 0},
    "fasttext": {"algorithm": "fasttext", "sg": 0, "min_n": 3, "max_n": 0, "bucket": 0},
    "fasttext-sub": {"algorithm": "fasttext", "sg": 0, "min_n": 3, "max_n": 6, "bucket": 200_000},
}
COMMON = {"vector_size": 100, "window": 5, "min_count": 2, "epochs": 5, "seed": 13, "negative": 5}


def _epoch_callback(progress: Progress, n_sentences: int, epochs: int) -> Any:
    """A gensim training callback reporting stage "train" (sentences x epochs done, of sentences x epochs) after
    each epoch (callbacks only observe: the vectors are the same with or without one)."""
    with heavy_imports():
        from gensim.models.callbacks import CallbackAny2Vec

    class EpochReport(CallbackAny2Vec):
        def __init__(self) -> None:
            self.done = 0

        def on_train_begin(self, model: Any) -> None:
            report(progress, "train", 0, n_sentences * epochs)

        def on_epoch_end(self, model: Any) -> None:
            self.done += 1
            report(progress, "train", self.done * n_sentences, n_sentences * epochs)

    return EpochReport()


class TrainedVectorsEmbedder(CorpusTrained):
    """Averaged word vectors trained on the fit texts (preset `preset`, default: the id), `stop_words` skipped
    when averaging."""

    def __init__(
        self,
        embedder_id: str,
        cache_dir: str | os.PathLike | None = None,
        workers: int = 1,
        *,
        preset: str | None = None,
        stop_words: Collection[str] = frozenset(),
        **overrides: Any,
    ):
        super().__init__(cache_dir)
        self.preset = preset or embedder_id
        if self.preset not in PRESETS:
            raise EmbedderError(f"No training preset for '{self.preset}'.")
        self.info = default_info(embedder_id)
        self.workers = int(workers)
        self.stop_words = frozenset(stop_words)
        self.hyper = {**COMMON, **PRESETS[self.preset], **overrides}
        self.table: VectorTable | None = None

    def params(self) -> dict[str, Any]:
        return dict(self.hyper, tokenizer="n2o_core.text.tokenize")

    def state_name(self) -> str:
        return self.preset

    def output_params(self) -> list[str]:
        return stop_words_tag(self.stop_words)

    def _train(self, texts: list[str], progress: Progress | None = None) -> None:
        with heavy_imports():
            from gensim.models import FastText, Word2Vec

        h = self.hyper
        sentences = [toks for toks in (tokenize(t) for t in texts) if toks]
        common = dict(
            callbacks=[_epoch_callback(progress, len(sentences), h["epochs"])] if progress is not None else [],
            vector_size=h["vector_size"],
            window=h["window"],
            min_count=h["min_count"],
            epochs=h["epochs"],
            seed=h["seed"],
            negative=h["negative"],
            sg=h["sg"],
            workers=self.workers,
            hashfxn=stable_hash,
        )
        try:
            if h["algorithm"] == "word2vec":
                model = Word2Vec(sentences, **common)
            else:
                model = FastText(sentences, min_n=h["min_n"], max_n=h["max_n"], bucket=h["bucket"], **common)
        except RuntimeError as exc:  # gensim: "you must first build vocabulary before training the model"
            raise EmbedderError(
                f"Embedder '{self.info.id}' could not be trained: no word occurs {h['min_count']}+ times in the corpus."
            ) from exc
        if len(model.wv.index_to_key) == 0:
            raise EmbedderError(
                f"Embedder '{self.info.id}' could not be trained: no word occurs {h['min_count']}+ times in the corpus."
            )
        self.table = VectorTable.from_keyed_vectors(model.wv)

    def _save(self, folder: Path) -> dict[str, Any]:
        t = self.table
        assert t is not None
        save_json(folder / "vocab.json", t.words)
        save_npy(folder / "vectors.npy", t.vectors)
        meta: dict[str, Any] = {"n_words": len(t.words), "dim": t.dim, "min_n": t.min_n, "max_n": t.max_n, "bucket": 0}
        if t.ngrams is not None:
            save_npy(folder / "ngrams.npy", t.ngrams)
            meta["bucket"] = int(t.ngrams.shape[0])
        return meta

    def _load(self, folder: Path, meta: dict[str, Any]) -> None:
        words = load_json(folder / "vocab.json")
        vectors = load_npy(folder / "vectors.npy")
        ngrams = load_npy(folder / "ngrams.npy") if meta.get("bucket") else None
        if len(words) != meta["n_words"] or vectors.shape != (len(words), meta["dim"]):
            raise ValueError("inconsistent word-vector state")
        if ngrams is not None and ngrams.shape != (meta["bucket"], meta["dim"]):
            raise ValueError("inconsistent n-gram state")
        self.table = VectorTable(list(words), vectors, ngrams, int(meta["min_n"]), int(meta["max_n"]))

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        self._require_fit()
        assert self.table is not None
        return finish(average(self.table, check_texts(texts), progress, self.stop_words), self.info.id)
