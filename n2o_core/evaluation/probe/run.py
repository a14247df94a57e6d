"""One call for the CLI (and later the dashboard): build the tasks, embed their sentences, read them out.

res = run_probe(ws, ["fasttext", "minilm-l6-mean"], tasks="all", classifiers=("lr", "mlp"), per_class=5000)
res = cached_probe(ws, ...)  # the same from the cache alone (None when something would be computed)
res.tasks      # task, name, n_classes, classes, n_train, n_dev, n_test, train_per_class, majority, skipped
res.results    # embedder, task, classifier, accuracy, n_test, dev_accuracy, params
res.table("lr")            # task x (majority, length, embedders...) accuracy
res.ranking()              # embedder, mean accuracy and rank per classifier, rank change
res.examples(3)            # task, label, text, note: a few test items per class
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from n2o_core.errors import N2OError
from n2o_core.evaluation.probe.build import TaskData, build_tasks, cached_tasks, parse_tasks, task_key
from n2o_core.evaluation.probe.readout import (
    CLASSIFIERS,
    Readout,
    length_features,
    majority,
    read_out,
    readout_rel,
    spec,
)
from n2o_core.evaluation.probe.split import MIN_TRAIN_PER_CLASS
from n2o_core.evaluation.probe.tasks import TASK_NAMES
from n2o_core.evaluation.probe.timing import Measured, ReadoutClock, ReadoutStep, save_rates
from n2o_core.runtime.progress import Progress, ProgressEvent, report
from n2o_core.storage.fileio import json_plain

if TYPE_CHECKING:
    from n2o_core.corpus_workspace import Workspace

#: Name of the length-only baseline in the results: as in the paper, logistic regression on the length in words
#: (shown beside every classifier's table).
LENGTH = "length"
RESULT_COLUMNS = ["embedder", "task", "classifier", "accuracy", "n_test", "dev_accuracy", "params"]


@dataclass
class ProbeResult:
    """Accuracies of every embedder (and the length baseline) on every task under every classifier."""

    tasks: pd.DataFrame
    results: pd.DataFrame
    data: dict[str, TaskData] = field(default_factory=dict, repr=False)
    errors: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def embedders(self) -> list[str]:
        """Embedders in the order they were given (the length baseline excluded)."""
        return [e for e in dict.fromkeys(self.results["embedder"]) if e != LENGTH] if len(self.results) else []

    def to_frame(self) -> pd.DataFrame:
        """One row per (embedder, task, classifier): accuracy and test size (long format)."""
        return self.results.reset_index(drop=True).copy()

    def table(self, classifier: str) -> pd.DataFrame:
        """Task x column accuracy for one classifier: majority, length (logistic regression), then the embedders."""
        done = self.tasks[self.tasks["skipped"].isna()]
        out = pd.DataFrame(index=[TASK_NAMES[t] for t in done["task"]])
        out["majority"] = done["majority"].to_numpy()
        r = self.results[self.results["classifier"] == classifier]
        base = self.results[(self.results["embedder"] == LENGTH) & (self.results["classifier"] == "lr")]
        for e in [LENGTH, *self.embedders]:
            acc = (base if e == LENGTH else r[r["embedder"] == e]).set_index("task")["accuracy"]
            out[e] = [acc.get(t, np.nan) for t in done["task"]]
        return out

    def ranking(self) -> pd.DataFrame:
        """Embedders ranked by mean accuracy over the tasks every embedder has, per classifier (1 = best; ties
        share the better rank), with each embedder's rank change from the first classifier to the others."""
        r = self.results[self.results["embedder"] != LENGTH]
        if r.empty:
            return pd.DataFrame(columns=["embedder"])
        counts = r.groupby("task")["embedder"].nunique()
        common = set(counts[counts == r["embedder"].nunique()].index)
        r = r[r["task"].isin(common)]
        clfs = list(dict.fromkeys(r["classifier"]))
        out = pd.DataFrame({"embedder": self.embedders})
        for c in clfs:
            mean = r[r["classifier"] == c].groupby("embedder")["accuracy"].mean()
            out[f"mean_{c}"] = out["embedder"].map(mean)
            out[f"rank_{c}"] = out[f"mean_{c}"].rank(ascending=False, method="min").astype("Int64")
        for c in clfs[1:]:
            out[f"change_{clfs[0]}_to_{c}"] = out[f"rank_{clfs[0]}"] - out[f"rank_{c}"]
        return out.sort_values(f"rank_{clfs[0]}", kind="stable").reset_index(drop=True) if clfs else out

    def task_ranks(self) -> pd.DataFrame:
        """Per task, each embedder's rank under each classifier (1 = best; ties share the better rank)."""
        r = self.results[self.results["embedder"] != LENGTH].copy()
        if r.empty:
            return r
        r["rank"] = r.groupby(["task", "classifier"])["accuracy"].rank(ascending=False, method="min").astype(int)
        return r.pivot_table(index=["task", "embedder"], columns="classifier", values="rank").reset_index()

    def examples(self, n: int = 3, seed: int | None = None, max_classes: int = 20) -> pd.DataFrame:
        """`n` random test items of each class of every task (text, label, note), for the first `max_classes`
        classes of a task (WC has hundreds); seeded by the run's seed."""
        rows = []
        seed = self.meta.get("seed", 0) if seed is None else seed
        for t, td in self.data.items():
            test = td.split("test")
            for c in td.classes[:max_classes]:
                of_class = test[test["label"] == c]
                for _, it in of_class.sample(min(n, len(of_class)), random_state=seed).iterrows():
                    rows.append({"task": t, "label": c, "text": it["text"], "note": it["note"]})
        return pd.DataFrame(rows, columns=["task", "label", "text", "note"])

    def to_json(self, n_examples: int = 3) -> dict[str, Any]:
        """{"tasks": [...], "results": [...], "ranking": [...], "examples": [...], "errors", "meta"}."""
        tasks = []
        for rec in self.tasks.to_dict(orient="records"):
            tasks.append({k: json_plain(v, nan_as_none=True) for k, v in rec.items()})
        results = [
            {k: json_plain(v, nan_as_none=True) for k, v in rec.items()}
            for rec in self.results.to_dict(orient="records")
        ]
        ranking = [
            {k: json_plain(v, nan_as_none=True) for k, v in rec.items()}
            for rec in self.ranking().to_dict(orient="records")
        ]
        return {
            "tasks": tasks,
            "results": results,
            "ranking": ranking,
            "examples": self.examples(n_examples).to_dict(orient="records"),
            "errors": self.errors,
            "meta": self.meta,
        }


