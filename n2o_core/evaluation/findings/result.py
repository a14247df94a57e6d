"""A finding judged on every run (`FindingResult`, `judge`), its JSON form and back (`to_json`, `result_from_json`,
for the results kept in the cache), the summary counts and the `findings --json` document.

The status comes from the fixed setting alone, over every run (seeds × corpus sizes): `holds` (every run judged
holds), `fails` (no run holds), `unstable` (some do), `not_checked` (no run could be judged). No run is a
reference: the numbers shown are the first run's, labelled as such. A sensitivity row (another setting, or a
stricter or looser reading of the paper's words) whose verdict differs from the fixed setting's in some run makes
the finding `setting_sensitive`, with which rows and runs: a flag beside the status, never a status of its own. A
row of another measure (`OTHER_MEASURES`) is shown and counted but flags nothing."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from n2o_core.analyses.overlap import chance_level
from n2o_core.evaluation.findings.verdict import (
    DEFAULT_RULE,
    DEFAULT_SETTING,
    STATUS_LABELS,
    STATUS_MARKS,
    STATUSES,
    Evidence,
    Finding,
    Verdict,
    row_kind,
    unchecked,
)
from n2o_core.limits import K_SHARE_MAX, k_share_cap, sentences_for_k
from n2o_core.storage.fileio import json_plain


@dataclass
class FindingResult:
    """A finding judged on every run: the first run's verdict and sensitivity verdicts (their numbers are the ones
    shown; `numbers_from` says which run), how many runs hold (`holds` of `runs` judged, of `total_runs`), the same
    per sensitivity row, one row per run, which rows disagree with the fixed setting in which runs
    (`sensitive_to`), what may explain a failure (`explanation`, empty when it holds), the setup, the embedders
    that failed, the time it took and, for a result read back from the cache, when it was computed."""

    finding: Finding
    verdict: Verdict
    sensitivity: list[Verdict] = field(default_factory=list)
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    holds: int = 0
    runs: int = 0
    sensitivity_holds: list[tuple[int, int]] = field(default_factory=list)
    run_rows: list[dict[str, Any]] = field(default_factory=list)
    total_runs: int = 0
    sensitive_to: list[dict[str, Any]] = field(default_factory=list)
    explanation: str = ""
    numbers_from: str = ""
    computed_at: str = ""

    @property
    def status(self) -> str:
        """One of STATUSES, from the fixed setting's verdicts alone: not_checked (no run judged), holds (every
        judged run), fails (none), unstable (some)."""
        if self.runs == 0:
            return "not_checked"
        if self.holds == self.runs:
            return "holds"
        return "fails" if self.holds == 0 else "unstable"

    @property
    def mark(self) -> str:
        """The status's mark: ✓ holds, ✗ fails, ◐ unstable, – not checked."""
        return STATUS_MARKS[self.status]

    @property
    def setting_sensitive(self) -> bool:
        """Whether another setting or reading (not another measure) judges some run differently."""
        return bool(self.sensitive_to)

    @property
    def holds_text(self) -> str:
        """'holds in x of n runs' (and how many runs could not be judged)."""
        if self.runs == 0:
            return f"not checked in any of {self.total_runs} run(s)"
        left = self.total_runs - self.runs
        return f"holds in {self.holds} of {self.runs} runs" + (f" ({left} more could not be judged)" if left else "")

    def sensitivity_counts(self) -> list[tuple[int, int]]:
        """(holds, runs) of each sensitivity row, in `finding.sensitivity`'s order."""
        if len(self.sensitivity_holds) == len(self.sensitivity):
            return self.sensitivity_holds
        return [(int(v.passed is True), int(v.passed is not None)) for v in self.sensitivity]

    def to_json(self) -> dict[str, Any]:
        f = self.finding
        differs = {d["scoring"]: d["runs"] for d in self.sensitive_to}
        return json_plain(
            {
                "id": f.id,
                "paper": f.paper,
                "where": f.where,
                "title": f.title,
                "statement": f.statement,
                "tested": f.tested,
                "embedders": list(f.embedders),
                "rule": f.rule,
                "scoring": f.scoring,
                "setting_reason": f.setting_reason,
                "cutoff_reason": f.cutoff_reason,
                "history": f.history,
                "data": f.data or "the current corpus",
                "paper_numbers": f.paper_numbers,
                "status": self.status,
                "holds": self.holds,
                "runs": self.runs,
                "total_runs": self.total_runs,
                "holds_text": self.holds_text,
                "setting_sensitive": self.setting_sensitive,
                "sensitive_to": self.sensitive_to,
                "explanation": self.explanation,
                "numbers_from": self.numbers_from,
                "summary": self.verdict.summary,
                "numbers": _json_numbers(self.verdict.numbers),
                "table": _records(self.verdict.table),
                "sensitivity": [
                    {
                        "scoring": label,
                        "kind": row_kind(label),
                        "passed": v.passed,
                        "summary": v.summary,
                        "numbers": _json_numbers(v.numbers),
                        "holds": h,
                        "runs": n,
                        "differs_in": differs.get(label, []),
                    }
                    for (label, _), v, (h, n) in zip(
                        f.sensitivity, self.sensitivity, self.sensitivity_counts(), strict=True
                    )
                ],
                "run_verdicts": self.run_rows,
                "setup": self.setup,
                "errors": self.errors,
                "seconds": round(self.seconds, 2),
                "computed_at": self.computed_at,
            }
        )


