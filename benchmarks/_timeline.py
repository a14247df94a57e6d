"""Where a cold start spends its time: each embedder's steps on a timeline, and how many cores the process kept busy.

    spans = Spans(t0).install()          # record load / train / encode / search of every embedder from now on
    cores = CoreUse(t0).start()          # sample this process's CPU time every 0.1 s
    ...                                  # the work
    cores.stop(); cores.summary(until)   # busy and idle core-seconds, per 0.5 s: cores busy, threads wanting one
    print("\n".join(gantt(spans.until(until), cores, until)))

`Spans` wraps public entry points for the length of the process (benchmarks only): `registry.get_embedder`
("load": the embedder built; its `fit` is "train", a one-sentence `encode` is "load" too: a model's graph opened and
compiled by `pipeline.load_model`, any other `encode` is "encode"; a model encoding the corpus without a load ahead
compiles its graph inside "encode") and `Workspace.neighbors` ("search"). Each row: embedder, step, the thread
that ran it (`n2o-lane-<i>-<lane>`, or MainThread), start and end in seconds since t0.

`CoreUse` reads the process's CPU time (every thread's, `time.process_time`) and, from /proc/self/task/*/schedstat,
the time each thread ran or waited for a core: per interval, cores busy = CPU seconds / seconds, and threads wanting
a core = (ran + waited) / seconds. On a quiet machine idle core-seconds = cores x wall - CPU seconds, the time a
core had nothing of ours to run; on a busy one threads wait for cores the other jobs hold, and "wanting" says how
many cores this process could have used.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

#: Seconds between two samples of `CoreUse`.
SAMPLE_S = 0.1
#: One character of the chart for each step (`gantt`).
MARKS = {"start": "C", "load": "L", "train": "T", "encode": "E", "search": "S"}


class Spans:
    """Each embedder's steps with their thread and times (see the module docstring)."""

    def __init__(self, t0: float):
        self.t0 = t0
        self.rows: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def _timed(self, eid: str, step: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter() - self.t0
            try:
                return fn(*args, **kwargs)
            finally:
                row = {
                    "embedder": eid,
                    "step": step,
                    "thread": threading.current_thread().name,
                    "start_s": round(start, 3),
                    "end_s": round(time.perf_counter() - self.t0, 3),
                }
                with self._lock:
                    self.rows.append(row)

        return timed

    def install(self) -> Spans:
        """Wrap the entry points (for the rest of the process)."""
        import n2o_core.embedders.registry as registry
        from n2o_core.corpus_workspace import Workspace

        built = registry.get_embedder

        def get_embedder(spec: str, *args: Any, **kwargs: Any) -> Any:
            emb = self._timed(spec, "load", built)(spec, *args, **kwargs)
            fit, encode = emb.fit, emb.encode
            emb.fit = self._timed(spec, "train", fit)

            def encoded(texts: Any, *a: Any, **kw: Any) -> Any:
                return self._timed(spec, "load" if len(texts) == 1 else "encode", encode)(texts, *a, **kw)

            emb.encode = encoded
            return emb

        searched = Workspace.neighbors

        def neighbors(ws: Any, eid: str, *args: Any, **kwargs: Any) -> Any:
            return self._timed(eid, "search", searched)(ws, eid, *args, **kwargs)

        registry.get_embedder = get_embedder
        Workspace.neighbors = neighbors  # type: ignore[method-assign]
        return self

    def until(self, t: float) -> list[dict[str, Any]]:
        """The steps that started before `t` (what the heatmap waited for), in the order they started."""
        with self._lock:
            return sorted((r for r in self.rows if r["start_s"] < t), key=lambda r: r["start_s"])


class CoreUse:
    """The process's CPU time and its threads' demand for cores, sampled (see the module docstring)."""

    def __init__(self, t0: float):
        self.t0 = t0
        self.cores = len(os.sched_getaffinity(0))
        self.samples: list[
            tuple[float, float, dict[str, float]]
        ] = []  # (s since t0, CPU s, per thread: ran + waited s)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-core-use", daemon=True)

    def start(self) -> CoreUse:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _threads(self, me: int) -> dict[str, float]:
        """Seconds each thread (but this sampler) has run or waited for a core."""
        out = {}
        for tid in os.listdir("/proc/self/task"):
            if int(tid) == me:
                continue
            try:
                ran, waited, _ = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()
            except (OSError, ValueError):  # the thread ended
                continue
            out[tid] = (int(ran) + int(waited)) / 1e9
        return out

    def _run(self) -> None:
        me = threading.get_native_id()
        while not self._stop.is_set():
            self.samples.append((time.perf_counter() - self.t0, time.process_time(), self._threads(me)))
            self._stop.wait(SAMPLE_S)

    def buckets(self, until: float, width: float = 0.5) -> list[dict[str, float]]:
        """Per `width` seconds up to `until`: cores busy and threads wanting a core (means over the bucket; a thread
        that ends between two samples leaves its last interval out)."""
        out: dict[int, list[float]] = {}
        for (t_a, cpu_a, want_a), (t_b, cpu_b, want_b) in zip(self.samples, self.samples[1:]):
            if t_a >= until:
                break
            acc = out.setdefault(int(t_a / width), [0.0, 0.0, 0.0])
            acc[0] += cpu_b - cpu_a
            acc[1] += sum(v - want_a.get(tid, 0.0) for tid, v in want_b.items())
            acc[2] += t_b - t_a
        return [
            {"t_s": round(i * width, 2), "busy": round(c / d, 2), "wanting": round(w / d, 2)}
            for i, (c, w, d) in sorted(out.items())
            if d > 0
        ]

    def summary(self, until: float) -> dict[str, float]:
        """CPU seconds up to `until`, and the idle core-seconds of a quiet machine: cores x seconds - CPU seconds."""
        cpu = next((c for t, c, _ in self.samples if t >= until), self.samples[-1][1]) - self.samples[0][1]
        start = self.samples[0][0]
        return {
            "cores": self.cores,
            "cpu_s_to_heatmap": round(cpu, 1),
            "idle_core_s_to_heatmap": round(max(0.0, self.cores * (until - start) - cpu), 1),
        }


def gantt(
    rows: list[dict[str, Any]], cores: CoreUse, until: float, order: list[str] | None = None, width: int = 100
) -> list[str]:
    """The timeline as text: one line per embedder (in `order`, else as they first appear: L load, T train, E
    encode, S search, C the imports and corpus before them; later steps over earlier ones) with the threads that ran
    it, then the cores busy and the threads wanting one (0-9: tenths of all the cores, # all of them), one column
    per `until / width` seconds (at least 0.25 s)."""
    step = max(0.25, until / width)
    cols = int(until / step) + 1
    marks = ", ".join(f"{m} {s}" for s, m in MARKS.items())
    lines = [
        f"# timeline: one column = {step:.2f} s, 0 to {until:.1f} s ({marks}); cores busy and threads wanting a "
        f"core in tenths of the {cores.cores} cores (# all)"
    ]
    for eid in dict.fromkeys([*(order or []), *(r["embedder"] for r in rows)]):
        line = [" "] * cols
        for r in rows:
            if r["embedder"] == eid:
                for c in range(int(r["start_s"] / step), min(cols, int(r["end_s"] / step) + 1)):
                    line[c] = MARKS.get(r["step"], "?")
        threads = sorted({r["thread"] for r in rows if r["embedder"] == eid})
        lines.append(f"{eid[:26]:26} |{''.join(line)}| {', '.join(threads)}")
    for key, label in (("busy", "cores busy"), ("wanting", "threads wanting a core")):
        line = [" "] * cols
        for b in cores.buckets(until, width=step):
            c = round(b["t_s"] / step)
            if c < cols:
                v = b[key] / cores.cores
                line[c] = "#" if v >= 0.95 else str(min(9, int(v * 10)))
        lines.append(f"{label:26} |{''.join(line)}|")
    return lines
