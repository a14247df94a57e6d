"""The Variants analysis of one embedder, as the CLI (`python -m n2o_core variants`), the API
(`n2o.variant_analysis`) and the dashboard's download give it: `run_variants` -> `VariantsResult` (`to_json()`:
one document for all three).

    res = run_variants(ws, "minilm-l6-mean", other="glove-6b-50d", k=10)
    res.layers        # LayerComparison: N2O and linear CKA of every two layers of the model, chance, best matches
    res.between       # LayerComparison: the model's layers (rows) against the other's (columns), or None
    res.compression   # Compression: dims / pca / int8 / binary / binary+rescore at a few sizes: bytes per vector,
                      #   N2O with the full-precision exact neighbors, needle MRR, STS Spearman; the knee
    res.index         # IndexSweep: pynndescent's settings: recall@k (= N2O with exact) against query time
    res.errors        # part -> the sentence that says why it is missing (e.g. layers of an embedder without any)

Each part can be switched off; a part that cannot be computed is named in `errors` and the others go on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from n2o_core.errors import N2OError
from n2o_core.evaluation.variants.compression import Compression, compression_curve
from n2o_core.evaluation.variants.index import IndexSweep, index_sweep
from n2o_core.evaluation.variants.layers import LayerComparison, compare_layers
from n2o_core.runtime.progress import Progress, prefixed

#: Stages reported to `progress`: "<part>: <stage>", the parts "layers", "between", "compression", "index"; the
#: stages "layers", "neighbors", "cka", "needle", "sts", "index".


@dataclass
class VariantsResult:
    """Layers, compression and index results for one embedder on one corpus (any part None when switched off or
    missing: `errors` says why)."""

    corpus: str
    corpus_size: int
    embedder: str
    other: str | None
    k: int
    layers: LayerComparison | None = None
    between: LayerComparison | None = None
    compression: Compression | None = None
    index: IndexSweep | None = None
    errors: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The document the CLI writes with --json, the API returns and the page downloads."""
        return {
            "corpus": self.corpus,
            "corpus_size": self.corpus_size,
            "embedder": self.embedder,
            "other": self.other,
            "k": self.k,
            "layers": None if self.layers is None else self.layers.to_json(),
            "between": None if self.between is None else self.between.to_json(),
            "compression": None if self.compression is None else self.compression.to_json(),
            "index": None if self.index is None else self.index.to_json(),
            "errors": self.errors,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> VariantsResult:
        """The result `to_json` wrote (the page reads back what it kept in the cache)."""

        def part(key: str, kind: Any) -> Any:
            return None if doc.get(key) is None else kind.from_json(doc[key])

        return cls(
            doc["corpus"],
            int(doc["corpus_size"]),
            doc["embedder"],
            doc["other"],
            int(doc["k"]),
            part("layers", LayerComparison),
            part("between", LayerComparison),
            part("compression", Compression),
            part("index", IndexSweep),
            dict(doc.get("errors") or {}),
        )


def run_variants(
    ws: Any,
    embedder: str,
    *,
    other: str | None = None,
    k: int = 10,
    layers: bool = True,
    compression: bool = True,
    index: bool = True,
    sizes: list[int] | None = None,
    needle_pairs: str | None = "builtin:lee",
    sts_pairs: str | None = "builtin:lee",
    n_queries: int = 100,
    n_samples: int = 5,
    seed: int = 0,
    progress: Progress | None = None,
) -> VariantsResult:
    """Every part of the Variants analysis for `embedder` on the workspace's corpus (see the module docstring):
    `layers` (the model's layer x layer matrix and, with `other`, its layers against `other`'s), `compression`
    (the curve; `sizes`, `needle_pairs`, `sts_pairs` as `compression_curve`), `index` (the approximate settings).
    An unknown embedder raises N2OError; a part that cannot be computed is recorded in `errors`."""
    ws.info(embedder)
    if other is not None:
        ws.info(other)
    out = VariantsResult(ws.corpus.name, len(ws.corpus), embedder, other, k)
    samples: dict[str, Any] = dict(k=k, n_queries=n_queries, n_samples=n_samples, seed=seed)

    def part(name: str) -> Progress | None:
        """The stages of one part, named after it ("layers: neighbors", "compression: needle", ...)."""
        return prefixed(progress, f"{name}: ")

    if layers:
        try:
            out.layers = compare_layers(ws, embedder, progress=part("layers"), **samples)
            if other is not None:
                out.between = compare_layers(ws, embedder, other, progress=part("between"), **samples)
        except N2OError as e:
            out.errors["layers"] = str(e)
    if compression:
        try:
            out.compression = compression_curve(
                ws,
                embedder,
                sizes=sizes,
                needle_pairs=needle_pairs,
                sts_pairs=sts_pairs,
                progress=part("compression"),
                **samples,
            )
        except N2OError as e:
            out.errors["compression"] = str(e)
    if index:
        try:
            out.index = index_sweep(ws, embedder, k=k, seed=seed, progress=part("index"))
        except N2OError as e:
            out.errors["index"] = str(e)
    return out
