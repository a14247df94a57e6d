"""Every measure of one family for every pair of embedders, with its null and bootstrap, sharing the work: the one
implementation of each measure (the tests hold the plain formulas as their oracle,
tests/measures/reference_formulas.py). Each family's measures are `family_ids(family)` of the `MEASURES` table.

Each family prepares every embedder once and draws the same permutations and resamples for all its pairs:

- neighborhood (`NeighborFamily`): the k-NN lists of every sentence. A permutation relabels B's lists
  (O(n k)); a bootstrap resample weights the per-sentence terms by how often each sentence was drawn.
- feature (`FeatureFamily`): `FeatureSpace`s on every sentence (values: one draw of the batched formulas from the
  pair's cross-product, `batched.values`) and on the null rows; the draws run in each side's singular basis
  (`batched.pair_values`): a chunk of permutations costs one batched m x ra x rb product and
  batched small eigendecompositions (Procrustes, CCA); a resample of the null rows recomputes their spaces
  (O(m d^2) per embedder).
- kernel (`KernelFamily`): triangles on the kernel rows (values, `pairwise.PairwiseSpace`) and dense float32
  matrices on the null rows; a permutation gathers B's entries at the permuted upper triangle and diagonal once
  (the matrices are symmetric) and takes one dot product per pair and measure; a resample is a quadratic form in
  the draw counts (c^T (K o L) c and K c), each embedder's own terms computed once for all its pairs, no gather.

Independent work (embedders' spaces, pairs, chunks of draws) runs on `batched.map_threads`, BLAS at one thread.
Each family's `run` reports its progress as the share of its units of work done (pairs' values, draws), in
ten-thousandths (`FAMILY_STEPS`) of stage "measures", to an optional `progress`, called in the calling thread.

Values are keyed by (a, b, measure) with (a, b) an ordered pair: both orders for asymmetric measures.
`VALUE_ONLY` measures (`Measure.draws` False: the released code's PWCCA) get their value and no draws: each draw
would need its own full SVD in the original dimensions (whose signs the value depends on), minutes for the
default draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

import n2o_core.measures.neighborhood as nb
from n2o_core.errors import N2OError
from n2o_core.measures import MEASURES, family_ids
from n2o_core.measures.batched import CHUNK, Basis, basis, map_threads, pair_values, values
from n2o_core.measures.feature_space import FeatureSpace, cross, feature_space
from n2o_core.measures.pairwise import (
    DenseKernels,
    PairwiseSpace,
    dense_kernels,
    pairwise_space,
    rbf_cka,
    tri_correlation,
)
from n2o_core.measures.pwcca_released import pwcca_released_pair
from n2o_core.runtime.progress import Progress, report

Key = tuple[str, str, str]  # (a, b, measure)

#: Each family's measure ids, in the order of `MEASURES` (the one table).
NEIGHBOR_IDS = family_ids("neighborhood")
FEATURE_IDS = family_ids("feature")
KERNEL_IDS = family_ids("kernel")
#: Measures computed without a permutation null or a bootstrap (`Measure.draws`; see the module docstring).
VALUE_ONLY = tuple(m.id for m in MEASURES if not m.draws)


@dataclass
class FamilyResult:
    """Values, their bootstrap and null draws, and the rows they were computed on."""

    value: dict[Key, float] = field(default_factory=dict)
    boot: dict[Key, np.ndarray] = field(default_factory=dict)
    null: dict[Key, np.ndarray] = field(default_factory=dict)
    null_observed: dict[Key, float] = field(default_factory=dict)  # the value on the null's rows
    n: int = 0  # sentences of the values
    null_n: int = 0  # sentences of the null
    boot_n: int = 0  # sentences the bootstrap resamples (its CI is rescaled by sqrt(boot_n / n) when smaller)


#: A family reports its share of work done as this many steps of stage "measures" (its units are not whole).
FAMILY_STEPS = 10_000


class _Units:
    """Counts units of work done and reports the share done, in FAMILY_STEPS steps, to `progress` (if any)."""

    def __init__(self, total: float, progress: Progress | None):
        self.total, self.done, self.progress = max(total, 1.0), 0.0, progress

    def __call__(self, units: float = 1.0) -> None:
        self.done += units
        report(self.progress, "measures", round(FAMILY_STEPS * min(1.0, self.done / self.total)), FAMILY_STEPS)


def pairs_of(names: Sequence[str]) -> list[tuple[str, str]]:
    """Unordered pairs in the order given."""
    return list(combinations(names, 2))


def _stack(rows: list[dict[Key, float]], keys: list[Key]) -> dict[Key, np.ndarray]:
    return {key: np.array([r.get(key, np.nan) for r in rows], np.float64) for key in keys}


# --------------------------------------------------------------------------- neighborhood


class NeighborFamily:
    """mutual_knn, jaccard_knn and cknna from every sentence's k-NN lists."""

    def __init__(self, lists: dict[str, nb.NeighborLists], measures: Sequence[str]):
        self.lists = lists
        self.measures = [m for m in NEIGHBOR_IDS if m in measures]
        self.names = list(lists)
        self.n = next(iter(lists.values())).n
        self.k = next(iter(lists.values())).k
        self._own = {e: nb.hsic_terms(nb.own_entries(x)).sum(axis=0) for e, x in lists.items()}
        self._keys = {e: nb.sorted_keys(x) for e, x in lists.items()}

    def _pair(
        self, a: str, lb: nb.NeighborLists, b: str, b_keys: tuple[np.ndarray, np.ndarray] | None = None
    ) -> dict[Key, float]:
        la = self.lists[a]
        e = nb.shared_entries(la, lb, self._keys[a], b_keys)
        out: dict[Key, float] = {}
        if "mutual_knn" in self.measures:
            out[(a, b, "mutual_knn")] = float(e.keys.size / (self.n * self.k))
        if "jaccard_knn" in self.measures:
            out[(a, b, "jaccard_knn")] = float(nb.jaccard_per_sentence(e, la, lb).mean())
        if "cknna" in self.measures:
            kl = nb.hsic_terms(e).sum(axis=0)
            lk = nb.hsic_terms(e.swapped()).sum(axis=0)
            out[(a, b, "cknna")] = float(nb.cknna_from_terms(kl, self._own[a], self._own[b], self.n))
            out[(b, a, "cknna")] = float(nb.cknna_from_terms(lk, self._own[b], self._own[a], self.n))
        return out

    def _null_rows(self, pairs: list[tuple[str, str]], perms: np.ndarray) -> list[dict[Key, float]]:
        """Every pair's values with B's rows shuffled by each permutation (B's relabelled lists sorted once)."""
        rows: list[dict[Key, float]] = []
        for p in perms:
            row: dict[Key, float] = {}
            shuffled = {b: self.lists[b].permuted(p) for b in self.names[1:]}
            keys = {b: nb.sorted_keys(lb) for b, lb in shuffled.items()}
            for a, b in pairs:
                row.update(self._pair(a, shuffled[b], b, keys[b]))
            rows.append(row)
        return rows

    def run(self, perms: np.ndarray, draws: np.ndarray, progress: Progress | None = None) -> FamilyResult:
        """Values on every sentence; null over `perms` (rows of B shuffled); bootstrap over `draws`."""
        res = FamilyResult(n=self.n, null_n=self.n, boot_n=self.n)
        pairs = pairs_of(self.names)
        units = _Units(len(pairs) + len(perms) + (len(pairs) if len(draws) else 0), progress)
        for a, b in pairs:
            res.value.update(self._pair(a, self.lists[b], b))
            if "mutual_knn" in self.measures:  # the project's N2O itself
                res.value[(a, b, "mutual_knn")] = nb.mutual_knn_from(self.lists[a], self.lists[b])
            units()
        res.null_observed = dict(res.value)
        keys = list(res.value)
        chunks = [perms[s : s + CHUNK] for s in range(0, len(perms), CHUNK)]
        sizes = iter([len(P) for P in chunks])
        parts = map_threads(lambda P: self._null_rows(pairs, P), chunks, count_done=lambda: units(next(sizes)))
        res.null = _stack([row for part in parts for row in part], keys)
        if len(draws):
            res.boot = self._bootstrap(pairs, draws)
        units(len(pairs))
        return res

    def _bootstrap(self, pairs: list[tuple[str, str]], draws: np.ndarray) -> dict[Key, np.ndarray]:
        W = np.stack([np.bincount(d, minlength=self.n) for d in draws]).astype(np.float64)
        own = {e: W @ nb.hsic_terms(nb.own_entries(x)) for e, x in self.lists.items()}
        out: dict[Key, np.ndarray] = {}
        for a, b in pairs:
            la, lb = self.lists[a], self.lists[b]
            e = nb.shared_entries(la, lb)
            if "mutual_knn" in self.measures:
                shared, _ = nb.overlap_per_sentence(e, la, lb)
                out[(a, b, "mutual_knn")] = W @ shared / (self.n * self.k)
            if "jaccard_knn" in self.measures:
                out[(a, b, "jaccard_knn")] = W @ nb.jaccard_per_sentence(e, la, lb) / self.n
            if "cknna" in self.measures:
                out[(a, b, "cknna")] = nb.cknna_from_terms(W @ nb.hsic_terms(e), own[a], own[b], self.n)
                out[(b, a, "cknna")] = nb.cknna_from_terms(W @ nb.hsic_terms(e.swapped()), own[b], own[a], self.n)
        return out


