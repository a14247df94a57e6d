"""The seeds' qualitative findings, checked live on the current corpus with the built-in embedders.

Each `Finding` states one claim of a paper (quoted, with its section), names the embedders it needs, the
analysis it rests on and how sentences are composed / scored, and writes its rule out: a pure check function
turns computed results (`Evidence`) into a `Verdict` -- passed (✓), failed (✗, with its numbers) or None
(could not be checked, with the reason). `evidence(ws, finding, params)` computes what one finding needs through
the existing cores (pipeline + overlap for neighbors, heros.run for minimal pairs, sts for human similarity);
`check_finding` / `check_findings` put the two together.

    params = FindingParams(k=50, n_queries=100, n_samples=5, seed=0, heros_pairs=200)
    results = check_findings(ws, params=params)        # every finding in FINDINGS
    for r in results: print(r.mark, r.finding.title, r.verdict.summary)

Settings are the papers' unless stated: N2O findings use k = 50 (capped at N - 1), the pooled query samples,
exact search on raw cosine (no z-normalization); HEROS findings use Heros' normalization (s - b)/(1 - b) on pairs
made from the corpus; the human-similarity findings use gensim's Lee pairs (the corpus has no human scores).
Several findings have a second composition (stop words kept vs dropped) evaluated beside the one the verdict
uses, so the effect of the composition is shown, never hidden. Claims about models that are not available
offline (ELMo, BERT, GPT, InferSent, USE, ...) are mapped to an offline analogue only where that is faithful;
the others are listed in `NOT_TESTABLE` with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.text import SBERT_STOP_WORDS, SBERT_STOP_WORDS_NAME, token_set

if TYPE_CHECKING:
    from n2o_core.storage.cache import Cache
    from n2o_core.workspace import Workspace

#: progress(stage text, done, total)
Progress = Callable[[str, int, int], None]

NEIGHBORS, HEROS, STS = "neighbors", "heros", "sts"
PAPERS = {
    "N2O": "Lin & Smith (2019), Situating Sentence Embedders with Nearest Neighbor Overlap",
    "Pitfalls": "Eger et al. (2019), Pitfalls in the Evaluation of Sentence Embeddings",
    "Heros": "Chiang et al., Revealing the Blind Spot of Sentence Encoder Evaluation by Heros",
}
#: Token-overlap compositions: content words (the token overlap page's default) or every word.
CONTENT, ALL_WORDS = "content", "all"


# =====================================================================================================================
# results


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: passed (True ✓ / False ✗ / None: not checked), one line with the numbers, the
    numbers by label, and an optional table of the values the rule looked at."""

    passed: bool | None
    summary: str
    numbers: dict[str, float] = field(default_factory=dict)
    table: pd.DataFrame | None = None

    @property
    def mark(self) -> str:
        return mark(self.passed)


def mark(passed: bool | None) -> str:
    """✓ for True, ✗ for False, – for None (not checked)."""
    return "✓" if passed is True else "✗" if passed is False else "–"


def _unchecked(why: str) -> Verdict:
    return Verdict(None, f"not checked: {why}")


@dataclass(frozen=True)
class N2OEvidence:
    """Mean and std (across query samples) of N2O for every embedder pair at k, with the run's sizes, and the
    Spearman ρ between pair rankings across k and across samples (None when not computable)."""

    mean: pd.DataFrame
    std: pd.DataFrame
    k: int
    corpus_size: int
    n_queries: int
    n_samples: int
    rho_k: pd.DataFrame | None = None
    rho_samples: pd.DataFrame | None = None

    @property
    def chance(self) -> float:
        return self.k / (self.corpus_size - 1)

    @property
    def names(self) -> list[str]:
        return list(self.mean.index)


@dataclass(frozen=True)
class PopularEvidence:
    """Token overlap with the query of its popular neighbors (in every embedder's top m) and of all the embedders'
    k neighbors, over the queries that have at least one popular neighbor: mean and 95% t-interval over queries."""

    m: int
    k: int
    n_queries: int
    n_popular: int
    popular: tuple[float, float, float]  # mean, ci_low, ci_high
    neighbors: tuple[float, float, float]


@dataclass
class Evidence:
    """What the checks read: any of N2O, token overlap (per composition), popular neighbors (per composition),
    HEROS scores (heros.score.RESULT_COLUMNS) and human-similarity correlations (sts.RESULT_COLUMNS)."""

    n2o: N2OEvidence | None = None
    tokens: dict[str, pd.DataFrame] = field(default_factory=dict)
    random_tokens: dict[str, float] = field(default_factory=dict)
    popular: dict[str, PopularEvidence] = field(default_factory=dict)
    heros: pd.DataFrame | None = None
    sts: pd.DataFrame | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


Check = Callable[[Evidence], Verdict]


@dataclass(frozen=True)
class Finding:
    """One qualitative finding of a paper, the embedders and analysis it needs, and its rule.

    `statement`: the paper's words (quoted) or a close paraphrase; `tested`: what is computed here (the offline
    analogue, when one is used, is named); `scoring`: the composition / scoring the verdict uses; `alternative`:
    (label, check) of a second composition shown beside it."""

    id: str
    paper: str
    where: str
    title: str
    statement: str
    tested: str
    analysis: str
    embedders: tuple[str, ...]
    rule: str
    scoring: str
    check: Check
    alternative: tuple[str, Check] | None = None
    paper_numbers: str = ""


@dataclass(frozen=True)
class Untestable:
    """A finding of a paper this tool cannot check offline, and why."""

    paper: str
    where: str
    statement: str
    reason: str


