"""Neighborhood measures: how far two embedders agree on each sentence's k nearest neighbors; the parts that
`engine.NeighborFamily` computes them from (its values, nulls and bootstrap), and the plain formulas are the tests'
oracle (tests/measures/reference_formulas.py).

Neighbors follow `n2o_core.search.exact`: cosine similarity, every sentence a query, the query excluded by
index, ties broken by the lower id, a zero vector has no neighbors (its row is all -1 and overlaps nothing).
With NN_A(i) the k nearest neighbors of sentence i under embedder A:

- `mutual_knn` (Huh et al. 2024, "The platonic representation hypothesis", ICML: mutual k-NN alignment):
  mean over sentences of |NN_A(i) ∩ NN_B(i)| / k. This *is* N2O (Lin & Smith 2019) with every sentence a query,
  and is computed by the project's own N2O count (`analyses.overlap.overlap_counts`) from the same cached
  every-sentence neighbor arrays (`pipeline.every_sentence_neighbors`); chance level k / (n - 1).
- `jaccard_knn`: mean over sentences of |NN_A(i) ∩ NN_B(i)| / |NN_A(i) ∪ NN_B(i)| (0 when both are empty).
- `cknna` (Huh et al. 2024, "centered kernel nearest-neighbor alignment"): CKA restricted to pairs that are near
  in both spaces. K and L are the cosine-similarity kernels, masked to alpha_ij = 1[i != j, j in NN_A(i) and
  j in NN_B(i)] (K~ = alpha * K, L~ = alpha * L), then the unbiased HSIC of Song et al. 2012 (eq. 5),
  normalized like CKA: CKNNA = HSIC_u(K~, L~) / sqrt(HSIC_u(K~_A, K~_A) HSIC_u(L~_B, L~_B)), where the self terms
  mask each kernel with its own k-NN. As in the authors' code (platonic-rep, `metrics.py`), HSIC_u is applied to
  the masked kernels as they are (eq. 5 centers them implicitly). The k-NN relation is not symmetric, so
  neither are the masked kernels, and the term 1^T K~ L~ 1 of eq. 5 makes CKNNA(A, B) differ slightly from
  CKNNA(B, A) (by a fraction of a percent on real data): it is listed as asymmetric and reported for both
  orders.

Every masked kernel has at most n k nonzero entries, so CKNNA is computed from the neighbor ids and their cosine
similarities alone: O(n k log(n k)), on every sentence, with no n x n matrix. Its permutation null relabels the
neighbor lists (B's rows shuffled: NN_B'(i) = pi^-1(NN_B(pi(i)))), so no search is repeated either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from n2o_core.analyses.overlap import overlap_counts
from n2o_core.errors import N2OError
from n2o_core.search.exact import exact_knn


@dataclass(frozen=True)
class NeighborLists:
    """Every sentence's k nearest neighbors under one embedder: ids (n, k; -1 = none) and cosine sims (n, k)."""

    ids: np.ndarray
    sims: np.ndarray

    @property
    def n(self) -> int:
        """Number of sentences."""
        return int(self.ids.shape[0])

    @property
    def k(self) -> int:
        """Neighbors per sentence."""
        return int(self.ids.shape[1])

    def head(self, k: int) -> NeighborLists:
        """The first k neighbors (a slice of lists searched at a larger k)."""
        if k > self.k:
            raise N2OError(f"k={k} is larger than the {self.k} neighbors available.")
        return NeighborLists(np.asarray(self.ids)[:, :k], np.asarray(self.sims)[:, :k])

    def permuted(self, perm: np.ndarray) -> NeighborLists:
        """The lists of the embedding whose row i is this one's row perm[i] (ids relabelled accordingly)."""
        perm = np.asarray(perm)
        inv = np.empty_like(perm)
        inv[perm] = np.arange(perm.size)
        ids = np.asarray(self.ids)[perm]
        return NeighborLists(np.where(ids >= 0, inv[np.maximum(ids, 0)], -1), np.asarray(self.sims)[perm])


def knn_lists(X: np.ndarray, k: int) -> NeighborLists:
    """Exact cosine k-NN of every row of X (dense or CSR) with the project's search and conventions."""
    n = X.shape[0]
    if not 0 < k < n:
        raise N2OError(f"k={k} must be between 1 and the number of sentences minus one ({n - 1}).")
    nb = exact_knn(X, k, query_ids=np.arange(n, dtype=np.int64))
    return NeighborLists(np.asarray(nb.ids), np.asarray(nb.sims, np.float64))


def _check_pair(a: NeighborLists, b: NeighborLists) -> None:
    if a.ids.shape != b.ids.shape:
        raise N2OError(f"Neighbor arrays differ in shape: {a.ids.shape} vs {b.ids.shape}.")


@dataclass(frozen=True)
class Entries:
    """Nonzero entries of a masked kernel pair: sorted keys i*n + j, and K_ij, L_ij there."""

    n: int
    keys: np.ndarray
    kv: np.ndarray
    lv: np.ndarray

    def swapped(self) -> Entries:
        """The same entries with the roles of K and L exchanged (the pair taken in the other order)."""
        return Entries(self.n, self.keys, self.lv, self.kv)

    @property
    def rows(self) -> np.ndarray:
        """Row (query sentence) of each entry."""
        return self.keys // self.n

    @property
    def cols(self) -> np.ndarray:
        """Column (neighbor sentence) of each entry."""
        return self.keys % self.n