# --------------------------------------------------------------------------- feature space


def feature_values(
    a: FeatureSpace, b: FeatureSpace, C: np.ndarray, names: tuple[str, str], measures: Sequence[str]
) -> dict[Key, float]:
    """Every requested feature-space measure of the pair from C = Ac^T Bc (both orders for asymmetric ones): the
    batched formulas on one draw (`batched.values`), and the released code's PWCCA (`pwcca_released`)."""
    out = values(a, b, C, names, [m for m in measures if m != "pwcca_released"])
    if "pwcca_released" in measures:
        ea, eb = names
        out[(ea, eb, "pwcca_released")], out[(eb, ea, "pwcca_released")] = pwcca_released_pair(a, b, C)
    return out


class FeatureFamily:
    """The feature-space measures: values on every sentence, null on `null_rows`."""

    def __init__(self, arrays: dict[str, np.ndarray], measures: Sequence[str], null_rows: np.ndarray):
        self.arrays = arrays
        self.measures = [m for m in FEATURE_IDS if m in measures]
        self.names = list(arrays)
        self.n = next(iter(arrays.values())).shape[0]
        self.null_rows = np.asarray(null_rows)

    def run(self, perms: np.ndarray, draws: np.ndarray, progress: Progress | None = None) -> FamilyResult:
        """Values on every sentence; null over `perms` and bootstrap over `draws` of the null rows (batched
        draws in each side's singular basis, `batched.pair_values`, on `batched.WORKERS` threads)."""
        m = self.null_rows.size
        res = FamilyResult(n=self.n, null_n=m, boot_n=m)
        pairs = pairs_of(self.names)
        units = _Units(len(pairs) + len(perms) + len(draws), progress)
        spaces = dict(zip(self.names, map_threads(feature_space, [self.arrays[e] for e in self.names]), strict=True))

        def value(pair: tuple[str, str]) -> dict[Key, float]:
            a, b = pair
            return feature_values(spaces[a], spaces[b], cross(spaces[a], spaces[b]), (a, b), self.measures)

        for got in map_threads(value, pairs, count_done=units):
            res.value.update(got)
        spaces.clear()
        drawn = [m for m in self.measures if m not in VALUE_ONLY]
        keys = [key for key in res.value if key[2] in drawn]
        if not drawn:  # nothing to draw: no null rows, no draws
            units(len(perms) + len(draws))
            return res
        small = dict(
            zip(
                self.names,
                map_threads(
                    lambda e: feature_space(np.asarray(self.arrays[e][self.null_rows], np.float64)), self.names
                ),
                strict=True,
            )
        )
        centered = {e: s.centered() for e, s in small.items()}
        bases = {e: basis(small[e], centered[e]) for e in self.names}
        for a, b in pairs:  # the value on the null's rows: the identity permutation, computed as the draws are
            one = pair_values(bases[a], bases[b], (bases[a].U.T @ bases[b].U)[None], (a, b), drawn)
            res.null_observed.update({key: float(v[0]) for key, v in one.items()})
        chunks = [perms[s : s + CHUNK] for s in range(0, len(perms), CHUNK)]
        sizes = iter([len(P) for P in chunks])
        done = map_threads(lambda P: self._null_chunk(bases, P), chunks, count_done=lambda: units(next(sizes)))
        res.null = _concat(done, keys)
        if len(draws):
            res.boot = _concat(map_threads(lambda d: self._resample(centered, d), list(draws), count_done=units), keys)
        return res

    def _null_chunk(self, bases: dict[str, Basis], P: np.ndarray) -> dict[Key, np.ndarray]:
        """Every pair's null values for the permutations P (T, m) of B's rows: M = Ua^T Ub[p], batched."""
        out: dict[Key, np.ndarray] = {}
        for j, b in enumerate(self.names[1:], start=1):
            bb = bases[b]
            Ub, row_sq = bb.U[P], bb.row_sq[P]
            for a in self.names[:j]:
                out.update(pair_values(bases[a], bb, bases[a].U.T @ Ub, (a, b), self.measures, row_sq))
        return out

    def _resample(self, centered: dict[str, np.ndarray], d: np.ndarray) -> dict[Key, np.ndarray]:
        """Every pair's values on one resample d of the null rows (each side re-centered and re-decomposed)."""
        bs = {}
        for e, c in centered.items():
            sp = feature_space(c[d])
            bs[e] = basis(sp, sp.centered())
        out: dict[Key, np.ndarray] = {}
        for a, b in pairs_of(self.names):
            out.update(pair_values(bs[a], bs[b], (bs[a].U.T @ bs[b].U)[None], (a, b), self.measures))
        return out


