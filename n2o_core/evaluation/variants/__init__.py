"""Variants of one embedder compared with each other: its layers, its compressed forms and its approximate
index (issue 36). Variant ids (`minilm-l6-mean@layer=4@binary`) are resolved by the workspace
(`n2o_core.variants`); this package runs the analyses over them.

    res = run_variants(ws, "minilm-l6-mean", other="glove-6b-50d")   # VariantsResult; res.to_json()

Modules, lowest first (each imports only those above it in this list):
  layers       `compare_layers` -> `LayerComparison`: layer x layer N2O and linear CKA, chance, best matches
  compression  `compression_curve` -> `Compression` (`CompressionPoint`s, the knee), FAMILIES, `knee`
  index        `index_sweep` -> `IndexSweep`: recall@k (= N2O with exact) against query time per setting
  run          `run_variants` -> `VariantsResult`: all three, one document
  stored       `compute_and_store` / `load`: one part at a time kept in the cache (the page and `warm --variants`)

The names below are resolved on first use. Inside n2o_core, import from the modules themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "Compression",
    "IndexSweep",
    "LayerComparison",
    "VariantsResult",
    "compare_layers",
    "compression_curve",
    "index_sweep",
    "knee",
    "run_variants",
]

if TYPE_CHECKING:
    from n2o_core.evaluation.variants.compression import Compression, compression_curve, knee
    from n2o_core.evaluation.variants.index import IndexSweep, index_sweep
    from n2o_core.evaluation.variants.layers import LayerComparison, compare_layers
    from n2o_core.evaluation.variants.run import VariantsResult, run_variants

_LAZY = {
    "Compression": "compression",
    "compression_curve": "compression",
    "knee": "compression",
    "IndexSweep": "index",
    "index_sweep": "index",
    "LayerComparison": "layers",
    "compare_layers": "layers",
    "VariantsResult": "run",
    "run_variants": "run",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
