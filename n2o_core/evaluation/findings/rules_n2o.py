"""The N2O paper's rules (Lin & Smith 2019), pure: N2O matrices, rankings across settings, token overlap and
popular neighbors (`Evidence` parts) -> `Verdict`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


def _ci(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% t-interval over query samples (the point value thrice for one sample)."""
    from n2o_core.analyses.overlap import mean_ci

    return mean_ci(np.asarray(values, float))


def _mean_with(m: pd.DataFrame, e: str, others: Sequence[str]) -> float:
    return float(np.mean([float(m.loc[e, o]) for o in others]))


def further_than_analogue(n2o: N2OEvidence, target: str, analogue: str, others: Sequence[str]) -> Verdict:
    """Mean N2O of `target` with `others` vs that of its `analogue` (the same model without the design choice)
    with the same embedders. Test: d = analogue's − target's, one value per query sample; ✓ when the 95%
    t-interval of d over the samples lies above 0 (null: target's N2O with the others is not lower). With one
    sample, the point value decides."""
    miss = missing(n2o.names, [target, analogue, *others])
    if miss:
        return unchecked(f"no N2O for {', '.join(miss)}")
    if not others:
        return unchecked("no other embedder to compare with")
    mean, std = n2o.mean, n2o.std
    t = pd.DataFrame(
        {
            "other": list(others),
            target: [float(mean.loc[target, o]) for o in others],
            f"{target} std": [float(std.loc[target, o]) for o in others],
            analogue: [float(mean.loc[analogue, o]) for o in others],
            f"{analogue} std": [float(std.loc[analogue, o]) for o in others],
        }
    )
    mt, ma = float(t[target].mean()), float(t[analogue].mean())
    d, lo, hi = _ci([_mean_with(m, analogue, others) - _mean_with(m, target, others) for m in n2o.samples()])
    ratio = mt / ma if ma > 0 else float("inf")
    lower = int((t[target] < t[analogue]).sum())
    ok = bool(lo > 0)
    return Verdict(
        ok,
        f"mean N2O with the {len(others)} others: {target} {fmt(mt)} vs {analogue} {fmt(ma)} (ratio {ratio:.2f}); "
        f"difference {fmt(d)} [{fmt(lo)}, {fmt(hi)}] over {len(n2o.samples())} query samples "
        f"{'above' if ok else 'not above'} 0; lower for {lower} of {len(others)}",
        {
            f"{target} mean N2O": mt,
            f"{analogue} mean N2O": ma,
            "ratio": ratio,
            "difference": d,
            "difference ci_low": lo,
            "difference ci_high": hi,
            "lower for": lower,
        },
        t,
    )


def subword_apart(n2o: N2OEvidence, sub: str, analogue: str, group: Sequence[str], others: Sequence[str]) -> Verdict:
    """N2O §5: the subword model has "much lower N2O with other embedders, including [its] analogue without
    subword information". Two tests, each on per-query-sample values with a 95% t-interval that must lie above 0:
    (a) W − N2O(sub, analogue), W the mean N2O among `group` (the averaged static embedders without subwords, the
    analogue among them: how much these agree with each other), and (b) the analogue's mean N2O with `others`
    minus the subword model's. ✓ when both hold."""
    miss = missing(n2o.names, [sub, analogue, *group, *others])
    if miss:
        return unchecked(f"no N2O for {', '.join(miss)}")
    pairs = list(combinations(group, 2))
    if not pairs or not others:
        return unchecked("needs two static embedders and another embedder to compare with")

    def within(m: pd.DataFrame) -> float:
        return float(np.mean([float(m.loc[a, b]) for a, b in pairs]))

    samples = n2o.samples()
    pair = float(n2o.mean.loc[sub, analogue])
    w = within(n2o.mean)
    da, alo, ahi = _ci([within(m) - float(m.loc[sub, analogue]) for m in samples])
    b = further_than_analogue(n2o, sub, analogue, others)
    ok_a = bool(alo > 0)
    ok = ok_a and b.passed is True
    rows = [{"a": sub, "b": analogue, "kind": "subword vs its analogue", "n2o": pair}]
    rows += [{"a": a, "b": c, "kind": "among the static embedders", "n2o": float(n2o.mean.loc[a, c])} for a, c in pairs]
    rows += [{"a": sub, "b": o, "kind": "subword vs the others", "n2o": float(n2o.mean.loc[sub, o])} for o in others]
    return Verdict(
        ok,
        f"N2O({analogue}, {sub}) {fmt(pair)} vs mean N2O among {', '.join(group)} {fmt(w)}: difference {fmt(da)} "
        f"[{fmt(alo)}, {fmt(ahi)}] {'above' if ok_a else 'not above'} 0 "
        f"({'lower' if ok_a else 'not clearly lower'}); with the others: {b.summary}",
        {
            f"N2O({analogue}, {sub})": pair,
            "static within": w,
            "pair difference": da,
            "pair difference ci_low": alo,
            **{k: v for k, v in b.numbers.items()},
        },
        pd.DataFrame(rows),
    )