def sorted_keys(lists: NeighborLists) -> tuple[np.ndarray, np.ndarray]:
    """Sorted keys i*n + j of the valid entries, and their similarities (rows sorted one by one: a row-major
    flattening of row-sorted ids is sorted)."""
    ids = np.asarray(lists.ids)
    order = np.argsort(ids, axis=1, kind="stable")
    ids = np.take_along_axis(ids, order, axis=1)
    sims = np.take_along_axis(np.asarray(lists.sims, np.float64), order, axis=1)
    valid = ids >= 0
    keys = (np.arange(lists.n, dtype=np.int64)[:, None] * lists.n + ids)[valid]
    return keys, sims[valid]


def shared_entries(
    a: NeighborLists,
    b: NeighborLists,
    a_keys: tuple[np.ndarray, np.ndarray] | None = None,
    b_keys: tuple[np.ndarray, np.ndarray] | None = None,
) -> Entries:
    """Pairs (i, j) with j among the neighbors of i under both, with both cosine similarities; `a_keys` and
    `b_keys` are their `sorted_keys` when already at hand (the permutation null keeps them)."""
    _check_pair(a, b)
    ka, sa = a_keys if a_keys is not None else sorted_keys(a)
    kb, sb = b_keys if b_keys is not None else sorted_keys(b)
    if ka.size == 0 or kb.size == 0:
        return Entries(a.n, np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
    pos = np.minimum(np.searchsorted(ka, kb), ka.size - 1)
    hit = ka[pos] == kb
    return Entries(a.n, kb[hit], sa[pos[hit]], sb[hit])


def own_entries(a: NeighborLists) -> Entries:
    """The entries of one embedder's own k-NN mask (K~ with itself)."""
    keys, sims = sorted_keys(a)
    return Entries(a.n, keys, sims, sims)


def hsic_terms(e: Entries) -> np.ndarray:
    """(n, 4) per-row terms of HSIC_u of the masked kernels: sum_j K~_ij L~_ji, sum_j K~_ij, sum_j L~_ij,
    sum_j K~_ij (L~ 1)_j. Summed over rows (or weighted by a bootstrap's row counts) they give eq. 5's parts."""
    n = e.n
    rows, cols = e.rows, e.cols
    out = np.zeros((n, 4))
    tkeys = cols * n + rows
    pos = np.minimum(np.searchsorted(e.keys, tkeys), max(e.keys.size - 1, 0))
    recip = e.keys[pos] == tkeys if e.keys.size else np.zeros(0, bool)
    out[:, 0] = np.bincount(rows[recip], weights=e.kv[recip] * e.lv[pos[recip]], minlength=n)
    out[:, 1] = np.bincount(rows, weights=e.kv, minlength=n)
    out[:, 2] = np.bincount(rows, weights=e.lv, minlength=n)
    out[:, 3] = np.bincount(rows, weights=e.kv * out[cols, 2], minlength=n)
    return out


def hsic_from_terms(t: np.ndarray, n: int) -> np.ndarray:
    """HSIC_u (Song et al. 2012, eq. 5) from summed terms (..., 4)."""
    t = np.asarray(t, np.float64)
    return (t[..., 0] + t[..., 1] * t[..., 2] / ((n - 1) * (n - 2)) - 2.0 * t[..., 3] / (n - 2)) / (n * (n - 3))


def cknna_from_terms(kl: np.ndarray, kk: np.ndarray, ll: np.ndarray, n: int) -> np.ndarray:
    """CKNNA from the summed terms of the three masked pairs (nan where a self term is not positive)."""
    hkl, hkk, hll = hsic_from_terms(kl, n), hsic_from_terms(kk, n), hsic_from_terms(ll, n)
    den = hkk * hll
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, hkl / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)


def overlap_per_sentence(e: Entries, a: NeighborLists, b: NeighborLists) -> tuple[np.ndarray, np.ndarray]:
    """(shared neighbors, size of the union) per sentence, from the shared entries."""
    shared = np.bincount(e.rows, minlength=e.n).astype(np.float64)
    union = (np.asarray(a.ids) >= 0).sum(axis=1) + (np.asarray(b.ids) >= 0).sum(axis=1) - shared
    return shared, union


def jaccard_per_sentence(e: Entries, a: NeighborLists, b: NeighborLists) -> np.ndarray:
    """|NN_A(i) ∩ NN_B(i)| / |NN_A(i) ∪ NN_B(i)| per sentence (0 when both are empty)."""
    shared, union = overlap_per_sentence(e, a, b)
    return np.divide(shared, union, out=np.zeros_like(shared), where=union > 0)


def mutual_knn_from(a: NeighborLists, b: NeighborLists) -> float:
    """Mean |NN_A ∩ NN_B| / k: the project's N2O (`analyses.overlap.overlap_counts`) with every sentence a query."""
    _check_pair(a, b)
    return float((overlap_counts(a.ids, b.ids, a.k) / float(a.k)).mean())
