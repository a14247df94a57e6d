"""HEROS-style minimal pairs (Chiang et al., Heros): generate from any corpus, load the real file, score embedders.

res = run_heros(workspace, ["tfidf", "minilm-l6-mean"], n_pairs=500, seed=0)   # HerosResult
ps = generate_pairs(texts, n_per_subset=500, seed=0)      # PairSet(pairs, dropped, skipped)
from n2o_core.evaluation.heros.coverage import coverage   # `coverage` is also the module: import the function
coverage(ps).sentence()                                    # "HEROS made 7 of 50 asked per subset from all 61 ..."
pairs = load_heros("heros.tsv")                            # or "dcml0714/Heros" when online
baseline, results = score_pairs(ps.pairs, {"tfidf": emb.encode})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from n2o_core.evaluation.heros.subsets import ALL_SUBSETS

__all__ = [
    "ALL_SUBSETS",
    "Coverage",
    "HerosResult",
    "PairSet",
    "generate_pairs",
    "load_heros",
    "read_pairs_file",
    "run_heros",
    "sample_markdown",
    "score_pairs",
]

if TYPE_CHECKING:
    from n2o_core.evaluation.heros.coverage import Coverage
    from n2o_core.evaluation.heros.generate import PairSet, generate_pairs
    from n2o_core.evaluation.heros.load import load_heros, read_pairs_file
    from n2o_core.evaluation.heros.report import sample_markdown
    from n2o_core.evaluation.heros.run import HerosResult, run_heros
    from n2o_core.evaluation.heros.score import score_pairs

_LAZY = {
    "Coverage": "coverage",
    "PairSet": "generate",
    "generate_pairs": "generate",
    "load_heros": "load",
    "read_pairs_file": "load",
    "score_pairs": "score",
    "run_heros": "run",
    "HerosResult": "run",
    "sample_markdown": "report",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.evaluation.heros` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