@dataclass
class FindingResult:
    """A finding with its verdict (and the alternative composition's), the setup it was computed with, the
    embedders that failed and the time it took."""

    finding: Finding
    verdict: Verdict
    alternative: Verdict | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def mark(self) -> str:
        return self.verdict.mark

    def to_json(self) -> dict[str, Any]:
        f = self.finding
        out: dict[str, Any] = {
            "id": f.id,
            "paper": f.paper,
            "where": f.where,
            "title": f.title,
            "statement": f.statement,
            "tested": f.tested,
            "embedders": list(f.embedders),
            "rule": f.rule,
            "scoring": f.scoring,
            "paper_numbers": f.paper_numbers,
            "passed": self.verdict.passed,
            "summary": self.verdict.summary,
            "numbers": _json_numbers(self.verdict.numbers),
            "setup": self.setup,
            "errors": self.errors,
            "seconds": round(self.seconds, 2),
        }
        if self.alternative is not None and f.alternative is not None:
            out["alternative"] = {
                "scoring": f.alternative[0],
                "passed": self.alternative.passed,
                "summary": self.alternative.summary,
                "numbers": _json_numbers(self.alternative.numbers),
            }
        return out


def _json_numbers(d: Mapping[str, float]) -> dict[str, float | None]:
    return {k: (round(float(v), 6) if v is not None and np.isfinite(v) else None) for k, v in d.items()}


# =====================================================================================================================
# pure checks: N2O


def _f(x: float) -> str:
    return f"{x:.3f}"


def _missing(have: Sequence[str], need: Sequence[str]) -> list[str]:
    s = set(have)
    return [e for e in need if e not in s]


def group_agreement(
    mean: pd.DataFrame, group: Sequence[str], others: Sequence[str], std: pd.DataFrame | None = None
) -> Verdict:
    """Mean N2O within `group` (every unordered pair) vs mean N2O between a group member and an embedder in
    `others`. ✓ when within > between. `std` (across query samples) is shown beside each pair when given."""
    miss = _missing(mean.index, [*group, *others])
    if miss:
        return _unchecked(f"no N2O for {', '.join(miss)}")
    pairs = [(a, b, "within") for a, b in combinations(group, 2)] + [(g, o, "between") for g in group for o in others]
    t = pd.DataFrame(
        [
            {"a": a, "b": b, "kind": kind, "n2o": float(mean.loc[a, b])}
            | ({"std": float(std.loc[a, b])} if std is not None else {})
            for a, b, kind in pairs
        ]
    )
    within = float(t.loc[t["kind"] == "within", "n2o"].mean())
    between = float(t.loc[t["kind"] == "between", "n2o"].mean())
    ratio = within / between if between > 0 else float("inf")
    ok = within > between
    return Verdict(
        ok,
        f"mean N2O within {_f(within)} {'>' if ok else '≤'} between {_f(between)} (ratio {ratio:.2f})",
        {"within": within, "between": between, "ratio": ratio},
        t,
    )


def further_than_analogue(
    mean: pd.DataFrame,
    target: str,
    analogue: str,
    others: Sequence[str],
    max_ratio: float,
    std: pd.DataFrame | None = None,
) -> Verdict:
    """Mean N2O of `target` with `others` vs that of its `analogue` (the same model without the design choice)
    with the same embedders. ✓ when target's ≤ max_ratio × analogue's. `std` (across query samples) is shown
    beside each value when given."""
    miss = _missing(mean.index, [target, analogue, *others])
    if miss:
        return _unchecked(f"no N2O for {', '.join(miss)}")
    if not others:
        return _unchecked("no other embedder to compare with")
    cols: dict[str, list] = {"other": list(others)}
    for e in (target, analogue):
        cols[e] = [float(mean.loc[e, o]) for o in others]
        if std is not None:
            cols[f"{e} std"] = [float(std.loc[e, o]) for o in others]
    t = pd.DataFrame(cols)
    mt, ma = float(t[target].mean()), float(t[analogue].mean())
    ratio = mt / ma if ma > 0 else float("inf")
    lower = int((t[target] < t[analogue]).sum())
    ok = mt <= max_ratio * ma
    return Verdict(
        ok,
        f"mean N2O with the {len(others)} others: {target} {_f(mt)} vs {analogue} {_f(ma)} (ratio {ratio:.2f} "
        f"{'≤' if ok else '>'} {max_ratio}); lower for {lower} of {len(others)}",
        {f"{target} mean N2O": mt, f"{analogue} mean N2O": ma, "ratio": ratio, "lower for": lower},
        t,
    )


def above_chance(n2o: N2OEvidence, z: float = 2.0) -> Verdict:
    """Every pair's mean N2O minus z std across query samples exceeds the chance level k/(N-1). ✓ when the
    smallest such lower edge is above chance (with one sample the std is 0 and the mean is used)."""
    names = n2o.names
    if len(names) < 2:
        return _unchecked("fewer than 2 embedders")
    rows = [
        {"a": a, "b": b, "n2o": float(n2o.mean.loc[a, b]), "std": float(n2o.std.loc[a, b])}
        for a, b in combinations(names, 2)
    ]
    t = pd.DataFrame(rows)
    t["lower"] = t["n2o"] - z * t["std"]
    t = t.sort_values("lower", ignore_index=True)
    low = t.iloc[0]
    ok = bool(low["lower"] > n2o.chance)
    return Verdict(
        ok,
        f"lowest pair {low['a']} · {low['b']}: {_f(low['n2o'])} − {z:g}·{low['std']:.3f} = {_f(low['lower'])} "
        f"{'>' if ok else '≤'} chance {n2o.chance:.4f} ({low['n2o'] / n2o.chance:.1f}× chance); "
        f"highest pair {_f(t['n2o'].max())}",
        {
            "lowest pair N2O": float(low["n2o"]),
            "its lower edge": float(low["lower"]),
            "chance": n2o.chance,
            "highest pair N2O": float(t["n2o"].max()),
        },
        t,
    )


