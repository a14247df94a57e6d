"""Heros' rules (Chiang et al.), pure: each minimal pair's normalized similarity s' = (s − b)/(1 − b) (a frame with
embedder, subset, original, normalized) -> `Verdict`.

Two subsets of one encoder are compared on the originals that have a pair in both (the same sentence changed two
ways), so every comparison is a paired difference: its mean over those originals and a 95% percentile bootstrap
interval (`DEFAULT_RULE`: a difference counts when the interval excludes 0; at least `MIN_UNITS` originals).
Two encoders are compared the same way, on the same pairs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from n2o_core.evaluation.findings.verdict import MIN_UNITS, Verdict, fmt, unchecked

#: Bootstrap resamples of the originals (fixed seed: the same numbers every time).
N_BOOT = 2000
SUBSET_NAMES = {
    "synonym": "Synonym",
    "antonym": "Antonym",
    "negation_main": "Negation (Main)",
    "negation_antonym": "Negation (Antonym)",
}


def _by_original(pairs: pd.DataFrame | None, eid: str, subset: str) -> pd.Series | str:
    if pairs is None or pairs.empty or eid not in set(pairs["embedder"]):
        return f"no HEROS scores for {eid}"
    r = pairs[(pairs["embedder"] == eid) & (pairs["subset"] == subset)]
    if r.empty:
        return f"no {SUBSET_NAMES.get(subset, subset)} pairs could be made from this corpus"
    return r.groupby("original")["normalized"].mean()


def _ci(values: np.ndarray) -> tuple[float, float, float]:
    from n2o_core.evaluation.heros.score import bootstrap_ci

    lo, hi = bootstrap_ci(values, n_boot=N_BOOT, seed=0)
    return float(np.mean(values)), lo, hi


def paired_difference(pairs: pd.DataFrame | None, a: tuple[str, str], b: tuple[str, str]) -> dict[str, float] | str:
    """s'(a) − s'(b) for two (embedder, subset): the mean over the originals scored in both, its 95% bootstrap
    interval and the number of originals; or why it cannot be computed (fewer than `MIN_UNITS` originals)."""
    sa, sb = _by_original(pairs, *a), _by_original(pairs, *b)
    for s in (sa, sb):
        if isinstance(s, str):
            return s
    assert not isinstance(sa, str) and not isinstance(sb, str)
    both = sa.index.intersection(sb.index)
    if len(both) < MIN_UNITS:
        return f"only {len(both)} originals have both pairs; a comparison needs at least {MIN_UNITS}"
    d = sa.loc[both].to_numpy() - sb.loc[both].to_numpy()
    m, lo, hi = _ci(d)
    return {"difference": m, "ci_low": lo, "ci_high": hi, "originals": float(len(both))}


def _effect(pairs: pd.DataFrame | None, eid: str) -> pd.Series | str:
    """Per original: s'(Synonym) − s'(Antonym) of `eid` (how far below its synonym swap an antonym swap is rated)."""
    syn, ant = _by_original(pairs, eid, "synonym"), _by_original(pairs, eid, "antonym")
    if isinstance(syn, str):
        return syn
    if isinstance(ant, str):
        return ant
    both = syn.index.intersection(ant.index)
    return syn.loc[both] - ant.loc[both]


def _diff_text(label: str, d: dict[str, float]) -> str:
    return f"{label} {fmt(d['difference'])} [{fmt(d['ci_low'])}, {fmt(d['ci_high'])}]"


def negation_far_above(pairs: pd.DataFrame | None, eid: str) -> Verdict:
    """Heros §3.2 (averaged GloVe): "the similarity [before and after negation] is much higher than replacing one
    word with its synonym or antonym". For each negation subset and each swap: s'(negation) − s'(swap) on the
    originals with both; ✓ when all four 95% intervals lie above 0."""
    rows, why = [], []
    for neg in ("negation_main", "negation_antonym"):
        for ref in ("synonym", "antonym"):
            d = paired_difference(pairs, (eid, neg), (eid, ref))
            if isinstance(d, str):
                why.append(d)
                continue
            rows.append({"comparison": f"{SUBSET_NAMES[neg]} − {SUBSET_NAMES[ref]}", **d})
    if why:
        return unchecked(f"{eid}: {'; '.join(dict.fromkeys(why))}")
    t = pd.DataFrame(rows)
    n_ok = int((t["ci_low"] > 0).sum())
    worst = t.sort_values("ci_low").iloc[0]
    ok = n_ok == len(t)
    return Verdict(
        ok,
        f"{eid}: a negation is rated above a one-word swap in {n_ok} of {len(t)} comparisons beyond the 95% "
        f"interval; the closest, {worst['comparison']}: {fmt(worst['difference'])} [{fmt(worst['ci_low'])}, "
        f"{fmt(worst['ci_high'])}] over {int(worst['originals'])} originals",
        {f"{r['comparison']}": float(r["difference"]) for _, r in t.iterrows()} | {"comparisons above": n_ok},
        t,
    )


def main_below_antonym(pairs: pd.DataFrame | None, eids: Sequence[str]) -> Verdict:
    """Heros §3.2: "Almost all SEs rate Negation (Main) to be less similar compared with Negation (Antonym)". Per
    encoder: s'(Negation (Antonym)) − s'(Negation (Main)) on the originals with both, lower beyond its 95% interval;
    ✓ when that holds for all of the encoders judged but at most one ("almost all", `DEFAULT_RULE`)."""
    rows = []
    for e in eids:
        d = paired_difference(pairs, (e, "negation_antonym"), (e, "negation_main"))
        if not isinstance(d, str):
            rows.append({"embedder": e, **d, "main below": bool(d["ci_low"] > 0)})
    if len(rows) < 2:
        return unchecked("fewer than 2 encoders have both negation subsets on enough originals")
    t = pd.DataFrame(rows)
    n_ok = int(t["main below"].sum())
    ok = n_ok >= len(t) - 1
    return Verdict(
        ok,
        f"Negation (Main) below Negation (Antonym) beyond the 95% interval for {n_ok} of {len(t)} encoders "
        f"({'all but at most one' if ok else 'fewer than all but one'})",
        {"encoders below": n_ok, "encoders": len(t)},
        t,
    )


def _negations_vs_synonym(pairs: pd.DataFrame | None, eid: str) -> list[dict[str, object]] | str:
    rows: list[dict[str, object]] = []
    for neg in ("negation_main", "negation_antonym"):
        d = paired_difference(pairs, (eid, neg), (eid, "synonym"))
        if isinstance(d, str):
            return f"{eid}: {d}"
        rows.append({"embedder": eid, "comparison": f"{SUBSET_NAMES[neg]} − Synonym", **d})
    return rows


def negations_above_synonym(pairs: pd.DataFrame | None, eid: str) -> Verdict:
    """Heros §3.1 (MiniLM L3, para): "very high similarity on the Negation subsets and is even higher than the
    Synonym subset". ✓ when both s'(negation) − s'(Synonym) lie above 0 beyond their 95% intervals."""
    rows = _negations_vs_synonym(pairs, eid)
    if isinstance(rows, str):
        return unchecked(rows)
    t = pd.DataFrame(rows)
    ok = bool((t["ci_low"] > 0).all())
    return Verdict(
        ok,
        f"{eid}: "
        + "; ".join(_diff_text(str(r["comparison"]), dict(r)) for _, r in t.iterrows())
        + f" over {int(t['originals'].min())}+ originals: {'both above 0' if ok else 'not both above 0'}",
        {str(r["comparison"]): float(r["difference"]) for _, r in t.iterrows()},
        t,
    )