def apart_from_every_family(n2o: N2OEvidence, target: str, families: Mapping[str, Sequence[str]]) -> Verdict:
    """N2O §5: tf-idf "has low N2O with other embedders (even those based on static word embeddings)". For each
    family F: d_F = (mean N2O of F's members with every other embedder except `target`) − (mean N2O of `target`
    with F's members), per query sample; ✓ when every family's 95% t-interval of d_F lies above 0 (null: `target`
    agrees with F at least as much as F agrees with the rest)."""
    members = [e for fam in families.values() for e in fam]
    miss = missing(n2o.names, [target, *members])
    if miss:
        return unchecked(f"no N2O for {', '.join(miss)}")
    rest = [e for e in n2o.names if e != target]
    rows = []
    for name, fam in families.items():

        def d_of(m: pd.DataFrame, fam: Sequence[str] = fam) -> tuple[float, float]:
            own = float(np.mean([float(m.loc[f, o]) for f in fam for o in rest if o != f]))
            return own, float(np.mean([float(m.loc[target, f]) for f in fam]))

        own, tgt = d_of(n2o.mean)
        d, lo, hi = _ci([a - b for a, b in (d_of(m) for m in n2o.samples())])
        rows.append(
            {
                "family": name,
                "members": ", ".join(fam),
                f"{target}": tgt,
                "family with the rest": own,
                "difference": d,
                "ci_low": lo,
                "ci_high": hi,
                "apart": bool(lo > 0),
            }
        )
    t = pd.DataFrame(rows)
    n_ok = int(t["apart"].sum())
    ok = n_ok == len(t)
    worst = t.sort_values("ci_low").iloc[0]
    return Verdict(
        ok,
        f"{target} is below each family's N2O with the rest for {n_ok} of {len(t)} families; closest: "
        f"{worst['family']}, {target} {fmt(worst[target])} vs {fmt(worst['family with the rest'])} (difference "
        f"{fmt(worst['difference'])} [{fmt(worst['ci_low'])}, {fmt(worst['ci_high'])}])",
        {
            **{f"{target} with {r['family']}": float(r[target]) for _, r in t.iterrows()},
            **{f"{r['family']} with the rest": float(r["family with the rest"]) for _, r in t.iterrows()},
            "families apart": n_ok,
            "families": len(t),
        },
        t,
    )


#: N2O §5's lowest value, 0.04, at a chance level of 50 / 8M ≈ 6e-6: a chance-corrected N2O of 0.04.
PAPER_LOWEST_KAPPA = 0.04


