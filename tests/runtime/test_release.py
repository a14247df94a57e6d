"""runtime.release: holders dropped after disuse, a workspace's model released and loaded again with the same
results, and spaCy loaded without torch."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
import pytest

import n2o_core.runtime.release as release
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.storage.cache import Cache


@pytest.fixture
def clean():
    release.release_all()
    yield
    release.release_all()


def test_only_holders_unused_for_longer_are_dropped(clean):
    dropped = []
    release.loaded("a", lambda: dropped.append("a"))
    release.loaded("b", lambda: dropped.append("b"))
    now = time.monotonic()
    assert release.release_idle(30, now=now + 10) == []
    release.used("b")
    got = release.release_idle(30, now=time.monotonic() + 31)
    assert sorted(got) == ["a", "b"] and sorted(dropped) == ["a", "b"]
    assert release.registered() == []


def test_a_failing_release_is_forgotten_not_raised(clean):
    def broken():
        raise RuntimeError("boom")

    release.loaded("x", broken)
    assert release.release_all() == ["x"]
    assert "x" not in release.registered()


def test_release_after_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv(release.RELEASE_ENV, "0")
    assert release.release_after_s() == 0
    monkeypatch.setenv(release.RELEASE_ENV, "junk")
    assert release.release_after_s() == release.DEFAULT_RELEASE_AFTER_S
    monkeypatch.delenv(release.RELEASE_ENV)
    assert release.release_after_s() == release.DEFAULT_RELEASE_AFTER_S


def test_a_released_model_loads_again_with_the_same_results(tmp_path, clean):
    texts = [f"sentence {i} about {w} and {v}" for i, (w, v) in enumerate(zip("abcdefghij" * 6, "klmnopqrst" * 6))]
    ws = Workspace(from_texts(texts, name="tiny"), cache=Cache(tmp_path / "c"))
    X = ws.embeddings("tfidf")
    first = ws.search_text("tfidf", "sentence about a and k", 5)
    assert ws.is_loaded("tfidf")
    holder = [n for n in release.registered() if n.startswith("model tfidf")]
    assert holder
    assert release.release_idle(0, now=time.monotonic() + 1) == holder
    assert not ws.is_loaded("tfidf")
    assert ws.embeddings("tfidf") is X  # the embeddings stay
    again = ws.search_text("tfidf", "sentence about a and k", 5)  # the model is loaded (refitted) again
    assert ws.is_loaded("tfidf")
    np.testing.assert_array_equal(first.ids, again.ids)
    np.testing.assert_allclose(first.sims, again.sims)


def test_spacy_loads_without_importing_torch():
    """thinc imports torch when it can (~200 MB); the HEROS and probing pipelines never run on it."""
    pytest.importorskip("spacy")
    code = (
        "import sys\n"
        "from n2o_core.evaluation.heros.nlp import load_nlp\n"
        "from n2o_core.evaluation.probe.parse import parse_pipeline\n"
        "doc = load_nlp()('The bank warned on profits.')\n"
        "parse_pipeline()\n"
        "print('torch' in sys.modules, doc[1].pos_)\n"
        "import torch\n"  # still importable afterwards
        "print(torch.__name__)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if "is not installed" in res.stderr:
        pytest.skip("the spaCy model is not installed")
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["False", "NOUN", "torch"]
