"""Similarity measures beyond N2O (n2o_core.measures) on real BBC News sentences, against plain NumPy / SciPy /
scikit-learn code in the same run.

    python benchmarks/bench_measures.py [--n 5000] [--embedder ID ...] [--k 10] [--permutations 100]
                                        [--bootstrap 100] [--full-n 0] [--baseline-reps 1] [--baseline-pairs 1]
                                        [--no-save]

1. Every measure for every pair of the embedders (default: the dashboard's six, DASHBOARD_EMBEDDERS, 15 pairs) on
   `--n` sentences (default 5,000), nulls and bootstrap intervals included (`compare_measures`, the CLI's call),
   from cached embeddings and neighbors: a warm-up call fills the cache first (embedding, every-sentence search)
   and is reported apart. Target: <= 20 s on the 2-core machine.
   Per measure, ours alone (that measure only, nulls included) against the baseline, same sentences, same
   process: the plain formulas, one measure and pair at a time, the tests' oracle
   (tests/measures/reference_formulas.py) -- n x n Gram matrices (CKA, HSIC), dense cosine distances + scipy
   spearmanr / pearsonr (RSA), np.linalg.svd (Procrustes, CCA), np.linalg.lstsq (regression), the released
   code's steps for its PWCCA (tests/measures/svcca_reference.py), dense cosine k-NN sets (mutual k-NN, Jaccard,
   CKNNA's masks) -- each value computed `--baseline-reps` times on the first
   `--baseline-pairs` pairs (default 1: the n x n formulas take 1-25 s per value at n = 5,000), its mean time
   per pair times the number of pairs; a plain null and bootstrap recompute the value once per permutation and
   resample, so their time is that x (permutations + bootstrap). Both are extrapolated (said in the output).
   Ratio = ours / baseline (lower is better), per measure and in total (the full call against the sum).
2. Linear CKA of every pair on all sentences of the corpus (`--full-n 0`: every one, ~38k), feature space:
   per-embedder preparation and per-pair time, against plain NumPy on the centered float64 arrays. Target:
   <= 1 s per pair.

Peak memory: tracemalloc's peak of traced allocations (NumPy arrays included) of each timed call, taken in a second,
traced call (the times are of untraced calls: tracing slows NumPy's allocations), and the process's peak RSS at
the end. Writes results/measures.{json,txt} unless --no-save (the lead records results on a
quiet machine: run it through /work/shared/tools/when-quiet).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "measures"))  # the baseline: the oracle
from _common import Recorder  # noqa: E402
from reference_formulas import REFERENCE  # noqa: E402  (imported here: its imports are not part of a timing)

MB = 2**20


def _timed(fn, memory: bool = True):
    """(result, seconds, peak traced MB) of fn(): timed untraced (tracemalloc made the full call 8% slower:
    34.8 s against 32.1 s), then, when `memory`, called once more under tracemalloc for its peak (else 0.0)."""
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    peak = 0.0
    if memory:
        tracemalloc.start()
        try:
            fn()
            peak = tracemalloc.get_traced_memory()[1] / MB
        finally:
            tracemalloc.stop()
    return out, seconds, peak


# --------------------------------------------------------------------------- plain baseline, one value at a time


def _center(X):
    X = np.asarray(X, np.float64)
    return X - X.mean(0)


def baseline_value(measure: str, A, B, k: int) -> float:
    """One measure of one pair by its plain formula (dense n x n where the definition is): the tests' oracle."""
    try:
        return REFERENCE[measure](A, B, k)
    except np.linalg.LinAlgError:  # the released code's PWCCA fails on a rank-deficient side
        return float("nan")


# --------------------------------------------------------------------------- parts


