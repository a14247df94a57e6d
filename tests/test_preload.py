"""Preloading what the next click needs: each step is done once and reported; a failing step is reported and
skipped, never raised."""

from __future__ import annotations

from synthetic_text import sentences

from n2o_core.cache import Cache
from n2o_core.corpora import from_texts
from n2o_core.preload import preload
from n2o_core.workspace import Workspace


def test_preload_loads_the_models_and_reports_each_step(tmp_path):
    ws = Workspace(from_texts(sentences(80), name="p"), cache=Cache(tmp_path))
    ws.embeddings("tfidf")
    reports = []
    done = preload(
        ws, ["tfidf", "no-such-embedder"], heros=False, maps=False, approx=False, on_step=lambda *r: reports.append(r)
    )
    assert list(done) == ["model tfidf", "model no-such-embedder"]
    assert reports[0][0] == "model tfidf" and reports[0][2] is None
    assert reports[1][0] == "model no-such-embedder" and "no-such-embedder" in reports[1][2]
    assert ws.is_loaded("tfidf")  # loaded and fitted: a free-text query no longer waits for it