def negations_above_synonym_means(results: pd.DataFrame | None, eid: str) -> Verdict:
    """A looser reading of `negations_above_synonym`: both negation subsets' mean normalized similarity above the
    Synonym subset's (no interval)."""
    if results is None or results.empty or eid not in set(results["embedder"]):
        return unchecked(f"no HEROS scores for {eid}")
    r = results[results["embedder"] == eid].set_index("subset")
    subs = ("synonym", "negation_main", "negation_antonym")
    if any(s not in r.index for s in subs):
        return unchecked(f"{eid}: not every subset could be made from this corpus")
    s = r["normalized"].astype(float)
    ok = bool(s["negation_main"] > s["synonym"] and s["negation_antonym"] > s["synonym"])
    return Verdict(
        ok,
        f"{eid}: mean negation (main) {fmt(s['negation_main'])}, negation (antonym) {fmt(s['negation_antonym'])} vs "
        f"synonym {fmt(s['synonym'])}: {'both above' if ok else 'not both above'}",
        {sub: float(s[sub]) for sub in subs},
    )


def most_negations_above_synonym(pairs: pd.DataFrame | None, eids: Sequence[str]) -> Verdict:
    """Heros §3.1 ("all" block): negations "even higher than the similarity of the Synonym subset for most models".
    Per encoder `negations_above_synonym`; ✓ when it holds for more than half of the encoders judged ("most",
    `DEFAULT_RULE`)."""
    rows, judged = [], 0
    for e in eids:
        got = _negations_vs_synonym(pairs, e)
        if isinstance(got, str):
            continue
        judged += 1
        above = all(float(r["ci_low"]) > 0 for r in got)  # type: ignore[arg-type]
        rows += [dict(r, **{"both above": above}) for r in got]
    if judged == 0:
        return unchecked("no encoder has the negation and synonym subsets on enough originals")
    t = pd.DataFrame(rows)
    n_ok = int(t.groupby("embedder")["both above"].first().sum())
    ok = n_ok > judged / 2
    return Verdict(
        ok,
        f"both negation subsets above Synonym beyond the 95% interval for {n_ok} of {judged} encoders "
        f"({'more than half' if ok else 'not more than half'})",
        {"encoders above": n_ok, "encoders": judged},
        t,
    )


