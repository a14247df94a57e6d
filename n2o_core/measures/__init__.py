"""Similarity measures between two embeddings of the same sentences, beyond N2O: one pure function each.

Families (one module each, formula and reference in its docstring):
- `neighborhood`: mutual_knn (= N2O, every sentence a query), jaccard_knn, cknna — cosine k-NN, as N2O;
- `kernel`: cka_linear, cka_linear_unbiased, cka_rbf, rsa_spearman, rsa_pearson;
- `geometry`: procrustes (angular shape distance), regression_r2 (B from A);
- `cca`: svcca, pwcca (the paper's formula), pwcca_released (the released code's, google/svcca);
- `nulls`: permutation nulls and bootstrap intervals; `run`: every measure for every pair of a workspace's
  embedders, with nulls (`compare_measures`), through `engine` (one family at a time) and `batched` (the
  feature-space draws in batches, threads).
- `stored`: a comparison kept in the disk cache with when it was computed and how long it took
  (`compare_and_store`, `load`), and how long a new one should take here (`estimate_seconds`).

All but the neighborhood measures take the vectors as embedded and center them inside their formula. `MEASURES`
lists every measure with its properties (like ReSi's repsim/measures): whether it is symmetric, what leaves it
unchanged, where it is computed, and `higher_is_similar` — procrustes is a distance, turned into the similarity
cos(theta) by `Measure.similarity` for rankings and maps. `Measure.name` is the one display name of each measure
(the page, the CLI's text and the figures show it, `DISPLAY_NAMES` / `display_name`); the ids stay in JSON,
links and arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import n2o_core.measures.cca as cca
import n2o_core.measures.geometry as geometry
import n2o_core.measures.kernel as kernel
import n2o_core.measures.neighborhood as neighborhood
from n2o_core.errors import N2OError


@dataclass(frozen=True)
class Measure:
    """One similarity measure and its properties."""

    id: str
    name: str
    family: str  # "neighborhood" | "feature" | "kernel"
    fn: Callable[..., float]  # fn(A, B) or fn(A, B, k) for the neighborhood family
    symmetric: bool
    higher_is_similar: bool
    value_range: tuple[float, float]
    invariances: str
    reference: str
    how_to_read: str

    def similarity(self, value: float) -> float:
        """The value oriented so that higher = more similar (cos(theta) for the Procrustes angle)."""
        return float(value) if self.higher_is_similar else float(np.cos(value))

    def __call__(self, A: np.ndarray, B: np.ndarray, k: int = 10) -> float:
        """The measure of two embeddings of the same sentences."""
        return float(self.fn(A, B, k) if self.family == "neighborhood" else self.fn(A, B))


_ORTHO = "orthogonal transforms, isotropic scaling, translation"
MEASURES: tuple[Measure, ...] = (
    Measure(
        "mutual_knn",
        "mutual k-NN (N2O)",
        "neighborhood",
        neighborhood.mutual_knn,
        True,
        True,
        (0.0, 1.0),
        "anything that keeps each sentence's cosine neighbor ranking",
        "Huh et al. 2024; Lin & Smith 2019 (N2O)",
        "Share of each sentence's k nearest neighbors that both embedders pick; chance k/(n-1).",
    ),
    Measure(
        "jaccard_knn",
        "Jaccard of k-NN sets",
        "neighborhood",
        neighborhood.jaccard_knn,
        True,
        True,
        (0.0, 1.0),
        "anything that keeps each sentence's cosine neighbor ranking",
        "Klabunde et al. (ReSi), Jaccard k-NN",
        "Shared neighbors over all neighbors either picks; stricter than mutual k-NN for the same overlap.",
    ),
    Measure(
        "cknna",
        "CKNNA",
        "neighborhood",
        neighborhood.cknna,
        False,
        True,
        (-1.0, 1.0),
        "rotations and scaling of either side (cosine kernels)",
        "Huh et al. 2024 (platonic representation); Song et al. 2012 (unbiased HSIC)",
        "CKA restricted to pairs near in both spaces: agreement of local similarity values, not only of sets.",
    ),
    Measure(
        "cka_linear",
        "linear CKA",
        "feature",
        kernel.cka_linear,
        True,
        True,
        (0.0, 1.0),
        _ORTHO,
        "Kornblith et al. 2019",
        "Global agreement of the linear Gram matrices; dominated by the directions of largest variance.",
    ),
    Measure(
        "cka_linear_unbiased",
        "linear CKA (unbiased HSIC)",
        "feature",
        kernel.cka_linear_unbiased,
        True,
        True,
        (-1.0, 1.0),
        _ORTHO,
        "Kornblith et al. 2019; Song et al. 2012",
        "Linear CKA without the small-sample bias: about 0 for unrelated spaces at any n.",
    ),
    Measure(
        "cka_rbf",
        "RBF CKA",
        "kernel",
        kernel.cka_rbf,
        True,
        True,
        (0.0, 1.0),
        _ORTHO + " (bandwidth follows the median distance)",
        "Kornblith et al. 2019",
        "CKA of Gaussian kernels (bandwidth 0.5 x median distance): more local than linear CKA.",
    ),
    Measure(
        "rsa_spearman",
        "RSA (Spearman)",
        "kernel",
        kernel.rsa_spearman,
        True,
        True,
        (-1.0, 1.0),
        "anything that keeps the order of cosine distances (monotone maps of them)",
        "Kriegeskorte et al. 2008",
        "Rank correlation of all sentence-pair cosine distances.",
    ),
    Measure(
        "rsa_pearson",
        "RSA (Pearson)",
        "kernel",
        kernel.rsa_pearson,
        True,
        True,
        (-1.0, 1.0),
        "rotations and scaling of either side (cosine distances); affine maps of the distances",
        "Kriegeskorte et al. 2008",
        "Linear correlation of all sentence-pair cosine distances.",
    ),
    Measure(
        "procrustes",
        "Procrustes angle",
        "feature",
        geometry.procrustes,
        True,
        False,
        (0.0, float(np.pi / 2)),
        _ORTHO,
        "Williams et al. 2021 (angular shape metric); Schönemann 1966",
        "Angle (radians) left after the best rotation of one space onto the other: 0 = same shape. A distance; "
        "its similarity is cos(angle).",
    ),
    Measure(
        "regression_r2",
        "linear regression R²",
        "feature",
        geometry.regression_r2,
        False,
        True,
        (0.0, 1.0),
        "any invertible linear map of A; orthogonal maps and scaling of B; translation",
        "Kornblith et al. 2019 (linear regression fit); Klabunde et al. (ReSi)",
        "Share of B's variance a linear map from A explains (row a, b: B from A). Rises with A's dimension.",
    ),
    Measure(
        "svcca",
        "SVCCA",
        "feature",
        cca.svcca,
        True,
        True,
        (0.0, 1.0),
        "invertible linear maps within the kept subspaces; translation",
        "Raghu et al. 2017",
        "Mean canonical correlation after keeping 99% of each side's variance.",
    ),
    Measure(
        "pwcca",
        "PWCCA (paper's formula)",
        "feature",
        cca.pwcca,
        False,
        True,
        (0.0, 1.0),
        "orthogonal maps and scaling of A; invertible linear maps of B; translation",
        "Morcos et al. 2018 (their formula)",
        "Canonical correlations weighted by how much of A each accounts for (row a, b: weights from A).",
    ),
    Measure(
        "pwcca_released",
        "PWCCA (released code)",
        "feature",
        cca.pwcca_released,
        False,
        True,
        (0.0, 1.0),
        "translation; not rotations (it adds each dimension's mean to one direction)",
        "Morcos et al. 2018, released code (google/svcca pwcca.py), as ReSi and most papers compute it",
        "PWCCA as the authors' code computes it, for comparison with published numbers: weights from the side "
        "with fewer dimensions (a on a tie); value only, no null or interval.",
    ),
)

#: Every measure id, in the order of `MEASURES`.
MEASURE_IDS: tuple[str, ...] = tuple(m.id for m in MEASURES)
#: The display name of every measure id (`Measure.name`): what the page, the CLI's text and the figures show.
DISPLAY_NAMES: dict[str, str] = {m.id: m.name for m in MEASURES}
_BY_ID = {m.id: m for m in MEASURES}


def display_name(measure_id: str) -> str:
    """The measure's display name (`DISPLAY_NAMES`); an unknown id is shown as it is."""
    return DISPLAY_NAMES.get(measure_id, measure_id)


def get_measure(measure_id: str) -> Measure:
    """The measure with this id; N2OError naming the known ids otherwise."""
    try:
        return _BY_ID[measure_id]
    except KeyError:
        raise N2OError(f"Unknown measure '{measure_id}' (known: {', '.join(MEASURE_IDS)}).") from None


__all__ = ["DISPLAY_NAMES", "MEASURES", "MEASURE_IDS", "Measure", "display_name", "get_measure"]
