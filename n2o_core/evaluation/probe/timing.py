"""How long probing takes: where a running `run_probe` stands ("task 3 of 10 · embedder 2 of 6 · about 40 s left")
and how long a run that has not started will take on this machine.

Time left during a run: the readouts of one task cost about in proportion to its items (embedding them, and each
classifier's passes over them), so each (task, embedder) step weighs its task's item count, and the time left is
the time spent so far per item times the items still to read out. The first step has no rate yet ("estimating").

Time before a run (`estimate`), the rule: what the cache already holds costs nothing; what is missing costs
- the parse, when a task must be made and the corpus was never parsed: its sentences / the parse rate;
- each missing (task, embedder) step: the features' and each asked classifier's seconds for a step of its size
  (items per class: the asked cap for a task not made yet, the task's own count for one made before).
A step's seconds as a function of its size come from the steps measured here: every run that computes something
adds its steps' times to the cache (`probe/timing.json`, averaged per size). With two sizes or more measured, a
line a + b x size is fitted (least squares, a and b at least 0: a step has a fixed cost, the MLP's passes and
the embedding, and a cost per item); with one size, the seconds scale with the size from it. Before any run here
the reference is the recorded cold run of the page's default (benchmarks/README.md, 'Cold probing at the page's
default size': 136.6 s for 10 tasks x 6 embedders at 1,000 items per class on 5,000 sentences, a quiet 2-core
machine), split by the same file's `bench_probe` row (a corpus parsed and its ten tasks made at 975 sentences/s;
BShift LR 0.8 s against MLP 3.3 s).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from n2o_core.runtime.progress import how_long

TIMING_REL = "probe/timing.json"
#: The parts of a step, each timed on its own: embedding the task's sentences, then each classifier's readout.
PARTS = ("features", "lr", "mlp")
#: The recorded cold run (see the module docstring): sentences parsed (and tasks made) per second, and seconds of
#: each part of a step of 1,000 items per class (136.6 s - 5,000 / 975 s of parsing = 131.5 s over 60 steps,
#: split LR : MLP = 0.8 : 3.3 as bench_probe measured on BShift; the embedding is in those).
REFERENCE_PARSE_PER_S = 975.0
REFERENCE_STEP_S: dict[str, float] = {"features": 0.0, "lr": 131.5 / 60 * 0.8 / 4.1, "mlp": 131.5 / 60 * 3.3 / 4.1}
REFERENCE = "the recorded cold run (benchmarks/README.md: 136.6 s for the page's default on a quiet 2-core machine)"
#: Steps kept per (part, size) in the measurements: older ones weigh less once there are more.
MAX_SAMPLES = 20


def seconds_left(elapsed: float, done: float, total: float) -> float | None:
    """Time left at the rate so far (`elapsed` for `done` of `total` units); None before any unit is done."""
    if done <= 0 or elapsed <= 0:
        return None
    return max(0.0, elapsed / done * (total - done))


def about(seconds: float | None) -> str:
    """'about 40 s left', 'about 3 min left', 'a few seconds left' (`runtime.progress.how_long`), or 'estimating the
    time left' without a rate yet."""
    if seconds is None:
        return "estimating the time left"
    return f"{how_long(seconds)} left"


@dataclass(frozen=True)
class ReadoutStep:
    """One (task, embedder) step of a run's readouts, 1-based, with the time left when it starts."""

    task: int
    n_tasks: int
    embedder: int
    n_embedders: int
    eid: str
    task_name: str
    fraction: float  # share of the readout phase's items done before this step
    seconds_left: float | None

    def line(self) -> str:
        """'task 3 of 10 · embedder 2 of 6 · about 40 s left (minilm-l6-mean, SentLen)'."""
        return (
            f"task {self.task} of {self.n_tasks} · embedder {self.embedder} of {self.n_embedders} · "
            f"{about(self.seconds_left)} ({self.eid}, {self.task_name})"
        )


