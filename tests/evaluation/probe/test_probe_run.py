"""run_probe and the `probe` CLI end to end on a small corpus with tf-idf and fastText (real parser, real
embedders, real classifiers), the cache (a second run parses and embeds nothing), and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
from probe_corpus import sentences

from n2o_core.cli.main import main
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.evaluation.probe import TASKS
from n2o_core.evaluation.probe.build import task_key
from n2o_core.evaluation.probe.readout import readout_rel, spec
from n2o_core.evaluation.probe.run import LENGTH, cached_probe, run_probe
from n2o_core.evaluation.probe.timing import (
    REFERENCE_PARSE_PER_S,
    REFERENCE_STEP_S,
    estimate,
    estimate_seconds,
    load_rates,
    step_seconds,
)
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.storage.cache import Cache

EMBEDDERS = ["tfidf", "fasttext"]
PER_CLASS = 20
#: No minimum beyond one training item per class: the pipeline on a 160-sentence corpus (the paper's floor of 100
#: training items per class is tested in test_probe_minimum.py).
MIN_TRAIN = 1


@pytest.fixture(scope="module", autouse=True)
def one_mlp_setting():
    """One MLP setting instead of four: the pipeline is what is tested here (test_probe_readout tests the grid)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("n2o_core.evaluation.probe.readout.MLP_GRID", ({"hidden": 50, "alpha": 1e-3},))
        yield


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("probe") / "corpus.txt"
    path.write_text("\n".join(sentences(160)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory):
    return tmp_path_factory.mktemp("probe-cache")


@pytest.fixture(scope="module")
def first(corpus_file, cache_root):
    from n2o_core.corpora import load_corpus

    ws = Workspace(load_corpus(str(corpus_file)), cache=Cache(cache_root))
    stages: dict[str, int] = {}

    def progress(event: ProgressEvent) -> None:
        stages[event.label] = event.total

    res = run_probe(
        ws, EMBEDDERS, per_class=PER_CLASS, seed=0, progress=progress, min_train=MIN_TRAIN, on_step=STEPS.append
    )
    return res, stages


STEPS: list = []


def test_every_task_is_built_or_skipped_with_a_reason(first):
    res, stages = first
    assert list(res.tasks["task"]) == list(TASKS)
    done = res.tasks[res.tasks["skipped"].isna()]
    assert {"sentlen", "bshift", "tense", "subjnum", "objnum", "somo", "coordinv", "topconst"} <= set(done["task"])
    for _, row in done.iterrows():
        assert row["n_test"] >= row["n_classes"] and row["n_dev"] == row["n_test"]  # one per class at least
        assert row["majority"] == pytest.approx(1 / row["n_classes"])  # balanced classes
    for _, row in res.tasks[res.tasks["skipped"].notna()].iterrows():
        assert "has" in row["skipped"]  # says how many candidates the corpus had
    assert {"tokenize", "parse", "tasks", "embedder tfidf", "embedder fasttext"} <= set(stages)


def test_results_cover_every_embedder_task_and_classifier(first):
    res, _ = first
    done = list(res.tasks[res.tasks["skipped"].isna()]["task"])
    r = res.results
    for eid in EMBEDDERS:
        for clf in ("lr", "mlp"):
            got = r[(r["embedder"] == eid) & (r["classifier"] == clf)]
            assert sorted(got["task"]) == sorted(done)
            assert got["accuracy"].between(0, 1).all()
    length = r[r["embedder"] == LENGTH].set_index("task")["accuracy"]
    assert length["sentlen"] >= 0.9  # the length baseline reads SentLen (the paper: 100)
    # TreeDepth comes in tuples of equal length, one per depth class, and a test tuple never straddles splits:
    # whatever a length-only classifier answers, it is right on exactly one item per tuple
    if "treedepth" in length:
        assert length["treedepth"] == pytest.approx(1 / res.tasks.set_index("task").loc["treedepth", "n_classes"])
    n_test = res.tasks.set_index("task")["n_test"]
    assert all(r["n_test"] == r["task"].map(n_test))


def test_tables_ranking_and_examples(first):
    res, _ = first
    lr = res.table("lr")
    assert list(lr.columns) == ["majority", LENGTH, *EMBEDDERS]
    assert lr.loc["SentLen", LENGTH] == res.table("mlp").loc["SentLen", LENGTH]  # one length baseline (LR)
    rank = res.ranking()
    assert sorted(rank["embedder"]) == sorted(EMBEDDERS)
    assert set(rank["rank_lr"]) <= {1, 2} and "change_lr_to_mlp" in rank
    means = res.results[(res.results["embedder"] == "tfidf") & (res.results["classifier"] == "lr")]
    assert rank.set_index("embedder").loc["tfidf", "mean_lr"] == pytest.approx(means["accuracy"].mean())
    ex = res.examples(2)
    assert set(ex["task"]) <= set(TASKS) and (ex.groupby(["task", "label"]).size() <= 2).all()
    test_texts = set().union(*(set(td.split("test")["text"]) for td in res.data.values()))
    assert set(ex["text"]) <= test_texts


def test_a_second_run_parses_and_embeds_nothing_and_gives_the_same_numbers(first, corpus_file, cache_root, monkeypatch):
    from n2o_core.corpora import load_corpus

    def fail(*a, **k):
        raise AssertionError("should have come from the cache")

    monkeypatch.setattr("n2o_core.evaluation.probe.parse.parse_texts", fail)
    monkeypatch.setattr(Workspace, "embedder", fail)
    monkeypatch.setattr("n2o_core.evaluation.probe.run.read_out", fail)
    ws = Workspace(load_corpus(str(corpus_file)), cache=Cache(cache_root))
    again = run_probe(ws, EMBEDDERS, per_class=PER_CLASS, seed=0, min_train=MIN_TRAIN)
    res, _ = first
    assert again.to_json()["results"] == res.to_json()["results"]
    assert again.to_json()["tasks"] == res.to_json()["tasks"]


def test_precomputed_vectors_serve_only_tasks_of_corpus_sentences(first, corpus_file, cache_root, tmp_path):
    from n2o_core.corpora import load_corpus

    ws = Workspace(load_corpus(str(corpus_file)), cache=Cache(cache_root))
    vec = tmp_path / "v.npy"
    np.save(vec, np.random.default_rng(0).normal(size=(len(ws.corpus), 16)).astype(np.float32))
    ws.add_vectors("mine", vec)
    res = run_probe(ws, ["mine"], tasks="sentlen,bshift", classifiers=["lr"], per_class=PER_CLASS, min_train=MIN_TRAIN)
    assert list(res.results[res.results["embedder"] == "mine"]["task"]) == ["sentlen"]
    assert "generated" in res.errors["mine/bshift"]


def test_cli_writes_the_documented_json(first, corpus_file, cache_root, tmp_path, capsys):
    out = tmp_path / "probe.json"
    md = tmp_path / "sample.md"
    args = ["probe", "--corpus", str(corpus_file), "--cache-dir", str(cache_root), "--per-class", str(PER_CLASS)]
    args += ["--min-train", str(MIN_TRAIN)]
    args += [a for e in EMBEDDERS for a in ("--embedder", e)]
    assert main([*args, "--json", str(out), "--sample-md", str(md), "--sample-n", "5"]) == 0
    doc = json.loads(out.read_text())
    assert {"task", "classes", "n_train", "n_dev", "n_test", "majority"} <= set(doc["tasks"][0])
    assert {"embedder", "task", "classifier", "accuracy", "n_test"} <= set(doc["results"][0])
    res, _ = first
    assert doc["results"] == res.to_json()["results"]
    text = capsys.readouterr().out
    assert "accuracy, lr" in text and "accuracy, mlp" in text and "ranking" in text
    assert md.read_text().count("## ") == len(TASKS)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--tasks", "sentlen,parsing"], "Unknown probing task 'parsing'"),
        (["--per-class", "0"], "--per-class must be"),
        (["--min-train", "0"], "--min-train must be"),
        (["--classifier", "svm"], "Unknown classifier 'svm'"),
        (["--embedder", "nope"], "nope"),
    ],
)
def test_bad_input_exits_2_with_one_line(corpus_file, cache_root, capsys, extra, message):
    args = ["probe", "--corpus", str(corpus_file), "--cache-dir", str(cache_root), "--embedder", "tfidf"]
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_a_corpus_too_small_for_any_task_exits_2(tmp_path, capsys):
    small = tmp_path / "tiny.txt"
    small.write_text("The cat sat on the mat.\nDogs bark loudly at night.\n", encoding="utf-8")
    assert main(["probe", "--corpus", str(small), "--cache-dir", str(tmp_path / "c"), "--embedder", "tfidf"]) == 2
    # a progress bar may show when a stage outlasts its delay (a loaded machine); the error is one line
    err = [line for line in capsys.readouterr().err.strip().splitlines() if "%|" not in line]
    assert len(err) == 1 and err[0].startswith("error: ") and "too small for any probing task" in err[0]


