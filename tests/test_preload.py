"""Preloading what the next click needs: each step is done once and reported; a failing step is reported and
skipped, never raised."""

from __future__ import annotations

import functools

from synthetic_text import sentences

from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
from n2o_core.preload import preload
from n2o_core.storage.cache import Cache


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


def test_load_model_embeds_one_sentence_outside_every_cache(tmp_path, monkeypatch):
    """A model is loaded when a sentence embeds at once: one short sentence goes through it (what opens a graph or
    a session on first use), and nothing of it is cached."""
    from n2o_core.pipeline import WARM_UP_TEXT, load_model

    ws = Workspace(from_texts(sentences(80), name="p"), cache=Cache(tmp_path))
    emb = ws.embedder("tfidf")
    seen = []
    real = emb.encode
    monkeypatch.setattr(emb, "encode", lambda texts, progress=None: seen.append(list(texts)) or real(texts))
    load_model(ws, "tfidf")
    assert seen == [[WARM_UP_TEXT]]
    assert not ws.is_cached("tfidf")
    assert not (tmp_path / "embeddings").exists() and not (tmp_path / "texts").exists()  # nothing embedded is kept
    assert (tmp_path / "models" / "state-tfidf").is_dir()  # the fitted state is (it is the model)


def test_wordnet_and_spacy_load_once_when_two_threads_ask(monkeypatch):
    """The preload thread and the HEROS page may ask at the same time: the second waits for the first load."""
    import threading
    import time

    from n2o_core.evaluation.heros import lexicon, nlp

    loads = []

    def slow(model=None):
        loads.append(model)
        time.sleep(0.2)
        return object()

    for module, name, call in ((lexicon, "_wordnet", lexicon.wordnet), (nlp, "_load_nlp", lambda: nlp.load_nlp("x"))):
        loads.clear()
        cached = functools.lru_cache(maxsize=2)(slow)
        monkeypatch.setattr(module, name, cached)
        got = []
        threads = [threading.Thread(target=lambda g=got, c=call: g.append(c())) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
        assert len(loads) == 1 and len(got) == 3 and got[0] is got[1] is got[2]


def test_an_isolated_preload_only_searches_and_leaves_the_neighbors_on_disk(tmp_path):
    """As a shared server runs it (ui/preload.py): no model, lexicon or compiled code, in a child process; the
    every-sentence neighbors it searched are in the disk cache for the server (the HEROS pairs step: its own test)."""
    import numpy as np

    from n2o_core.runtime import child

    ws = Workspace(from_texts(sentences(80), name="p"), cache=Cache(tmp_path))
    steps: list[str] = []
    done = child.run(
        preload,
        ws,
        ["tfidf"],
        models=False,
        heros=False,
        maps=False,
        approx=False,
        every_sentence=(10, False),
        callbacks={"on_step": lambda name, s, err: steps.append(name)},
    )
    assert list(done) == steps == ["neighbors of every sentence, tfidf"]
    assert ws.has_neighbors("tfidf", np.arange(80), 10) and not ws.is_loaded("tfidf")


def test_the_heros_pairs_step_leaves_the_pages_pairs_on_disk(tmp_path):
    from n2o_core.evaluation.heros.run import make_pairs, pairs_ready

    ws = Workspace(from_texts(sentences(120), name="p"), cache=Cache(tmp_path))
    done = preload(ws, [], models=False, heros=False, maps=False, approx=False, heros_pairs=(10, 3))
    assert list(done) == ["HEROS pairs (10 per subset)"]
    assert pairs_ready(ws, 10, 3) and not pairs_ready(ws, 10, 4)
    assert not make_pairs(ws, 10, 3).pairs.empty