def _concat(parts: list[dict[Key, np.ndarray]], keys: list[Key]) -> dict[Key, np.ndarray]:
    """The draws of every key, in order (nan where a part lacks the key)."""
    return {
        key: np.concatenate([p.get(key, np.full(1, np.nan)) for p in parts]) if parts else np.zeros(0) for key in keys
    }


# --------------------------------------------------------------------------- kernel (pairwise)


def _stacked(dk: DenseKernels, measures: Sequence[str]) -> np.ndarray:
    """(len(measures), m*m) float32: the unit-norm matrices a permutation gathers, one row per measure."""
    src = {"cka_rbf": dk.Kc, "rsa_pearson": dk.Dc, "rsa_spearman": dk.Rc}
    return np.ascontiguousarray(np.stack([src[m].ravel() for m in measures]), np.float32)


def _halves(stacked: np.ndarray, m: int) -> np.ndarray:
    """(measures, m(m-1)/2 + m) float32: each stacked symmetric m x m matrix's strict upper triangle, doubled, then
    its diagonal (so that one dot product with B's gathered entries gives <A, P B P^T>)."""
    iu, ju = np.triu_indices(m, 1)
    flat = np.concatenate([iu * m + ju, np.arange(m) * (m + 1)])
    out = stacked[:, flat]
    out[:, : iu.size] *= np.float32(2.0)
    return np.ascontiguousarray(out)


