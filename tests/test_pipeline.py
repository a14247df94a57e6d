"""The order embedders are prepared in (cheapest first) and the work done ahead on a second thread
(`pipeline.Preparation`): each embedder handed over once, the thread never loading what the caller loads, the
vectors those loaded ahead the same as those loaded in the foreground."""

from __future__ import annotations

import threading
import time

import numpy as np
from synthetic_text import sentences

from n2o_core import pipeline, preload
from n2o_core.corpora import from_texts
from n2o_core.limits import k_max_for
from n2o_core.pipeline import (
    COST_CACHED,
    COST_CHEAP,
    COST_DISTILLED,
    COST_MODEL,
    COST_TRAINED,
    Preparation,
    plan_queries,
    preparation_cost,
    prepare_all,
)
from n2o_core.storage.cache import Cache
from n2o_core.workspace import Workspace

TEXTS = sentences(120)


def workspace(path) -> Workspace:
    return Workspace(from_texts(TEXTS, name="pipe"), cache=Cache(path))


def test_cost_classes_put_cached_and_cheap_embedders_first(tmp_path):
    ws = workspace(tmp_path)
    assert preparation_cost(ws, "tfidf") == COST_CHEAP
    ws.embeddings("tfidf")  # cached now
    costs = {
        e: preparation_cost(ws, e)
        for e in ("tfidf", "glove-6b-50d", "word2vec", "fasttext-sub", "model2vec", "minilm-l6-mean", "no-such-one")
    }
    assert costs == {
        "tfidf": COST_CACHED,
        "glove-6b-50d": COST_CHEAP,
        "word2vec": COST_TRAINED,
        "fasttext-sub": COST_TRAINED,
        "model2vec": COST_DISTILLED,
        "minilm-l6-mean": COST_MODEL,
        "no-such-one": COST_CACHED,  # its error shows at once
    }
    assert not any(ws.is_loaded(e) for e in costs if e != "tfidf")  # costed without loading anything
    order = Preparation(ws, ["minilm-l6-mean", "word2vec", "glove-6b-50d", "fasttext-sub", "tfidf"], ahead=False)
    assert order.order == ["tfidf", "glove-6b-50d", "word2vec", "fasttext-sub", "minilm-l6-mean"]  # stable


def test_each_embedder_is_handed_over_once_and_the_last_ones_are_loaded_ahead(tmp_path, monkeypatch):
    """The thread starts at the first expensive embedder and loads from the end of the list; the caller skips the
    one the thread is loading while another is left, and gets it last."""
    ws = workspace(tmp_path)
    loading_fasttext = threading.Event()
    release = threading.Event()
    real = pipeline.load_model

    def load_model(ws_, eid):
        if eid == "fasttext":
            loading_fasttext.set()
            assert release.wait(30)
        real(ws_, eid)

    monkeypatch.setattr(pipeline, "load_model", load_model)
    ids = ["word2vec-nostop", "tfidf", "word2vec", "fasttext", "fasttext-sub"]
    got = []
    with Preparation(ws, ids) as order:
        assert order.order == ["tfidf", "word2vec-nostop", "word2vec", "fasttext", "fasttext-sub"]
        it = iter(order)
        got.append(next(it))  # tfidf: cheap, no thread
        assert order._thread is None
        got.append(next(it))  # word2vec-nostop: the thread starts with fasttext-sub, then fasttext
        assert loading_fasttext.wait(60) and order.loading_ahead("fasttext")
        assert ws.is_loaded("fasttext-sub")  # fitted ahead, before the caller asked for it
        got.append(next(it))  # word2vec
        got.append(next(it))  # fasttext-sub (done ahead): fasttext is skipped while the thread loads it
        got.append(next(it))  # fasttext: the last one, handed over while the thread still loads it
        release.set()
        assert list(it) == []
    assert got == ["tfidf", "word2vec-nostop", "word2vec", "fasttext-sub", "fasttext"]
    order._thread.join(60)
    assert order.loaded_ahead == ["fasttext-sub", "fasttext"]

    # the vectors are those of embedders loaded one at a time in the foreground
    alone = workspace(tmp_path / "alone")
    for e in ids:
        np.testing.assert_array_equal(dense(ws.embeddings(e)), dense(alone.embeddings(e)))