def result_from_json(f: Finding, doc: Mapping[str, Any]) -> FindingResult:
    """A `FindingResult` back from its `to_json()` (for results kept in the cache): the first run's verdict with its
    table, the sensitivity rows, the counts, the runs and the explanation. N2OError-free: a document of another
    finding or catalogue version raises ValueError (the store then computes it again)."""
    if doc.get("id") != f.id or [s.get("scoring") for s in doc.get("sensitivity", [])] != [
        label for label, _ in f.sensitivity
    ]:
        raise ValueError(f"the stored result is not the current form of {f.id}")
    rows = list(doc.get("run_verdicts") or [])
    first = rows[0] if rows else {}
    table = pd.DataFrame(doc["table"]) if doc.get("table") is not None else None
    verdict = Verdict(first.get("passed"), str(doc.get("summary", "")), _numbers(doc.get("numbers")), table)
    sens = [Verdict(s.get("passed"), str(s.get("summary", "")), _numbers(s.get("numbers"))) for s in doc["sensitivity"]]
    return FindingResult(
        f,
        verdict,
        sens,
        dict(doc.get("setup") or {}),
        dict(doc.get("errors") or {}),
        float(doc.get("seconds") or 0.0),
        int(doc.get("holds") or 0),
        int(doc.get("runs") or 0),
        [(int(s.get("holds") or 0), int(s.get("runs") or 0)) for s in doc["sensitivity"]],
        rows,
        int(doc.get("total_runs") or len(rows)),
        list(doc.get("sensitive_to") or []),
        str(doc.get("explanation") or ""),
        str(doc.get("numbers_from") or ""),
        str(doc.get("computed_at") or ""),
    )


def run_label(setup: Mapping[str, Any]) -> str:
    """How a run is named: 'seed 1, 2,000 sentences' (the seed and the size of its corpus), or its data."""
    seed, n = setup.get("seed"), setup.get("sentences")
    if seed is None or n is None:
        return str(setup.get("data", "one run"))
    return f"seed {seed}, {int(n):,} sentences"


def k_too_large(ev: Evidence) -> str:
    """Why a neighbor finding's run is not judged when the paper's k is more than K_SHARE_MAX of the run's N - 1
    candidates ('' when it is not): chance k/(N - 1) alone then gives an N2O of that size, and the values crowd
    near it (k = 50 on 60 sentences: chance 0.85), as every view's default k avoids."""
    n2o = ev.n2o
    if n2o is None or n2o.k <= k_share_cap(n2o.corpus_size):
        return ""
    n, k = n2o.corpus_size, n2o.k
    share = f"{k / (n - 1):.0%}"
    if share == f"{K_SHARE_MAX:.0%}":  # 10/99 reads "10%": one more digit says it is over
        share = f"{k / (n - 1):.1%}"
    return (
        f"k = {k} (the paper's) is {share} of the {n - 1:,} other sentences of this {n:,}-sentence run: "
        f"random neighbors would already share {chance_level(k, n):.2f} of them, so N2O cannot set embedders apart "
        f"here. A neighbor finding is judged where k is within {K_SHARE_MAX:.0%} of the candidates, as every "
        f"view's default k: {sentences_for_k(k):,} sentences or more"
    )