def part_all_measures(rec: Recorder, args, ws, ids) -> None:
    from n2o_core.measures import MEASURE_IDS
    from n2o_core.measures.engine import VALUE_ONLY
    from n2o_core.measures.run import compare_measures, dense_view

    kw = dict(permutations_=args.permutations, bootstrap=args.bootstrap, subsample=args.n, seed=0)
    _, warm_s, _ = _timed(
        lambda: compare_measures(ws, ids, args.k, ["mutual_knn"], permutations_=0, bootstrap=0), memory=False
    )
    rec.add(part="warm-up (embed + every-sentence search, cached for the timed call)", seconds=warm_s)
    res, ours_s, ours_mb = _timed(lambda: compare_measures(ws, ids, args.k, **kw))
    n = len(ws.corpus)
    pairs = list(combinations(ids, 2))
    rec.add(
        part=f"every measure, {len(ids)} embedders ({len(pairs)} pairs), n={n}, nulls included",
        seconds=ours_s,
        target_s=20.0,
        peak_traced_mb=round(ours_mb, 1),
        permutations=args.permutations,
        bootstrap=args.bootstrap,
        null_subsample=res.null_subsample,
    )
    # the plain n x n formulas take seconds to minutes per value at n = 5,000: time them on the first
    # --baseline-pairs pairs only and extrapolate to every pair and to the draws (said in each row)
    timed_pairs = pairs[: max(1, args.baseline_pairs)]
    dense = {e: dense_view(ws.embeddings(e)) for e in ids}
    draws = args.permutations + args.bootstrap
    base_total, ours_sum = 0.0, 0.0
    for msr in MEASURE_IDS:  # per-measure time of ours (each measure alone, nulls included), for the ratio
        _, s, mb = _timed(lambda m=msr: compare_measures(ws, ids, args.k, [m], **kw))
        ours_sum += s
        per_pair = []
        for a, b in timed_pairs:
            t0 = time.perf_counter()
            for _ in range(args.baseline_reps):
                baseline_value(msr, dense[a], dense[b], args.k)
            per_pair.append((time.perf_counter() - t0) / args.baseline_reps)
        values_s = float(np.mean(per_pair)) * len(pairs)
        drawn = 0 if msr in VALUE_ONLY else draws  # a value-only measure (the released PWCCA) has no draws
        base_s = values_s * (1 + drawn)
        base_total += base_s
        rec.add(
            measure=msr,
            ours_s=s,
            ours_peak_traced_mb=round(mb, 1),
            baseline_pairs_timed=", ".join(f"{a}~{b}" for a, b in timed_pairs),
            baseline_s_per_pair=float(np.mean(per_pair)),
            baseline_values_s_extrapolated=values_s,
            baseline_with_nulls_s_extrapolated=base_s,
            ratio=s / base_s if base_s > 0 else None,
            note=(
                f"baseline: values timed on {len(timed_pairs)} of {len(pairs)} pairs, x {len(pairs)} pairs, "
                f"null + CI = value time x {drawn} draws (extrapolated)"
            ),
        )
    rec.add(
        part="total over measures",
        ours_full_call_s=ours_s,
        ours_sum_of_single_measure_calls_s=ours_sum,
        baseline_with_nulls_s_extrapolated=base_total,
        ratio=ours_s / base_total if base_total > 0 else None,
        note="ratio: the full call against the sum of the plain baselines (extrapolated)",
    )


def part_breakdown(rec: Recorder, args, ws, ids) -> None:
    """Where the full call's time goes: each family's wall time in one more full call (timers around each
    family's `run`), and a floor for the feature family's draws: the eigendecompositions one draw needs at its
    sizes (per pair: Procrustes' and SVCCA's singular values, PWCCA's vectors; per resample also each side's),
    timed alone at one BLAS thread on random matrices of those sizes, x draws, / 2 cores."""
    import os

    from threadpoolctl import threadpool_limits

    import n2o_core.measures.engine as eng
    from n2o_core.measures.batched import kept_directions
    from n2o_core.measures.feature_space import feature_space
    from n2o_core.measures.run import NULL_SUBSAMPLE, compare_measures, dense_view

    walls: dict[str, float] = {}
    saved = {cls: cls.run for cls in (eng.NeighborFamily, eng.FeatureFamily, eng.KernelFamily)}

    def timed(cls):
        def run(self, *a, **kw):
            t0 = time.perf_counter()
            try:
                return saved[cls](self, *a, **kw)
            finally:
                walls[cls.__name__] = time.perf_counter() - t0

        return run

    for cls in saved:
        cls.run = timed(cls)
    try:
        kw = dict(permutations_=args.permutations, bootstrap=args.bootstrap, subsample=args.n, seed=0)
        _, total, _ = _timed(lambda: compare_measures(ws, ids, args.k, **kw), memory=False)
    finally:
        for cls, fn in saved.items():
            cls.run = fn
    rows = np.sort(np.random.default_rng([0, 0]).permutation(len(ws.corpus))[:NULL_SUBSAMPLE])
    spaces = {e: feature_space(np.asarray(dense_view(ws.embeddings(e))[rows], np.float64)) for e in ids}
    rank = {e: sp.svals.size for e, sp in spaces.items()}
    keep = {e: kept_directions(sp) for e, sp in spaces.items()}
    rng = np.random.default_rng(0)

    def spd(d: int) -> np.ndarray:
        X = rng.standard_normal((max(d, 1) * 2, max(d, 1)))
        return X.T @ X

    def once(fn, d: int, reps: int = 5) -> float:
        M = spd(d)
        fn(M)
        t0 = time.perf_counter()
        for _ in range(reps):
            fn(M)
        return (time.perf_counter() - t0) / reps

    with threadpool_limits(limits=1, user_api="blas"):
        per_perm = sum(
            once(np.linalg.eigvalsh, min(rank[a], rank[b]))
            + once(np.linalg.eigvalsh, min(keep[a], keep[b]))
            + once(np.linalg.eigh, min(rank[a], rank[b]))
            for a, b in combinations(ids, 2)
        )
        per_side = sum(once(np.linalg.eigh, rank[e]) for e in ids)
    cores = min(2, os.cpu_count() or 1)
    floor = (per_perm * args.permutations + (per_perm + per_side) * args.bootstrap) / cores
    rec.add(
        part="breakdown of the full call (wall seconds per family)",
        full_call_s=total,
        neighborhood_s=walls.get("NeighborFamily"),
        feature_space_s=walls.get("FeatureFamily"),
        kernel_s=walls.get("KernelFamily"),
        rest_s=total - sum(walls.values()),
        feature_ranks=", ".join(f"{e}={rank[e]} (SVCCA keeps {keep[e]})" for e in ids),
        decompositions_per_permutation_s=per_perm,
        decompositions_per_resample_s=per_perm + per_side,
        feature_draws_decompositions_floor_s=floor,
        note=(
            f"floor: the feature family's eigendecompositions alone, {args.permutations} permutations + "
            f"{args.bootstrap} resamples on {NULL_SUBSAMPLE:,} sentences, one BLAS thread each, spread over {cores} "
            "cores; the products, the kernel and neighborhood families come on top"
        ),
    )