def dense(X) -> np.ndarray:
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X)


def test_prepare_all_keeps_the_given_order_and_reports_training(tmp_path):
    ws = workspace(tmp_path)
    plan = plan_queries(len(ws.corpus), 10, 2, 0)
    stages = []
    done = []
    prepared = prepare_all(
        ws,
        ["word2vec", "tfidf", "fasttext"],
        plan,
        k_max_for(len(ws.corpus)),
        progress=lambda ev: stages.append((ev.item, ev.stage, ev.done, ev.total)),
        on_done=lambda p, e: done.append(e),
    )
    assert done[0] == "tfidf"  # cheapest first
    assert prepared.names == ["word2vec", "tfidf", "fasttext"]  # the result keeps the order asked for
    # word2vec is trained by the caller (fasttext ahead): sentences x epochs, from 0 to complete
    trained = [(d, t) for e, stage, d, t in stages if (e, stage) == ("word2vec", "train")]
    assert trained[0] == (0, 5 * len(TEXTS)) and trained[-1] == (5 * len(TEXTS), 5 * len(TEXTS))
    assert set(prepared.neighbors) == {"word2vec", "tfidf", "fasttext"} and not prepared.errors


def test_a_failing_embedder_loaded_ahead_is_reported_by_the_caller(tmp_path, monkeypatch):
    ws = workspace(tmp_path)

    def broken(ws_, eid):
        raise RuntimeError("boom")

    monkeypatch.setattr(pipeline, "load_model", broken)
    plan = plan_queries(len(ws.corpus), 10, 2, 0)
    prepared = prepare_all(ws, ["tfidf", "word2vec", "fasttext", "no-such-embedder"], plan, 10)
    assert set(prepared.neighbors) == {"tfidf", "word2vec", "fasttext"}
    assert "no-such-embedder" in prepared.errors["no-such-embedder"]


def test_leaving_the_block_starts_nothing_more(tmp_path, monkeypatch):
    ws = workspace(tmp_path)
    seen = []
    gate = threading.Event()

    def load_model(ws_, eid):
        seen.append(eid)
        gate.wait(30)

    monkeypatch.setattr(pipeline, "load_model", load_model)
    with Preparation(ws, ["word2vec", "fasttext", "fasttext-sub", "word2vec-nostop"]) as order:
        next(iter(order))  # word2vec: the thread starts on word2vec-nostop
        while not seen:
            time.sleep(0.01)
    gate.set()
    order._thread.join(30)
    assert seen == ["word2vec-nostop"]  # closed: fasttext-sub and fasttext were never started
    assert pipeline.AHEAD_FROM == COST_TRAINED


def test_a_new_sample_is_a_slice_of_every_sentences_neighbors(tmp_path, tie_vectors):
    """Same ids and similarities as searching the pool itself, on vectors full of exact ties, duplicate rows and
    zero rows (query excluded by index, ties broken by index), plain and z-normalized."""
    ws = Workspace(from_texts([f"sentence {i}" for i in range(len(tie_vectors))], name="ties"), cache=Cache(tmp_path))
    np.save(tmp_path / "v.npy", tie_vectors)
    ws.add_vectors("ties", tmp_path / "v.npy")
    pool = plan_queries(len(ws.corpus), 20, 3, 7).pool
    for znorm in (False, True):
        direct = ws.neighbors("ties", pool, 12, znorm=znorm)
        assert pipeline.search_every_sentence(ws, "ties", 12, znorm=znorm)
        stages = []
        sliced = pipeline.prepare_embedder(
            ws,
            "ties",
            pool,
            12,
            znorm=znorm,
            progress=lambda ev, st=stages: st.append((ev.item, ev.stage, ev.done, ev.total)),
        )
        np.testing.assert_array_equal(sliced.ids, direct.ids)
        np.testing.assert_array_equal(sliced.sims, direct.sims)
        assert stages[-1] == ("ties", "neighbors", len(pool), len(pool))
    assert pipeline._rows_of_every_sentence(ws, "ties", pool, 12, znorm=False, approx=True) is None  # exact only