def above_chance(n2o: N2OEvidence, margin: float = PAPER_LOWEST_KAPPA) -> Verdict:
    """Every pair far above chance: the chance-corrected N2O κ = (N2O − c) / (1 − c), c = k/(N − 1) the expected
    N2O of two unrelated embedders, of the lowest pair ≥ `margin` (default: the paper's lowest value, 0.04, whose
    chance level is ≈ 0). The 95% t-interval of κ over query samples is shown beside it."""
    names = n2o.names
    if len(names) < 2:
        return unchecked("fewer than 2 embedders")
    c = n2o.chance

    def kappa(v: float) -> float:
        return (v - c) / (1 - c)

    rows = []
    for a, b in combinations(names, 2):
        k_mean, k_lo, k_hi = _ci([kappa(float(m.loc[a, b])) for m in n2o.samples()])
        rows.append(
            {
                "a": a,
                "b": b,
                "n2o": float(n2o.mean.loc[a, b]),
                "std": float(n2o.std.loc[a, b]),
                "kappa": k_mean,
                "kappa ci_low": k_lo,
                "kappa ci_high": k_hi,
            }
        )
    t = pd.DataFrame(rows).sort_values("kappa", ignore_index=True)
    low = t.iloc[0]
    ok = bool(low["kappa"] >= margin)
    return Verdict(
        ok,
        f"lowest pair {low['a']} · {low['b']}: N2O {fmt(low['n2o'])} at chance {c:.4f} ({low['n2o'] / c:.1f}× "
        f"chance), chance-corrected {fmt(low['kappa'])} [{fmt(low['kappa ci_low'])}, {fmt(low['kappa ci_high'])}] "
        f"{'≥' if ok else '<'} {margin} (the paper's lowest); highest pair {fmt(t['n2o'].max())}",
        {
            "lowest pair N2O": float(low["n2o"]),
            "lowest pair kappa": float(low["kappa"]),
            "chance": c,
            "margin": margin,
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


def highest_apart(frame: pd.DataFrame, target: str) -> Verdict:
    """`target`'s mean token overlap vs every other embedder's (Fig. 5, with its 95% error bars). ✓ when
    `target`'s 95% interval lies entirely above the highest other embedder's ("by far the largest")."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    me = t[t["embedder"] == target].iloc[0]
    nxt = t[t["embedder"] != target].iloc[0]
    v = float(me["mean"])
    ratio = v / float(nxt["mean"]) if nxt["mean"] > 0 else float("inf")
    ok = bool(me["ci_low"] > nxt["ci_high"])
    return Verdict(
        ok,
        f"{target} {fmt(v)} [{fmt(me['ci_low'])}, {fmt(me['ci_high'])}] vs next {nxt['embedder']} "
        f"{fmt(nxt['mean'])} [{fmt(nxt['ci_low'])}, {fmt(nxt['ci_high'])}] (ratio {ratio:.2f}): intervals "
        f"{'apart' if ok else 'not apart'}",
        {target: v, f"next ({nxt['embedder']})": float(nxt["mean"]), "ratio": ratio},
        t,
    )


def lowest_apart(frame: pd.DataFrame, target: str) -> Verdict:
    """`target`'s mean token overlap vs every other embedder's. ✓ when `target`'s 95% interval lies entirely
    below the lowest other embedder's (lower than every other, beyond the error bars)."""
    if target not in set(frame["embedder"]) or len(frame) < 2:
        return unchecked(f"no token overlap for {target} and at least one other embedder")
    t = _token_table(frame)
    me = t[t["embedder"] == target].iloc[0]
    low = t[t["embedder"] != target].iloc[-1]
    v = float(me["mean"])
    ok = bool(me["ci_high"] < low["ci_low"])
    rank = int((t["mean"] > v).sum()) + 1
    return Verdict(
        ok,
        f"{target} {fmt(v)} [{fmt(me['ci_low'])}, {fmt(me['ci_high'])}] vs lowest other {low['embedder']} "
        f"{fmt(low['mean'])} [{fmt(low['ci_low'])}, {fmt(low['ci_high'])}]: "
        f"{'below, intervals apart' if ok else 'not below beyond the intervals'} ({target} ranks {rank} of "
        f"{len(t)}, 1 = highest)",
        {target: v, f"lowest other ({low['embedder']})": float(low["mean"]), "rank": rank},
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
