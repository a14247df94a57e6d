"""Building the probing data sets of a corpus: parse (cached) -> one generator per task -> balanced, split items
(cached as JSON per corpus parse, task, items per class and seed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from n2o_core.corpora import Corpus
from n2o_core.errors import N2OError
from n2o_core.evaluation.probe.generators import GENERATORS
from n2o_core.evaluation.probe.parse import ParsedCorpus, parse_key
from n2o_core.evaluation.probe.split import (
    MIN_TRAIN_PER_CLASS,
    SPLITS,
    balance_and_split,
    min_items_per_class,
    training_items,
    wc_classes,
)
from n2o_core.evaluation.probe.tasks import GENERATED_TASKS, TASK_NAMES, TASKS
from n2o_core.runtime.progress import Progress, report
from n2o_core.storage.cache import Cache, hash_key

#: Per task: bump a task's version when its generator or the split changes what it makes (the cached task and
#: its readouts are then made anew; the other tasks keep theirs). 2: BShift and CoordInv move only free-standing
#: words (no clitic or hyphenated part torn off).
GENERATOR_VERSIONS: dict[str, str] = {t: "1" for t in TASKS} | {"bshift": "2", "coordinv": "2"}
ITEM_COLUMNS = ["text", "label", "split", "n_words", "source", "generated", "note"]


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


def make_task(
    pc: ParsedCorpus, task: str, per_class: int, seed: int = 0, min_train: int = MIN_TRAIN_PER_CLASS
) -> TaskData:
    """Generate, balance and split one task from a parsed corpus (pure; no cache). Classes that cannot keep
    `min_train` training items are dropped (named in `info["dropped_classes"]` with their candidates); a task
    left without two such classes is skipped, `skipped` saying why."""
    cands = GENERATORS[task](pc, seed)
    if task == "wc":
        cands = wc_classes(cands, per_class, min_train=min_train)
    assigned, classes, available = balance_and_split(cands, per_class, seed, min_train=min_train)
    order = {s: k for k, s in enumerate(SPLITS)}
    assigned = sorted(assigned, key=lambda p: order[p[1]])  # stable: the seeded order within a split stays
    rows = [[it.text, it.label, s, it.n_words, it.source, it.generated, it.note] for it, s in assigned]
    items = pd.DataFrame(rows, columns=ITEM_COLUMNS) if rows else _empty()
    info = dict(cands.info, generated=task in GENERATED_TASKS, min_train=int(min_train))
    skipped = None
    if rows:
        dropped = {str(c): int(available.get(c, 0)) for c in cands.classes if c not in classes}
        if dropped and task != "wc":  # WC's dropped words are counted in `rejected`
            info["dropped_classes"] = dropped
    else:
        fillable = len(classes) >= 2 and not cands.matched
        skipped = skip_reason(task, cands.info if task == "wc" else {}, available, per_class, min_train, fillable)
        classes = list(cands.classes) if task != "wc" else []
    return TaskData(
        task,
        classes,
        items,
        available={str(k): int(v) for k, v in available.items()},
        rejected={str(k): int(v) for k, v in cands.rejected.items()},
        info=info,
        skipped=skipped,
    )


def skip_reason(
    task: str,
    wc_info: dict[str, Any],
    available: dict[str, int],
    per_class: int,
    min_train: int,
    fillable: bool = False,
) -> str:
    """Why a task has no items: an items-per-class cap below what `min_train` training items per class need, a
    target word that may not straddle two splits (`fillable`: the candidates would be enough without that), or too
    few candidates in two classes (what the corpus has)."""
    name = TASK_NAMES[task]
    least = min_items_per_class(2, min_train)
    if per_class < least and task != "wc":
        return (
            f"{name}: at most {per_class:,} items per class give fewer than the {training_items(min_train)} per "
            f"class a task needs here; {least:,} or more per class do"
        )
    if fillable:
        have = ", ".join(f"{c}: {n:,}" for c, n in available.items() if n)
        return (
            f"{name}: the corpus has too few candidates for {training_items(min_train)} per class once a target "
            f"word is kept inside one split, as the paper asks (it has {have}; a few words make most of them)"
        )
    if task == "wc":
        most = int(wc_info.get("most_sentences_per_word", 0))
        return (
            f"{name}: the corpus has too few candidates for {training_items(min_train)} per class (two words of "
            f"its frequency band with {min_items_per_class(1000, min_train):,} sentences each at the very least; "
            f"the most any word has is {most:,})"
        )
    have = ", ".join(f"{c}: {n:,}" for c, n in available.items() if n) or "none"
    return (
        f"{name}: the corpus has too few candidates for {training_items(min_train)} per class in two classes "
        f"(at least {least:,} per class needed; it has {have})"
    )


def task_key(corpus: Corpus, task: str, per_class: int, seed: int, min_train: int = MIN_TRAIN_PER_CLASS) -> str:
    """Cache key of one generated task."""
    return hash_key(
        "probe-task",
        GENERATOR_VERSIONS[task],
        parse_key(corpus.fingerprint),
        task,
        int(per_class),
        int(seed),
        int(min_train),
    )


def cached_task(cache: Cache, key: str) -> TaskData | None:
    """The task stored under `key`, or None."""
    doc = cache.load_json(f"probe/task-{key}.json")
    if doc is None:
        return None
    try:
        return TaskData.from_json(doc)
    except (KeyError, ValueError, TypeError):
        return None


def cached_tasks(
    corpus: Corpus, tasks: Sequence[str], per_class: int, seed: int, cache: Cache, min_train: int = MIN_TRAIN_PER_CLASS
) -> dict[str, TaskData] | None:
    """Every requested task as the cache holds it, or None when one is missing (nothing is parsed or made)."""
    out = {}
    for t in tasks:
        got = cached_task(cache, task_key(corpus, t, per_class, seed, min_train))
        if got is None:
            return None
        out[t] = got
    return out


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
    min_train: int = MIN_TRAIN_PER_CLASS,
) -> dict[str, TaskData]:
    """Every requested task, from the cache where it was made before; the corpus is parsed (or its parse read)
    only when some task is missing. `min_train`: training items every class keeps at least (see `split.py`).
    Reports the stages "tokenize" and "parse" (sentences, when parsing) and "tasks" (tasks built) to `progress`."""
    from n2o_core.evaluation.probe.parse import parse_corpus

    if per_class <= 0:
        raise N2OError(f"--per-class must be a positive number of items per class (got {per_class}).")
    if min_train <= 0:
        raise N2OError(f"--min-train must be a positive number of training items per class (got {min_train}).")
    keys = {t: task_key(corpus, t, per_class, seed, min_train) for t in tasks}
    out: dict[str, TaskData] = {}
    missing = []
    for t in tasks:
        got = cached_task(cache, keys[t]) if cache is not None else None
        if got is None:
            missing.append(t)
        else:
            out[t] = got
    if missing:
        pc = parse_corpus(corpus, cache, batch_size=batch_size, n_process=n_process, progress=progress)
        for k, t in enumerate(missing):
            report(progress, "tasks", k, len(missing))
            td = make_task(pc, t, per_class, seed, min_train)
            if cache is not None:
                cache.save_json(
                    f"probe/task-{keys[t]}.json",
                    td.to_json(),
                    description=f"probing task {TASK_NAMES[t]} of {corpus.name}, {per_class} per class, seed {seed}, "
                    f"{min_train} training items per class at least",
                    corpus=corpus.fingerprint,
                )
            out[t] = td
        report(progress, "tasks", len(missing), len(missing))
    return {t: out[t] for t in tasks}