def _form(C: np.ndarray, M: np.ndarray) -> np.ndarray:
    """c^T M c for every resample's draw counts c (the rows of C, R x m)."""
    return np.einsum("ru,ru->r", C @ M, C)


@dataclass
class _BootSide:
    """One embedder's share of the kernel bootstrap, for draw counts C (R x m), computed once for all its pairs:

    - `rbf`: (K, K c (R x m), t = c^T K c, the resample's biased HSIC(K, K));
    - `offdiag` (per RSA measure): the off-diagonal matrix X (zero diagonal: a sentence paired with its own copy
      is left out) and its weighted sums c^T X c and c^T (X o X) c."""

    rbf: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
    offdiag: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)


def _boot_side(dk: DenseKernels, C: np.ndarray, measures: Sequence[str]) -> _BootSide:
    side = _BootSide()
    if "cka_rbf" in measures:
        n = C.sum(axis=1)
        KC = C @ dk.K
        t = np.einsum("ru,ru->r", KC, C)
        kk = _form(C, dk.K * dk.K) - 2.0 * np.einsum("ru,ru->r", KC * KC, C) / n + t**2 / n**2
        side.rbf = (dk.K, KC, t, kk)
    off = ~np.eye(C.shape[1], dtype=bool)
    for msr, X in (("rsa_spearman", dk.R), ("rsa_pearson", dk.D)):
        if msr in measures:
            Xo = np.where(off, X, 0.0)
            side.offdiag[msr] = (Xo, _form(C, Xo), _form(C, Xo * Xo))
    return side