def _task_row(td: TaskData) -> dict[str, Any]:
    sizes = td.sizes()
    maj = np.nan
    if td.skipped is None:
        maj = majority(td.split("train")["label"], td.split("test")["label"])
    return {
        "task": td.task,
        "name": TASK_NAMES[td.task],
        "n_classes": len(td.classes),
        "classes": list(td.classes),
        "n_train": sizes["train"],
        "n_dev": sizes["dev"],
        "n_test": sizes["test"],
        "train_per_class": sizes["train"] // max(1, len(td.classes)) if td.skipped is None else 0,
        "majority": maj,
        "skipped": td.skipped,
    }


def _features(ws: Any, eid: str, td: TaskData) -> Any:
    """Vectors of a task's items: `encode_texts` (cached per embedder and text list); precomputed vectors are
    rows of the corpus and serve only tasks made entirely of corpus sentences."""
    if ws.is_precomputed(eid):
        if td.items["generated"].any():
            raise N2OError(
                f"precomputed vectors '{eid}' cover only corpus sentences; {TASK_NAMES[td.task]} has generated ones"
            )
        X = ws.embeddings(eid)
        return np.asarray(X[td.items["source"].to_numpy(np.int64)], np.float32)
    return ws.encode_texts(eid, td.items["text"].tolist())


def _rows(X: Any, td: TaskData) -> list[tuple[Any, np.ndarray]]:
    idx = {s: np.flatnonzero(td.items["split"].to_numpy() == s) for s in ("train", "dev", "test")}
    y = td.items["label"].to_numpy()
    return [(X[idx[s]], y[idx[s]]) for s in ("train", "dev", "test")]


def _stored_readout(ws: Any, key_parts: list[Any]) -> tuple[Readout, str] | None:
    """A readout the cache holds, with when it was computed ("" when the entry does not say), or None."""
    doc = ws.cache.load_json(readout_rel(key_parts))
    if doc is None:
        return None
    try:
        ro = Readout(
            float(doc["accuracy"]),
            float(doc["dev_accuracy"]),
            dict(doc["params"]),
            int(doc["n_test"]),
            tuple(str(w) for w in doc.get("warnings") or ()),
        )
    except (KeyError, TypeError, ValueError):
        return None
    return ro, str(doc.get("computed_at") or "")


