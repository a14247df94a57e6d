"""Computing what the findings read, through the existing cores (pipeline + overlap for neighbors, heros.run for
minimal pairs, sts for human similarity), and judging it: `evidence`, `judge`, `check_finding`, `check_findings`."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.findings.catalog import FINDINGS, finding
from n2o_core.evaluation.findings.verdict import (
    ALL_WORDS,
    CONTENT,
    HEROS,
    NEIGHBORS,
    STS,
    Evidence,
    Finding,
    FindingResult,
    N2OEvidence,
    PopularEvidence,
    Progress,
    Verdict,
)
from n2o_core.text import SBERT_STOP_WORDS, token_set

if TYPE_CHECKING:
    from n2o_core.storage.cache import Cache
    from n2o_core.workspace import Workspace


@dataclass(frozen=True)
class FindingParams:
    """How the evidence is computed: k (the papers' 50, capped at N − 1), the query samples (n_queries × n_samples,
    seed), minimal pairs per HEROS subset, and m for popular neighbors (Table 2: top 5 of every embedder)."""

    k: int = 50
    n_queries: int = 100
    n_samples: int = 5
    seed: int = 0
    heros_pairs: int = 200
    popular_m: int = 5


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
    slot once), averaged per query; mean and 95% t-interval over the queries with a popular neighbor."""
    from n2o_core.analyses.overlap import mean_ci, popular_neighbors

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
    return PopularEvidence(m, k, len(pop_vals), n_pop, mean_ci(np.array(pop_vals)), mean_ci(np.array(all_vals)))