def _judged(f: Finding, ev: Evidence) -> tuple[Verdict, list[Verdict]]:
    small = k_too_large(ev)
    v = unchecked(small) if small else f.check(ev)
    if v.passed is None and ev.errors:
        v = Verdict(None, v.summary + " (" + "; ".join(f"{e}: {m}" for e, m in ev.errors.items()) + ")")
    return v, [check(ev) for _, check in f.sensitivity]


def judge(f: Finding, ev: Evidence, seconds: float = 0.0) -> FindingResult:
    """Apply the finding's check (and its sensitivity rows') to computed evidence, on `ev` and each of its
    replicate runs: pure. The status counts the fixed setting's verdicts over every run; a row whose verdict
    differs from the fixed setting's in a run (both judged) is listed in `sensitive_to` with those runs."""
    every = [(ev, *_judged(f, ev))] + [(r, *_judged(f, r)) for r in ev.replicates]
    holds = sum(v.passed is True for _, v, _ in every)
    runs = sum(v.passed is not None for _, v, _ in every)
    n_rows = len(f.sensitivity)
    sens_counts = [
        (sum(s[j].passed is True for _, _, s in every), sum(s[j].passed is not None for _, _, s in every))
        for j in range(n_rows)
    ]
    rows = [
        {
            "run": run_label(e.setup),
            "seed": e.setup.get("seed"),
            "sentences": e.setup.get("sentences"),
            "passed": v.passed,
        }
        | {f"sensitivity {j + 1}": s[j].passed for j in range(n_rows)}
        for e, v, s in every
    ]
    sensitive_to = []
    for j, (label, _) in enumerate(f.sensitivity):
        if row_kind(label) == "measure":
            continue
        differ = [
            run_label(e.setup)
            for e, v, s in every
            if v.passed is not None and s[j].passed is not None and s[j].passed != v.passed
        ]
        if differ:
            sensitive_to.append({"scoring": label, "runs": differ})
    errors = dict(ev.errors)
    for r in ev.replicates:
        for e, m in r.errors.items():
            errors.setdefault(e, m)
    out = FindingResult(
        f,
        every[0][1],
        every[0][2],
        dict(ev.setup),
        errors,
        seconds,
        holds,
        runs,
        sens_counts,
        rows,
        len(every),
        sensitive_to,
        numbers_from=f"the first run ({run_label(ev.setup)})",
    )
    out.explanation = explain(f, out, [v for _, v, _ in every])
    return out


def explain(f: Finding, r: FindingResult, verdicts: Sequence[Verdict]) -> str:
    """What may explain that a finding does not hold here: empty when it holds; otherwise the finding's own
    explanation (`Finding.explanation`) and, when runs could not be judged, why."""
    if r.status == "holds":
        return ""
    parts = []
    if r.status == "not_checked" or r.runs < r.total_runs:
        groups: dict[str, list[str]] = {}  # one line per reason, however its counts differ from run to run
        for v in verdicts:
            if v.passed is None:
                why = v.summary.removeprefix("not checked: ")
                groups.setdefault(re.sub(r"\d[\d,.]*", "#", why), []).append(why)
        said = [
            w[0] + (f" (in {len(w)} runs, the counts differing)" if len(set(w)) > 1 else "") for w in groups.values()
        ]
        where = "" if r.status == "not_checked" else f" in {r.total_runs - r.runs} of {r.total_runs} runs"
        parts.append(f"Could not be judged{where}: " + "; ".join(said) + ".")
    if r.status != "not_checked" and f.explanation:
        parts.append(fill(f.explanation, r.setup))
    return " ".join(parts)


