"""Probing results as tables and text: the accuracy table in the paper's style, the tables the probing page shows
(tasks with their notes, embedder x task accuracies, every accuracy, the ranking with its moves) and a Markdown
sample for reading. Pure: `ProbeResult` in, frames and strings out; the page only draws them."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from n2o_core.evaluation.probe.build import TaskData
from n2o_core.evaluation.probe.split import training_items
from n2o_core.evaluation.probe.tasks import TASK_NAMES
from n2o_core.evaluation.ranks import moves, rank_with_move

if TYPE_CHECKING:
    from n2o_core.evaluation.probe.run import ProbeResult

#: Display names of the readouts (`readout.CLASSIFIERS`).
CLASSIFIER_LABELS: dict[str, str] = {"lr": "logistic regression", "mlp": "MLP"}
#: Display names of the baselines' columns in `ProbeResult.table`.
BASELINE_LABELS: dict[str, str] = {"majority": "majority class", "length": "length only (LR)"}


def format_table(table: pd.DataFrame) -> str:
    """Accuracies in percent with one decimal (as in the paper's tables); missing cells as '-'."""
    return (table * 100).round(1).astype(object).where(table.notna(), "-").to_string()


def noise_half_width(n_test: int, level: float = 0.95) -> float:
    """Half-width, in percentage points, of the `level` interval of one accuracy measured on `n_test` test items
    when it is 50% (the widest; normal approximation to the binomial): an accuracy measured on that split is
    uncertain by up to this much, so smaller differences may be sampling noise. NaN without test items."""
    from scipy.stats import norm

    if n_test <= 0:
        return float("nan")
    return 100 * float(norm.ppf(0.5 + level / 2)) * math.sqrt(0.25 / n_test)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def sample_markdown(data: Mapping[str, TaskData], n: int = 30, seed: int = 0, title: str = "Probing tasks") -> str:
    """Up to `n` random items per task (all splits), as Markdown tables with an empty judgement column."""
    lines = [f"# {title}", ""]
    for t, td in data.items():
        lines.append(f"## {TASK_NAMES[t]}")
        lines.append("")
        if td.skipped:
            lines += [f"Skipped: {td.skipped}", ""]
            continue
        sizes = td.sizes()
        lines.append(
            f"{len(td.classes)} classes; train {sizes['train']}, dev {sizes['dev']}, test {sizes['test']}. "
            f"{min(n, len(td.items))} random items:"
        )
        lines.append("")
        rng = random.Random(f"{seed}-{t}")
        picks = sorted(rng.sample(range(len(td.items)), min(n, len(td.items))))
        lines.append("| # | label | sentence | note | judgement |")
        lines.append("|---|---|---|---|---|")
        for k, i in enumerate(picks, 1):
            it = td.items.iloc[i]
            lines.append(f"| {k} | {_cell(it['label'])} | {_cell(it['text'])} | {_cell(it['note'])} | |")
        lines.append("")
    return "\n".join(lines)


def ranking_display(ranking: pd.DataFrame, classifiers: list[str]) -> pd.DataFrame:
    """`ProbeResult.ranking()` as shown: per classifier (named in capitals: LR, MLP) the mean accuracy in percent
    and the rank, the ranks after the first classifier with the move against it as an arrow ("3 ▲2": up two
    places, "5 ▼1", "4 ="), and whether the embedder moves at all."""
    out = pd.DataFrame({"embedder": ranking["embedder"]})
    first = classifiers[0]
    for c in classifiers:
        out[f"mean {c.upper()} %"] = (ranking[f"mean_{c}"].astype(float) * 100).round(1)
        ranks = ranking[f"rank_{c}"]
        if c == first:
            out[f"rank {c.upper()}"] = [None if pd.isna(r) else int(r) for r in ranks]
            continue
        out[f"rank {c.upper()}"] = [rank_with_move(r, m) for r, m in zip(ranks, ranking[f"rank_{first}"] - ranks)]
    out["rank changes"] = moves(ranking, [f"rank_{c}" for c in classifiers]).to_numpy()
    return out


def moved_count(ranking: pd.DataFrame, classifiers: list[str]) -> int:
    """How many embedders of `ProbeResult.ranking()` change rank between the `classifiers`."""
    return int(moves(ranking, [f"rank_{c}" for c in classifiers]).sum())


def done_tasks(res: ProbeResult) -> list[str]:
    """The ids of the tasks that were built and read out (not skipped), in the paper's order."""
    return [str(t) for t in res.tasks.loc[res.tasks["skipped"].isna(), "task"]]


def n_test_range(res: ProbeResult) -> tuple[int, int]:
    """The fewest and the most test items of a task that was read out ((0, 0) when none was)."""
    n = res.tasks.loc[res.tasks["skipped"].isna(), "n_test"]
    return (int(n.min()), int(n.max())) if len(n) else (0, 0)


def judged_shares(markdown: str) -> pd.DataFrame:
    """The summary table of a hand-read sample (`docs/probe_sample.md`: the first Markdown table whose header
    starts with `| task |`) as a frame with that header's columns; empty when there is none."""
    rows: list[list[str]] = []
    header: list[str] | None = None
    for line in markdown.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if header is None:
            if cells and cells[0].lower() == "task":
                header = cells
            continue
        if cells is None:
            break
        if all(set(c) <= set("-: ") for c in cells):
            continue  # the separator line
        rows.append((cells + [""] * len(header))[: len(header)])
    return pd.DataFrame(rows, columns=header or [])


def task_table(res: ProbeResult) -> pd.DataFrame:
    """One row per task as shown: name, classes, split sizes, training items per class, majority baseline in
    percent, how far an accuracy on its test split may be off by chance (`noise_half_width`), why it was skipped,
    and a note (classes dropped under the minimum, what scikit-learn warned)."""
    t = res.tasks
    notes = task_notes(res)
    return pd.DataFrame(
        {
            "task": t["name"],
            "classes": t["n_classes"],
            "train": t["n_train"],
            "dev": t["n_dev"],
            "test": t["n_test"],
            "train per class": t["train_per_class"],
            "majority %": (t["majority"].astype(float) * 100).round(1),
            "±95% (points)": [round(noise_half_width(int(n)), 1) for n in t["n_test"]],
            "skipped": [skip_reason_shown(n, r) for n, r in zip(t["name"], t["skipped"])],
            "note": [notes.get(task, "") for task in t["task"]],
        }
    )


def skip_reason_shown(name: str, skipped: object) -> str:
    """Why a task was skipped, without the task's name it starts with ("" when it was not)."""
    if not isinstance(skipped, str):
        return ""
    return skipped.removeprefix(f"{name}: ")


def task_notes(res: ProbeResult) -> dict[str, str]:
    """Per task, what the reader should know beside its numbers: the classes dropped because the corpus could not
    give them the minimum of training items (with how many candidates each had), WC's words dropped likewise, and
    the distinct warnings scikit-learn gave while fitting it."""
    info: Mapping[str, Mapping[str, Any]] = res.meta.get("task_info", {})
    min_train = int(res.meta.get("min_train", 0) or 0)
    out: dict[str, str] = {}
    for t, i in info.items():
        parts = []
        dropped = i.get("dropped_classes") or {}
        if dropped:
            listed = ", ".join(f"{c} ({n:,})" for c, n in list(dropped.items())[:6])
            more = f" and {len(dropped) - 6} more" if len(dropped) > 6 else ""
            parts.append(
                f"{len(dropped)} class(es) dropped, too few candidates for {training_items(min_train)} each: "
                f"{listed}{more}"
            )
        words = int((i.get("rejected") or {}).get("band word with too few sentences", 0) or 0)
        if t == "wc" and i.get("words_kept"):
            parts.append(
                f"{int(i['words_kept']):,} words kept (each with {int(i.get('min_sentences_per_word', 0)):,}+ "
                f"sentences); {words:,} sentences of rarer band words dropped"
            )
        said = (res.meta.get("warnings") or {}).get(t) or []
        if said:
            parts.append("scikit-learn warned: " + "; ".join(said))
        if parts:
            out[t] = ". ".join(parts)
    return out


def accuracy_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """`ProbeResult.table` (task × column) as embedder × task in percent, the baselines' rows first and named."""
    out = (table * 100).T
    out.index = [BASELINE_LABELS.get(i, i) for i in out.index]
    out.index.name = "embedder"
    return out


def results_table(res: ProbeResult) -> pd.DataFrame:
    """Every accuracy (the length baseline's included), with the task's display name and the chosen setting."""
    r = res.results.copy()
    r.insert(2, "task name", r["task"].map(TASK_NAMES))
    r["params"] = r["params"].map(lambda p: ", ".join(f"{k}={v}" for k, v in p.items()))
    return r


def dropped_tasks(res: ProbeResult) -> list[tuple[str, str]]:
    """(task name, why) of every skipped task, in the paper's order."""
    t = res.tasks[res.tasks["skipped"].notna()]
    return [(str(n), skip_reason_shown(str(n), r)) for n, r in zip(t["name"], t["skipped"])]