def rankings_stable(rho: pd.DataFrame | None, threshold: float, what: str) -> Verdict:
    """Mean Spearman ρ between the embedder-pair rankings of every two settings (off the diagonal). ✓ when the
    mean is ≥ threshold."""
    if rho is None or len(rho) < 2:
        return _unchecked(f"needs at least 2 {what}")
    from n2o_core.analyses.overlap import off_diagonal_summary

    s = off_diagonal_summary(rho.to_numpy())
    if not np.isfinite(s["mean"]):
        return _unchecked("needs at least 3 embedders (3 pairs) for a ranking")
    ok = s["mean"] >= threshold
    return Verdict(
        ok,
        f"mean ρ {_f(s['mean'])} {'≥' if ok else '<'} {threshold} (min {_f(s['min'])}) over {len(rho)} {what}",
        {"mean rho": s["mean"], "min rho": s["min"]},
        rho,
    )


# =====================================================================================================================
# pure checks: token overlap


def _token_table(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["embedder", "mean", "ci_low", "ci_high", "n"]].sort_values("mean", ascending=False, ignore_index=True)


def highest_by_factor(frame: pd.DataFrame, target: str, factor: float) -> Verdict:
    """`target`'s mean token overlap vs the highest of the other embedders. ✓ when ≥ factor × that."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return _unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    v = float(t.loc[t["embedder"] == target, "mean"].iloc[0])
    rest = t[t["embedder"] != target]
    nxt = rest.iloc[0]
    ratio = v / float(nxt["mean"]) if nxt["mean"] > 0 else float("inf")
    ok = ratio >= factor
    return Verdict(
        ok,
        f"{target} {_f(v)} vs next {nxt['embedder']} {_f(nxt['mean'])}: ratio {ratio:.2f} {'≥' if ok else '<'} "
        f"{factor}",
        {target: v, f"next ({nxt['embedder']})": float(nxt["mean"]), "ratio": ratio},
        t,
    )


def lowest(frame: pd.DataFrame, target: str) -> Verdict:
    """`target`'s mean token overlap vs every other embedder's. ✓ when it is strictly the lowest."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return _unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    v = float(t.loc[t["embedder"] == target, "mean"].iloc[0])
    rest = t[t["embedder"] != target]
    low = rest.iloc[-1]
    ok = v < float(low["mean"])
    rank = int((t["mean"] > v).sum()) + 1
    return Verdict(
        ok,
        f"{target} {_f(v)} {'<' if ok else '≥'} lowest other {low['embedder']} {_f(low['mean'])} "
        f"({target} ranks {rank} of {len(t)}, 1 = highest)",
        {target: v, f"lowest other ({low['embedder']})": float(low["mean"])},
        t,
    )


_MCI = ("mean", "ci_low", "ci_high")


def popular_share_more_words(pe: PopularEvidence | None) -> Verdict:
    """Token overlap of popular neighbors vs of all the embedders' k neighbors, same queries. ✓ when the popular
    neighbors' 95% CI lies entirely above the other's."""
    if pe is None or pe.n_queries < 2:
        return _unchecked("fewer than 2 queries have a neighbor in every embedder's top m")
    pm, plo, _ = pe.popular
    nm, _, nhi = pe.neighbors
    ok = plo > nhi
    t = pd.DataFrame(
        [
            {
                "neighbors": f"popular (top {pe.m} of every embedder)",
                "mean": pm,
                "ci_low": plo,
                "ci_high": pe.popular[2],
            },
            {"neighbors": f"every embedder's top {pe.k}", "mean": nm, "ci_low": pe.neighbors[1], "ci_high": nhi},
        ]
    )
    return Verdict(
        ok,
        f"popular {_f(pm)} [{_f(plo)}, {_f(pe.popular[2])}] vs all neighbors {_f(nm)} [{_f(pe.neighbors[1])}, "
        f"{_f(nhi)}] over {pe.n_queries} queries ({pe.n_popular} popular neighbors): CIs "
        f"{'apart' if ok else 'not apart'}",
        {"popular": pm, "all neighbors": nm, "queries": pe.n_queries},
        t,
    )


# =====================================================================================================================
# pure checks: HEROS (results frame: embedder, subset, n, raw, normalized, ci_low, ci_high)


def _subset_rows(results: pd.DataFrame, eid: str, subsets: Sequence[str]) -> pd.DataFrame | str:
    if results is None or results.empty or eid not in set(results["embedder"]):
        return f"no HEROS scores for {eid}"
    r = results[results["embedder"] == eid].set_index("subset")
    miss = [s for s in subsets if s not in r.index]
    if miss:
        return f"no {', '.join(miss)} pairs could be made from this corpus"
    return r.loc[list(subsets), ["normalized", "ci_low", "ci_high", "n"]]


def negation_far_above(results: pd.DataFrame, eid: str, factor: float = 0.5) -> Verdict:
    """Both negation subsets vs Synonym and Antonym, in distance from identity d = 1 − s' (normalized). ✓ when
    d(negation) ≤ factor × d(synonym) and ≤ factor × d(antonym) for both negation subsets (a negation moves the
    vector at most `factor` as far as a one-word swap)."""
    subs = ("synonym", "antonym", "negation_main", "negation_antonym")
    r = _subset_rows(results, eid, subs)
    if isinstance(r, str):
        return _unchecked(r)
    s = r["normalized"].astype(float)
    d = 1.0 - s
    ratios = {
        f"d({n})/d({ref})": (float(d[n] / d[ref]) if d[ref] > 0 else (0.0 if d[n] <= 0 else float("inf")))
        for n in ("negation_main", "negation_antonym")
        for ref in ("synonym", "antonym")
    }
    worst = max(ratios.values())
    ok = worst <= factor
    return Verdict(
        ok,
        f"{eid}: negation (main) {_f(s['negation_main'])}, negation (antonym) {_f(s['negation_antonym'])} vs "
        f"synonym {_f(s['synonym'])}, antonym {_f(s['antonym'])}; largest d(negation)/d(swap) {worst:.2f} "
        f"{'≤' if ok else '>'} {factor}",
        {**{sub: float(s[sub]) for sub in subs}, "largest ratio": worst},
        r.reset_index(),
    )


