"""Text output of probing results: an accuracy table in the paper's style and a Markdown sample for reading."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pandas as pd

from .build import TaskData
from .tasks import TASK_NAMES


def format_table(table: pd.DataFrame) -> str:
    """Accuracies in percent with one decimal (as in the paper's tables); missing cells as '-'."""
    return (table * 100).round(1).astype(object).where(table.notna(), "-").to_string()


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
