"""The N2O paper's rules applied to linear CKA instead of N2O, beyond the paper: one sensitivity row per finding
that judges the N2O matrix between embedders (`CKA_SCORING`), pure: `Evidence.cka` -> `Verdict`.

Linear CKA (Kornblith et al. 2019, "Similarity of neural network representations revisited", ICML; biased HSIC,
the measures' `cka_linear`) of the same embedders on every sentence of the same run's corpus, in feature space
(`compute.cka_matrix`, through `n2o_core.measures.run.feature_matrix`). Each row runs the N2O rule itself
(`rules_n2o`) on the CKA matrix, so the row is the same rule on the other measure. What does not carry over is said
in the row's summary:

- CKA has no query samples: the rules' 95% t-intervals over the query samples collapse to the value (the rules'
  own one-sample case: the difference itself must be above 0), and no spread is shown;
- CKA has no chance level k/(N − 1) and no k: "far above chance" and "stable across k / across query samples" get
  no CKA row (a permutation null would be a new rule, not the paper's).

These rows never decide a status, nor make a finding setting-sensitive (`verdict.OTHER_MEASURES`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from n2o_core.evaluation.findings.rules_n2o import (
    apart_from_every_family,
    further_than_analogue,
    group_agreement,
    low_with_others,
    subword_apart,
)
from n2o_core.evaluation.findings.verdict import Evidence, N2OEvidence, Verdict, fmt, unchecked

#: What the CKA rows leave out of the N2O rules that test over query samples.
BY_VALUE = "CKA has no query samples: compared by value, no interval"


def cka_evidence(cka: pd.DataFrame) -> N2OEvidence:
    """The CKA matrix in the form the N2O rules read: one "sample" (an interval over samples collapses to the value),
    std 0, k and queries 0 (no chance level: the rules that need one get no CKA row)."""
    names = list(cka.index)
    zero = pd.DataFrame(0.0, index=names, columns=names)
    return N2OEvidence(cka, zero, 0, 0, 0, 1)


def _numbers(numbers: Mapping[str, float]) -> dict[str, float]:
    """The rule's numbers under CKA: "N2O" read as "CKA", the (collapsed) interval edges left out."""
    return {k.replace("N2O", "CKA"): v for k, v in numbers.items() if "ci_" not in k}


def _missing(ev: Evidence, v: Verdict | None = None) -> Verdict:
    if ev.cka is None:
        return unchecked(f"no linear CKA{': ' + ev.cka_note if ev.cka_note else ''}")
    assert v is not None
    return Verdict(None, v.summary.replace("no N2O", "no linear CKA"))


def _where(ev: Evidence) -> str:
    return f" ({ev.cka_note})" if ev.cka_note else ""


def cka_group_agreement(ev: Evidence, group: Sequence[str], others: Sequence[str]) -> Verdict:
    """`group_agreement` on the CKA matrix: mean CKA within `group` > mean CKA between `group` and `others`, by value
    (no query samples, no interval, no spread)."""
    if ev.cka is None:
        return _missing(ev)
    v = group_agreement(cka_evidence(ev.cka), group, others)
    if v.passed is None:
        return _missing(ev, v)
    within, between, ratio = v.numbers["within"], v.numbers["between"], v.numbers["ratio"]
    return Verdict(
        v.passed,
        f"mean linear CKA within {fmt(within)} {'>' if v.passed else '≤'} between {fmt(between)} (ratio "
        f"{ratio:.2f}){_where(ev)}; {BY_VALUE}",
        _numbers(v.numbers),
        v.table.drop(columns=["std"]).rename(columns={"n2o": "cka"}) if v.table is not None else None,
    )


def cka_low_with_others(ev: Evidence, target: str, static: Sequence[str]) -> Verdict:
    """`low_with_others` on the CKA matrix: `target`'s mean CKA with the others below the median embedder's, and
    with the static averages below theirs among themselves; both by value (no query samples, no interval)."""
    if ev.cka is None:
        return _missing(ev)
    v = low_with_others(cka_evidence(ev.cka), target, static)
    if v.passed is None:
        return _missing(ev, v)
    n = v.numbers
    ok_a, ok_b = n["difference (others)"] > 0, n["difference (static)"] > 0
    return Verdict(
        v.passed,
        f"{target}'s mean linear CKA with the others {fmt(n[f'{target} with the others'])} vs the median "
        f"embedder's {fmt(n['median embedder with the others'])} ({'below' if ok_a else 'not below'}); with the "
        f"static averages {fmt(n[f'{target} with the static averages'])} vs their CKA among themselves "
        f"{fmt(n['static averages among themselves'])} ({'below' if ok_b else 'not below'}){_where(ev)}; {BY_VALUE}",
        _numbers(n),
        v.table.rename(columns={"mean N2O with the others": "mean CKA with the others"})
        if v.table is not None
        else None,
    )


