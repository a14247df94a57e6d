"""The N2O paper's rules on token overlap (Lin & Smith 2019, §5 Fig. 5 and §7), pure: token overlap per embedder
(mean and 95% t-interval over queries, as Fig. 5 draws it) and popular neighbors' overlap per query -> `Verdict`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from n2o_core.analyses.overlap import by_token_overlap
from n2o_core.evaluation.findings.verdict import MIN_UNITS, PopularEvidence, Verdict, fmt, unchecked


def _token_table(frame: pd.DataFrame) -> pd.DataFrame:
    return by_token_overlap(frame)[["embedder", "mean", "ci_low", "ci_high", "n"]]


def _row(t: pd.DataFrame, e: str) -> pd.Series:
    return t[t["embedder"] == e].iloc[0]


def _interval(r: pd.Series) -> str:
    return f"{fmt(r['mean'])} [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]"


def highest_apart(frame: pd.DataFrame, target: str) -> Verdict:
    """`target`'s mean token overlap vs every other embedder's (Fig. 5, with its 95% error bars). ✓ when
    `target`'s 95% interval lies entirely above the highest other embedder's ("by far the largest")."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    me = _row(t, target)
    nxt = t[t["embedder"] != target].iloc[0]
    v = float(me["mean"])
    ratio = v / float(nxt["mean"]) if nxt["mean"] > 0 else float("inf")
    ok = bool(me["ci_low"] > nxt["ci_high"])
    return Verdict(
        ok,
        f"{target} {_interval(me)} vs next {nxt['embedder']} {_interval(nxt)} (ratio {ratio:.2f}): intervals "
        f"{'apart' if ok else 'not apart'}",
        {target: v, f"next ({nxt['embedder']})": float(nxt["mean"]), "ratio": ratio},
        t,
    )


def _below(t: pd.DataFrame, target: str, other: pd.Series, name: str, ok_text: str, ko_text: str) -> Verdict:
    """`target`'s interval entirely below `other`'s (Fig. 5's error bars apart), with its rank among every embedder."""
    me = _row(t, target)
    ok = bool(me["ci_high"] < other["ci_low"])
    rank = int((t["mean"] > me["mean"]).sum()) + 1
    return Verdict(
        ok,
        f"{target} {_interval(me)} vs {name} {_interval(other)}: {ok_text if ok else ko_text} ({target} ranks {rank} "
        f"of {len(t)}, 1 = highest)",
        {target: float(me["mean"]), name: float(other["mean"]), "rank": rank},
        t,
    )


def below_analogue(frame: pd.DataFrame, target: str, analogue: str) -> Verdict:
    """N2O §5: "subword methods find near neighbors with lower token overlap": `target` (the subword model) against
    `analogue` (the same model without subword information). ✓ when `target`'s 95% interval lies entirely below
    the analogue's (Fig. 5's error bars apart). Its rank among every embedder is shown beside it."""
    have = set(frame["embedder"])
    if target not in have or analogue not in have:
        return unchecked(f"no token overlap for {target} and {analogue}")
    t = _token_table(frame)
    return _below(t, target, _row(t, analogue), analogue, "lower, intervals apart", "not lower beyond the intervals")


def lowest_apart(frame: pd.DataFrame, target: str) -> Verdict:
    """A stricter reading of `below_analogue`: `target`'s 95% interval lies entirely below the lowest other
    embedder's (lower than every other, beyond the error bars)."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    low = t[t["embedder"] != target].iloc[-1]
    name = f"lowest other ({low['embedder']})"
    return _below(t, target, low, name, "below, intervals apart", "not below beyond the intervals")


#: Bootstrap resamples of the queries for popular neighbors (fixed seed: the same numbers every time).
N_BOOT = 2000


def _boot(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% percentile-bootstrap interval over the values (queries): inside the values' range, so a share
    stays inside [0, 1]."""
    from n2o_core.evaluation.heros.score import bootstrap_ci

    lo, hi = bootstrap_ci(values, n_boot=N_BOOT, seed=0)
    return float(np.mean(values)), lo, hi


def popular_share_more_words(pe: PopularEvidence | None, min_queries: int = MIN_UNITS) -> Verdict:
    """N2O §7: "extremely 'popular' neighbors tend to have high lexical overlap with the query". Per query with a
    popular neighbor: its popular neighbors' token overlap minus that of every embedder's k neighbors (the same
    query, so paired). ✓ when the 95% bootstrap interval of the mean difference over queries lies above 0;
    judged only on at least `min_queries` queries. Each side's mean is shown with its bootstrap interval (inside
    [0, 1])."""
    if pe is None or pe.n_queries < min_queries:
        n = 0 if pe is None else pe.n_queries
        return unchecked(
            f"{n} quer{'y has' if n == 1 else 'ies have'} a neighbor in every embedder's top m; the rule needs at "
            f"least {min_queries}"
        )
    pop = _boot(pe.popular)
    nb = _boot(pe.neighbors)
    d, lo, hi = _boot(pe.popular - pe.neighbors)
    ok = bool(lo > 0)
    t = pd.DataFrame(
        [
            {
                "neighbors": f"popular (top {pe.m} of every embedder)",
                "mean": pop[0],
                "ci_low": pop[1],
                "ci_high": pop[2],
            },
            {"neighbors": f"every embedder's top {pe.k}", "mean": nb[0], "ci_low": nb[1], "ci_high": nb[2]},
            {"neighbors": "difference (paired by query)", "mean": d, "ci_low": lo, "ci_high": hi},
        ]
    )
    return Verdict(
        ok,
        f"popular {fmt(pop[0])} [{fmt(pop[1])}, {fmt(pop[2])}] vs all neighbors {fmt(nb[0])} [{fmt(nb[1])}, "
        f"{fmt(nb[2])}] over {pe.n_queries} queries ({pe.n_popular} popular neighbors): difference {fmt(d)} "
        f"[{fmt(lo)}, {fmt(hi)}] {'above' if ok else 'not above'} 0",
        {"popular": pop[0], "all neighbors": nb[0], "difference": d, "difference ci_low": lo, "queries": pe.n_queries},
        t,
    )
