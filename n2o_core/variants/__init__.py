"""Variants of an embedder: one grammar for a layer, a pooling, a truncation, a PCA, a quantization or the
rescoring of binary candidates (`minilm-l6-mean@layer=4@binary`), the transforms that derive a variant's vectors
from cached float vectors (never by embedding again), and the search each precision calls for.

v = parse_variant("minilm-l6-mean@binary@rescore=4")   # Variant; v.id is the canonical id, describe(v) one line
d = derive_vectors(X, v)                               # Derived: packed bits, their zero rows, the float queries
nb = variant_knn(d, 10, query_ids=ids)                 # Neighbors, as exact search returns them

Modules, lowest first (each imports only those above it in this list):
  spec        `Variant`, `parse_variant`, `derive` (a variant of a variant), `split_variant`, `describe`,
              `bytes_per_vector`, `reduced_dim`, KEYS, POOLINGS, VARIANT_VERSION (part of the cache key)
  transforms  `truncate_dims`, `PcaProjection`, `int8_ranges`, `quantize_int8`, `pack_signs`, `unpack_signs`,
              `zero_rows`, `VariantTransform` (fitted on the corpus), `derive_vectors` -> `Derived`
  knn         `variant_knn`: exact cosine (float32, int8 codes), Hamming (binary), Hamming + rescoring
  store       `VariantStore`: a workspace's variants (layers from one cached forward pass, derived vectors from
              the cached base embeddings, never embedding again; their search), `variant_of`

The layer and pooling parts are computed by the embedders (every hidden layer from one forward pass:
`encode_layers` of `embedders.sbert.MiniLMEmbedder`, `SentenceTransformerEmbedder` and `embedders.hf.HFEmbedder`);
embedders/ may import the grammar: this folder stands between search/ and embedders/.

The names below are resolved on first use. Inside n2o_core, import from the modules themselves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "Derived",
    "PcaProjection",
    "Variant",
    "VariantStore",
    "VariantTransform",
    "bytes_per_vector",
    "derive",
    "derive_vectors",
    "describe",
    "int8_ranges",
    "pack_signs",
    "parse_variant",
    "quantize_int8",
    "split_variant",
    "truncate_dims",
    "variant_knn",
    "variant_of",
]

if TYPE_CHECKING:
    from n2o_core.variants.knn import variant_knn
    from n2o_core.variants.spec import Variant, bytes_per_vector, derive, describe, parse_variant, split_variant
    from n2o_core.variants.store import VariantStore, variant_of
    from n2o_core.variants.transforms import (
        Derived,
        PcaProjection,
        VariantTransform,
        derive_vectors,
        int8_ranges,
        pack_signs,
        quantize_int8,
        truncate_dims,
    )

_LAZY = {
    "Variant": "spec",
    "bytes_per_vector": "spec",
    "derive": "spec",
    "describe": "spec",
    "parse_variant": "spec",
    "split_variant": "spec",
    "Derived": "transforms",
    "PcaProjection": "transforms",
    "VariantTransform": "transforms",
    "derive_vectors": "transforms",
    "int8_ranges": "transforms",
    "pack_signs": "transforms",
    "quantize_int8": "transforms",
    "truncate_dims": "transforms",
    "variant_knn": "knn",
    "VariantStore": "store",
    "variant_of": "store",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.variants.spec` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
