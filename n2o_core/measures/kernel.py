"""Linear CKA of two prepared feature spaces, kept for `evaluation.findings.compute` until it calls
`run.feature_matrix` (the matrix over embedders with its memo); then this module goes. It is the engine's own
computation (`batched.values`), not a second formula."""

from __future__ import annotations

import numpy as np

from n2o_core.measures.batched import values
from n2o_core.measures.feature_space import FeatureSpace


def cka_linear_from(a: FeatureSpace, b: FeatureSpace, C: np.ndarray) -> float:
    """Linear CKA (biased HSIC) from the spaces and C = Ac^T Bc, as the engine computes it."""
    return values(a, b, C, ("a", "b"), ["cka_linear"])[("a", "b", "cka_linear")]
