"""How much the fast engines' arithmetic moves the neighbors: N2O between the same model's vectors from its default
engine (OpenVINO, bf16 where the CPU has AVX512-BF16 or AMX) and from onnxruntime fp32, every sentence a query.

    python benchmarks/bench_engine_neighbors.py [--n 5000] [--k 10 50]

Sentences: builtin:bbc-news sampled to `--n` (the app's default size), seed 0. Neighbors: exact cosine top-k by a
full similarity matrix (the sentence itself excluded). N2O here is the share of the k neighbors that both engines
return, averaged over all sentences (1.0: the engine's rounding changes no neighbor). For scale, the default
transformers' N2O with each other is 0.29-0.37 (README, 5,000 sentences, k = 50). Not a speed benchmark: the load
is recorded anyway. Writes results/engine_neighbors.{json,txt}.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def knn(X: np.ndarray, k: int) -> np.ndarray:
    """(n, k) ids of each row's k most cosine-similar other rows."""
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-12)
    S = X @ X.T
    np.fill_diagonal(S, -np.inf)
    return np.argpartition(-S, k, axis=1)[:, :k]


def n2o(a: np.ndarray, b: np.ndarray) -> float:
    k = a.shape[1]
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(a.tolist(), b.tolist())]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--k", type=int, nargs="+", default=[10, 50])
    a = ap.parse_args()
    from n2o_core.corpora import load_corpus, sample_corpus
    from n2o_core.embedders.onnx_minilm import OnnxMiniLMEmbedder
    from n2o_core.embedders.sbert import MiniLMEmbedder

    rec = Recorder("engine_neighbors")
    with tempfile.TemporaryDirectory() as tmp:
        texts = list(sample_corpus(load_corpus("builtin:bbc-news", cache_dir=tmp), a.n, seed=0).texts)
    pairs = {
        "minilm-l6-mean": (MiniLMEmbedder("mean"), MiniLMEmbedder("mean", engine="onnx")),
        "minilm-l6-cls": (MiniLMEmbedder("cls"), MiniLMEmbedder("cls", engine="onnx")),
        "paraphrase-minilm-l3-mean": (OnnxMiniLMEmbedder(), OnnxMiniLMEmbedder(engine="onnx")),
    }
    rec.log(f"{len(texts)} BBC News sentences, every sentence a query")
    for eid, (fast, ref) in pairs.items():
        A, B = fast.encode(texts), ref.encode(texts)
        cos = np.einsum("ij,ij->i", A, B) / (np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1))
        row: dict = {"embedder": eid, "engine": f"{fast.engine} {fast.precision}", "reference": "onnx fp32"}
        row["min_cosine"] = f"{float(cos.min()):.7f}"  # Recorder.add rounds floats to 4 places
        for k in a.k:
            row[f"n2o_at_{k}"] = n2o(knn(A, k), knn(B, k))
        rec.add(**row)
    rec.save()


if __name__ == "__main__":
    main()