def _others(cka: pd.DataFrame, *exclude: str) -> list[str]:
    return [e for e in cka.index if e not in exclude]


def _analogue_text(n: Mapping[str, float], target: str, analogue: str, n_others: int, ok: bool) -> str:
    return (
        f"mean linear CKA with the {n_others} others: {target} {fmt(n[f'{target} mean N2O'])} vs {analogue} "
        f"{fmt(n[f'{analogue} mean N2O'])} (ratio {n['ratio']:.2f}); difference {fmt(n['difference'])} "
        f"{'above' if ok else 'not above'} 0; lower for {int(n['lower for'])} of {n_others}"
    )


def cka_further_than_analogue(ev: Evidence, target: str, analogue: str) -> Verdict:
    """`further_than_analogue` on the CKA matrix (others: every other embedder): the analogue's mean CKA with the
    others minus `target`'s must be above 0, by value (no query samples, no interval)."""
    if ev.cka is None:
        return _missing(ev)
    others = _others(ev.cka, target, analogue)
    v = further_than_analogue(cka_evidence(ev.cka), target, analogue, others)
    if v.passed is None:
        return _missing(ev, v)
    t = v.table.drop(columns=[f"{target} std", f"{analogue} std"]) if v.table is not None else None
    return Verdict(
        v.passed,
        f"{_analogue_text(v.numbers, target, analogue, len(others), bool(v.passed))}{_where(ev)}; {BY_VALUE}",
        _numbers(v.numbers),
        t,
    )


def cka_subword_apart(ev: Evidence, sub: str, analogue: str, group: Sequence[str]) -> Verdict:
    """`subword_apart` on the CKA matrix (others: every embedder but the two fastText models): (a) CKA(sub,
    analogue) below the mean CKA among `group`, (b) the subword model's mean CKA with the others below the
    analogue's; both by value (no query samples, no interval)."""
    if ev.cka is None:
        return _missing(ev)
    others = _others(ev.cka, sub, analogue)
    v = subword_apart(cka_evidence(ev.cka), sub, analogue, group, others)
    if v.passed is None:
        return _missing(ev, v)
    n = v.numbers
    pair, w, d = n[f"N2O({analogue}, {sub})"], n["static within"], n["pair difference"]
    ok_a = bool(n["pair difference ci_low"] > 0)
    ok_b = bool(n["difference ci_low"] > 0)
    return Verdict(
        v.passed,
        f"CKA({analogue}, {sub}) {fmt(pair)} vs mean CKA among {', '.join(group)} {fmt(w)}: difference {fmt(d)} "
        f"{'above' if ok_a else 'not above'} 0 ({'lower' if ok_a else 'not lower'}); with the others: "
        f"{_analogue_text(n, sub, analogue, len(others), ok_b)}{_where(ev)}; {BY_VALUE}",
        _numbers(n),
        v.table.rename(columns={"n2o": "cka"}) if v.table is not None else None,
    )


def cka_apart_from_every_family(ev: Evidence, target: str, families: Mapping[str, Sequence[str]]) -> Verdict:
    """`apart_from_every_family` on the CKA matrix: for each family, its mean CKA with every other embedder but
    `target` minus `target`'s mean CKA with it must be above 0, by value (no query samples, no interval)."""
    if ev.cka is None:
        return _missing(ev)
    v = apart_from_every_family(cka_evidence(ev.cka), target, families)
    if v.passed is None or v.table is None:
        return _missing(ev, v)
    t = v.table.drop(columns=["ci_low", "ci_high"])
    worst = t.sort_values("difference").iloc[0]
    return Verdict(
        v.passed,
        f"{target} is below each family's linear CKA with the rest for {int(t['apart'].sum())} of {len(t)} families; "
        f"closest: {worst['family']}, {target} {fmt(worst[target])} vs {fmt(worst['family with the rest'])} "
        f"(difference {fmt(worst['difference'])}){_where(ev)}; {BY_VALUE}",
        _numbers(v.numbers),
        t,
    )