@dataclass
class ReadoutClock:
    """Where the readout phase stands: steps in order (embedder by embedder, task by task), each weighing its
    task's items; `step` gives the ReadoutStep about to start."""

    tasks: Sequence[str]
    names: Mapping[str, str]
    items: Mapping[str, int]
    embedders: Sequence[str]
    now: Callable[[], float] = time.perf_counter
    _start: float | None = field(default=None, repr=False)

    def step(self, eid: str, k: int) -> ReadoutStep:
        """The step of task index `k` (0-based) of embedder `eid`."""
        if self._start is None:
            self._start = self.now()
        per_embedder = sum(max(1, self.items[t]) for t in self.tasks)
        y = list(self.embedders).index(eid)
        done = y * per_embedder + sum(max(1, self.items[t]) for t in self.tasks[:k])
        total = per_embedder * len(self.embedders)
        left = seconds_left(self.now() - self._start, done, total)
        t = self.tasks[k] if k < len(self.tasks) else ""
        return ReadoutStep(
            k + 1, len(self.tasks), y + 1, len(self.embedders), eid, self.names.get(t, t), done / total, left
        )


def _size_key(per_class_k: float) -> str:
    return f"{round(per_class_k * 20) / 20:.2f}"  # sizes to 50 items per class


@dataclass
class Measured:
    """What a run computed and how long it took: the steps' seconds per part and size (`save_rates` adds them to
    what the cache holds)."""

    parse_s: float | None = None
    parsed_sentences: int = 0
    steps: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # part -> size -> [seconds, count]

    def add(self, part: str, seconds: float, per_class_k: float) -> None:
        """One computed part of a step (`PARTS`), `per_class_k` = its task's items per class / 1,000."""
        cell = self.steps.setdefault(part, {}).setdefault(_size_key(per_class_k), [0.0, 0.0])
        cell[0] += seconds
        cell[1] += 1

    def merged(self, before: Mapping[str, Any]) -> dict[str, Any] | None:
        """The measurements stored before plus this run's; None when it computed nothing."""
        if not self.steps and self.parse_s is None:
            return None
        out: dict[str, Any] = {"steps": {}}
        if before.get("parse_sentences_per_s"):
            out["parse_sentences_per_s"] = before["parse_sentences_per_s"]
        if self.parse_s is not None and self.parse_s > 0 and self.parsed_sentences:
            out["parse_sentences_per_s"] = round(self.parsed_sentences / self.parse_s, 1)
        for part in PARTS:
            cells = {k: list(v) for k, v in ((before.get("steps") or {}).get(part) or {}).items()}
            for k, (sec, n) in self.steps.get(part, {}).items():
                old = cells.get(k, [0.0, 0.0])
                cells[k] = [old[0] + sec, old[1] + n]
            for k, (sec, n) in cells.items():
                if n > MAX_SAMPLES:
                    cells[k] = [sec * MAX_SAMPLES / n, MAX_SAMPLES]
            if cells:
                out["steps"][part] = cells
        out["measured"] = f"the probing runs here (the last {time.strftime('%Y-%m-%d %H:%M')})"
        return out


def load_rates(cache: Any) -> dict[str, Any]:
    """The measurements stored here ({"parse_sentences_per_s", "steps", "measured"}), or {} before any run."""
    doc = cache.load_json(TIMING_REL) if cache is not None else None
    return doc if isinstance(doc, dict) and isinstance(doc.get("steps"), dict) else {}


def save_rates(cache: Any, measured: Measured) -> None:
    """Add what a run measured to what the cache holds (nothing when it computed nothing)."""
    if cache is None:
        return
    rates = measured.merged(load_rates(cache))
    if rates is not None:
        cache.save_json(TIMING_REL, rates, description="probing: measured seconds per step and parse rate")


def step_seconds(rates: Mapping[str, Any], part: str, per_class_k: float) -> float:
    """Seconds of one part of a step of `per_class_k` thousand items per class (the rule of the module
    docstring)."""
    cells = ((rates.get("steps") or {}).get(part) or {}).items()
    pts = [(float(k), sec / n, n) for k, (sec, n) in cells if n > 0]
    if not pts:
        return REFERENCE_STEP_S.get(part, 0.0) * per_class_k
    if len({x for x, _, _ in pts}) == 1:
        x, y, _ = pts[0]
        return y * per_class_k / x if x > 0 else y
    w = sum(n for _, _, n in pts)
    mx = sum(x * n for x, _, n in pts) / w
    my = sum(y * n for _, y, n in pts) / w
    sxx = sum(n * (x - mx) ** 2 for x, _, n in pts)
    b = max(0.0, sum(n * (x - mx) * (y - my) for x, y, n in pts) / sxx)
    a = my - b * mx
    if a < 0:  # no fixed cost: the line through 0
        a, b = 0.0, sum(n * x * y for x, y, n in pts) / sum(n * x * x for x, _, n in pts)
    return a + b * per_class_k