def main_below_antonym(results: pd.DataFrame, eids: Sequence[str], share: float = 0.8) -> Verdict:
    """Per embedder: normalized Negation (Main) < Negation (Antonym)? ✓ when that holds for ≥ `share` of the
    embedders scored (a tie counts as not below)."""
    rows = []
    for e in eids:
        r = _subset_rows(results, e, ("negation_main", "negation_antonym"))
        if isinstance(r, str):
            continue
        m, a = float(r.loc["negation_main", "normalized"]), float(r.loc["negation_antonym", "normalized"])
        rows.append({"embedder": e, "negation_main": m, "negation_antonym": a, "main below": m < a})
    if not rows:
        return _unchecked("no embedder has both negation subsets")
    t = pd.DataFrame(rows)
    n_ok = int(t["main below"].sum())
    frac = n_ok / len(t)
    ok = frac >= share
    return Verdict(
        ok,
        f"Negation (Main) < Negation (Antonym) for {n_ok} of {len(t)} embedders ({frac:.0%} "
        f"{'≥' if ok else '<'} {share:.0%})",
        {"embedders below": n_ok, "embedders": len(t), "share": frac},
        t,
    )


def negations_above_synonym(results: pd.DataFrame, eid: str) -> Verdict:
    """Both negation subsets vs Synonym (normalized). ✓ when both are higher."""
    subs = ("synonym", "negation_main", "negation_antonym")
    r = _subset_rows(results, eid, subs)
    if isinstance(r, str):
        return _unchecked(r)
    s = r["normalized"].astype(float)
    ok = bool(s["negation_main"] > s["synonym"] and s["negation_antonym"] > s["synonym"])
    return Verdict(
        ok,
        f"{eid}: negation (main) {_f(s['negation_main'])}, negation (antonym) {_f(s['negation_antonym'])} vs "
        f"synonym {_f(s['synonym'])}: {'both above' if ok else 'not both above'}",
        {sub: float(s[sub]) for sub in subs},
        r.reset_index(),
    )


def antonym_clearly_below_synonym(results: pd.DataFrame, eid: str) -> Verdict:
    """Antonym vs Synonym (normalized, 95% bootstrap CIs). ✓ when Antonym's CI lies entirely below Synonym's."""
    r = _subset_rows(results, eid, ("synonym", "antonym"))
    if isinstance(r, str):
        return _unchecked(r)
    syn, ant = r.loc["synonym"], r.loc["antonym"]
    ok = bool(ant["ci_high"] < syn["ci_low"])
    return Verdict(
        ok,
        f"{eid}: antonym {_f(ant['normalized'])} [{_f(ant['ci_low'])}, {_f(ant['ci_high'])}] vs synonym "
        f"{_f(syn['normalized'])} [{_f(syn['ci_low'])}, {_f(syn['ci_high'])}]: CIs {'apart' if ok else 'overlap'}",
        {"antonym": float(ant["normalized"]), "synonym": float(syn["normalized"])},
        r.reset_index(),
    )


# =====================================================================================================================
# pure checks: correlation with human similarity (sts.RESULT_COLUMNS)


_STS_COLUMNS = ("pearson", "pearson_znorm", "spearman", "spearman_znorm")


def znorm_raises(results: pd.DataFrame, eid: str, scoring: str = "pearson") -> Verdict:
    """Correlation (`scoring`: "pearson" or "spearman") of cosine vs human scores, raw and z-normalized. ✓ when
    z-normalization raises it."""
    if results is None or results.empty or eid not in set(results["embedder"]):
        return _unchecked(f"no correlations for {eid}")
    r = results.set_index("embedder").loc[eid]
    raw, zn = float(r[scoring]), float(r[f"{scoring}_znorm"])
    if not np.isfinite([raw, zn]).all():
        return _unchecked("a correlation is undefined (constant cosines)")
    ok = zn > raw
    name = scoring.capitalize()
    return Verdict(
        ok,
        f"{eid}: {name} {_f(raw)} → {_f(zn)} with z-normalization ({zn - raw:+.3f})",
        {scoring: raw, f"{scoring}_znorm": zn, "change": zn - raw},
        results[results["embedder"] == eid][["embedder", "n", *_STS_COLUMNS]],
    )


def znorm_narrows_range(results: pd.DataFrame, eids: Sequence[str]) -> Verdict:
    """Range (max − min) of the embedders' Pearson correlations, raw vs z-normalized. ✓ when it shrinks."""
    if results is None or results.empty:
        return _unchecked("no correlations")
    t = results[results["embedder"].isin(eids)][["embedder", "pearson", "pearson_znorm"]].reset_index(drop=True)
    t = t.dropna()
    if len(t) < 2:
        return _unchecked("fewer than 2 embedders with correlations")
    raw = float(t["pearson"].max() - t["pearson"].min())
    zn = float(t["pearson_znorm"].max() - t["pearson_znorm"].min())
    ok = zn < raw
    worst = t.sort_values("pearson").iloc[0]
    return Verdict(
        ok,
        f"range of Pearson over {len(t)} embedders {_f(raw)} → {_f(zn)} with z-normalization "
        f"({'narrower' if ok else 'not narrower'}); the lowest, {worst['embedder']}, {_f(worst['pearson'])} → "
        f"{_f(worst['pearson_znorm'])}",
        {"range raw": raw, "range znorm": zn},
        t,
    )


# =====================================================================================================================
# the catalogue