def _save_readout(ws: Any, key_parts: list[Any], res: Readout) -> str:
    when = time.strftime("%Y-%m-%dT%H:%M:%S")
    doc = {
        "accuracy": res.accuracy,
        "dev_accuracy": res.dev_accuracy,
        "params": res.params,
        "n_test": res.n_test,
        "warnings": list(res.warnings),
        "computed_at": when,
    }
    ws.cache.save_json(readout_rel(key_parts), doc, description="probing readout")
    return when


class _NotCached(Exception):
    """Raised inside a cache-only run when something would have to be computed."""


@dataclass
class _Run:
    """One run's shared state: the workspace, its tasks and keys, the rows so far, and what it computed."""

    ws: Any
    data: dict[str, TaskData]
    usable: list[str]
    keys: dict[str, str]
    clfs: list[str]
    seed: int
    cached_only: bool = False
    rows: list[dict[str, Any]] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)
    warned: dict[str, list[str]] = field(default_factory=dict)
    computed_at: list[str] = field(default_factory=list)
    measured: Measured = field(default_factory=Measured)

    def readout(self, eid: str, task: str, clf: str, key_parts: list[Any], compute: Callable[[], Readout]) -> None:
        """The readout from the cache, else computed (timed) and stored; appended to the rows."""
        got = _stored_readout(self.ws, key_parts)
        if got is None:
            if self.cached_only:
                raise _NotCached
            t0 = time.perf_counter()
            ro = compute()
            if eid != LENGTH:  # the length baseline is a one-feature fit: not what a step costs
                self.measured.add(clf, time.perf_counter() - t0, _per_class_k(self.data[task]))
            got = ro, _save_readout(self.ws, key_parts, ro)
        ro, when = got
        if when:
            self.computed_at.append(when)
        for w in ro.warnings:
            said = self.warned.setdefault(task, [])
            if w not in said:
                said.append(w)
        self.rows.append(_result_row(eid, task, clf, ro))


def _per_class_k(td: TaskData) -> float:
    """A task's items per class, in thousands (the unit of `timing`'s rates)."""
    return len(td.items) / max(1, len(td.classes)) / 1000


def _prepare(
    ws: Workspace,
    embedder_ids: Sequence[str],
    tasks: str | Sequence[str],
    classifiers: str | Sequence[str],
    per_class: int,
    min_train: int,
) -> tuple[list[str], list[str]]:
    task_ids = parse_tasks(tasks)
    clfs = _check_request(ws, embedder_ids, classifiers, per_class)
    if min_train <= 0:
        raise N2OError(f"--min-train must be a positive number of training items per class (got {min_train}).")
    return task_ids, clfs


def _usable(ws: Workspace, data: dict[str, TaskData]) -> list[str]:
    usable = [t for t, td in data.items() if td.skipped is None]
    if not usable:
        reasons = "; ".join(td.skipped or "" for td in data.values())
        raise N2OError(f"The corpus '{ws.corpus.name}' is too small for any probing task ({reasons}).")
    return usable


