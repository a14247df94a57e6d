"""Cold start to a first N2O heatmap with the app's default settings, in a fresh process with an empty cache.

    python benchmarks/bench_cold_start.py

Defaults (n2o_core.settings.Settings): builtin:bbc-news sampled to 5,000 sentences, the 8 default embedders,
k = 10, 5 samples x 100 queries. Times: corpus load, each embedder (embed + neighbors), N2O, heatmap figure;
then the same again on the now-warm cache (what a second visit costs). Writes results/cold_start.{json,txt}.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Recorder  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def run(cache_dir: str) -> dict:
    t_start = time.perf_counter()
    from n2o_core.cache import Cache
    from n2o_core.compare import compare
    from n2o_core.corpora import load_corpus
    from n2o_core.figures import n2o_heatmap
    from n2o_core.settings import Settings
    from n2o_core.workspace import Workspace

    s = Settings()
    t_import = time.perf_counter() - t_start
    cache = Cache(cache_dir)
    t0 = time.perf_counter()
    corpus = load_corpus(s.corpus, max_sentences=s.max_sentences, seed=s.seed, cache_dir=cache.root)
    t_corpus = time.perf_counter() - t0
    ws = Workspace(corpus, cache=cache)
    res = compare(ws, list(s.embedders), s.k, n_queries=s.n_queries, n_samples=s.n_samples, seed=s.seed)
    t0 = time.perf_counter()
    n2o_heatmap(res.mean, res.embedders, std=res.std, chance=res.chance, k=res.k)
    t_fig = time.perf_counter() - t0
    return dict(
        sentences=len(corpus),
        embedders=len(s.embedders),
        import_s=t_import,
        corpus_s=t_corpus,
        per_embedder_s={e: round(v, 1) for e, v in res.seconds.items()},
        figure_s=t_fig,
        total_s=time.perf_counter() - t_start,
    )


def main() -> None:
    rec = Recorder("cold_start")
    with tempfile.TemporaryDirectory() as tmp:
        rec.add(run="cold (empty cache, fresh process)", **run(tmp))
        rec.add(run="warm (same process, cache filled)", **run(tmp))
    rec.save()


if __name__ == "__main__":
    main()