#: Averaged static word vectors (all tokens, as the N2O paper averages), without subword information.
STATIC = ("glove-6b-50d", "word2vec", "fasttext")
#: Mean-pooled sentence transformers (their trained pooling).
TRANSFORMERS = ("minilm-l6-mean", "paraphrase-minilm-l3-mean")
#: Every embedder the neighbor-based findings compare (Table 1's families, as far as they load offline).
N2O_SET = ("tfidf", *STATIC, "fasttext-sub", "minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean")
#: Sentence encoders scored on HEROS pairs: Heros' averaged GloVe (stop words dropped, as sentence-transformers
#: does) and the offline transformer encoders.
HEROS_SET = ("glove-6b-50d-nostop", "minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean", "e5-small")
#: Dense encoders correlated with human similarity (Pitfalls compares dense sentence encoders).
STS_SET = ("glove-6b-50d", "word2vec", "fasttext", "minilm-l6-mean", "paraphrase-minilm-l3-mean")

_N2O_SCORING = "cosine on raw vectors (no z-normalization), exact search; averaged word vectors over all tokens"
_CONTENT_SCORING = f"content words: stop words ({SBERT_STOP_WORDS_NAME}) not counted"
_ALL_SCORING = "every word counted, stop words too"
_HEROS_SCORING = "Heros' (s − b)/(1 − b) on minimal pairs made from the corpus, raw cosine"
_HEROS_GLOVE_SCORING = (
    f"{_HEROS_SCORING}; averaged GloVe drops the stop words of {SBERT_STOP_WORDS_NAME}, as sentence-transformers' "
    "average_word_embeddings_glove models (evaluated by Heros) do"
)
_STS_SCORING = (
    "gensim's Lee pairs (50 news documents, 1,225 rated pairs); z-normalization per Pitfalls over the 2n pair "
    "rows; averaged GloVe over all tokens (SentEval's average)"
)


def _c_static_agree(ev: Evidence) -> Verdict:
    return group_agreement(ev.n2o.mean, STATIC, TRANSFORMERS, ev.n2o.std) if ev.n2o else _unchecked("no N2O")


def _c_tfidf_apart(ev: Evidence) -> Verdict:
    return group_agreement(ev.n2o.mean, STATIC, ("tfidf",), ev.n2o.std) if ev.n2o else _unchecked("no N2O")


_STS_TESTED = (
    "Averaged GloVe (6B, 50-d here; 300-d in the paper) on gensim's Lee document pairs with human similarity "
    "scores (the STS Benchmark is not offline). No CI: the 1,225 pairs share 50 documents, so they are not "
    "independent."
)
_GLOVE_NOSTOP = f"averaged GloVe without stop words ({SBERT_STOP_WORDS_NAME})"


def _others(names: Sequence[str], *exclude: str) -> list[str]:
    return [e for e in names if e not in exclude]


def _c_subword(ev: Evidence) -> Verdict:
    if not ev.n2o:
        return _unchecked("no N2O")
    return further_than_analogue(
        ev.n2o.mean, "fasttext-sub", "fasttext", _others(ev.n2o.names, "fasttext-sub", "fasttext"), 0.8, ev.n2o.std
    )


def _c_cls(ev: Evidence) -> Verdict:
    if not ev.n2o:
        return _unchecked("no N2O")
    return further_than_analogue(
        ev.n2o.mean,
        "minilm-l6-cls",
        "minilm-l6-mean",
        _others(ev.n2o.names, "minilm-l6-cls", "minilm-l6-mean"),
        0.8,
        ev.n2o.std,
    )


def _c_chance(ev: Evidence) -> Verdict:
    return above_chance(ev.n2o) if ev.n2o else _unchecked("no N2O")


def _c_robust_k(ev: Evidence) -> Verdict:
    return rankings_stable(ev.n2o.rho_k if ev.n2o else None, 0.95, "values of k")


def _c_robust_samples(ev: Evidence) -> Verdict:
    return rankings_stable(ev.n2o.rho_samples if ev.n2o else None, 0.95, "query samples")


def _tokens(ev: Evidence, words: str) -> pd.DataFrame | None:
    return ev.tokens.get(words)


def _c_tok_tfidf(ev: Evidence, words: str = CONTENT) -> Verdict:
    f = _tokens(ev, words)
    return highest_by_factor(f, "tfidf", 1.5) if f is not None else _unchecked("no token overlap")


def _c_tok_subword(ev: Evidence, words: str = CONTENT) -> Verdict:
    f = _tokens(ev, words)
    return lowest(f, "fasttext-sub") if f is not None else _unchecked("no token overlap")


def _c_popular(ev: Evidence, words: str = CONTENT) -> Verdict:
    return popular_share_more_words(ev.popular.get(words))


def _c_heros_glove(ev: Evidence, eid: str = "glove-6b-50d-nostop") -> Verdict:
    return negation_far_above(ev.heros, eid, 0.5)


def _c_heros_main(ev: Evidence) -> Verdict:
    return main_below_antonym(ev.heros, HEROS_SET, 0.8)


def _c_heros_neg_above(ev: Evidence, eid: str) -> Verdict:
    return negations_above_synonym(ev.heros, eid)


def _c_heros_para_antonym(ev: Evidence) -> Verdict:
    return antonym_clearly_below_synonym(ev.heros, "paraphrase-minilm-l3-mean")


def _c_sts_glove(ev: Evidence, scoring: str, eid: str = "glove-6b-50d") -> Verdict:
    return znorm_raises(ev.sts, eid, scoring)


def _c_sts_range(ev: Evidence) -> Verdict:
    return znorm_narrows_range(ev.sts, STS_SET)


