"""The limits every front end checks, defined once: k, k_max and the number of embedders."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from n2o_core.errors import N2OError

#: Neighbors are searched once at this k; any k <= K_MAX only slices cached arrays.
K_MAX = 50
#: N2O compares at least this many embedders.
MIN_EMBEDDERS = 2


def k_max_for(n: int, k_max: int = K_MAX) -> int:
    """The k neighbors are searched at for a corpus of n sentences: min(k_max, N - 1), at least 1."""
    return max(1, min(k_max, n - 1))


#: k is at most this share of the N - 1 candidates by default: above it, chance k/(N - 1) alone gives an N2O of
#: that size and the values crowd near it (a 60-sentence corpus at k = 10: chance 0.17).
K_SHARE_MAX = 0.1


def k_share_cap(n: int) -> int:
    """The largest k that is at most K_SHARE_MAX of the N - 1 candidates of an n-sentence corpus (at least 1)."""
    return max(1, int(K_SHARE_MAX * (n - 1) + 1e-9))


def sentences_for_k(k: int) -> int:
    """The fewest sentences whose N - 1 candidates keep k within K_SHARE_MAX (k_share_cap(n) >= k): 10k + 1; any
    corpus for k = 1 (the cap is at least 1)."""
    return MIN_SENTENCES if k <= 1 else int(np.ceil(k / K_SHARE_MAX - 1e-9)) + 1


def validate_k(k: int, n: int) -> None:
    """k must be a positive integer that leaves k neighbors besides the query in a corpus of n sentences."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k <= 0:
        raise N2OError(f"k must be a positive integer (got {k}).")
    if n < k + 1:
        raise N2OError(f"The corpus has {n:,} sentences, fewer than k + 1 = {k + 1}: lower k or use a larger corpus.")


def effective_k(k: int, k_max: int) -> int:
    """The k a view uses: the chosen k, capped by the k neighbors were searched at."""
    return max(1, min(int(k), int(k_max)))


def require_embedders(ids: Sequence[str], minimum: int = MIN_EMBEDDERS, what: str = "to compare") -> None:
    """At least `minimum` distinct embedders."""
    if len(set(ids)) != len(ids):
        raise N2OError("An embedder was given twice.")
    if len(ids) < minimum:
        raise N2OError(f"Choose at least {minimum} embedder{'s' if minimum != 1 else ''} {what} (got {len(ids)}).")


#: The smallest corpus N2O is computed on (N - 1 >= 2 candidates per query).
MIN_SENTENCES = 3


def check_corpus_size(n: int) -> None:
    """A corpus must have at least MIN_SENTENCES sentences."""
    if n < MIN_SENTENCES:
        raise N2OError(f"The corpus has {n} sentence(s); N2O needs at least {MIN_SENTENCES}.")