def basis(rates: Mapping[str, Any]) -> str:
    """Where the rates come from, in words."""
    return str(rates.get("measured") or REFERENCE)


@dataclass(frozen=True)
class Estimate:
    """How long a run will take here: seconds, what is missing, and where the rates come from."""

    seconds: float
    parse_sentences: int  # sentences to parse (0: the parse or every task is cached)
    steps: int  # (task, embedder) steps with a readout to compute
    total_steps: int
    basis: str

    def short(self) -> str:
        """'about 2 min here', or 'a few seconds here' when the cache holds every readout."""
        if self.steps == 0 and self.parse_sentences == 0:
            return "a few seconds here"
        return f"{how_long(self.seconds)} here"

    def line(self) -> str:
        """'about 2 min here (parsing 5,000 sentences, 60 of 60 task × embedder readouts to compute; rates from
        ...)'."""
        if self.steps == 0 and self.parse_sentences == 0:
            return "a few seconds here: the cache holds every readout"
        parts = []
        if self.parse_sentences:
            parts.append(f"parsing {self.parse_sentences:,} sentences")
        parts.append(f"{self.steps:,} of {self.total_steps:,} task × embedder readouts to compute")
        return f"{self.short()} ({', '.join(parts)}; rates from {self.basis})"


def estimate_seconds(
    rates: Mapping[str, Any], classifiers: Sequence[str], parse_sentences: int, missing: Sequence[float]
) -> float:
    """The rule of the module docstring: parse time plus, per missing step (its items per class / 1,000 in
    `missing`), the features' and each classifier's seconds."""
    parse_rate = float(rates.get("parse_sentences_per_s") or REFERENCE_PARSE_PER_S)
    parse = parse_sentences / parse_rate if parse_sentences else 0.0
    parts = ["features", *classifiers]
    return parse + sum(step_seconds(rates, part, k) for k in missing for part in parts)


def estimate(
    ws: Any,
    embedder_ids: Sequence[str],
    tasks: Sequence[str],
    classifiers: Sequence[str],
    per_class: int,
    seed: int,
    min_train: int,
) -> Estimate:
    """How long `run_probe` with these settings will take here (the rule of the module docstring); reads the
    cache's entries, computes nothing."""
    from n2o_core.evaluation.probe.build import cached_task, task_key
    from n2o_core.evaluation.probe.parse import parse_cached
    from n2o_core.evaluation.probe.readout import readout_rel, spec

    rates = load_rates(ws.cache)
    made = {t: cached_task(ws.cache, task_key(ws.corpus, t, per_class, seed, min_train)) for t in tasks}
    parse = 0 if all(made.values()) or parse_cached(ws.corpus, ws.cache) else len(ws.corpus)
    ekeys = {}
    for eid in embedder_ids:
        try:
            ekeys[eid] = ws.embedder_key(eid)
        except Exception:  # noqa: BLE001 - an embedder that cannot even be named: counted as missing
            ekeys[eid] = None
    missing: list[float] = []
    total = 0
    for t, td in made.items():
        if td is not None and td.skipped is not None:
            continue
        size = per_class / 1000 if td is None else len(td.items) / max(1, len(td.classes)) / 1000
        key = task_key(ws.corpus, t, per_class, seed, min_train)
        for eid in embedder_ids:
            total += 1
            ekey = ekeys[eid]
            if td is None or ekey is None:
                missing.append(size)
                continue
            if not all(ws.cache.has(readout_rel([key, ekey, seed, spec(c)])) for c in classifiers):
                missing.append(size)
    seconds = estimate_seconds(rates, classifiers, parse, missing)
    return Estimate(seconds, parse, len(missing), total, basis(rates))