def antonym_effect_apart(pairs: pd.DataFrame | None, target: str, others: Sequence[str]) -> Verdict:
    """Heros §3.1: "SEs fine-tuned on paraphrase datasets are extremely sensitive to negations and antonyms [...]
    these SEs are also sensitive to replacing words with antonyms". The effect size of one encoder: per original,
    s'(Synonym) − s'(Antonym), how far below its synonym swap an antonym swap is rated (Heros' normalized scale,
    comparable across encoders). "Extremely": `target`'s effect larger than each of `others`' on the same
    originals; ✓ when every difference of effects has its 95% bootstrap interval above 0."""
    base = _effect(pairs, target)
    if isinstance(base, str):
        return unchecked(base)
    rows, why = [], []
    for o in others:
        other = _effect(pairs, o)
        if isinstance(other, str):
            why.append(other)
            continue
        both = base.index.intersection(other.index)
        if len(both) < MIN_UNITS:
            why.append(f"only {len(both)} originals have both swaps for {target} and {o}")
            continue
        m, lo, hi = _ci(base.loc[both].to_numpy() - other.loc[both].to_numpy())
        rows.append(
            {
                "other": o,
                f"{target} effect": float(base.loc[both].mean()),
                "other's effect": float(other.loc[both].mean()),
                "difference": m,
                "ci_low": lo,
                "ci_high": hi,
                "originals": len(both),
            }
        )
    if why or not rows:
        return unchecked("; ".join(why) or "no encoder to compare with")
    t = pd.DataFrame(rows)
    ok = bool((t["ci_low"] > 0).all())
    theirs = "other's effect"
    return Verdict(
        ok,
        f"antonym effect s'(Synonym) − s'(Antonym): {target} {fmt(float(base.mean()))}; "
        + "; ".join(
            f"vs {r['other']} {fmt(r[theirs])}: difference {fmt(r['difference'])} "
            f"[{fmt(r['ci_low'])}, {fmt(r['ci_high'])}]"
            for _, r in t.iterrows()
        )
        + f": {'larger than every other' if ok else 'not larger than every other'} beyond the 95% interval",
        {f"{target} effect": float(base.mean())} | {f"{r['other']} effect": float(r[theirs]) for _, r in t.iterrows()},
        t,
    )
