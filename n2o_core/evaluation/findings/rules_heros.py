"""Heros' rules (Chiang et al.), pure: HEROS scores (results frame: embedder, subset, n, raw, normalized, ci_low,
ci_high) -> `Verdict`."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from n2o_core.evaluation.findings.verdict import Verdict, fmt, unchecked


def _subset_rows(results: pd.DataFrame, eid: str, subsets: Sequence[str]) -> pd.DataFrame | str:
    if results is None or results.empty or eid not in set(results["embedder"]):
        return f"no HEROS scores for {eid}"
    r = results[results["embedder"] == eid].set_index("subset")
    miss = [s for s in subsets if s not in r.index]
    if miss:
        return f"no {', '.join(miss)} pairs could be made from this corpus"
    return r.loc[list(subsets), ["normalized", "ci_low", "ci_high", "n"]]


def negation_far_above(results: pd.DataFrame, eid: str) -> Verdict:
    """Both negation subsets vs Synonym and Antonym (normalized, 95% bootstrap CIs). ✓ when each negation subset's
    interval lies entirely above both swaps' intervals ("much higher than replacing one word with its synonym or
    antonym", read as: higher beyond the sampling error). The distance from identity d = 1 − s' of a negation
    relative to a swap's is shown beside it."""
    subs = ("synonym", "antonym", "negation_main", "negation_antonym")
    r = _subset_rows(results, eid, subs)
    if isinstance(r, str):
        return unchecked(r)
    s = r["normalized"].astype(float)
    d = 1.0 - s
    ratios = {
        f"d({n})/d({ref})": (float(d[n] / d[ref]) if d[ref] > 0 else (0.0 if d[n] <= 0 else float("inf")))
        for n in ("negation_main", "negation_antonym")
        for ref in ("synonym", "antonym")
    }
    worst = max(ratios.values())
    swap_hi = float(max(r.loc["synonym", "ci_high"], r.loc["antonym", "ci_high"]))
    neg_lo = float(min(r.loc["negation_main", "ci_low"], r.loc["negation_antonym", "ci_low"]))
    ok = neg_lo > swap_hi
    return Verdict(
        ok,
        f"{eid}: negation (main) {fmt(s['negation_main'])}, negation (antonym) {fmt(s['negation_antonym'])} vs "
        f"synonym {fmt(s['synonym'])}, antonym {fmt(s['antonym'])}; lowest negation CI edge {fmt(neg_lo)} "
        f"{'>' if ok else '≤'} highest swap CI edge {fmt(swap_hi)}; largest d(negation)/d(swap) {worst:.2f}",
        {
            **{sub: float(s[sub]) for sub in subs},
            "largest ratio": worst,
            "negation ci_low": neg_lo,
            "swap ci_high": swap_hi,
        },
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
        return unchecked("no embedder has both negation subsets")
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
        return unchecked(r)
    s = r["normalized"].astype(float)
    ok = bool(s["negation_main"] > s["synonym"] and s["negation_antonym"] > s["synonym"])
    return Verdict(
        ok,
        f"{eid}: negation (main) {fmt(s['negation_main'])}, negation (antonym) {fmt(s['negation_antonym'])} vs "
        f"synonym {fmt(s['synonym'])}: {'both above' if ok else 'not both above'}",
        {sub: float(s[sub]) for sub in subs},
        r.reset_index(),
    )


def antonym_clearly_below_synonym(results: pd.DataFrame, eid: str) -> Verdict:
    """Antonym vs Synonym (normalized, 95% bootstrap CIs). ✓ when Antonym's CI lies entirely below Synonym's."""
    r = _subset_rows(results, eid, ("synonym", "antonym"))
    if isinstance(r, str):
        return unchecked(r)
    syn, ant = r.loc["synonym"], r.loc["antonym"]
    ok = bool(ant["ci_high"] < syn["ci_low"])
    return Verdict(
        ok,
        f"{eid}: antonym {fmt(ant['normalized'])} [{fmt(ant['ci_low'])}, {fmt(ant['ci_high'])}] vs synonym "
        f"{fmt(syn['normalized'])} [{fmt(syn['ci_low'])}, {fmt(syn['ci_high'])}]: CIs {'apart' if ok else 'overlap'}",
        {"antonym": float(ant["normalized"]), "synonym": float(syn["normalized"])},
        r.reset_index(),
    )