def test_run_probe_rejects_bad_arguments(corpus_file, cache_root):
    ws = Workspace(from_texts(sentences(20)), cache=Cache(cache_root))
    with pytest.raises(N2OError, match="per-class"):
        run_probe(ws, ["tfidf"], per_class=-1)
    with pytest.raises(N2OError, match="at least one embedder"):
        run_probe(ws, [])


def test_each_step_says_task_x_of_n_embedder_y_of_m_and_the_time_left(first):
    res, _ = first
    done = [t for t in res.tasks[res.tasks["skipped"].isna()]["task"]]
    assert [(s.eid, s.task) for s in STEPS] == [(e, k + 1) for e in EMBEDDERS for k in range(len(done))]
    first_line = STEPS[0].line()
    assert first_line.startswith(f"task 1 of {len(done)} · embedder 1 of 2 · estimating the time left")
    last = STEPS[-1]
    assert last.seconds_left is not None and last.seconds_left >= 0
    left = "a few seconds" if last.seconds_left < 10 else "about "
    assert last.line().startswith(f"task {len(done)} of {len(done)} · embedder 2 of 2 · {left}")
    assert [s.fraction for s in STEPS] == sorted(s.fraction for s in STEPS) and STEPS[0].fraction == 0


def test_cached_probe_reads_the_same_result_back_without_computing_anything(
    first, corpus_file, cache_root, monkeypatch
):
    from datetime import datetime

    from n2o_core.corpora import load_corpus

    def fail(*a, **k):
        raise AssertionError("cached_probe computed something")

    monkeypatch.setattr("n2o_core.evaluation.probe.parse.parse_texts", fail)
    monkeypatch.setattr(Workspace, "embedder", fail)
    monkeypatch.setattr(Workspace, "encode_texts", fail)
    monkeypatch.setattr("n2o_core.evaluation.probe.run.read_out", fail)
    ws = Workspace(load_corpus(str(corpus_file)), cache=Cache(cache_root))
    got = cached_probe(ws, EMBEDDERS, per_class=PER_CLASS, seed=0, min_train=MIN_TRAIN)
    res, _ = first
    assert got is not None
    assert got.to_json()["results"] == res.to_json()["results"] and got.to_json()["tasks"] == res.to_json()["tasks"]
    when = datetime.fromisoformat(got.meta["computed_at"])
    assert abs((datetime.now() - when).total_seconds()) < 24 * 3600
    keys = {t: task_key(ws.corpus, t, PER_CLASS, 0, MIN_TRAIN) for t in got.tasks[got.tasks["skipped"].isna()]["task"]}
    parts = [[k, ws.embedder_key(e), 0, spec(c)] for k in keys.values() for e in EMBEDDERS for c in ("lr", "mlp")]
    parts += [[k, LENGTH, 0, spec("lr")] for k in keys.values()]
    assert got.meta["computed_at"] == max(ws.cache.load_json(readout_rel(p))["computed_at"] for p in parts)
    # other settings were never run: nothing to show, nothing computed
    assert cached_probe(ws, EMBEDDERS, per_class=PER_CLASS, seed=1, min_train=MIN_TRAIN) is None
    assert cached_probe(ws, [*EMBEDDERS, "glove-6b-50d"], per_class=PER_CLASS, min_train=MIN_TRAIN) is None
    assert cached_probe(ws, EMBEDDERS, per_class=PER_CLASS, min_train=2) is None
    with pytest.raises(TypeError, match="unexpected settings: perclass"):
        cached_probe(ws, EMBEDDERS, perclass=PER_CLASS)


