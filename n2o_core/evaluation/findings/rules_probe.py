"""SentEval probing's rules (Conneau et al. 2018, §4), pure: probing accuracies (`probe.run.RESULT_COLUMNS`) and the
tasks (task, majority, skipped) -> `Verdict`.

A test accuracy is a share of the test items classified right, so its 95% interval is Wilson's (inside [0, 1]);
chance is the task's majority-class rate on the test split (`probe.readout.majority`; a balanced task: one over
the number of classes). "Performs randomly": the interval contains chance; "good" or "above chance": the interval
lies above it; "better than": the two intervals do not overlap (`DEFAULT_RULE`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from n2o_core.evaluation.findings.verdict import Verdict, fmt, unchecked

#: The z of a 95% interval.
Z95 = 1.959963984540054


def wilson(accuracy: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval of a proportion `accuracy` of `n` trials (inside [0, 1]; (nan, nan) for n = 0)."""
    if n <= 0:
        return float("nan"), float("nan")
    p = float(accuracy)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))  # rounding never past [0, 1]


def _task_names() -> dict[str, str]:
    from n2o_core.evaluation.probe.tasks import TASK_NAMES

    return TASK_NAMES


def _rows(
    results: pd.DataFrame | None, tasks: pd.DataFrame | None, eid: str, classifier: str, task_ids: Sequence[str]
) -> pd.DataFrame | str:
    """One row per task: accuracy, n_test, Wilson interval and chance for `eid` under `classifier`; or why not (a
    task skipped on this corpus, the embedder not probed)."""
    if results is None or tasks is None or results.empty:
        return "no probing results"
    names = _task_names()
    t = tasks.set_index("task")
    rows = []
    for task in task_ids:
        if task not in t.index:
            return f"{names.get(task, task)} was not built"
        skipped = t.loc[task, "skipped"]
        if isinstance(skipped, str) and skipped:
            return f"{names.get(task, task)} skipped on this corpus: {skipped}"
        r = results[(results["embedder"] == eid) & (results["task"] == task) & (results["classifier"] == classifier)]
        if r.empty:
            return f"no {classifier.upper()} accuracy of {eid} on {names.get(task, task)}"
        acc, n = float(r["accuracy"].iloc[0]), int(r["n_test"].iloc[0])
        lo, hi = wilson(acc, n)
        rows.append(
            {
                "task": names.get(task, task),
                "embedder": eid,
                "classifier": classifier,
                "accuracy": acc,
                "ci_low": lo,
                "ci_high": hi,
                "n_test": n,
                "chance": float(t.loc[task, "majority"]),
            }
        )
    return pd.DataFrame(rows)


def _line(r: pd.Series) -> str:
    return f"{r['task']} {fmt(r['accuracy'])} [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] vs chance {fmt(r['chance'])}"


def _against_chance(
    results: pd.DataFrame | None,
    tasks: pd.DataFrame | None,
    eid: str,
    classifier: str,
    task_ids: Sequence[str],
    above: bool,
) -> Verdict:
    t = _rows(results, tasks, eid, classifier, task_ids)
    if isinstance(t, str):
        return unchecked(t)
    what = "above chance" if above else "at chance"
    t[what] = t["ci_low"] > t["chance"] if above else (t["ci_low"] <= t["chance"]) & (t["chance"] <= t["ci_high"])
    n_ok = int(t[what].sum())
    lines = "; ".join(_line(r) for _, r in t.iterrows())
    return Verdict(
        n_ok == len(t),
        f"{eid} ({classifier.upper()}): {lines}: {what} on {n_ok} of {len(t)} task(s)",
        {f"{r['task']} accuracy": float(r["accuracy"]) for _, r in t.iterrows()} | {f"tasks {what}": n_ok},
        t,
    )


def at_chance(
    results: pd.DataFrame | None, tasks: pd.DataFrame | None, eid: str, classifier: str, task_ids: Sequence[str]
) -> Verdict:
    """ "Performs randomly": on every task in `task_ids`, `eid`'s 95% Wilson interval of test accuracy contains
    chance."""
    return _against_chance(results, tasks, eid, classifier, task_ids, above=False)


def above_chance(
    results: pd.DataFrame | None, tasks: pd.DataFrame | None, eid: str, classifier: str, task_ids: Sequence[str]
) -> Verdict:
    """ "Good" / "well above chance": on every task in `task_ids`, `eid`'s 95% Wilson interval lies above chance."""
    return _against_chance(results, tasks, eid, classifier, task_ids, above=True)


def beats(
    results: pd.DataFrame | None,
    tasks: pd.DataFrame | None,
    eid: str,
    baseline: str,
    classifier: str,
    task_ids: Sequence[str],
    baseline_classifier: str | None = None,
) -> Verdict:
    """ "Much better than the word-based baselines": on every task in `task_ids`, `eid`'s 95% Wilson interval (read
    out by `classifier`) lies above `baseline`'s (read out by `baseline_classifier`, default the same)."""
    b_clf = baseline_classifier or classifier
    a = _rows(results, tasks, eid, classifier, task_ids)
    b = _rows(results, tasks, baseline, b_clf, task_ids)
    if isinstance(a, str):
        return unchecked(a)
    if isinstance(b, str):
        return unchecked(b)
    t = a.merge(b[["task", "accuracy", "ci_low", "ci_high"]], on="task", suffixes=("", f" {baseline}"))
    t["better"] = t["ci_low"] > t[f"ci_high {baseline}"]
    n_ok = int(t["better"].sum())
    ok = n_ok == len(t)
    return Verdict(
        ok,
        f"{eid} ({classifier.upper()}) vs {baseline} ({b_clf.upper()}): "
        + "; ".join(
            f"{r['task']} {fmt(r['accuracy'])} [{fmt(r['ci_low'])}, {fmt(r['ci_high'])}] vs "
            f"{fmt(r[f'accuracy {baseline}'])} [{fmt(r[f'ci_low {baseline}'])}, {fmt(r[f'ci_high {baseline}'])}]"
            for _, r in t.iterrows()
        )
        + f": better beyond the intervals on {n_ok} of {len(t)} task(s)",
        {f"{r['task']} difference": float(r["accuracy"] - r[f"accuracy {baseline}"]) for _, r in t.iterrows()}
        | {"tasks better": n_ok},
        t,
    )
