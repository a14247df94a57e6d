"""Building the probing data sets of a corpus: parse (cached) -> one generator per task -> balanced, split items
(cached as JSON per corpus parse, task, items per class and seed)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from n2o_core.corpora import Corpus
from n2o_core.errors import N2OError
from n2o_core.evaluation.probe.generators import GENERATORS
from n2o_core.evaluation.probe.parse import ParsedCorpus, parse_key
from n2o_core.evaluation.probe.split import SPLITS, balance_and_split, wc_classes
from n2o_core.evaluation.probe.tasks import GENERATED_TASKS, TASK_NAMES, TASKS
from n2o_core.storage.cache import Cache, hash_key

#: Per task: bump a task's version when its generator or the split changes what it makes (the cached task and
#: its readouts are then made anew; the other tasks keep theirs). 2: BShift and CoordInv move only free-standing
#: words (no clitic or hyphenated part torn off).
GENERATOR_VERSIONS: dict[str, str] = {t: "1" for t in TASKS} | {"bshift": "2", "coordinv": "2"}
ITEM_COLUMNS = ["text", "label", "split", "n_words", "source", "generated", "note"]

Progress = Callable[[str, int, int], None]


@dataclass
class TaskData:
    """One probing task: its items (ITEM_COLUMNS; train, then dev, then test), classes, and what the corpus
    offered. `skipped` says why a task has no items."""

    task: str
    classes: list[str]
    items: pd.DataFrame
    available: dict[str, int] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)
    skipped: str | None = None

    def split(self, name: str) -> pd.DataFrame:
        """The items of one split."""
        return self.items[self.items["split"] == name]

    def sizes(self) -> dict[str, int]:
        """Items per split."""
        return (
            {s: int((self.items["split"] == s).sum()) for s in SPLITS} if len(self.items) else dict.fromkeys(SPLITS, 0)
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (the cache's format)."""
        return {
            "task": self.task,
            "classes": self.classes,
            "columns": ITEM_COLUMNS,
            "rows": self.items[ITEM_COLUMNS].to_numpy().tolist() if len(self.items) else [],
            "available": self.available,
            "rejected": self.rejected,
            "info": self.info,
            "skipped": self.skipped,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> TaskData:
        """Inverse of to_json (KeyError/ValueError on another layout)."""
        items = pd.DataFrame(doc["rows"], columns=doc["columns"]) if doc["rows"] else _empty()
        if list(items.columns) != ITEM_COLUMNS:
            raise ValueError("cached task has other columns")
        return cls(
            doc["task"],
            list(doc["classes"]),
            items,
            dict(doc["available"]),
            dict(doc["rejected"]),
            dict(doc["info"]),
            doc["skipped"],
        )


def _empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype=object) for c in ITEM_COLUMNS})


def parse_tasks(spec: str | Sequence[str]) -> list[str]:
    """'all' or a comma-separated list (or a list) of task ids -> task ids in the paper's order."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip().lower() for n in names if n.strip()]
    if not names or names == ["all"]:
        return list(TASKS)
    unknown = [n for n in names if n not in TASKS]
    if unknown:
        raise N2OError(f"Unknown probing task '{unknown[0]}'; choose from all, {', '.join(TASKS)}.")
    return [t for t in TASKS if t in names]


def make_task(pc: ParsedCorpus, task: str, per_class: int, seed: int = 0) -> TaskData:
    """Generate, balance and split one task from a parsed corpus (pure; no cache)."""
    cands = GENERATORS[task](pc, seed)
    if task == "wc":
        cands = wc_classes(cands, per_class)
    assigned, classes, available = balance_and_split(cands, per_class, seed)
    order = {s: k for k, s in enumerate(SPLITS)}
    assigned = sorted(assigned, key=lambda p: order[p[1]])  # stable: the seeded order within a split stays
    rows = [[it.text, it.label, s, it.n_words, it.source, it.generated, it.note] for it, s in assigned]
    items = pd.DataFrame(rows, columns=ITEM_COLUMNS) if rows else _empty()
    skipped = None
    if not rows:
        have = ", ".join(f"{c}: {n}" for c, n in available.items() if n) or "none"
        skipped = (
            f"{TASK_NAMES[task]}: the corpus has too few candidates (at least 3 per class in 2+ classes needed; "
            f"it has {have})"
        )
        classes = list(cands.classes) if task != "wc" else []
    return TaskData(
        task,
        classes,
        items,
        available={str(k): int(v) for k, v in available.items()},
        rejected={str(k): int(v) for k, v in cands.rejected.items()},
        info=dict(cands.info, generated=task in GENERATED_TASKS),
        skipped=skipped,
    )


def task_key(corpus: Corpus, task: str, per_class: int, seed: int) -> str:
    """Cache key of one generated task."""
    return hash_key(
        "probe-task", GENERATOR_VERSIONS[task], parse_key(corpus.fingerprint), task, int(per_class), int(seed)
    )


def build_tasks(
    corpus: Corpus,
    tasks: Sequence[str],
    per_class: int,
    seed: int = 0,
    cache: Cache | None = None,
    progress: Progress | None = None,
    *,
    batch_size: int = 256,
    n_process: int = 1,
) -> dict[str, TaskData]:
    """Every requested task, from the cache where it was made before; the corpus is parsed (or its parse read)
    only when some task is missing."""
    from n2o_core.evaluation.probe.parse import parse_corpus

    if per_class <= 0:
        raise N2OError(f"--per-class must be a positive number of items per class (got {per_class}).")
    out: dict[str, TaskData] = {}
    missing = []
    for t in tasks:
        got = None
        if cache is not None:
            doc = cache.load_json(f"probe/task-{task_key(corpus, t, per_class, seed)}.json")
            if doc is not None:
                try:
                    got = TaskData.from_json(doc)
                except (KeyError, ValueError, TypeError):
                    got = None
        if got is None:
            missing.append(t)
        else:
            out[t] = got
    if missing:
        pc = parse_corpus(corpus, cache, batch_size=batch_size, n_process=n_process, progress=progress)
        for k, t in enumerate(missing):
            if progress is not None:
                progress("tasks", k, len(missing))
            td = make_task(pc, t, per_class, seed)
            if cache is not None:
                cache.save_json(
                    f"probe/task-{task_key(corpus, t, per_class, seed)}.json",
                    td.to_json(),
                    description=f"probing task {TASK_NAMES[t]} of {corpus.name}, {per_class} per class, seed {seed}",
                    corpus=corpus.fingerprint,
                )
            out[t] = td
        if progress is not None:
            progress("tasks", len(missing), len(missing))
    return {t: out[t] for t in tasks}