def fill(text: str, setup: Mapping[str, Any]) -> str:
    """A finding's text with `{fit}` (what the corpus-trained embedders were trained on) and `{chance}` (k/(N − 1))
    taken from a run's setup, or said generally when the run does not have them."""
    fit = setup.get("corpus-trained embedders trained on")
    chance = setup.get("chance k/(N-1)")
    return text.replace("{fit}", str(fit) if fit else "the sentences").replace(
        "{chance}", f"{float(chance):.4f}" if chance is not None else "k/(N − 1)"
    )


def summary_counts(results: Sequence[FindingResult]) -> dict[str, int]:
    """How many findings hold, fail, are unstable across runs or could not be checked (they sum to `findings`), and
    apart from those, how many are setting-sensitive: the top-level "summary" of `findings --json`."""
    out = {s: 0 for s in STATUSES}
    for r in results:
        out[r.status] += 1
    out["findings"] = len(results)
    out["setting_sensitive"] = sum(r.setting_sensitive for r in results)
    return out


def overview_table(findings: Sequence[Finding], results: Mapping[str, FindingResult | None]) -> pd.DataFrame:
    """One row per finding, in the order given, as the findings page lists them first: its mark, where the paper
    says it, its title, its status ("not computed yet" without a result), "x of n" runs holding, whether it is
    setting-sensitive, and the first run's numbers."""
    rows = []
    for f in findings:
        r = results.get(f.id)
        rows.append(
            {
                "": r.mark if r else "",
                "paper": f"{f.paper} {f.where}",
                "finding": f.title,
                "status": STATUS_LABELS[r.status] if r else "not computed yet",
                "holds": f"{r.holds} of {r.runs}" if r else "",
                "setting-sensitive": ("yes" if r.setting_sensitive else "no") if r else "",
                "numbers (first run)": r.verdict.summary if r else "",
            }
        )
    return pd.DataFrame(rows)


def computed_range(results: Sequence[FindingResult]) -> tuple[str, str] | None:
    """The earliest and the latest time the results were computed (None when none says)."""
    when = sorted({r.computed_at for r in results if r.computed_at})
    return (when[0], when[-1]) if when else None


def summary_line(counts: Mapping[str, int]) -> str:
    """'5 hold, 7 fail, 4 unstable across runs, 0 not checked, of 16 findings; 3 setting-sensitive'."""
    return (
        f"{counts.get('holds', 0)} hold, {counts.get('fails', 0)} fail, {counts.get('unstable', 0)} "
        f"{STATUS_LABELS['unstable']}, {counts.get('not_checked', 0)} not checked, of {counts.get('findings', 0)} "
        f"findings; {counts.get('setting_sensitive', 0)} setting-sensitive (another setting or reading judges some "
        "run differently)"
    )


def findings_document(
    corpus_name: str, sentences: int, params: Any, results: Sequence[FindingResult]
) -> dict[str, Any]:
    """The `findings --json` document (the page's download is the same): corpus, sentences, the run's parameters
    (a dataclass or a mapping), the one default setting and the one default rule, the summary counts and every
    finding's `to_json()`; numpy scalars become Python numbers, so `json.dumps` needs no default."""
    raw = {
        "corpus": corpus_name,
        "sentences": int(sentences),
        "params": dict(vars(params)) if not isinstance(params, Mapping) else dict(params),
        "default_setting": DEFAULT_SETTING,
        "default_rule": DEFAULT_RULE,
        "summary": summary_counts(results),
        "findings": [r.to_json() for r in results],
    }
    return json_plain(raw)


def _json_numbers(d: Mapping[str, float]) -> dict[str, float | None]:
    return {k: (round(float(v), 6) if v is not None and np.isfinite(v) else None) for k, v in d.items()}


def _numbers(d: Mapping[str, Any] | None) -> dict[str, float]:
    return {k: (float("nan") if v is None else float(v)) for k, v in (d or {}).items()}


def _records(t: pd.DataFrame | None) -> list[dict[str, Any]] | None:
    """A verdict's table as JSON records (index dropped; a table indexed by settings keeps its index as a column)."""
    if t is None:
        return None
    frame = t if isinstance(t.index, pd.RangeIndex) else t.reset_index()
    frame = frame.rename(columns=str)
    return [{k: json_plain(v, nan_as_none=True) for k, v in rec.items()} for rec in frame.to_dict(orient="records")]