def test_preload_searches_every_sentence_for_the_chosen_embedders(tmp_path):
    ws = workspace(tmp_path)
    everyone = np.arange(len(ws.corpus))
    done = preload.preload(ws, ["tfidf"], heros=False, maps=False, every_sentence=(10, False))
    assert "neighbors of every sentence, tfidf" in done
    assert ws.has_neighbors("tfidf", everyone, 10) and not ws.has_neighbors("tfidf", everyone, 10, znorm=True)


def test_prepare_each_reports_every_step_and_a_child_replays_the_same(tmp_path):
    """The dashboard's preparation (`prepare_each`): cheapest first, a failing embedder reported and the others
    kept; run in a child process (a shared server) its events come back equal and in order."""
    from n2o_core.errors import EmbedderError
    from n2o_core.runtime import child

    corpus = from_texts(sentences(90), name="each")
    pool = np.arange(0, 90, 3, dtype=np.int64)

    def run(isolate: bool, folder: str) -> tuple[dict, list]:
        ws = Workspace(corpus, cache=Cache(tmp_path / folder))
        events: list = []
        got = child.call(
            pipeline.prepare_each,
            ws,
            ["word2vec", "no-such-embedder", "tfidf"],
            pool,
            5,
            callbacks={"on_event": lambda kind, eid, payload: events.append((kind, eid, payload))},
            isolate=isolate,
        )
        return got, events

    here, seen = run(False, "a")
    there, replayed = run(True, "b")
    assert list(here) == list(there) == ["tfidf", "word2vec"]
    for e in here:
        np.testing.assert_array_equal(here[e].ids, there[e].ids)
    kinds = [(k, e) for k, e, _ in seen]
    assert kinds == [(k, e) for k, e, _ in replayed]
    assert ("failed", "no-such-embedder") in kinds
    assert kinds.index(("done", "tfidf")) < kinds.index(("start", "word2vec"))  # cheapest first
    assert ("stage", "word2vec") in kinds  # training, embedding and search steps reach the caller
    steps = [(p.stage, p.item) for k, e, p in replayed if k == "stage" and e == "word2vec"]
    assert [s for s, _ in steps if s != steps[0][0]][-1] == "neighbors" and steps[0][0] == "train"
    assert {item for _, item in steps} == {"word2vec"}  # each event names its embedder, and pickles
    assert [p for k, _, p in seen if k == "stage"] == [p for k, _, p in replayed if k == "stage"]
    failed = [p for k, e, p in replayed if k == "failed"]
    assert isinstance(failed[0], EmbedderError) and "no-such-embedder" in str(failed[0])


def test_query_samples_are_never_repeated():
    plan = pipeline.plan_queries(60, 100, 5, 0)  # queries >= N: one sample of every sentence, not five copies
    assert len(plan.samples) == 1
    assert np.array_equal(plan.samples[0], np.arange(60)) and np.array_equal(plan.pool, np.arange(60))
    assert plan.every_sentence_once
    assert plan.sampling_note().startswith("100 queries per sample cover all 60 sentences of the corpus")
    assert "instead of 5 samples" in plan.sampling_note()
    smaller = pipeline.plan_queries(60, 30, 5, 0)  # fewer queries than sentences: independent samples, said nothing
    assert len(smaller.samples) == 5 and smaller.sampling_note() == ""
    assert len({s.tobytes() for s in smaller.samples}) == 5