def part_full_linear_cka(rec: Recorder, args, ids) -> None:
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.measures.feature_space import feature_space
    from n2o_core.measures.run import FeatureMemo, dense_view, feature_matrix
    from n2o_core.storage.cache import Cache

    cache = Cache(args.cache_dir)
    corpus = load_corpus(args.corpus, max_sentences=args.full_n or None, cache_dir=cache.root)
    ws = Workspace(corpus, cache=cache)
    arrays = {e: dense_view(ws.embeddings(e)) for e in ids}  # tf-idf's SVD is not part of the CKA time
    spaces = {}
    prep_s = 0.0
    for e, X in arrays.items():
        spaces[e], s, _ = _timed(lambda X=X: feature_space(X))
        prep_s += s
    pair_s, base_s, mb_ours, mb_base = [], [], 0.0, 0.0
    for a, b in combinations(ids, 2):

        def ours(a=a, b=b):  # the matrix findings call, the two spaces prepared (timed above)
            memo = FeatureMemo(spaces={("", a): spaces[a], ("", b): spaces[b]})
            return feature_matrix(arrays.__getitem__, [a, b], memo=memo)[0, 1]

        v, s, mb = _timed(ours)
        pair_s.append(s)
        mb_ours = max(mb_ours, mb)

        def plain(a=a, b=b):
            Ac, Bc = _center(arrays[a]), _center(arrays[b])
            return np.linalg.norm(Ac.T @ Bc) ** 2 / (np.linalg.norm(Ac.T @ Ac) * np.linalg.norm(Bc.T @ Bc))

        w, s2, mb2 = _timed(plain)
        base_s.append(s2)
        mb_base = max(mb_base, mb2)
        assert abs(v - w) < 1e-6, (a, b, v, w)
    npairs = len(pair_s)
    per_pair = (prep_s + sum(pair_s)) / npairs
    rec.add(
        part=f"linear CKA on all {len(corpus):,} sentences, {npairs} pairs",
        prep_per_embedder_s=prep_s / len(ids),
        per_pair_s_incl_prep_share=per_pair,
        max_pair_s=max(pair_s),
        target_per_pair_s=1.0,
        baseline_per_pair_s=float(np.mean(base_s)),
        ratio=per_pair / float(np.mean(base_s)),
        peak_traced_mb=round(mb_ours, 1),
        baseline_peak_traced_mb=round(mb_base, 1),
    )


def main() -> None:
    from n2o_core.corpora.specs import DEFAULT_CORPUS
    from n2o_core.settings import DASHBOARD_EMBEDDERS

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default=DEFAULT_CORPUS)
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--embedder", action="append", default=[])
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--permutations", type=int, default=100)
    p.add_argument("--bootstrap", type=int, default=100)
    p.add_argument("--baseline-reps", type=int, default=1)
    p.add_argument(
        "--baseline-pairs", type=int, default=1, help="pairs the plain baseline times per measure (then extrapolated)"
    )
    p.add_argument("--full-n", type=int, default=0, help="sentences of part 2 (0: the whole corpus); -1 skips it")
    p.add_argument("--cache-dir", default=None)
    p.add_argument("--no-save", action="store_true")
    p.add_argument("--breakdown", action="store_true", help="also time each family and the draws' floor")
    p.add_argument("--name", default="measures", help="results/<name>.{json,txt} (default %(default)s)")
    args = p.parse_args()
    ids = args.embedder or list(DASHBOARD_EMBEDDERS)

    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    rec = Recorder(args.name)
    cache = Cache(args.cache_dir)
    corpus = load_corpus(args.corpus, max_sentences=args.n, cache_dir=cache.root)
    ws = Workspace(corpus, cache=cache)
    rec.log(f"# corpus {corpus.name}: {len(corpus)} sentences; embedders {', '.join(ids)}")
    part_all_measures(rec, args, ws, ids)
    if args.breakdown:
        part_breakdown(rec, args, ws, ids)
    if args.full_n >= 0:
        part_full_linear_cka(rec, args, ids)
    rec.add(peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
    if not args.no_save:
        rec.save()


if __name__ == "__main__":
    main()