def test_the_estimate_counts_what_the_cache_lacks_at_the_rates_measured_here(first, corpus_file, cache_root, tmp_path):
    from n2o_core.corpora import load_corpus

    corpus = load_corpus(str(corpus_file))
    res, _ = first
    ws = Workspace(corpus, cache=Cache(cache_root))
    tasks = list(TASKS)
    full = estimate(ws, EMBEDDERS, tasks, ["lr", "mlp"], PER_CLASS, 0, MIN_TRAIN)
    assert (full.steps, full.parse_sentences) == (0, 0) and full.short() == "a few seconds here"
    rates = load_rates(ws.cache)
    assert rates["measured"].startswith("the probing runs here")
    steps = sum(n for _, n in rates["steps"]["mlp"].values())
    assert steps == 2 * int(res.tasks["skipped"].isna().sum()) and rates["parse_sentences_per_s"] > 0
    other = estimate(ws, [*EMBEDDERS, "glove-6b-50d"], tasks, ["lr", "mlp"], PER_CLASS, 0, MIN_TRAIN)
    n_done = int(res.tasks["skipped"].isna().sum())
    assert (other.steps, other.total_steps, other.parse_sentences) == (n_done, 3 * n_done, 0)
    sizes = [len(td.items) / len(td.classes) / 1000 for td in res.data.values() if td.skipped is None]
    assert other.seconds == pytest.approx(estimate_seconds(rates, ["lr", "mlp"], 0, sizes))
    assert other.line().startswith(other.short()) and f"{n_done} of {3 * n_done}" in other.line()

    fresh = Workspace(corpus, cache=Cache(tmp_path / "fresh"))  # nothing here: parse + every step, reference rates
    cold = estimate(fresh, EMBEDDERS, tasks, ["lr"], 1000, 0, 100)
    assert (cold.steps, cold.total_steps, cold.parse_sentences) == (20, 20, len(corpus))
    want = len(corpus) / REFERENCE_PARSE_PER_S + 20 * REFERENCE_STEP_S["lr"]
    assert cold.seconds == pytest.approx(want) and "benchmarks/README.md" in cold.basis


def test_a_steps_seconds_follow_the_sizes_measured_here():
    rates = {"steps": {"mlp": {"0.20": [2 * 3.0, 2], "1.00": [7.0, 1]}, "lr": {"0.50": [1.0, 1]}}}
    # two sizes: the line through (0.2, 3) and (1, 7) weighted 2:1, a + b x size
    assert step_seconds(rates, "mlp", 0.2) == pytest.approx(3.0)
    assert step_seconds(rates, "mlp", 2.0) == pytest.approx(12.0)
    assert step_seconds(rates, "lr", 1.0) == pytest.approx(2.0)  # one size: in proportion to it
    assert step_seconds(rates, "features", 1.0) == REFERENCE_STEP_S["features"]  # never measured: the reference
    falling = {"steps": {"mlp": {"0.20": [5.0, 1], "1.00": [4.0, 1]}}}  # more items never cost less
    assert step_seconds(falling, "mlp", 3.0) == pytest.approx(4.5)
