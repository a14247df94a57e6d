"""How long probing takes: where a running `run_probe` stands ("task 3 of 10 · embedder 2 of 6 · about 40 s left")
and how long a run that has not started will take on this machine.

Time left during a run: the readouts of one task cost about in proportion to its items (embedding them, and each
classifier's passes over them), so each (task, embedder) step weighs its task's item count, and the time left is
the time spent so far per item times the items still to read out. The first step has no rate yet ("estimating").

Time before a run (`estimate`), the rule: what the cache already holds costs nothing; what is missing costs
- the parse, when a task must be made and the corpus was never parsed: its sentences / the parse rate;
- each missing (task, embedder) step: the seconds per step of the features and of each asked classifier,
  measured per 1,000 items per class, times the step's items per class / 1,000 (the asked cap for a task not made
  yet, the task's own count for one made before).
The rates are the ones measured here: every run that computes something stores them in the cache
(`probe/timing.json`, the last run's). Before any run here they come from the recorded cold run of the page's
default (benchmarks/README.md, 'Cold probing at the page's default size': 136.6 s for 10 tasks x 6 embedders at
1,000 items per class on 5,000 sentences, a quiet 2-core machine), split by the same file's `bench_probe` row
(a corpus parsed and its ten tasks made at 975 sentences/s; BShift LR 0.8 s against MLP 3.3 s).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TIMING_REL = "probe/timing.json"
#: Rates of the recorded cold run (see the module docstring): sentences parsed (and tasks made) per second, and
#: seconds per (task, embedder) step per 1,000 items per class: features, then each classifier (LR : MLP split
#: 0.8 : 3.3 as bench_probe measured on BShift; 136.6 s - 5,000 / 975 s of parsing = 131.5 s over 60 steps).
REFERENCE_RATES: dict[str, Any] = {
    "parse_sentences_per_s": 975.0,
    "features_s": 0.0,
    "readout_s": {"lr": round(131.5 / 60 * 0.8 / 4.1, 3), "mlp": round(131.5 / 60 * 3.3 / 4.1, 3)},
    "measured": "the recorded cold run (benchmarks/README.md: 136.6 s for the page's default on a quiet 2-core "
    "machine)",
}


def seconds_left(elapsed: float, done: float, total: float) -> float | None:
    """Time left at the rate so far (`elapsed` for `done` of `total` units); None before any unit is done."""
    if done <= 0 or elapsed <= 0:
        return None
    return max(0.0, elapsed / done * (total - done))


def about(seconds: float | None) -> str:
    """'about 40 s left', 'about 3 min left', or 'estimating the time left' without a rate yet."""
    if seconds is None:
        return "estimating the time left"
    if seconds < 90:
        return f"about {max(1, round(seconds)):,} s left"
    return f"about {round(seconds / 60):,} min left"


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


@dataclass
class Measured:
    """What a run computed and how long it took: the rates `estimate` reads (stored by `save`)."""

    parse_s: float | None = None
    parsed_sentences: int = 0
    features_s: float = 0.0
    features_steps: float = 0.0  # steps x (items per class / 1,000)
    readout_s: dict[str, float] = field(default_factory=dict)
    readout_steps: dict[str, float] = field(default_factory=dict)

    def add_features(self, seconds: float, per_class_k: float) -> None:
        """One step's features (embedding a task's sentences), `per_class_k` = its items per class / 1,000."""
        self.features_s += seconds
        self.features_steps += per_class_k

    def add_readout(self, classifier: str, seconds: float, per_class_k: float) -> None:
        """One computed readout of a step."""
        self.readout_s[classifier] = self.readout_s.get(classifier, 0.0) + seconds
        self.readout_steps[classifier] = self.readout_steps.get(classifier, 0.0) + per_class_k

    def rates(self, before: Mapping[str, Any]) -> dict[str, Any] | None:
        """The rates this run measured over `before` (what it did not measure stays); None when it computed
        nothing."""
        if not self.readout_steps and self.parse_s is None:
            return None
        out = {k: v for k, v in before.items() if k in REFERENCE_RATES}
        out["readout_s"] = dict(before.get("readout_s") or {})
        if self.parse_s is not None and self.parse_s > 0 and self.parsed_sentences:
            out["parse_sentences_per_s"] = round(self.parsed_sentences / self.parse_s, 1)
        if self.features_steps > 0:
            out["features_s"] = round(self.features_s / self.features_steps, 3)
        for clf, steps in self.readout_steps.items():
            if steps > 0:
                out["readout_s"][clf] = round(self.readout_s[clf] / steps, 3)
        out["measured"] = f"the last probing run here ({time.strftime('%Y-%m-%d %H:%M')})"
        return out


def load_rates(cache: Any) -> dict[str, Any]:
    """The rates measured here (the last run that computed something), else REFERENCE_RATES."""
    doc = cache.load_json(TIMING_REL) if cache is not None else None
    if not isinstance(doc, dict):
        return dict(REFERENCE_RATES)
    out = dict(REFERENCE_RATES)
    out.update({k: v for k, v in doc.items() if k in REFERENCE_RATES})
    out["readout_s"] = {**REFERENCE_RATES["readout_s"], **(doc.get("readout_s") or {})}
    return out


def save_rates(cache: Any, measured: Measured) -> None:
    """Store what a run measured (nothing when it computed nothing)."""
    if cache is None:
        return
    before = cache.load_json(TIMING_REL)
    rates = measured.rates(before if isinstance(before, dict) else {})
    if rates is not None:
        cache.save_json(TIMING_REL, rates, description="probing: rates of the last run that computed something")


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
        return f"{about(self.seconds).removesuffix(' left')} here"

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
    per_step = float(rates.get("features_s") or 0.0)
    per_step += sum(float((rates.get("readout_s") or {}).get(c, 0.0)) for c in classifiers)
    parse = parse_sentences / float(rates["parse_sentences_per_s"]) if parse_sentences else 0.0
    return parse + per_step * float(sum(missing))


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
    return Estimate(seconds, parse, len(missing), total, str(rates.get("measured", "")))