FINDINGS: tuple[Finding, ...] = (
    # ------------------------------------------------------------------ N2O (Lin & Smith 2019)
    Finding(
        "n2o-static-agree",
        "N2O",
        "§5, Fig. 4 (left)",
        "Averaged static word embeddings agree with each other",
        "“We first observe that there is generally high N2O among this set of embedders [averages of static word "
        "embeddings] in comparison to other categories.”",
        "N2O among averaged GloVe, word2vec and fastText (no subwords) vs their N2O with the mean-pooled sentence "
        "transformers (all-MiniLM-L6-v2, paraphrase-MiniLM-L3-v2), the offline stand-ins for the other categories.",
        NEIGHBORS,
        (*STATIC, *TRANSFORMERS),
        "mean N2O over the 3 static pairs > mean N2O over the 6 static × transformer pairs",
        _N2O_SCORING,
        _c_static_agree,
    ),
    Finding(
        "n2o-subword-apart",
        "N2O",
        "§5",
        "Subword information sets fastText apart",
        "“The use of subword information [...] has a large effect on N2O; there is a high (0.52) N2O value between "
        "these two and much lower N2O with other embedders, including their analogues without subword information.”",
        "fastText with subwords vs the same fastText without them (same corpus, same training): how much N2O each "
        "has with the other embedders. (The 0.52 between two subword models is not testable: one subword model "
        "is built in.)",
        NEIGHBORS,
        N2O_SET,
        "mean N2O of fasttext-sub with the others ≤ 0.8 × that of fasttext with the same others "
        "(others: every embedder here but the two)",
        _N2O_SCORING,
        _c_subword,
    ),
    Finding(
        "n2o-tfidf-apart",
        "N2O",
        "§5",
        "tf-idf has low N2O, even with static averages",
        "“Unsurprisingly, tf-idf has low N2O with other embedders (even those based on static word embeddings).”",
        "tf-idf's N2O with averaged GloVe, word2vec and fastText vs the N2O among those three.",
        NEIGHBORS,
        ("tfidf", *STATIC),
        "mean N2O among the 3 static pairs > mean N2O of tf-idf with the 3 static embedders",
        _N2O_SCORING,
        _c_tfidf_apart,
    ),
    Finding(
        "n2o-cls-outlier",
        "N2O",
        "§5, Fig. 6",
        "A [CLS] vector is an outlier next to mean pooling of the same model",
        "“Specific-token representations for BERT or GPT (bert-base-cls, gpt-last) are outliers compared to other "
        "embedders (i.e., low N2O) [...] this effect seems to hold even for the MultiNLI-finetuned version of BERT "
        "[...] taking averaged BERT and GPT embeddings yields higher N2O with other embedders.”",
        "Offline analogue: all-MiniLM-L6-v2's [CLS] vector vs its mean pooling (the same forward pass; a "
        "fine-tuned encoder, as bert-ft-cls). BERT and GPT themselves are not available offline.",
        NEIGHBORS,
        N2O_SET,
        "mean N2O of minilm-l6-cls with the others ≤ 0.8 × that of minilm-l6-mean with the same others "
        "(others: every embedder here but the two)",
        _N2O_SCORING,
        _c_cls,
    ),
    Finding(
        "n2o-above-chance",
        "N2O",
        "§5",
        "Every pair is far above chance",
        "“The values range from 0.04 to 0.62 [...] even an N2O of 0.04 is unlikely from random chance alone.”",
        "Every pair of the embedders here against the chance level k/(N − 1) of this corpus.",
        NEIGHBORS,
        N2O_SET,
        "for every pair: mean N2O − 2 × its std across query samples > k/(N − 1)",
        _N2O_SCORING,
        _c_chance,
        paper_numbers="0.04–0.62 on ~8M sentences",
    ),
    Finding(
        "tokens-tfidf-highest",
        "N2O",
        "§5, Fig. 5",
        "tf-idf's neighbors share by far the most words with the query",
        "“Its [tf-idf's] nearest neighbors have by far the largest token overlap with the query (0.43).”",
        "Token overlap (share of the query's distinct words found in each neighbor, k = 50) per embedder.",
        NEIGHBORS,
        N2O_SET,
        "tf-idf's mean token overlap ≥ 1.5 × the highest other embedder's",
        _CONTENT_SCORING,
        _c_tok_tfidf,
        (_ALL_SCORING, partial(_c_tok_tfidf, words=ALL_WORDS)),
        paper_numbers="tf-idf 0.43",
    ),
    Finding(
        "tokens-subword-lowest",
        "N2O",
        "§5, Fig. 5",
        "Subword fastText's neighbors share the fewest words with the query",
        "“As we would expect, subword methods find near neighbors with lower token overlap, because they embed "
        "surface-similar strings near to each other.”",
        "Token overlap per embedder; fastText with subwords should be the lowest.",
        NEIGHBORS,
        N2O_SET,
        "fasttext-sub's mean token overlap < every other embedder's",
        _CONTENT_SCORING,
        _c_tok_subword,
        (_ALL_SCORING, partial(_c_tok_subword, words=ALL_WORDS)),
    ),
    Finding(
        "n2o-robust-k",
        "N2O",
        "§6, Varying k",
        "Pair rankings are stable across k",
        "“The average Spearman's ρ is very high (0.996; min. 0.986) — i.e., the rankings of embedder similarity by "
        "N2O are reasonably stable across different values of k.”",
        "Spearman ρ between the embedder-pair rankings at k ∈ {5, 10, …, 50} (all pooled queries).",
        NEIGHBORS,
        N2O_SET,
        "mean ρ over every two values of k ≥ 0.95",
        _N2O_SCORING,
        _c_robust_k,
        paper_numbers="mean ρ 0.996, min 0.986",
    ),
    Finding(
        "n2o-robust-samples",
        "N2O",
        "§6, Query sampling",
        "Pair rankings are stable across query samples",
        "“We compute Spearman's ρ across different N2O samples [...] (k = 50) and find an average ρ of 0.994 "
        "(min. 0.991).”",
        "Spearman ρ between the embedder-pair rankings of every two query samples at k.",
        NEIGHBORS,
        N2O_SET,
        "mean ρ over every two query samples ≥ 0.95",
        _N2O_SCORING,
        _c_robust_samples,
        paper_numbers="mean ρ 0.994, min 0.991; std across samples 0.005–0.019",
    ),
    Finding(
        "popular-lexical",
        "N2O",
        "§7",
        "Popular neighbors share many words with the query",
        "“We also observe that extremely ‘popular’ neighbors tend to have high lexical overlap with the query.”",
        "Token overlap of the neighbors in every embedder's top 5 (popular) vs of all the embedders' top-50 "
        "neighbors, on the queries that have a popular neighbor.",
        NEIGHBORS,
        N2O_SET,
        "the popular neighbors' 95% CI (t-interval over queries) lies entirely above that of all neighbors",
        _CONTENT_SCORING,
        _c_popular,
        (_ALL_SCORING, partial(_c_popular, words=ALL_WORDS)),
    ),
    # ------------------------------------------------------------------ Pitfalls (Eger et al. 2019)
    Finding(
        "sts-znorm-glove",
        "Pitfalls",
        "§3, Table 2",
        "z-normalization raises averaged GloVe's Pearson correlation with human similarity",
        "“Average Glove embeddings improve from 0.41 Pearson to 0.62 Pearson [after z-normalization].”",
        _STS_TESTED,
        STS,
        ("glove-6b-50d", "glove-6b-50d-nostop"),
        "Pearson correlation higher after z-normalization",
        _STS_SCORING,
        partial(_c_sts_glove, scoring="pearson"),
        (_GLOVE_NOSTOP, partial(_c_sts_glove, scoring="pearson", eid="glove-6b-50d-nostop")),
        paper_numbers="Pearson 0.41 → 0.62 (STS-B, GloVe 300-d)",
    ),
    Finding(
        "sts-znorm-glove-spearman",
        "Pitfalls",
        "§3",
        "… and its Spearman correlation too",
        "“When replacing Pearson by Spearman correlation, we observed very similar trends: e.g., Glove-300d had 0.44 "
        "before and 0.58 after normalization.”",
        _STS_TESTED,
        STS,
        ("glove-6b-50d", "glove-6b-50d-nostop"),
        "Spearman correlation higher after z-normalization",
        _STS_SCORING,
        partial(_c_sts_glove, scoring="spearman"),
        (_GLOVE_NOSTOP, partial(_c_sts_glove, scoring="spearman", eid="glove-6b-50d-nostop")),
        paper_numbers="Spearman 0.44 → 0.58 (STS-B, GloVe 300-d)",
    ),
    Finding(
        "sts-znorm-range",
        "Pitfalls",
        "§3, Table 2",
        "z-normalization narrows the gap between encoders",
        "“With normalization, we observe a reduction in the range of the distribution of UCP scores across the nine "
        "systems from 29% to 9% [...] the worst sentence encoders catch up substantially.”",
        "The range of Pearson correlations across the dense encoders here (averaged GloVe, word2vec and fastText "
        "trained on gensim's Lee background corpus, two MiniLM transformers) on the Lee pairs, raw vs z-normalized.",
        STS,
        STS_SET,
        "max − min of the encoders' Pearson correlations is smaller after z-normalization",
        _STS_SCORING,
        _c_sts_range,
        paper_numbers="range 29% → 9% over 9 systems (STS-B)",
    ),
    # ------------------------------------------------------------------ Heros (Chiang et al.)
    Finding(
        "heros-glove-negation",
        "Heros",
        "§3.2, Fig. 2 (first row)",
        "Averaged GloVe barely notices a negation",
        "“We observe that the sentence before and after negation have very high similarity, and the similarity is "
        "much higher than replacing one word with its synonym or antonym. This shows that negation words have a "
        "very small contribution to the sentence embedding obtained from averaging the GLoVe embeddings.”",
        "Averaged GloVe (6B, 50-d here; Heros used the 300-d sentence-transformers model, which drops stop words) "
        "on minimal pairs made from this corpus.",
        HEROS,
        ("glove-6b-50d-nostop", "glove-6b-50d"),
        "for both negation subsets: 1 − s'(negation) ≤ 0.5 × (1 − s'(synonym)) and ≤ 0.5 × (1 − s'(antonym)), "
        "s' the normalized similarity (a negation moves the vector at most half as far as a one-word swap)",
        _HEROS_GLOVE_SCORING,
        _c_heros_glove,
        ("averaged GloVe over all tokens (stop words kept)", partial(_c_heros_glove, eid="glove-6b-50d")),
    ),
    Finding(
        "heros-main-below-antonym",
        "Heros",
        "§3.2",
        "Negating the main verb moves a sentence more than negating another word",
        "“Almost all SEs rate Negation (Main) to be less similar compared with Negation (Antonym).”",
        "Negation (Main) vs Negation (Antonym) for every offline sentence encoder: averaged GloVe (as Heros), "
        "all-MiniLM-L6-v2 (mean and [CLS]), paraphrase-MiniLM-L3-v2, multilingual-e5-small.",
        HEROS,
        HEROS_SET,
        "normalized Negation (Main) < Negation (Antonym) for ≥ 80% of these encoders (a tie is not below)",
        _HEROS_GLOVE_SCORING,
        _c_heros_main,
    ),
    Finding(
        "heros-l3-negation",
        "Heros",
        "§3.1, Fig. 1 (paraphrase block)",
        "paraphrase-MiniLM-L3 rates negations above synonyms",
        "“The only exception is the MiniLM L3 (para) model, which has very high similarity on the Negation subsets "
        "and is even higher than the Synonym subset.”",
        "The same model (paraphrase-MiniLM-L3-v2, run as its packaged ONNX graph) on minimal pairs made from this "
        "corpus.",
        HEROS,
        ("paraphrase-minilm-l3-mean",),
        "normalized Negation (Main) > Synonym and Negation (Antonym) > Synonym",
        _HEROS_SCORING,
        partial(_c_heros_neg_above, eid="paraphrase-minilm-l3-mean"),
    ),
    Finding(
        "heros-all-negation",
        "Heros",
        "§3.1, Fig. 1 (all block)",
        "Models trained on all sentence-pair data rate negations above synonyms",
        "“In the fifth block [fine-tuned on all available sentence-pair data], the similarity between sentence "
        "pairs from the two Negation subsets is very high and is even higher than the similarity of the Synonym "
        "subset for most models.”",
        "all-MiniLM-L6-v2, the one offline member of that block (the paper says “most models”, so one model "
        "failing is not a contradiction).",
        HEROS,
        ("minilm-l6-mean",),
        "normalized Negation (Main) > Synonym and Negation (Antonym) > Synonym",
        _HEROS_SCORING,
        partial(_c_heros_neg_above, eid="minilm-l6-mean"),
    ),
    Finding(
        "heros-paraphrase-antonym",
        "Heros",
        "§3.1, Fig. 1 (paraphrase block)",
        "Paraphrase-tuned models are sensitive to antonyms",
        "“SEs fine-tuned on paraphrase datasets are extremely sensitive to negations and antonyms [...] these SEs "
        "are also sensitive to replacing words with antonyms.”",
        "paraphrase-MiniLM-L3-v2, the one offline member of that block (the paper names it an exception for "
        "negation only).",
        HEROS,
        ("paraphrase-minilm-l3-mean",),
        "the 95% bootstrap CI of normalized Antonym lies entirely below Synonym's",
        _HEROS_SCORING,
        _c_heros_para_antonym,
    ),
)

