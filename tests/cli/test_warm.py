"""`python -m n2o_core warm`: fills the cache the dashboard's first page reads, says what it filled, and measures
in a new process that the first page then embeds and searches nothing."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from synthetic_text import write_corpus  # noqa: E402

from n2o_core.cli.main import main  # noqa: E402
from n2o_core.cli.warm import first_page  # noqa: E402


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_corpus(tmp_path / "corpus.txt", 120)


def _args(corpus: Path, cache: Path, *extra: str) -> list[str]:
    return [
        "warm",
        "--corpus",
        str(corpus),
        "--embedder",
        "tfidf",
        "--embedder",
        "word2vec",
        "--queries",
        "15",
        "--samples",
        "2",
        "--cache-dir",
        str(cache),
        *extra,
    ]


def _job(corpus: Path, cache: Path, **kw) -> dict:
    job = dict(
        corpus=str(corpus),
        max_sentences=5000,
        text_column=None,
        embedders=["tfidf", "word2vec"],
        queries=15,
        samples=2,
        seed=0,
        znorm=False,
        approx=False,
        cache_dir=str(cache),
    )
    job.update(kw)
    return job


def test_warm_fills_the_first_page(corpus, tmp_path, capsys):
    cache = tmp_path / "cache"
    # before: the first page would embed and search both embedders
    cold = first_page(_job(corpus, tmp_path / "empty"))
    assert cold["computed"] == ["embeddings of tfidf", "embeddings of word2vec"]

    assert main(_args(corpus, cache)) == 0
    out = capsys.readouterr().out
    assert "corpus corpus: 120 sentences; 2 samples x 15 queries" in out
    assert "tfidf: embedded, neighbors of every sentence ready" in out
    assert "word2vec: embedded, neighbors of every sentence ready" in out
    assert "filled: 2 embeddings (" in out and "4 knn (" in out  # the query pool's and every sentence's
    # measured in a new Python process with embedding and search forbidden
    assert "first page: nothing to embed or search; its own work takes " in out and "in a new process (imports " in out
    assert first_page(_job(corpus, cache))["computed"] == []
    # another query sample is a slice of every sentence's neighbors: nothing to search either
    assert first_page(_job(corpus, cache, queries=30, seed=7))["computed"] == []
    # a view the cache does not hold (z-normalized neighbors): the check says so
    assert first_page(_job(corpus, cache, znorm=True))["computed"] == ["a neighbor search"]

    assert main([*_args(corpus, cache), "--no-check"]) == 0
    out = capsys.readouterr().out
    assert "tfidf: embeddings were cached" in out and "filled: nothing, the cache already held this view" in out
    assert "first page" not in out


def test_warm_uses_the_apps_defaults(corpus, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("N2O_DEFAULT_CORPUS", str(corpus))
    monkeypatch.setenv("N2O_DEFAULT_EMBEDDERS", "tfidf,word2vec")
    monkeypatch.setenv("N2O_DEFAULT_QUERIES", "15")
    monkeypatch.setenv("N2O_DEFAULT_SAMPLES", "2")
    assert main(["warm", "--cache-dir", str(tmp_path / "c"), "--no-check"]) == 0
    assert first_page(_job(corpus, tmp_path / "c"))["computed"] == []


def test_bad_input_is_one_line_before_any_work(corpus, tmp_path, capsys):
    cache = tmp_path / "cache"
    assert main([*_args(corpus, cache), "--embedder", "no-such-embedder"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: Unknown embedder 'no-such-embedder'") and err.count("\n") == 1
    assert not (cache / "embeddings").exists()
    assert main([*_args(corpus, cache), "--embedder", f"wv:{tmp_path}/missing.txt"]) == 2
    assert "Word-vector file not found" in capsys.readouterr().err
    assert main([*_args(corpus, cache), "--queries", "0"]) == 2
    assert not os.path.exists(cache / "embeddings")


def test_warm_probe_prepares_the_probing_page(corpus, tmp_path, capsys, monkeypatch):
    """`--probe N` runs the probing page's first view (every task, both classifiers): afterwards the same run
    reads every readout from the cache and trains nothing, and `cached_probe` (what the page opens on) has it."""
    import n2o_core.evaluation.probe.run as probe_run
    from n2o_core.api import workspace

    cache = tmp_path / "cache"
    assert main([*_args(corpus, cache), "--no-check", "--probe", "20", "--probe-min-train", "1"]) == 0
    out = capsys.readouterr().out
    assert "probing: " in out and "tasks x 2 embedders at 20 per class at most, ready in" in out

    def no_training(*a, **kw):
        raise AssertionError("a readout was trained again")

    monkeypatch.setattr(probe_run, "read_out", no_training)
    ids = ["tfidf", "word2vec"]
    ws = workspace(str(corpus), ids, cache_dir=str(cache))
    res = probe_run.run_probe(ws, ids, per_class=20, seed=0, min_train=1)
    assert set(res.embedders) == {"tfidf", "word2vec"} and len(res.results) > 0
    shown = probe_run.cached_probe(ws, ids, per_class=20, seed=0, min_train=1)
    assert shown is not None and shown.to_json()["results"] == res.to_json()["results"]
    assert probe_run.cached_probe(ws, ids, per_class=20, seed=0) is None  # the page's minimum: another run
    assert main([*_args(corpus, cache), "--no-check", "--probe", "0"]) == 0  # 0: no probing
    assert "probing" not in capsys.readouterr().out


def test_warm_measures_prepares_the_measures_page(corpus, tmp_path, capsys, monkeypatch):
    """`--measures` computes the Similarity measures page's first view (every measure, the page's defaults) and
    keeps it in the cache: afterwards the page's setup reads it back without computing anything."""
    import n2o_core.measures.stored as stored
    from n2o_core.api import workspace
    from n2o_core.measures import MEASURE_IDS

    cache = tmp_path / "cache"
    assert main([*_args(corpus, cache), "--no-check", "--measures"]) == 0
    out = capsys.readouterr().out
    assert f"measures: {len(MEASURE_IDS)} measures x 2 embedders ready in" in out

    def no_compute(*a, **kw):
        raise AssertionError("computed again")

    monkeypatch.setattr(stored, "compare_measures", no_compute)
    ws = workspace(str(corpus), ["tfidf", "word2vec"], cache_dir=str(cache))
    got = stored.load(ws, stored.Setup(("word2vec", "tfidf"), 10, tuple(MEASURE_IDS)))  # as the page asks
    assert got is not None and got.result.measures == list(MEASURE_IDS) and got.result.permutations == 100
