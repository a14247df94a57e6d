"""Jobs in child processes (`n2o_core.runtime.child`): the same result as in this process, callbacks and notices
replayed here in order, the job's own error raised here, a dead child said in a sentence and logged, and a
Workspace that travels as what it reads."""

from __future__ import annotations

import logging
import os
import pickle

import numpy as np
import pytest

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.errors import N2OError
from n2o_core.measures.run import compare_measures
from n2o_core.runtime import child, notices
from n2o_core.runtime import server_mode as sm
from n2o_core.runtime.progress import ProgressEvent
from n2o_core.storage.cache import Cache


def _corpus(n: int = 60):
    rng = np.random.default_rng(0)
    vocab = [f"word{i}" for i in range(40)]
    return from_texts([" ".join(rng.choice(vocab, rng.integers(4, 9))) + f" s{i}" for i in range(n)], name="words")


def test_a_job_in_a_child_gives_what_it_gives_here_and_replays_its_progress(tmp_path):
    ws = Workspace(_corpus(), cache=Cache(tmp_path / "c"))
    kw = dict(permutations_=5, bootstrap=5, seed=3)
    here: list[tuple] = []
    there: list[tuple] = []
    remote = child.run(
        compare_measures,
        ws,
        ["tfidf", "word2vec"],
        5,
        ["cka_linear", "mutual_knn"],
        callbacks={"progress": there.append},
        **kw,
    )
    # what the child computed is in the shared disk cache: this process reads it instead of embedding again
    assert ws.is_cached("word2vec")
    local = compare_measures(ws, ["tfidf", "word2vec"], 5, ["cka_linear", "mutual_knn"], progress=here.append, **kw)
    assert remote.to_json()["results"] == local.to_json()["results"]
    assert there == here and there[-1] == ProgressEvent("measures", "", 2, 2)  # events pickle and come back equal
    assert all(isinstance(e, ProgressEvent) for e in there) and {e.stage for e in there} == {"search", "measures"}


def test_call_runs_here_unless_isolating(tmp_path):
    got: list[str] = []
    with notices.listen(got.append):
        child.call(notices.notify, "here", isolate=False)
        child.call(notices.notify, "there", isolate=True)
    assert got == ["here", "there"]  # a notice from the child reaches this thread's listener


def test_the_jobs_error_is_raised_here_with_its_sentence(tmp_path, caplog):
    ws = Workspace(_corpus(), cache=Cache(tmp_path / "c"))
    with pytest.raises(N2OError, match="at least two embedders"):
        child.run(compare_measures, ws, ["tfidf"], 5)


def test_a_child_that_dies_is_one_sentence_and_a_log_line(caplog):
    with caplog.at_level(logging.ERROR, logger="n2o_core"), pytest.raises(N2OError, match="stopped unexpectedly"):
        child.run(os.abort)
    assert any("exit status" in r.getMessage() and "abort" in r.getMessage() for r in caplog.records)


def test_a_workspace_pickles_as_what_it_reads(tmp_path):
    corpus = _corpus()
    vec = tmp_path / "v.npy"
    np.save(vec, np.random.default_rng(0).standard_normal((len(corpus), 8)).astype(np.float32))
    ws = Workspace(corpus, cache=Cache(tmp_path / "c"), storage_dtype="float16", scheduler="tcp://h:1")
    ws.add_vectors("mine", vec)
    ws.embeddings("mine")
    back = pickle.loads(pickle.dumps(ws))
    assert back.corpus.fingerprint == corpus.fingerprint and back.cache.root == ws.cache.root
    assert back.storage_dtype == "float16" and back.scheduler == "tcp://h:1"
    assert back.is_precomputed("mine") and not back.is_loaded("mine")  # nothing loaded travels
    np.testing.assert_array_equal(np.asarray(back.embeddings("mine")), np.asarray(ws.embeddings("mine")))


def test_isolating_defaults_to_the_shared_server():
    assert not sm.isolate_jobs({}) and sm.isolate_jobs({"N2O_SHARED": "1"})
    assert sm.isolate_jobs({"N2O_ISOLATE": "1"}) and not sm.isolate_jobs({"N2O_SHARED": "1", "N2O_ISOLATE": "0"})


def test_a_child_ends_with_the_process_that_started_it():
    """A server that stops leaves no job running (Linux: the kernel ends the child with its parent)."""
    import subprocess
    import sys
    import time

    import psutil

    if not sys.platform.startswith("linux"):
        pytest.skip("the parent-death signal is Linux's")
    script = "import time\nfrom n2o_core.runtime import child\nchild.run(time.sleep, 60)\n"
    parent = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 30
    kids: list = []
    while not kids and time.monotonic() < deadline:
        kids = psutil.Process(parent.pid).children()
        time.sleep(0.1)
    assert kids, "the job's child process did not start"
    time.sleep(1.0)  # past its start-up, asleep in the job
    parent.kill()
    parent.wait()
    _, alive = psutil.wait_procs(kids, timeout=10)
    for p in alive:
        p.kill()
    assert not alive, "the child outlived its parent by 10 s"
