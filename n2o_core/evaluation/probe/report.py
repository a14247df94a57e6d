"""Text output of probing results: an accuracy table in the paper's style and a Markdown sample for reading."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import pandas as pd

from n2o_core.evaluation.probe.build import TaskData
from n2o_core.evaluation.probe.tasks import TASK_NAMES


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
        moves = ranking[f"rank_{first}"] - ranks
        out[f"rank {c.upper()}"] = [
            "" if pd.isna(r) else f"{int(r)} " + ("=" if m == 0 else f"▲{int(m)}" if m > 0 else f"▼{-int(m)}")
            for r, m in zip(ranks, moves)
        ]
    moved = pd.concat([ranking[f"rank_{c}"] for c in classifiers], axis=1).nunique(axis=1) > 1
    out["rank changes"] = moved.to_numpy()
    return out


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