def neighbor_evidence(
    ws: Workspace, embedders: Sequence[str], params: FindingParams, progress: Progress | None = None
) -> Evidence:
    """N2O (mean/std over the query samples, robustness across k and samples), token overlap and popular-neighbor
    overlap (content words and every word) for `embedders` on the workspace's corpus, through the pipeline
    (embeddings and neighbors at k_max come from the cache when computed before, e.g. by the dashboard)."""
    from n2o_core.analyses.compare import comparison
    from n2o_core.analyses.overlap import k_grid, robustness_across_k, robustness_across_samples, token_overlap_report
    from n2o_core.limits import check_corpus_size, effective_k, k_max_for
    from n2o_core.pipeline import plan_queries, prepare_all

    n = len(ws.corpus)
    check_corpus_size(n)
    plan = plan_queries(n, params.n_queries, params.n_samples, params.seed)
    k_max = k_max_for(n)
    on_stage = (lambda e, stage, d, t: progress(f"{stage} {e}", d, t)) if progress else None
    prepared = prepare_all(ws, list(embedders), plan, k_max, on_stage=on_stage)
    ev = Evidence(errors=dict(prepared.errors))
    k = effective_k(params.k, k_max)
    ev.setup = {
        "corpus": ws.corpus.name,
        "sentences": n,
        "k": k,
        "queries per sample": len(plan.samples[0]),
        "samples": len(plan.samples),
        "pooled queries": len(plan.pool),
        "seed": params.seed,
        "chance k/(N-1)": round(k / (n - 1), 6),
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
    ev.n2o = N2OEvidence(mean, std, k, n, len(plan.samples[0]), len(plan.samples), rho_k, rho_s)
    ids = prepared.ids_at(k)
    for words, stop in ((CONTENT, SBERT_STOP_WORDS), (ALL_WORDS, None)):
        df, rand = token_overlap_report(ws.corpus.texts, plan.pool, ids, k, stop_words=stop, seed=params.seed)
        ev.tokens[words] = df
        ev.random_tokens[words] = rand
        if len(names) >= 2:
            ev.popular[words] = popular_evidence(ws.corpus.texts, plan.pool, ids, k, params.popular_m, stop)
    return ev


def heros_evidence(
    ws: Workspace, embedders: Sequence[str], params: FindingParams, progress: Progress | None = None
) -> Evidence:
    """HEROS scores (normalized, raw cosine, 95% bootstrap CI per subset) of `embedders` on up to
    `params.heros_pairs` minimal pairs per subset made from the corpus (`heros.run.make_pairs`, cached)."""
    from n2o_core.evaluation.heros.run import make_pairs, score_embedder

    ps = make_pairs(
        ws,
        params.heros_pairs,
        params.seed,
        progress=(lambda d, t: progress("making minimal pairs", d, t)) if progress else None,
    )
    ev = Evidence()
    ev.setup = {
        "corpus": ws.corpus.name,
        "sentences": len(ws.corpus),
        "pairs per subset (asked)": params.heros_pairs,
        "pairs per subset (made)": ps.counts() if not ps.pairs.empty else {},
        "originals": ps.n_originals,
        "seed": params.seed,
        "scoring": "raw cosine, (s − b)/(1 − b)",
    }
    if ps.pairs.empty:
        ev.errors["pairs"] = "no minimal pairs could be made from this corpus"
        return ev
    frames = []
    for i, e in enumerate(embedders):
        if progress:
            progress(f"scoring {e}", i, len(embedders))
        try:
            frames.append(score_embedder(ws, ps.pairs, e, seed=params.seed).results)
        except N2OError as exc:
            ev.errors[e] = str(exc)
    if progress:
        progress("scoring", len(embedders), len(embedders))
    ev.heros = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return ev


def sts_evidence(cache: Cache, embedders: Sequence[str], progress: Progress | None = None) -> Evidence:
    """Pearson / Spearman of cosine vs human scores, raw and z-normalized (`sts.run_sts`), on gensim's Lee pairs;
    corpus-trained embedders are fit on gensim's Lee background corpus (`builtin:lee-news`), as `sts` does."""
    from n2o_core.corpora import load_corpus
    from n2o_core.evaluation.pairs.sources import load_pairs
    from n2o_core.evaluation.sts import run_sts
    from n2o_core.workspace import Workspace

    pairs = load_pairs("builtin:lee", cache=cache)
    fit = load_corpus("builtin:lee-news", cache_dir=cache.root)
    ws = Workspace(fit, cache=cache)
    ev = Evidence()
    ev.setup = {"pairs": pairs.source.label, "rated pairs": len(pairs), "corpus-trained embedders fit on": fit.name}
    frames = []
    for i, e in enumerate(embedders):
        if progress:
            progress(f"correlating {e}", i, len(embedders))
        try:
            frames.append(run_sts(ws, pairs, [e]).results)
        except N2OError as exc:
            ev.errors[e] = str(exc)
    if progress:
        progress("correlating", len(embedders), len(embedders))
    ev.sts = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return ev


def evidence(
    ws: Workspace, f: Finding, params: FindingParams = FindingParams(), progress: Progress | None = None
) -> Evidence:
    """What finding `f` needs, computed for its own embedders (`f.embedders`) through the cores."""
    if f.analysis == NEIGHBORS:
        return neighbor_evidence(ws, f.embedders, params, progress)
    if f.analysis == HEROS:
        return heros_evidence(ws, f.embedders, params, progress)
    if f.analysis == STS:
        return sts_evidence(ws.cache, f.embedders, progress)
    raise N2OError(f"Unknown analysis '{f.analysis}'.")


def judge(f: Finding, ev: Evidence, seconds: float = 0.0) -> FindingResult:
    """Apply the finding's check (and its alternative) to computed evidence: pure."""
    v = f.check(ev)
    if v.passed is None and ev.errors:
        v = Verdict(None, v.summary + " (" + "; ".join(f"{e}: {m}" for e, m in ev.errors.items()) + ")")
    alt = f.alternative[1](ev) if f.alternative else None
    return FindingResult(f, v, alt, dict(ev.setup), dict(ev.errors), seconds)


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
) -> list[FindingResult]:
    """Check the findings with these ids (default: all), in catalogue order. Findings of one analysis with the same
    embedders share one computation."""
    chosen = [finding(i) for i in ids] if ids else list(FINDINGS)
    shared: dict[tuple[str, tuple[str, ...]], tuple[Evidence, float]] = {}
    out = []
    for f in chosen:
        key = (f.analysis, f.embedders)
        if key not in shared:
            t0 = time.perf_counter()
            ev = evidence(ws, f, params, progress)
            shared[key] = (ev, time.perf_counter() - t0)
        ev, secs = shared[key]
        out.append(judge(f, ev, secs))
    return out
