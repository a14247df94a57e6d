"""The N2O paper's rules (Lin & Smith 2019), pure: N2O matrices, rankings across settings, token overlap and
popular neighbors (`Evidence` parts) -> `Verdict`."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd

from n2o_core.evaluation.findings.verdict import N2OEvidence, PopularEvidence, Verdict, fmt, missing, unchecked

# =====================================================================================================================
# pure checks: N2O


def group_agreement(
    mean: pd.DataFrame, group: Sequence[str], others: Sequence[str], std: pd.DataFrame | None = None
) -> Verdict:
    """Mean N2O within `group` (every unordered pair) vs mean N2O between a group member and an embedder in
    `others`. ✓ when within > between. `std` (across query samples) is shown beside each pair when given."""
    miss = missing(mean.index, [*group, *others])
    if miss:
        return unchecked(f"no N2O for {', '.join(miss)}")
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
        f"mean N2O within {fmt(within)} {'>' if ok else '≤'} between {fmt(between)} (ratio {ratio:.2f})",
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
    miss = missing(mean.index, [target, analogue, *others])
    if miss:
        return unchecked(f"no N2O for {', '.join(miss)}")
    if not others:
        return unchecked("no other embedder to compare with")
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
        f"mean N2O with the {len(others)} others: {target} {fmt(mt)} vs {analogue} {fmt(ma)} (ratio {ratio:.2f} "
        f"{'≤' if ok else '>'} {max_ratio}); lower for {lower} of {len(others)}",
        {f"{target} mean N2O": mt, f"{analogue} mean N2O": ma, "ratio": ratio, "lower for": lower},
        t,
    )


def above_chance(n2o: N2OEvidence, z: float = 2.0) -> Verdict:
    """Every pair's mean N2O minus z std across query samples exceeds the chance level k/(N-1). ✓ when the
    smallest such lower edge is above chance (with one sample the std is 0 and the mean is used)."""
    names = n2o.names
    if len(names) < 2:
        return unchecked("fewer than 2 embedders")
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
        f"lowest pair {low['a']} · {low['b']}: {fmt(low['n2o'])} − {z:g}·{low['std']:.3f} = {fmt(low['lower'])} "
        f"{'>' if ok else '≤'} chance {n2o.chance:.4f} ({low['n2o'] / n2o.chance:.1f}× chance); "
        f"highest pair {fmt(t['n2o'].max())}",
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
        return unchecked(f"needs at least 2 {what}")
    from n2o_core.analyses.overlap import off_diagonal_summary

    s = off_diagonal_summary(rho.to_numpy())
    if not np.isfinite(s["mean"]):
        return unchecked("needs at least 3 embedders (3 pairs) for a ranking")
    ok = s["mean"] >= threshold
    return Verdict(
        ok,
        f"mean ρ {fmt(s['mean'])} {'≥' if ok else '<'} {threshold} (min {fmt(s['min'])}) over {len(rho)} {what}",
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
        return unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    v = float(t.loc[t["embedder"] == target, "mean"].iloc[0])
    rest = t[t["embedder"] != target]
    nxt = rest.iloc[0]
    ratio = v / float(nxt["mean"]) if nxt["mean"] > 0 else float("inf")
    ok = ratio >= factor
    return Verdict(
        ok,
        f"{target} {fmt(v)} vs next {nxt['embedder']} {fmt(nxt['mean'])}: ratio {ratio:.2f} {'≥' if ok else '<'} "
        f"{factor}",
        {target: v, f"next ({nxt['embedder']})": float(nxt["mean"]), "ratio": ratio},
        t,
    )


def lowest(frame: pd.DataFrame, target: str) -> Verdict:
    """`target`'s mean token overlap vs every other embedder's. ✓ when it is strictly the lowest."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    v = float(t.loc[t["embedder"] == target, "mean"].iloc[0])
    rest = t[t["embedder"] != target]
    low = rest.iloc[-1]
    ok = v < float(low["mean"])
    rank = int((t["mean"] > v).sum()) + 1
    return Verdict(
        ok,
        f"{target} {fmt(v)} {'<' if ok else '≥'} lowest other {low['embedder']} {fmt(low['mean'])} "
        f"({target} ranks {rank} of {len(t)}, 1 = highest)",
        {target: v, f"lowest other ({low['embedder']})": float(low["mean"])},
        t,
    )


_MCI = ("mean", "ci_low", "ci_high")


def popular_share_more_words(pe: PopularEvidence | None) -> Verdict:
    """Token overlap of popular neighbors vs of all the embedders' k neighbors, same queries. ✓ when the popular
    neighbors' 95% CI lies entirely above the other's."""
    if pe is None or pe.n_queries < 2:
        return unchecked("fewer than 2 queries have a neighbor in every embedder's top m")
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
        f"popular {fmt(pm)} [{fmt(plo)}, {fmt(pe.popular[2])}] vs all neighbors {fmt(nm)} [{fmt(pe.neighbors[1])}, "
        f"{fmt(nhi)}] over {pe.n_queries} queries ({pe.n_popular} popular neighbors): CIs "
        f"{'apart' if ok else 'not apart'}",
        {"popular": pm, "all neighbors": nm, "queries": pe.n_queries},
        t,
    )
