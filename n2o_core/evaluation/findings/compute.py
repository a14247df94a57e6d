"""Computing what the findings read, through the existing cores (pipeline + overlap for neighbors, heros.run for
minimal pairs, sts for human similarity, probe.run for probing, measures for linear CKA, analyses.seed_reference for
the same-recipe reference), and judging it (`result.judge`): `evidence`, `cka_matrix`, `check_finding`,
`check_findings`."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.findings.catalog import FINDINGS, finding
from n2o_core.evaluation.findings.result import FindingResult, judge
from n2o_core.evaluation.findings.verdict import (
    ALL_WORDS,
    CONTENT,
    HEROS,
    NEIGHBORS,
    NO_TFIDF,
    PROBE,
    STS,
    Evidence,
    Finding,
    N2OEvidence,
    PopularEvidence,
)
from n2o_core.runtime.progress import Progress, prefixed, report, scoped
from n2o_core.text import SBERT_STOP_WORDS, token_set

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.measures.run import FeatureMemo
    from n2o_core.storage.cache import Cache


#: Seeds per finding when none are asked for: three runs (seed, seed + 1, seed + 2), cheap where the embeddings are
#: shared (only the queries, and for HEROS the minimal pairs, change with the seed).
DEFAULT_SEEDS = 3


@dataclass(frozen=True)
class FindingParams:
    """How the evidence is computed: k (the papers' 50, capped at N − 1), the query samples (n_queries × n_samples,
    seed), minimal pairs per HEROS subset, m for popular neighbors (Table 2: top 5 of every embedder), items per
    class of each probing task (the probing page's default, `settings.PROBE_DEFAULT_PER_CLASS`), and the runs each
    finding is judged on: `n_seeds` seeds (seed, seed + 1, ...) × `sizes` (corpus sizes: fixed random samples of
    the corpus, seed 0, as --max-sentences draws them; empty: the corpus as it is). Every run counts alike; the
    numbers shown are the first run's (the first seed at the largest size). The seed draws the queries, the minimal
    pairs and the probing splits; the corpus sample is the same for every seed, so each size is embedded once."""

    k: int = 50
    n_queries: int = 100
    n_samples: int = 5
    seed: int = 0
    heros_pairs: int = 200
    popular_m: int = 5
    n_seeds: int = DEFAULT_SEEDS
    sizes: tuple[int, ...] = ()
    probe_per_class: int = 1000

    @property
    def run_seeds(self) -> tuple[int, ...]:
        return tuple(self.seed + i for i in range(max(self.n_seeds, 1)))

    def run_sizes(self, n: int) -> tuple[int, ...]:
        """The corpus sizes of the runs on a corpus of n sentences, largest first (a size ≥ n is the corpus)."""
        return tuple(sorted({min(s, n) for s in self.sizes} or {n}, reverse=True))


def popular_evidence(
    texts: Sequence[str],
    pool: np.ndarray,
    neighbors: Mapping[str, np.ndarray],
    k: int,
    m: int,
    stop_words: frozenset[str] | None = None,
) -> PopularEvidence:
    """Token overlap (content words when `stop_words` is given) of each pooled query with its popular neighbors
    (`overlap.popular_neighbors`: in every embedder's top m) and with all embedders' k neighbors (each neighbor
    slot once), averaged per query: one value of each per query with a popular neighbor."""
    from n2o_core.analyses.overlap import popular_neighbors

    memo: dict[int, frozenset[str]] = {}

    def ts(i: int) -> frozenset[str]:
        if i not in memo:
            t = token_set(texts[i])
            memo[i] = t - stop_words if stop_words else t
        return memo[i]

    names = list(neighbors)
    pop_vals, all_vals = [], []
    n_pop = 0
    for r, q in enumerate(np.asarray(pool)):
        qt = ts(int(q))
        if not qt:
            continue
        lists = {e: [int(i) for i in np.asarray(neighbors[e])[r, :k]] for e in names}
        pop = popular_neighbors(lists, m)
        if not pop:
            continue
        n_pop += len(pop)
        pop_vals.append(np.mean([len(qt & ts(i)) / len(qt) for i in pop]))
        slots = [i for e in names for i in lists[e] if i >= 0]
        all_vals.append(np.mean([len(qt & ts(i)) / len(qt) for i in slots]))
    return PopularEvidence(m, k, n_pop, np.asarray(pop_vals, float), np.asarray(all_vals, float))


def cka_matrix(ws: Workspace, names: Sequence[str], memo: FeatureMemo | None = None) -> pd.DataFrame:
    """Linear CKA (biased HSIC, Kornblith et al. 2019) of every two of `names` on every sentence of the workspace's
    corpus, from its cached embeddings, as the measures compute it (`measures.run.feature_matrix`: in feature
    space, never an N x N matrix; sparse tf-idf through its truncated SVD, `dense_view` with seed 0). What `memo`
    holds for this corpus is reused, what is computed is added to it: CKA does not depend on the query seed, so
    the seeds of one corpus size and the findings on other sets of the same embedders compute nothing again.
    Diagonal 1."""
    from n2o_core.measures.run import feature_matrix

    m = feature_matrix(ws.embeddings, list(names), memo=memo, scope=ws.corpus.fingerprint)
    return pd.DataFrame(m, index=list(names), columns=list(names))


def _cka_of(ws: Workspace, names: Sequence[str], memo: FeatureMemo | None) -> tuple[pd.DataFrame | None, str]:
    """The CKA matrix and how it was computed, or None and why not (the N2O evidence stands either way)."""
    from n2o_core.measures.run import TFIDF_SVD_DIM

    if len(names) < 2:
        return None, "fewer than 2 embedders"
    try:
        cka = cka_matrix(ws, names, memo)
    except N2OError as exc:
        return None, str(exc)
    svd = f"; tf-idf as its {TFIDF_SVD_DIM}-d truncated SVD" if "tfidf" in names else ""
    return cka, f"linear CKA on all {len(ws.corpus):,} sentences{svd}"


def neighbor_evidence(
    ws: Workspace,
    embedders: Sequence[str],
    params: FindingParams,
    progress: Progress | None = None,
    cka_cache: FeatureMemo | None = None,
) -> Evidence:
    """N2O (mean/std over the query samples, robustness across k and samples), token overlap and popular-neighbor
    overlap (content words and every word) for `embedders` on the workspace's corpus, through the pipeline
    (embeddings and neighbors at k_max come from the cache when computed before, e.g. by the dashboard), and the
    linear CKA matrix of the same embedders on every sentence (`cka_matrix`, values reused from `cka_cache`)."""
    from n2o_core.analyses.compare import comparison
    from n2o_core.analyses.overlap import (
        chance_level,
        k_grid,
        robustness_across_k,
        robustness_across_samples,
        token_overlap_report,
    )
    from n2o_core.limits import check_corpus_size, effective_k, k_max_for
    from n2o_core.pipeline import plan_queries, prepare_all

    n = len(ws.corpus)
    check_corpus_size(n)
    plan = plan_queries(n, params.n_queries, params.n_samples, params.seed)
    k_max = k_max_for(n)
    prepared = prepare_all(ws, list(embedders), plan, k_max, progress=progress)
    ev = Evidence(errors=dict(prepared.errors))
    k = effective_k(params.k, k_max)
    ev.setup = {
        "data": f"the current corpus ({ws.corpus.name})",
        "corpus": ws.corpus.name,
        "sentences": n,
        "k": k,
        "queries per sample": len(plan.samples[0]),
        "samples": len(plan.samples),
        "pooled queries": len(plan.pool),
        "seed": params.seed,
        "chance k/(N-1)": round(chance_level(k, n), 6),
        "search": "exact, raw cosine",
    }
    names = prepared.names
    if len(names) < 1:
        return ev
    res = comparison(prepared, k)
    mean = pd.DataFrame(res.mean, index=names, columns=names)
    std = pd.DataFrame(res.std, index=names, columns=names)
    rho_k = rho_s = None
    if len(names) >= 3:
        rho_k = robustness_across_k(prepared.ids_at(k_max), k_grid(k_max))
        if len(plan.samples) >= 2:
            rho_s = robustness_across_samples(res.sampled.per_sample)
    per = tuple(pd.DataFrame(m, index=names, columns=names) for m in res.sampled.per_sample)
    ev.n2o = N2OEvidence(mean, std, k, n, len(plan.samples[0]), len(plan.samples), rho_k, rho_s, per)
    report(progress, "linear CKA", 0, 1)
    ev.cka, ev.cka_note = _cka_of(ws, names, cka_cache)
    report(progress, "linear CKA", 1, 1)
    ids = prepared.ids_at(k)
    for words, stop in ((CONTENT, SBERT_STOP_WORDS), (ALL_WORDS, None)):
        df, rand = token_overlap_report(ws.corpus.texts, plan.pool, ids, k, stop_words=stop, seed=params.seed)
        ev.tokens[words] = df
        ev.random_tokens[words] = rand
        if len(names) >= 2:
            ev.popular[words] = popular_evidence(ws.corpus.texts, plan.pool, ids, k, params.popular_m, stop)
    no_tfidf = {e: v for e, v in ids.items() if e != "tfidf"}
    if "tfidf" in ids and len(no_tfidf) >= 2:
        ev.popular[NO_TFIDF] = popular_evidence(
            ws.corpus.texts, plan.pool, no_tfidf, k, params.popular_m, SBERT_STOP_WORDS
        )
    _seed_references(ws, ev, names, plan.samples, k, ids, progress)
    return ev


def _seed_references(
    ws: Workspace,
    ev: Evidence,
    names: Sequence[str],
    samples: Sequence[np.ndarray],
    k: int,
    ids: Mapping[str, np.ndarray],
    progress: Progress | None,
) -> None:
    """The same-recipe reference of every corpus-trained embedder in `names` (`analyses.seed_reference`), into
    `ev.seed_reference`; the training corpus's size into the setup. A failure is an error line, not a lost run."""
    from n2o_core.analyses.seed_reference import has_seed_reference, same_recipe_n2o

    trained = [e for e in names if has_seed_reference(ws, e)]
    if not trained:
        return
    ev.setup["corpus-trained embedders trained on"] = f"{len(ws.corpus.fit_texts):,} sentences"
    for i, e in enumerate(trained):
        report(progress, f"training {e} with another seed", i, len(trained))
        try:
            ref = same_recipe_n2o(ws, e, samples, k, own_ids=ids[e])
        except N2OError as exc:
            ev.errors[f"{e} (same-recipe reference)"] = str(exc)
            continue
        ev.seed_reference[e] = (ref.mean, ref.std)
    report(progress, "training with another seed", len(trained), len(trained))


def heros_evidence(
    ws: Workspace, embedders: Sequence[str], params: FindingParams, progress: Progress | None = None
) -> Evidence:
    """HEROS scores (normalized, raw cosine, 95% bootstrap CI per subset) of `embedders` on up to
    `params.heros_pairs` minimal pairs per subset made from the corpus (`heros.run.make_pairs`, cached)."""
    from n2o_core.evaluation.heros.run import make_pairs, score_embedder

    ps = make_pairs(ws, params.heros_pairs, params.seed, progress=scoped(progress, stage="making minimal pairs"))
    ev = Evidence()
    ev.setup = _corpus_setup(
        ws,
        "minimal pairs made",
        params.seed,
        {
            "pairs per subset (asked)": params.heros_pairs,
            "pairs per subset (made)": ps.counts() if not ps.pairs.empty else {},
            "originals": ps.n_originals,
            "scoring": "raw cosine, (s − b)/(1 − b)",
        },
    )
    if ps.pairs.empty:
        ev.errors["pairs"] = "no minimal pairs could be made from this corpus"
        return ev
    frames, per_pair = [], []
    for i, e in enumerate(embedders):
        report(progress, "scoring", i, len(embedders), e)
        try:
            scores = score_embedder(ws, ps.pairs, e, seed=params.seed)
        except N2OError as exc:
            ev.errors[e] = str(exc)
            continue
        frames.append(scores.results)
        b = scores.baseline
        per_pair.append(
            pd.DataFrame(
                {
                    "embedder": e,
                    "subset": ps.pairs["subset"].astype(str).to_numpy(),
                    "original": ps.pairs["original"].astype(str).to_numpy(),
                    "normalized": (scores.cosines - b) / (1.0 - b) if b < 1.0 else np.nan,
                }
            )
        )
    report(progress, "scoring", len(embedders), len(embedders))
    ev.heros = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    ev.heros_pairs = pd.concat(per_pair, ignore_index=True) if per_pair else None
    return ev


def _corpus_setup(ws: Workspace, made: str, seed: int, more: Mapping[str, Any]) -> dict[str, Any]:
    """A run's setup on the current corpus: what was made from it, the corpus and its size, the seed, then `more`."""
    corpus = ws.corpus
    data = {"data": f"{made} from the current corpus ({corpus.name})", "corpus": corpus.name}
    return data | {"sentences": len(corpus), "seed": seed} | dict(more)


def probe_evidence(
    ws: Workspace, embedders: Sequence[str], params: FindingParams, progress: Progress | None = None
) -> Evidence:
    """Probing accuracies (every task, logistic regression and the MLP) of `embedders` on tasks built from the
    corpus (`probe.run.run_probe`: parsed, built, embedded and read out once, cached), at
    `params.probe_per_class` items per class at most, with the run's seed (splits and classifiers)."""
    from n2o_core.evaluation.probe.run import run_probe

    ev = Evidence()
    ev.setup = _corpus_setup(
        ws, "probing tasks built", params.seed, {"items per class (at most)": params.probe_per_class}
    )
    try:
        res = run_probe(
            ws, list(embedders), per_class=params.probe_per_class, seed=params.seed, progress=progress, skip_failed=True
        )
    except N2OError as exc:
        ev.errors["probing"] = str(exc)
        return ev
    ev.errors.update(res.errors)
    ev.probe = res.results
    ev.probe_tasks = res.tasks
    ev.setup["tasks built"] = int(res.tasks["skipped"].isna().sum())
    return ev


def sts_evidence(cache: Cache, embedders: Sequence[str], progress: Progress | None = None) -> Evidence:
    """Pearson / Spearman of cosine vs human scores, raw and z-normalized (`sts.run_sts`), on gensim's Lee pairs;
    corpus-trained embedders are fit on gensim's Lee background corpus (`builtin:lee-news`), as `sts` does."""
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.evaluation.pairs.sources import load_pairs
    from n2o_core.evaluation.sts import run_sts

    pairs = load_pairs("builtin:lee", cache=cache)
    fit = load_corpus("builtin:lee-news", cache_dir=cache.root)
    ws = Workspace(fit, cache=cache)
    ev = Evidence()
    ev.setup = {
        "data": "gensim's Lee pairs, not the current corpus",
        "pairs": pairs.source.label,
        "rated pairs": len(pairs),
        "corpus-trained embedders fit on": fit.name,
    }
    frames = []
    for i, e in enumerate(embedders):
        report(progress, "correlating", i, len(embedders), e)
        try:
            frames.append(run_sts(ws, pairs, [e]).results)
        except N2OError as exc:
            ev.errors[e] = str(exc)
    report(progress, "correlating", len(embedders), len(embedders))
    ev.sts = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return ev


def _one_evidence(
    ws: Workspace, f: Finding, params: FindingParams, progress: Progress | None, cka_cache: FeatureMemo
) -> Evidence:
    if f.analysis == NEIGHBORS:
        return neighbor_evidence(ws, f.embedders, params, progress, cka_cache)
    if f.analysis == HEROS:
        return heros_evidence(ws, f.embedders, params, progress)
    if f.analysis == PROBE:
        return probe_evidence(ws, f.embedders, params, progress)
    if f.analysis == STS:
        ev = sts_evidence(ws.cache, f.embedders, progress)
        ev.setup["runs"] = "one: the Lee pairs do not change with the seed or the corpus size"
        return ev
    raise N2OError(f"Unknown analysis '{f.analysis}'.")


def evidence(
    ws: Workspace,
    f: Finding,
    params: FindingParams = FindingParams(),
    progress: Progress | None = None,
    cka_cache: FeatureMemo | None = None,
) -> Evidence:
    """What finding `f` needs, computed for its own embedders (`f.embedders`) through the cores, on every run
    (`params.run_seeds` × `params.run_sizes`): the first run (first seed, largest size) with the other runs in
    its `replicates`, every run judged alike. The human-similarity findings read gensim's Lee pairs, the same on
    every run: one run. Linear CKA is computed once per corpus size and embedder pair (kept in `cka_cache`; a new
    one when None)."""
    from n2o_core.corpora.corpus import sample_corpus
    from n2o_core.corpus_workspace import Workspace as _Ws
    from n2o_core.measures.run import FeatureMemo

    cache = FeatureMemo() if cka_cache is None else cka_cache
    if f.analysis == STS:
        return _one_evidence(ws, f, params, progress, cache)
    runs = [(size, seed) for size in params.run_sizes(len(ws.corpus)) for seed in params.run_seeds]
    out: Evidence | None = None
    spaces: dict[int, Workspace] = {}
    for i, (size, seed) in enumerate(runs):
        if size not in spaces:
            spaces[size] = ws if size >= len(ws.corpus) else _Ws(sample_corpus(ws.corpus, size, 0), cache=ws.cache)
        tag = f"run {i + 1}/{len(runs)} (seed {seed}, {size:,} sentences): " if len(runs) > 1 else ""
        ev = _one_evidence(spaces[size], f, replace(params, seed=seed), prefixed(progress, tag), cache)
        if out is None:
            out = ev
        else:
            out.replicates.append(ev)
    assert out is not None
    return out


def check_finding(
    ws: Workspace, f: Finding | str, params: FindingParams = FindingParams(), progress: Progress | None = None
) -> FindingResult:
    """Compute the evidence finding `f` needs and judge it."""
    f = finding(f) if isinstance(f, str) else f
    t0 = time.perf_counter()
    ev = evidence(ws, f, params, progress)
    return judge(f, ev, time.perf_counter() - t0)


def check_findings(
    ws: Workspace,
    ids: Sequence[str] | None = None,
    params: FindingParams = FindingParams(),
    progress: Progress | None = None,
    *,
    keep: bool = False,
) -> list[FindingResult]:
    """Check the findings with these ids (default: all), in catalogue order. Findings of one analysis with the same
    embedders share one computation. With `keep`, the results are kept in the workspace's cache for this corpus and
    these parameters (`store`), where the dashboard's findings page finds them."""
    from n2o_core.evaluation.findings.estimate import timing_of
    from n2o_core.evaluation.findings.store import save_results, save_timing
    from n2o_core.measures.run import FeatureMemo
    from n2o_core.pipeline import embeddings_cached

    chosen = [finding(i) for i in ids] if ids else list(FINDINGS)
    shared: dict[tuple[str, tuple[str, ...]], tuple[Evidence, float]] = {}
    cka_cache = FeatureMemo()
    out = []
    n = len(ws.corpus)
    for f in chosen:
        key = (f.analysis, f.embedders)
        if key not in shared:
            missing = {e for e in f.embedders if f.analysis == NEIGHBORS and not embeddings_cached(ws, e)}
            t0 = time.perf_counter()
            ev = evidence(ws, f, params, progress, cka_cache)
            shared[key] = (ev, time.perf_counter() - t0)
            if keep:  # how long it took here, for the page's estimate of the next check
                sizes, secs = params.run_sizes(n), shared[key][1]
                timing = timing_of(f.analysis, sizes, params.n_seeds, params.heros_pairs, f.embedders, n, secs, missing)
                save_timing(ws.cache, f.analysis, timing)
        ev, secs = shared[key]
        out.append(judge(f, ev, secs))
    if keep:
        save_results(ws.cache, ws.corpus.fingerprint, params, out)
    return out
