"""Similarity measures between two embeddings of the same sentences, beyond N2O: the table of measures and one
engine that computes them.

`MEASURES` lists every measure with its properties (like ReSi's repsim/measures): its family (where and how it is
computed), whether it is symmetric, what leaves it unchanged, whether it gets a permutation null and a bootstrap
interval (`draws`), and `higher_is_similar` — procrustes is a distance, turned into the similarity cos(theta) by
`Measure.similarity` for rankings and maps. `Measure.name` is the one display name of each measure (the page, the
CLI's text and the figures show it, `DISPLAY_NAMES` / `display_name`); the ids stay in JSON, links and arguments;
`family_ids` gives the ids of one family, in the table's order.

Each measure has one implementation, in its family's engine (`engine`), which computes the values, the permutation
nulls and the bootstrap resamples of every pair at once; the plain formula of each measure, as its paper states it,
is the tests' oracle (tests/measures/reference_formulas.py), against which the engine is tested on fixed cases.
- `run`: every measure for every pair of a workspace's embedders (`compare_measures`) or of given arrays
  (`compare_arrays`), with nulls; one feature-space measure (linear CKA by default) as a matrix over embedders,
  without nulls, keeping what it computed for the next call (`feature_matrix`, `FeatureMemo`).
- `engine`: one family at a time — `NeighborFamily` (mutual_knn = N2O, jaccard_knn, cknna from cosine k-NN lists,
  `neighborhood`), `FeatureFamily` (linear CKA both estimators, Procrustes, regression R², SVCCA, PWCCA in each
  side's singular basis, `batched` over `feature_space`; the released code's PWCCA, `pwcca_released`),
  `KernelFamily` (RBF CKA and RSA on sentence-pair triangles, `pairwise`).
- `nulls`: seeded permutations and resamples, p-values and bootstrap intervals.
- `summary`: matrices, ranks, rank movers, embedder maps and the PWCCA gap (`pwcca_gap`) of a comparison.
- `stored`: a comparison kept in the disk cache with when it was computed and how long it took
  (`compare_and_store`, `load`), and how long a new one should take here (`estimate_seconds`).

One measure of two arrays:

    res = compare_arrays({"a": A, "b": B}, measures=["cka_linear"], permutations_=0, bootstrap=0)
    res.value("a", "b", "cka_linear")
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from n2o_core.errors import N2OError


@dataclass(frozen=True)
class Measure:
    """One similarity measure and its properties."""

    id: str
    name: str
    family: str  # "neighborhood" | "feature" | "kernel": which engine family computes it (`engine`)
    symmetric: bool
    higher_is_similar: bool
    value_range: tuple[float, float]
    invariances: str
    reference: str
    how_to_read: str
    draws: bool = True  # False: its value only, no permutation null and no bootstrap interval

    @property
    def self_value(self) -> float:
        """The value of a space with itself: the most similar (1; 0 for a distance, the Procrustes angle)."""
        return 1.0 if self.higher_is_similar else 0.0

    def similarity(self, value: float) -> float:
        """The value oriented so that higher = more similar (cos(theta) for the Procrustes angle)."""
        return float(value) if self.higher_is_similar else float(np.cos(value))


_ORTHO = "orthogonal transforms, isotropic scaling, translation"
MEASURES: tuple[Measure, ...] = (
    Measure(
        "mutual_knn",
        "mutual k-NN (N2O)",
        "neighborhood",
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
        False,
        True,
        (0.0, 1.0),
        "translation; not rotations (it adds each dimension's mean to one direction)",
        "Morcos et al. 2018, released code (google/svcca pwcca.py), as ReSi and most papers compute it",
        "PWCCA as the authors' code computes it, for comparison with published numbers: weights from the side "
        "with fewer dimensions (a on a tie); value only, no null or interval.",
        draws=False,  # each draw would need its own full SVD in the original dimensions (`engine`)
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


def family_ids(family: str) -> tuple[str, ...]:
    """The ids of one family ("neighborhood", "feature" or "kernel"), in the order of `MEASURES`."""
    return tuple(m.id for m in MEASURES if m.family == family)


def get_measure(measure_id: str) -> Measure:
    """The measure with this id; N2OError naming the known ids otherwise."""
    try:
        return _BY_ID[measure_id]
    except KeyError:
        raise N2OError(f"Unknown measure '{measure_id}' (known: {', '.join(MEASURE_IDS)}).") from None


__all__ = ["DISPLAY_NAMES", "MEASURES", "MEASURE_IDS", "Measure", "display_name", "family_ids", "get_measure"]
