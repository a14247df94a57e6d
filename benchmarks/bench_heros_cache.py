"""HEROS from the disk cache: the same `heros` command on an empty cache, then again on the filled one.

    python benchmarks/bench_heros_cache.py

The first run makes the minimal pairs (WordNet, spaCy, the corpus parse) and encodes them with every embedder;
the second reads the pairs (JSON) and the vectors back. Both are whole processes (`python -m n2o_core heros`),
so the ratio includes interpreter start and imports. The output of both runs must be identical.
Writes benchmarks/results/bench_heros_cache.json (and .txt).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import ROOT, save_flat  # noqa: E402

ARGS = [
    "--corpus",
    "builtin:bbc-news",
    "--max-sentences",
    "2000",
    "--pairs",
    "100",
    "--embedder",
    "tfidf",
    "--embedder",
    "glove-6b-50d",
    "--embedder",
    "minilm-l6-mean",
]


def run(cache: Path, out: Path) -> float:
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "n2o_core", "heros", *ARGS, "--cache-dir", str(cache), "--json", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )
    return time.perf_counter() - t


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="n2o-heros-bench-"))
    cold = run(tmp / "cache", tmp / "cold.json")
    warm = run(tmp / "cache", tmp / "warm.json")
    a, b = (json.loads((tmp / f).read_text()) for f in ("cold.json", "warm.json"))
    out = {
        "command": "python -m n2o_core heros " + " ".join(ARGS),
        "cpus": os.cpu_count(),
        "empty_cache_s": round(cold, 1),
        "filled_cache_s": round(warm, 1),
        "ratio_filled_over_empty": round(warm / cold, 3),
        "identical_results": a["results"] == b["results"] and a["baseline"] == b["baseline"],
        "identical_pairs": a["pairs"] == b["pairs"],
        "pair_counts": a["meta"].get("pair_counts"),
    }
    save_flat("bench_heros_cache", out)


if __name__ == "__main__":
    main()
