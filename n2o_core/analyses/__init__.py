"""The analyses built on cached neighbors and embeddings: N2O and its companions, the comparison of several
embedders, per-sentence agreement, 2-D maps and quality beside agreement. Pure or workspace-driven; no I/O of
their own beyond the workspace's cache.

res = comparison(prepared, k=10)                     # ComparisonResult: N2O per pair, spread, chance level
n2o(ids_a, ids_b, k), chance_level(k, n_corpus)      # Lin & Smith (2019), Fig. 2; k / (N - 1)
from n2o_core.analyses.agreement import agreement    # Agreement: per-sentence N2O, every sentence a query
table = quality_table(names, n2o=M, needle=..., sts=...)  # per embedder: N2O with the others beside quality

Modules, lowest first (each imports only those above it in this list):
  overlap     N2O and what is built on neighbor ids: `n2o`, `n2o_matrix`, `overlap_counts`, `chance_level`,
              `times_chance`, `SampledN2O`, `n2o_over_samples`, `pairs_frame`, `pairs_table`, `n2o_distribution`,
              `box_order`, `n2o_by_k`, robustness (`robustness_across_k`,
              `robustness_across_samples`, `robustness_to_sample_size`, `k_grid`), popular / outlier neighbors
              (`popular_neighbors`, `popular_frame`, `outlier_neighbors`, `with_sentences`), token overlap
              (`token_overlap`, `token_overlap_by_embedder`, `token_overlap_report`, `by_token_overlap`,
              `queries_without_words`, `mean_ci`)
  compare     `compare` (the CLI's: prepare every embedder, then N2O), `comparison` (N2O at any k <= k_max from
              prepared embedders), `ComparisonResult`, `approximation_error`
  agreement   `agreement` -> `Agreement` (per-sentence N2O, every sentence a query), `per_sentence_n2o`,
              `validate`, `pair_param`, `summarize`, `extremes`, `by_value`, `ranking_frame`, `sentence_features`,
              `corpus_features`, `group_table`, `decile_table`
  projection  `projection` -> `Projection` (UMAP on the exact k-NN graph, PCA fallback; cached), `cached_projection`
              (a map the cache holds, read without computing), `pca_coords`, `umap_coords`,
              `neighbor_preservation`, `warm_up_umap`, `library_version`
  quality     `quality_table`, `QUALITY_COLUMNS` (`QualityColumn`), `mean_n2o_with_others`,
              `negation_sensitivity`, `column_correlation`, `quality_display`, `quality_csv`, `embedder_dims`
  anisotropy  each embedder's mean cosine between random sentence pairs (Ethayarajh 2019), raw and z-normalized
  face_value  the notes a number needs to be read at face value (chance against the values, k capped, samples
              that cover the corpus, corpus-trained embedders below their noise size), worded once
  seed_reference  N2O between two trainings of a corpus-trained recipe with different seeds (its noise ceiling)

`compare`, `agreement` and `projection` are both a module and its main function: the face keeps those names for
the modules (`from n2o_core.analyses import agreement` is the module), so import the functions from the modules.
The other names below are resolved on first use, so importing one module (`import n2o_core.analyses.overlap`)
does not import the others (nor umap, nor pandas before it is needed). Inside n2o_core, import from the modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = [
    "QUALITY_COLUMNS",
    "Agreement",
    "Anisotropy",
    "ComparisonResult",
    "FaceValue",
    "Projection",
    "QualityColumn",
    "SampledN2O",
    "SeedReference",
    "anisotropies",
    "chance_level",
    "comparison",
    "decile_table",
    "mean_ci",
    "n2o",
    "n2o_by_k",
    "n2o_matrix",
    "n2o_over_samples",
    "outlier_neighbors",
    "pairs_frame",
    "per_sentence_n2o",
    "popular_neighbors",
    "quality_table",
    "robustness_across_k",
    "same_recipe_n2o",
    "token_overlap",
    "token_overlap_report",
]

if TYPE_CHECKING:
    from n2o_core.analyses.agreement import Agreement, decile_table, per_sentence_n2o
    from n2o_core.analyses.anisotropy import Anisotropy, anisotropies
    from n2o_core.analyses.compare import ComparisonResult, comparison
    from n2o_core.analyses.face_value import FaceValue
    from n2o_core.analyses.overlap import (
        SampledN2O,
        chance_level,
        mean_ci,
        n2o,
        n2o_by_k,
        n2o_matrix,
        n2o_over_samples,
        outlier_neighbors,
        pairs_frame,
        popular_neighbors,
        robustness_across_k,
        token_overlap,
        token_overlap_report,
    )
    from n2o_core.analyses.projection import Projection
    from n2o_core.analyses.quality import QUALITY_COLUMNS, QualityColumn, quality_table
    from n2o_core.analyses.seed_reference import SeedReference, same_recipe_n2o

_LAZY = {
    "SampledN2O": "overlap",
    "chance_level": "overlap",
    "mean_ci": "overlap",
    "n2o": "overlap",
    "n2o_by_k": "overlap",
    "n2o_matrix": "overlap",
    "n2o_over_samples": "overlap",
    "outlier_neighbors": "overlap",
    "pairs_frame": "overlap",
    "popular_neighbors": "overlap",
    "robustness_across_k": "overlap",
    "token_overlap": "overlap",
    "token_overlap_report": "overlap",
    "ComparisonResult": "compare",
    "comparison": "compare",
    "Agreement": "agreement",
    "decile_table": "agreement",
    "per_sentence_n2o": "agreement",
    "Projection": "projection",
    "QUALITY_COLUMNS": "quality",
    "QualityColumn": "quality",
    "quality_table": "quality",
    "Anisotropy": "anisotropy",
    "anisotropies": "anisotropy",
    "FaceValue": "face_value",
    "SeedReference": "seed_reference",
    "same_recipe_n2o": "seed_reference",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use (keeps `import n2o_core.analyses.overlap` light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