def run_probe(
    ws: Workspace,
    embedder_ids: Sequence[str],
    tasks: str | Sequence[str] = "all",
    classifiers: str | Sequence[str] = CLASSIFIERS,
    per_class: int = 5000,
    seed: int = 0,
    progress: Progress | None = None,
    *,
    batch_size: int = 256,
    n_process: int = 1,
    skip_failed: bool = False,
    min_train: int = MIN_TRAIN_PER_CLASS,
    on_step: Callable[[ReadoutStep], None] | None = None,
) -> ProbeResult:
    """Build the tasks from the workspace's corpus (cached), embed each task's sentences with every embedder
    (cached), and read every task out with every classifier (cached per task, embedder, classifier and seed).
    Every class keeps at least `min_train` training items (the paper's 100 by default; see `split.py`): classes
    and tasks below it are dropped, with a note in the task table.

    `progress` gets the stages "tokenize" and "parse" (sentences), "tasks" (tasks built) and "embedder" with the
    embedder id as the item (tasks embedded and read out). on_step(ReadoutStep): before each (task, embedder)
    step, with the time left.
    With `skip_failed`, an embedder that raises is recorded in `.errors` and the others go on. What the run
    measured is stored for `estimate`."""
    t0 = time.perf_counter()
    task_ids, clfs = _prepare(ws, embedder_ids, tasks, classifiers, per_class, min_train)
    parsed: list[int] = []

    def watch(event: ProgressEvent) -> None:
        if event.stage == "parse":
            parsed[:] = [event.total]
        if progress is not None:
            progress(event)

    data = build_tasks(
        ws.corpus,
        task_ids,
        per_class,
        seed,
        ws.cache,
        watch,
        batch_size=batch_size,
        n_process=n_process,
        min_train=min_train,
    )
    t_build = time.perf_counter() - t0
    usable = _usable(ws, data)
    run = _Run(ws, data, usable, {t: task_key(ws.corpus, t, per_class, seed, min_train) for t in usable}, clfs, seed)
    if parsed:
        run.measured.parse_s, run.measured.parsed_sentences = t_build, len(ws.corpus)
    _length_baseline(run)
    seconds: dict[str, float] = {}
    clock = ReadoutClock(usable, TASK_NAMES, {t: len(data[t].items) for t in usable}, list(embedder_ids))
    for eid in embedder_ids:
        t1 = time.perf_counter()
        try:
            _probe_embedder(run, eid, progress, clock, on_step)
        except Exception as exc:  # noqa: BLE001 - with skip_failed, one embedder's failure leaves the others
            if not skip_failed:
                raise
            run.errors[eid] = f"{type(exc).__name__}: {exc}"
        seconds[eid] = round(time.perf_counter() - t1, 1)
    save_rates(ws.cache, run.measured)
    return _result(run, list(embedder_ids), per_class, min_train, t_build, seconds, time.perf_counter() - t0)


def cached_probe(ws: Workspace, embedder_ids: Sequence[str], **settings: Any) -> ProbeResult | None:
    """What `run_probe(ws, embedder_ids, **settings)` returns when the cache holds every task and readout of these
    settings (`run_probe`'s tasks, classifiers, per_class, seed and min_train, its defaults where left out):
    nothing is parsed, embedded or trained, and `meta["computed_at"]` says when its last readout was computed.
    None when something would have to be computed."""
    unknown = set(settings) - set(_CACHED_SETTINGS)
    if unknown:
        raise TypeError(f"cached_probe() got unexpected settings: {', '.join(sorted(unknown))}")
    s = {**_CACHED_SETTINGS, **settings}
    per_class, seed, min_train = int(s["per_class"]), int(s["seed"]), int(s["min_train"])
    task_ids, clfs = _prepare(ws, embedder_ids, s["tasks"], s["classifiers"], per_class, min_train)
    data = cached_tasks(ws.corpus, task_ids, per_class, seed, ws.cache, min_train)
    if data is None:
        return None
    usable = _usable(ws, data)
    keys = {t: task_key(ws.corpus, t, per_class, seed, min_train) for t in usable}
    run = _Run(ws, data, usable, keys, clfs, seed, cached_only=True)
    try:
        _length_baseline(run)
        for eid in embedder_ids:
            ekey = ws.embedder_key(eid)
            for t in usable:
                for clf in clfs:
                    run.readout(eid, t, clf, [keys[t], ekey, seed, spec(clf)], _never)
    except _NotCached:
        return None
    return _result(run, list(embedder_ids), per_class, min_train, 0.0, {}, 0.0)


#: The settings `cached_probe` takes, with `run_probe`'s defaults.
_CACHED_SETTINGS: dict[str, Any] = {
    "tasks": "all",
    "classifiers": CLASSIFIERS,
    "per_class": 5000,
    "seed": 0,
    "min_train": MIN_TRAIN_PER_CLASS,
}


def _never() -> Readout:
    raise _NotCached


def _length_baseline(run: _Run) -> None:
    """The length-only baseline (logistic regression on the length in words) on every usable task."""
    for t in run.usable:
        td = run.data[t]
        (a, ya), (b, yb), (c, yc) = _rows(length_features(td.items["n_words"].to_numpy()), td)
        key_parts = [run.keys[t], LENGTH, run.seed, spec("lr")]
        run.readout(LENGTH, t, "lr", key_parts, partial(read_out, a, ya, b, yb, c, yc, "lr", run.seed))


