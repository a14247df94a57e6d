"""Cold start to a complete N2O heatmap with the app's default settings: a fresh process, an empty cache, with each
embedder's steps on a timeline and the cores the process kept busy; against one embedder at a time, in the same run.

    python benchmarks/bench_cold_start.py                      # the per-user model cache as it is (see below)
    python benchmarks/bench_cold_start.py --repeats 3          # 3 pairs of fresh processes, alternating
    python benchmarks/bench_cold_start.py --model-cache empty  # also build the MiniLM ONNX export (and count it)
    python benchmarks/bench_cold_start.py --engine onnxruntime --out cold_start_onnxruntime  # the baseline engines

Defaults (n2o_core.settings.Settings): builtin:bbc-news sampled to 5,000 sentences, the 6 default embedders, k = 10,
5 samples x 100 queries. The path is the dashboard's: `pipeline.prepare_all` on the lanes of `pipeline.Preparation`
(tf-idf and GloVe on one lane; word2vec and fastText training side by side from the first second, then the models
encoding, one worker per core; the models' graphs compiled ahead). The baseline, in the same run: the same
preparation one embedder at a time in the calling thread (`ahead=False`, cheapest first); `--no-baseline` skips it.
Each cold run is a fresh process (`--child`) with an empty workspace cache, the pairs alternating
(overlapped, one at a time, overlapped, ...). Times are seconds since that process started (its imports included):
when each embedder was ready, the first cells (two embedders ready: a heatmap can be drawn), the complete heatmap
(figure built); the CPU seconds of the process up to then and the idle core-seconds (cores x seconds - CPU
seconds: the time a core had nothing of ours to run, on a quiet machine); the timeline of every embedder's steps
(load, train, encode, search; `_timeline.py`) with the cores busy and the threads wanting one, as a chart in the
.txt and as rows in the .json. The first overlapped process then times N2O for new k values and new query samples
once the first result is there (each timed alone), and the same run again on the filled cache.

What "empty cache" counts: the workspace cache (./cache: corpus, trained word vectors, embeddings, neighbors) is a
fresh temporary folder. The MiniLM ONNX export is per-machine state derived from the installed model and libraries
(`n2o_core.embedders._onnx.user_model_cache`: $N2O_MODEL_CACHE or ~/.cache/n2o-explorer/models); by default it is
used as it is, and the result says whether the export was already there (`onnx_export_present`). With
`--model-cache empty` the model cache is a fresh temporary folder too, so the export is built and counted (in the
first process only: the others find it).

Refuses to run when the 1-minute load average is above 1.0 (`_common.MAX_LOAD`) at the start; `--force` runs
anyway and records the result as invalid. Writes results/cold_start.{json,txt} (`--out NAME` for another name).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T0 = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import LOAD_AT_IMPORT, MAX_LOAD, ROOT, Recorder  # noqa: E402
from _timeline import CoreUse, Spans, gantt  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MODES = {"overlapped": True, "one at a time": False}


def onnx_export_present() -> bool:
    """Whether the fp32 ONNX export of the installed all-MiniLM-L6-v2 is already in the per-user model cache."""
    from n2o_core.embedders import _onnx
    from n2o_core.embedders.sbert import minilm_path
    from n2o_core.storage.manifest_folder import folder_path, read_manifest

    folder = folder_path(_onnx.user_model_cache(), "onnx", _onnx.export_key(minilm_path()))
    return read_manifest(folder) is not None


def run(cache_dir: str, t_start: float, ahead: bool = True, after: bool = True) -> dict:
    """One pass of the dashboard's first page on `cache_dir`: seconds since `t_start` for each step; with `after`,
    then the N2O timings of `n2o_after_first_result`."""
    c0 = time.process_time()
    from n2o_core.analyses.compare import comparison
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.figures.n2o import n2o_heatmap
    from n2o_core.limits import k_max_for
    from n2o_core.pipeline import plan_queries, prepare_all
    from n2o_core.settings import Settings
    from n2o_core.storage.cache import Cache

    s = Settings()
    since = lambda: round(time.perf_counter() - t_start, 2)  # noqa: E731
    t_import = since()
    cache = Cache(cache_dir)
    corpus = load_corpus(s.corpus, max_sentences=s.max_sentences, seed=s.seed, cache_dir=cache.root)
    t_corpus = since()
    ws = Workspace(corpus, cache=cache)
    plan = plan_queries(len(corpus), s.n_queries, s.n_samples, s.seed)
    k_max = k_max_for(len(corpus))
    ready: dict[str, float] = {}
    first_cells: list[float] = []

    def on_done(prepared, eid: str) -> None:
        ready[eid] = since()
        if len(prepared.neighbors) >= 2 and not first_cells:
            comparison(prepared, s.k)  # what the page draws as soon as two embedders are ready
            first_cells.append(since())

    prepared = prepare_all(ws, list(s.embedders), plan, k_max, on_done=on_done, skip_failed=False, ahead=ahead)
    res = comparison(prepared, s.k)
    n2o_heatmap(res.mean, res.embedders, std=res.std, chance=res.chance, k=res.k)
    t_full = since()
    cpu = time.process_time() - c0
    row = dict(
        sentences=len(corpus),
        fit_sentences=len(corpus.fit_texts),
        embedders=list(s.embedders),
        import_s=t_import,
        corpus_s=t_corpus,
        ready_s=ready,
        prepared_in=list(ready),
        per_embedder_s={e: round(v, 2) for e, v in prepared.seconds.items()},
        first_cells_s=first_cells[0] if first_cells else None,
        full_heatmap_s=t_full,
        process_cpu_s=round(cpu, 1),
    )
    return {**row, **n2o_after_first_result(ws, prepared, s)} if after else row


def n2o_after_first_result(ws, prepared, s) -> dict:
    """ms of N2O for a new k (slicing the cached k_max neighbors, median of 5); for a new query sample (another
    seed: a new pool) with its neighbors searched (median of 3 seeds); the seconds the dashboard's preload spends
    on the neighbors of every sentence (`pipeline.search_every_sentence`); then a new sample again (median of 5
    other seeds), now a slice of those."""
    from n2o_core.analyses.compare import comparison
    from n2o_core.pipeline import plan_queries, prepare_all, search_every_sentence

    def new_sample(seeds) -> float:
        times = []
        for seed in seeds:
            plan = plan_queries(len(ws.corpus), s.n_queries, s.n_samples, seed)
            t = time.perf_counter()
            comparison(prepare_all(ws, list(prepared.names), plan, prepared.k_max, ahead=False), s.k)
            times.append((time.perf_counter() - t) * 1000)
        return round(statistics.median(times), 1)

    new_k = []
    for k in (5, 20, 30, 40, 50):
        t = time.perf_counter()
        comparison(prepared, min(k, prepared.k_max))
        new_k.append((time.perf_counter() - t) * 1000)
    searched = new_sample(range(101, 104))
    t = time.perf_counter()
    for eid in prepared.names:
        search_every_sentence(ws, eid, prepared.k_max)
    every = time.perf_counter() - t
    return dict(
        n2o_new_k_ms=round(statistics.median(new_k), 1),
        n2o_new_sample_searched_ms=searched,
        every_sentence_neighbors_s=round(every, 2),
        n2o_new_sample_ms=new_sample(range(1, 6)),
    )


def _engine(eid: str) -> str:
    from n2o_core.embedders import get_embedder

    emb = get_embedder(eid)
    engine = getattr(emb, "engine", "?")
    return f"{engine} {emb.precision}" if engine == "openvino" else engine


def child(mode: str, first: bool) -> None:
    """One cold run in this fresh process (`--child`), printed as one JSON line: the run, its timeline and its use
    of the cores; the `first` overlapped process also times N2O after the first result and a warm rerun."""
    spans = Spans(T0).install()
    cores = CoreUse(T0).start()
    with tempfile.TemporaryDirectory() as tmp:
        row = run(str(Path(tmp) / "cache"), T0, ahead=MODES[mode], after=False)
        until = row["full_heatmap_s"]
        cores.stop()
        steps = [
            dict(embedder="imports, corpus", step="start", thread="MainThread", start_s=0.0, end_s=row["corpus_s"])
        ]
        steps += spans.until(until)
        row.update(
            cores.summary(until),
            timeline=steps,
            chart=gantt(steps, cores, until, ["imports, corpus", *row["embedders"]]),
        )
        row["cores_over_time"] = cores.buckets(until)
        if first:  # the same page again on the filled cache, then N2O for new k values and samples
            warm = run(str(Path(tmp) / "cache"), time.perf_counter())
            row["warm"] = {k: warm[k] for k in ("full_heatmap_s", "first_cells_s", "process_cpu_s")}
            row.update({k: v for k, v in warm.items() if k.startswith(("n2o_", "every_"))})
    print("\n" + json.dumps({"mode": mode, **row}))


def spawn(mode: str, first: bool, args: argparse.Namespace) -> dict:
    """A fresh process running `child`; its JSON line."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--engine", args.engine]
    if first:
        cmd.append("--first")
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ), check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_cold_start: the {mode} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--model-cache",
        choices=("user", "empty"),
        default="user",
        help="the per-user model cache as it is (default), or an empty one (the ONNX export is built and counted)",
    )
    ap.add_argument("--repeats", type=int, default=2, help="pairs of cold runs (overlapped, one at a time)")
    ap.add_argument("--no-baseline", action="store_true", help="no run with one embedder at a time")
    ap.add_argument(
        "--engine",
        choices=("default", "onnxruntime"),
        default="default",
        help="the transformer defaults' default engines (OpenVINO where installed), or onnxruntime's (the baseline: "
        "the engines before OpenVINO)",
    )
    ap.add_argument("--force", action="store_true", help=f"run even above load {MAX_LOAD} (recorded as invalid)")
    ap.add_argument("--out", default="cold_start", help="result name under benchmarks/results/")
    ap.add_argument("--child", choices=tuple(MODES), help=argparse.SUPPRESS)  # one cold run in this process
    ap.add_argument("--first", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.engine == "onnxruntime":  # as if OpenVINO were not installed: every default engine falls back
        from n2o_core.embedders import _onnx

        _onnx.openvino_available = lambda: False
    if args.child:
        child(args.child, args.first)
        return
    if LOAD_AT_IMPORT[0] > MAX_LOAD and not args.force:
        raise SystemExit(
            f"bench_cold_start: 1-minute load {LOAD_AT_IMPORT[0]} > {MAX_LOAD}: not recording "
            "(wait for a quiet machine, e.g. /work/shared/tools/when-quiet, or pass --force to record it as invalid)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        if args.model_cache == "empty":
            os.environ["N2O_MODEL_CACHE"] = str(Path(tmp) / "models")
        rec = Recorder(args.out)
        present = onnx_export_present()
        rec.log(
            f"# workspace cache: empty; model cache: {args.model_cache} "
            f"(MiniLM ONNX export {'present, not counted' if present else 'absent, built and counted'})"
        )
        modes = ["overlapped"] + ([] if args.no_baseline else ["one at a time"])
        runs: dict[str, list[dict]] = {m: [] for m in modes}
        charts = []
        for i in range(args.repeats):
            for mode in modes:
                got = spawn(mode, i == 0 and mode == "overlapped", args)
                chart = got.pop("chart")
                if i == 0:
                    charts.append((mode, chart))
                runs[mode].append(got)
                rec.add(
                    run=f"cold {mode} #{i + 1} (empty cache, fresh process)",
                    model_cache=args.model_cache,
                    onnx_export_present=present,
                    engines={eid: _engine(eid) for eid in ("minilm-l6-mean", "paraphrase-minilm-l3-mean")},
                    **{k: v for k, v in got.items() if k not in ("mode", "timeline", "cores_over_time")},
                )
                rec.data["results"][-1].update(timeline=got["timeline"], cores_over_time=got["cores_over_time"])
        summary = {f"{m}_full_heatmap_s": [r["full_heatmap_s"] for r in rs] for m, rs in runs.items()}
        summary |= {f"{m}_first_cells_s": [r["first_cells_s"] for r in rs] for m, rs in runs.items()}
        summary |= {f"{m}_idle_core_s": [r["idle_core_s_to_heatmap"] for r in rs] for m, rs in runs.items()}
        if not args.no_baseline:
            pairs = zip(runs["overlapped"], runs["one at a time"])
            ratios = [a["full_heatmap_s"] / b["full_heatmap_s"] for a, b in pairs]
            summary["overlapped_over_one_at_a_time"] = [round(r, 3) for r in ratios]
            summary["ratio_median"] = round(statistics.median(ratios), 3)
        summary["overlapped_full_heatmap_median_s"] = statistics.median(summary["overlapped_full_heatmap_s"])
        rec.add(run="summary", **summary)
        for mode, chart in charts:
            rec.log(f"# {mode}, first run:")
            for line in chart:
                rec.log(line)
    rec.save()


if __name__ == "__main__":
    main()
