"""SentEval's ten probing tasks (Conneau et al. 2018) built from any corpus, read out by LR and an MLP.

res = run_probe(workspace, ["fasttext", "minilm-l6-mean"], tasks="all", per_class=5000)   # ProbeResult
res = cached_probe(workspace, ["fasttext"], per_class=1000)   # the same from the cache alone, or None
res.table("lr"), res.table("mlp"), res.ranking(), res.examples(3), res.to_json()
Every class keeps at least 100 training items (`split.MIN_TRAIN_PER_CLASS`, the paper's floor; `min_train=`).
report: the tables the page shows (task_table, task_notes, accuracy_matrix, results_table, ranking_display) and
        what it says of them (done_tasks, n_test_range, moved_count)
timing: "task x of 10 · embedder y of 6 · about N s left" (ReadoutStep) and how long a run will take (estimate)
data = build_tasks(corpus, ["bshift", "tense"], per_class=1000, cache=Cache())   # {task: TaskData}
pc = parse_corpus(corpus, Cache())                                               # ParsedCorpus (cached)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from n2o_core.evaluation.probe.tasks import TASK_NAMES, TASKS

__all__ = [
    "TASKS",
    "TASK_NAMES",
    "ProbeResult",
    "TaskData",
    "build_tasks",
    "cached_probe",
    "estimate",
    "parse_corpus",
    "read_out",
    "run_probe",
]

if TYPE_CHECKING:
    from n2o_core.evaluation.probe.build import TaskData, build_tasks
    from n2o_core.evaluation.probe.parse import parse_corpus
    from n2o_core.evaluation.probe.readout import read_out
    from n2o_core.evaluation.probe.run import ProbeResult, cached_probe, run_probe
    from n2o_core.evaluation.probe.timing import estimate

_LAZY = {
    "TaskData": "build",
    "build_tasks": "build",
    "parse_corpus": "parse",
    "read_out": "readout",
    "ProbeResult": "run",
    "cached_probe": "run",
    "estimate": "timing",
    "run_probe": "run",
}


def __getattr__(name: str) -> Any:
    """Import submodules on first use."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