def _result(
    run: _Run,
    embedder_ids: list[str],
    per_class: int,
    min_train: int,
    t_build: float,
    seconds: dict[str, float],
    total: float,
) -> ProbeResult:
    ws, data = run.ws, run.data
    meta = {
        "corpus": ws.corpus.name,
        "corpus_size": len(ws.corpus),
        "per_class": per_class,
        "min_train": min_train,
        "seed": run.seed,
        "classifiers": run.clfs,
        "readout": {c: spec(c) for c in run.clfs},
        "tasks_seconds": round(t_build, 1),
        "embedder_seconds": seconds,
        "seconds": round(total, 1),
        "computed_at": max(run.computed_at, default=""),
        "warnings": run.warned,
        "task_info": {t: {"available": td.available, "rejected": td.rejected, **td.info} for t, td in data.items()},
    }
    task_frame = pd.DataFrame([_task_row(td) for td in data.values()])
    results = pd.DataFrame(run.rows, columns=RESULT_COLUMNS)
    return ProbeResult(task_frame, results, data, run.errors, json.loads(json.dumps(meta, default=str)))


def _check_request(
    ws: Workspace, embedder_ids: Sequence[str], classifiers: str | Sequence[str], per_class: int
) -> list[str]:
    """The classifiers asked for (lowercased); N2OError for an unknown one, a bad `per_class`, no embedder or an
    unknown embedder id (before any parsing)."""
    if isinstance(classifiers, str):
        classifiers = classifiers.split(",")
    clfs = [c.strip().lower() for c in classifiers if c.strip()]
    bad = [c for c in clfs if c not in CLASSIFIERS]
    if bad or not clfs:
        raise N2OError(f"Unknown classifier '{bad[0] if bad else ''}'; choose from {', '.join(CLASSIFIERS)}.")
    if per_class <= 0:
        raise N2OError(f"--per-class must be a positive number of items per class (got {per_class}).")
    if not embedder_ids:
        raise N2OError("Choose at least one embedder to probe.")
    for eid in embedder_ids:
        if not ws.is_precomputed(eid):
            ws.info(eid)  # an unknown id fails before any parsing
    return clfs


def _probe_embedder(
    run: _Run, eid: str, progress: Progress | None, clock: ReadoutClock, on_step: Callable[[ReadoutStep], None] | None
) -> None:
    """Embed every usable task's sentences with `eid` (only where a readout is missing from the cache) and read
    them out with every classifier, appending to the run's rows as it goes; a precomputed embedder's failure on
    one task goes to the run's errors, any other raises."""
    ws, usable = run.ws, run.usable
    ekey = ws.embedder_key(eid)
    for k, t in enumerate(usable):
        report(progress, "embedder", k, len(usable), eid)
        if on_step is not None:
            on_step(clock.step(eid, k))
        td = run.data[t]
        parts = {clf: [run.keys[t], ekey, run.seed, spec(clf)] for clf in run.clfs}
        if all(ws.cache.has(readout_rel(p)) for p in parts.values()):
            for clf, p in parts.items():
                run.readout(eid, t, clf, p, partial(_features_then_read_out, run, eid, td, clf))
            continue
        t0 = time.perf_counter()
        try:
            X = _features(ws, eid, td)
        except N2OError as exc:
            if ws.is_precomputed(eid):
                run.errors[f"{eid}/{t}"] = str(exc)
                continue
            raise
        run.measured.add("features", time.perf_counter() - t0, _per_class_k(td))
        (a, ya), (b, yb), (c, yc) = _rows(X, td)
        for clf, p in parts.items():
            run.readout(eid, t, clf, p, partial(read_out, a, ya, b, yb, c, yc, clf, run.seed))
    report(progress, "embedder", len(usable), len(usable), eid)


def _features_then_read_out(run: _Run, eid: str, td: TaskData, clf: str) -> Readout:
    """A readout whose cache entry vanished between the check and the read: embed and read out after all."""
    (a, ya), (b, yb), (c, yc) = _rows(_features(run.ws, eid, td), td)
    return read_out(a, ya, b, yb, c, yc, clf, run.seed)


def _result_row(eid: str, task: str, clf: str, ro: Readout) -> dict[str, Any]:
    return {
        "embedder": eid,
        "task": task,
        "classifier": clf,
        "accuracy": ro.accuracy,
        "n_test": ro.n_test,
        "dev_accuracy": ro.dev_accuracy,
        "params": ro.params,
    }