_BY_ID = {f.id: f for f in FINDINGS}

NOT_TESTABLE: tuple[Untestable, ...] = (
    Untestable(
        "N2O",
        "§5",
        "The two subword fastText models agree with each other (N2O 0.52).",
        "one subword model is built in (fastText with subwords trained on the corpus); the part of the claim about "
        "the analogue without subwords is checked (n2o-subword-apart)",
    ),
    Untestable(
        "N2O",
        "§5",
        "Variants of one embedder agree: glove-6b-100d vs 300d, fasttext-cc vs fasttext-wiki.",
        "one pretrained GloVe (6B, 50-d) is offline, and the fastText models are trained on the one corpus",
    ),
    Untestable(
        "N2O",
        "§5",
        "ELMo models of different capacity / data agree (0.42, 0.55; 0.38 for the mismatched pair).",
        "no ELMo model is available offline",
    ),
    Untestable(
        "N2O",
        "§5",
        "GPT's last-token vector is an outlier; averaged GPT agrees more with the others.",
        "no GPT (causal language model) is available offline; the [CLS] half is checked with MiniLM (n2o-cls-outlier)",
    ),
    Untestable(
        "N2O",
        "§5",
        "InferSent has its highest N2O (~0.2–0.3) with the averaged embeddings; the two USE variants agree most "
        "with each other (0.24).",
        "InferSent and the Universal Sentence Encoder are not available offline",
    ),
    Untestable(
        "N2O",
        "§8, Table 3",
        "Query paraphrasing: large ELMo finds paraphrases best; averaged BERT/GPT beat [CLS]/last token.",
        "needs near-paraphrase pairs with human scores (STS Benchmark), which are not offline; the synthetic "
        "HEROS pairs are not paraphrases. With a local STS-B file: `python -m n2o_core needle --pairs FILE`",
    ),
    Untestable(
        "Pitfalls",
        "§3, Size matters",
        "Transfer-task accuracy grows (concavely) with embedding size under a linear classifier.",
        "needs labelled transfer tasks (SentEval) and classifiers, and averaged word2vec trained at many sizes",
    ),
    Untestable(
        "Pitfalls",
        "§3, Normalization / classifiers / probing",
        "Normalization helps learned similarity and transfer tasks; rankings differ between logistic regression "
        "and an MLP; transfer and probing tasks correlate weakly (WC 0.04, SentLen 0.83).",
        "needs labelled downstream and probing tasks with trained classifiers",
    ),
    Untestable(
        "Heros",
        "§3.1",
        "Models fine-tuned only on QA data are insensitive to negation, and rate a typo below a synonym.",
        "no QA-only model (multi-qa-*) is available offline",
    ),
    Untestable(
        "Heros",
        "§3.1",
        "T5-based encoders (GTR, ST5) become less sensitive to typos as they grow.",
        "no T5-based encoder is available offline",
    ),
    Untestable(
        "Heros",
        "§3.2",
        "Unsupervised SEs (SimCSE, DiffCSE, ...) are insensitive to negation; NLI fine-tuning lowers Negation and "
        "Antonym similarity and raises Synonym and Typo.",
        "no unsupervised contrastive encoder, nor its NLI-tuned version, is available offline",
    ),
    Untestable(
        "Heros",
        "§3.2",
        "Encoders with close STS-benchmark scores can behave very differently on Heros.",
        "needs the encoders' STS-benchmark scores (STS 12–17, STS-B, SICK-R), which are not offline",
    ),
)


def finding(fid: str) -> Finding:
    """The finding with this id (N2OError when unknown)."""
    try:
        return _BY_ID[fid]
    except KeyError:
        raise N2OError(f"Unknown finding '{fid}'; known: {', '.join(_BY_ID)}.") from None


# =====================================================================================================================
# computing the evidence through the cores


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
    from n2o_core.evaluation.pairs import load_pairs
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