def _rbf_cka_counts(a: _BootSide, b: _BootSide, C: np.ndarray) -> np.ndarray:
    """Biased-HSIC CKA of K[idx][:, idx] and L[idx][:, idx] for every resample, from its draw counts C (R x m):
    HSIC = c^T (K o L) c - 2 (Kc o Lc)^T c / n + (c^T K c)(c^T L c) / n^2."""
    if a.rbf is None or b.rbf is None:
        raise N2OError("RBF bootstrap sums were not prepared.")
    (K, KC, tk, kk), (L, LC, tl, ll) = a.rbf, b.rbf
    n = C.sum(axis=1)
    kl = _form(C, K * L) - 2.0 * np.einsum("ru,ru->r", KC * LC, C) / n + tk * tl / n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return kl / np.sqrt(kk * ll)


def _unit_offdiag_moments(a: _BootSide, b: _BootSide, w: np.ndarray, C: np.ndarray, msr: str) -> np.ndarray:
    """Pearson correlation over the off-diagonal pairs of a resample with draw counts C (R x m): each pair
    (u, v), u != v, weighted by c_u c_v (a sentence paired with its own copy is left out); `w` = the weights'
    sum per resample."""
    Xo, sx, sxx = a.offdiag[msr]
    Yo, sy, syy = b.offdiag[msr]
    sxy = _form(C, Xo * Yo)
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy / w - sx * sy / w**2
        vx = sxx / w - (sx / w) ** 2
        vy = syy / w - (sy / w) ** 2
        return cov / np.sqrt(vx * vy)


