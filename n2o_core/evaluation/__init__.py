"""The seeds' evaluation half: which differences between embedders matter. Each analysis asks the workspace for
embeddings (cached) and computes its tables in pure functions.

pairs = filter_pairs(load_pairs("builtin:lee"))           # FilteredPairs: the N2O paper's filters (§8)
res = run_needle(ws, pairs, ["tfidf", "minilm-l6-mean"])   # NeedleResult: the paraphrase's rank, MRR (N2O §8)
res = run_sts(ws, load_pairs("builtin:lee"), ["tfidf"])    # STSResult: cosine vs human scores (Pitfalls)
res = run_heros(ws, ["glove-6b-50d"], n_pairs=200)         # HerosResult: HEROS-style minimal pairs (Heros)
res = run_probe(ws, ["glove-6b-50d"], tasks="sentlen")     # ProbeResult: SentEval probing (Conneau et al.)
results = check_findings(ws)                               # the papers' findings, checked live

Modules and packages, lowest first (each imports only those above it in this list):
  pairs/      sentence pairs with optional human scores and the paper's filters: `load_pairs`, `filter_pairs`,
              `paper_defaults`, `Pairs`, `FilteredPairs`, `PairSource`, pair files, Lee, synthetic pairs
  ranks       embedders ranked under several scorings as the pages show them: `moves`, `rank_with_move`
  heros/      HEROS-style minimal pairs: `generate_pairs`, `load_heros`, `score_pairs`, `run_heros`, `HerosResult`,
              `combine_scores`, `embedder_table`
  needle      the paraphrase needle: `run_needle` -> `NeedleResult`, `combine_needle`, `by_mrr`,
              `paraphrase_ranks` -> `Ranks`, `reciprocal_ranks`, `summarize`, `exclusions`, TIE_TOL
  sts         correlation with human similarity: `run_sts` -> `STSResult`, `combine_sts`, `pair_cosines`,
              `correlations`, `rank_table`, `correlation_table`, `rank_display`, `moved_count`, `occurrence_stats`
  probe/      SentEval's probing tasks built from any corpus: `build_tasks`, `parse_corpus`, `read_out`,
              `run_probe`, `ProbeResult`, TASKS
  variants/   one embedder's layers, compressions and approximate index compared (needle and STS of each
              variant): `run_variants` -> `VariantsResult`, `compare_layers`, `compression_curve`, `index_sweep`
  findings/   the papers' claims as rules, checked on the current corpus: FINDINGS, `check_findings`,
              `FindingParams`, NOT_TESTABLE

Each package has a face of its own that lists its modules. The names below are resolved on first use, so
importing one module (`import n2o_core.evaluation.sts`) does not import the others, nor spaCy, WordNet or the
findings' rules. Inside n2o_core, import from the modules themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "FilteredPairs",
    "HerosResult",
    "NeedleResult",
    "Pairs",
    "ProbeResult",
    "STSResult",
    "check_findings",
    "filter_pairs",
    "load_pairs",
    "paraphrase_ranks",
    "run_heros",
    "run_needle",
    "run_probe",
    "run_sts",
]

if TYPE_CHECKING:
    from n2o_core.evaluation.findings.compute import check_findings
    from n2o_core.evaluation.heros.run import HerosResult, run_heros
    from n2o_core.evaluation.needle import NeedleResult, paraphrase_ranks, run_needle
    from n2o_core.evaluation.pairs.filters import filter_pairs
    from n2o_core.evaluation.pairs.frame import FilteredPairs, Pairs
    from n2o_core.evaluation.pairs.sources import load_pairs
    from n2o_core.evaluation.probe.run import ProbeResult, run_probe
    from n2o_core.evaluation.sts import STSResult, run_sts

_LAZY = {
    "FilteredPairs": "pairs.frame",
    "Pairs": "pairs.frame",
    "filter_pairs": "pairs.filters",
    "load_pairs": "pairs.sources",
    "HerosResult": "heros.run",
    "run_heros": "heros.run",
    "NeedleResult": "needle",
    "paraphrase_ranks": "needle",
    "run_needle": "needle",
    "STSResult": "sts",
    "run_sts": "sts",
    "ProbeResult": "probe.run",
    "run_probe": "probe.run",
    "check_findings": "findings.compute",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.evaluation.sts` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