class KernelFamily:
    """RBF CKA and RSA: values on the kernel rows, null and bootstrap on the null rows (a subset of them)."""

    def __init__(self, arrays: dict[str, np.ndarray], measures: Sequence[str], null_positions: np.ndarray):
        """`arrays`: each embedder's dense rows of the kernel sample; `null_positions`: the null rows among them."""
        self.arrays = arrays
        self.measures = [m for m in KERNEL_IDS if m in measures]
        self.names = list(arrays)
        self.n = next(iter(arrays.values())).shape[0]
        self.null_positions = np.asarray(null_positions)

    def _space(self, e: str) -> PairwiseSpace:
        want = set(self.measures)
        return pairwise_space(
            self.arrays[e], rbf="cka_rbf" in want, dist="rsa_pearson" in want, rank="rsa_spearman" in want
        )

    def _values(self, spaces: dict[str, PairwiseSpace], pair: tuple[str, str]) -> dict[Key, float]:
        a, b = pair
        sa, sb = spaces[a], spaces[b]
        out: dict[Key, float] = {}
        if "cka_rbf" in self.measures:
            out[(a, b, "cka_rbf")] = rbf_cka(sa, sb)
        if "rsa_spearman" in self.measures:
            out[(a, b, "rsa_spearman")] = tri_correlation(sa.rank, sb.rank)
        if "rsa_pearson" in self.measures:
            out[(a, b, "rsa_pearson")] = tri_correlation(sa.dist, sb.dist)
        return out

    def _null_row(self, mats: dict[str, np.ndarray], halves: dict[str, np.ndarray], p: np.ndarray) -> dict[Key, float]:
        """Every pair's sums for one permutation p of the null rows. The matrices are symmetric, so
        sum_ij A_ij B_{p_i p_j} = 2 sum_{i<j} A_ij B_{p_i p_j} + sum_i A_ii B_{p_i p_i}: each B's entries at the
        permuted upper triangle and diagonal are gathered once (half of the matrix) and met with A's own
        (`_halves`) in one float32 BLAS dot product per pair and measure (enough for a null draw)."""
        m = p.size
        iu, ju = np.triu_indices(m, 1)
        idx = np.concatenate([p[iu] * m + p[ju], p * m + p])  # B's flat positions: upper triangle, then diagonal
        row: dict[Key, float] = {}
        for j, b in enumerate(self.names[1:], start=1):
            gathered = [np.take(mats[b][q], idx) for q in range(len(self.measures))]
            for a in self.names[:j]:
                row.update(
                    {(a, b, msr): float(np.dot(halves[a][q], gathered[q])) for q, msr in enumerate(self.measures)}
                )
        return row

    def run(self, perms: np.ndarray, draws: np.ndarray, progress: Progress | None = None) -> FamilyResult:
        """Values on the kernel rows; null over `perms` and bootstrap over `draws` of the null rows."""
        m = self.null_positions.size
        res = FamilyResult(n=self.n, null_n=m, boot_n=m)
        pairs = pairs_of(self.names)
        # the embedders' triangles are most of the work: 60% of the bar, values 5%, null 25%, bootstrap 10%
        units = _Units(100.0, progress)
        spaces = dict(
            zip(self.names, map_threads(self._space, self.names, count_done=lambda: units(60 / len(self.names))))
        )
        for got in map_threads(
            lambda pair: self._values(spaces, pair), pairs, count_done=lambda: units(5 / len(pairs))
        ):
            res.value.update(got)
        sigmas = {e: s.sigma or 1.0 for e, s in spaces.items()}
        spaces.clear()  # the triangles: 3 x 2 n^2 bytes per embedder
        dense = {e: dense_kernels(X[self.null_positions], sigmas[e]) for e, X in self.arrays.items()}
        mats = {e: _stacked(d, self.measures) for e, d in dense.items()}
        halves = {e: _halves(x, m) for e, x in mats.items()}
        keys = [(a, b, msr) for a, b in pairs for msr in self.measures]
        res.null_observed = self._null_row(mats, halves, np.arange(m))  # the same sums, rows as they are
        step = 25 / max(len(perms), 1)
        res.null = _stack(
            map_threads(lambda p: self._null_row(mats, halves, p), list(perms), count_done=lambda: units(step)), keys
        )
        if len(draws):
            C = np.stack([np.bincount(d, minlength=m) for d in draws]).astype(np.float64)
            w = _form(C, (~np.eye(m, dtype=bool)).astype(np.float64))
            sides = dict(zip(self.names, map_threads(lambda e: _boot_side(dense[e], C, self.measures), self.names)))

            def boot(pair: tuple[str, str]) -> dict[Key, np.ndarray]:
                a, b = pair
                sa, sb = sides[a], sides[b]
                out: dict[Key, np.ndarray] = {}
                if "cka_rbf" in self.measures:
                    out[(a, b, "cka_rbf")] = _rbf_cka_counts(sa, sb, C)
                for msr in ("rsa_spearman", "rsa_pearson"):
                    if msr in self.measures:
                        out[(a, b, msr)] = _unit_offdiag_moments(sa, sb, w, C, msr)
                return out

            for drawn in map_threads(boot, pairs, count_done=lambda: units(10 / len(pairs))):
                res.boot.update(drawn)
        return res
