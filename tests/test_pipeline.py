"""The order embedders are prepared in (cheapest first) and the overlapped preparation (`pipeline.Preparation`):
the trainings start beside the cheap embedders and the models are loaded ahead, each embedder is reported once and
one at a time (a failure in its place, the others going on), and the vectors and neighbors are those of embedders
prepared one at a time."""

from __future__ import annotations

import threading
import time

import numpy as np
from synthetic_text import sentences

from n2o_core import pipeline, preload
from n2o_core.corpora import from_texts
from n2o_core.corpus_workspace import Workspace
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
from n2o_core.runtime.progress import ProgressEvent, report
from n2o_core.search.result import Neighbors
from n2o_core.storage.cache import Cache

TEXTS = sentences(120)
POOL = np.arange(0, 120, 4, dtype=np.int64)
WAIT = 60  # seconds a test waits for a thread before it fails


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
    ids = ["minilm-l6-mean", "word2vec", "glove-6b-50d", "fasttext-sub", "tfidf"]
    order = Preparation(ws, ids, POOL, 10, workers=2)
    assert order.order == ["tfidf", "glove-6b-50d", "word2vec", "fasttext-sub", "minilm-l6-mean"]  # stable
    assert order.lanes == ["cheap", "load", "any", "any"]  # tf-idf and GloVe; MiniLM's graph; two workers


def reported_one_at_a_time(events: list) -> list[str]:
    """The embedders in the order they were reported, checking that each one's events form one block, from its
    "start" to its "done" or "failed"."""
    blocks = [e for i, (_, e, _p) in enumerate(events) if i == 0 or events[i - 1][1] != e]
    starts = [e for kind, e, _ in events if kind == "start"]
    assert blocks == starts  # no embedder's event between another one's start and end
    for e in starts:
        kinds = [kind for kind, eid, _ in events if eid == e]
        assert kinds[0] == "start" and kinds[-1] in ("done", "failed") and set(kinds[1:-1]) <= {"stage"}
    return starts


def test_trainings_start_beside_the_cheap_embedders_and_models_load_ahead(tmp_path, monkeypatch):
    """With the work itself faked: tf-idf waits until word2vec and fastText are both training (a schedule running
    them one after the other never gets there), MiniLM's graph is loaded while they train, and the caller sees
    each embedder once, one at a time, with "start" saying whether it was cached and began before its turn."""
    ws = workspace(tmp_path)
    ws.embeddings("glove-6b-50d")  # cached
    training = {e: threading.Event() for e in ("word2vec", "fasttext-sub")}
    loaded = threading.Event()

    def prepare_embedder(ws_, eid, pool, k_max, **kw):
        if eid in training:
            training[eid].set()
            assert loaded.wait(WAIT)
        elif eid == "tfidf":
            assert all(ev.wait(WAIT) for ev in training.values())
        report(kw["progress"], "embed", 1, 1, eid)
        return Neighbors(np.zeros((1, 1), np.int64), np.zeros((1, 1), np.float32))

    def load_model(ws_, eid):
        assert eid == "minilm-l6-mean" and all(ev.is_set() for ev in training.values())
        loaded.set()

    monkeypatch.setattr(pipeline, "prepare_embedder", prepare_embedder)
    monkeypatch.setattr(pipeline, "load_model", load_model)
    events: list = []
    ids = ["minilm-l6-mean", "word2vec", "glove-6b-50d", "fasttext-sub", "tfidf"]
    with Preparation(ws, ids, POOL, 10, workers=2) as prep:
        got = prep.report(lambda *event: events.append(event))
    assert reported_one_at_a_time(events) == list(got)
    assert list(got)[:2] == ["glove-6b-50d", "tfidf"] and list(got)[4] == "minilm-l6-mean"  # the cheap ones first
    assert set(list(got)[2:4]) == set(training)
    starts = {e: payload for kind, e, payload in events if kind == "start"}
    assert starts["glove-6b-50d"] == (True, False) and starts["word2vec"] == starts["fasttext-sub"] == (False, True)
    assert prep.loaded_ahead == ["minilm-l6-mean"]


def test_leaving_the_block_starts_nothing_more(tmp_path, monkeypatch):
    ws = workspace(tmp_path)
    seen = []
    gate = threading.Event()

    def prepare_embedder(ws_, eid, *a, **kw):
        seen.append(eid)
        gate.wait(WAIT)

    monkeypatch.setattr(pipeline, "prepare_embedder", prepare_embedder)
    with Preparation(ws, ["word2vec", "fasttext", "fasttext-sub", "word2vec-nostop"], POOL, 10, workers=1) as prep:
        prep.start()
        while not seen:
            time.sleep(0.01)
    gate.set()
    prep.join(WAIT)
    assert seen == ["word2vec"]  # closed: the others were never started


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
    # word2vec's training reaches the caller: sentences x epochs, from 0 to complete
    trained = [(d, t) for e, stage, d, t in stages if (e, stage) == ("word2vec", "train")]
    assert trained[0] == (0, 5 * len(TEXTS)) and trained[-1] == (5 * len(TEXTS), 5 * len(TEXTS))
    assert set(prepared.neighbors) == {"word2vec", "tfidf", "fasttext"} and not prepared.errors


def test_overlapped_preparation_gives_the_vectors_and_neighbors_of_one_at_a_time(tmp_path):
    """Real embedders on a corpus large enough for gensim to train in several jobs per epoch: prepared on the lanes
    (word2vec, word2vec-nostop and fastText training side by side, the model loaded ahead) and one at a time in the
    caller's thread, the embeddings are bit-identical and the neighbors equal."""
    corpus = from_texts(sentences(1500), name="overlap")
    ids = ["tfidf", "glove-6b-50d", "word2vec", "word2vec-nostop", "fasttext-sub", "paraphrase-minilm-l3-mean"]
    pool = plan_queries(len(corpus), 50, 3, 0).pool
    runs = {}
    for ahead in (True, False):
        ws = Workspace(corpus, cache=Cache(tmp_path / str(ahead)))
        runs[ahead] = ws, pipeline.prepare_each(ws, ids, pool, 10, ahead=ahead)
    (lanes_ws, lanes), (alone_ws, alone) = runs[True], runs[False]
    assert set(lanes) == set(alone) == set(ids)
    for e in ids:
        np.testing.assert_array_equal(dense(lanes_ws.embeddings(e)), dense(alone_ws.embeddings(e)))
        np.testing.assert_array_equal(lanes[e].ids, alone[e].ids)
        np.testing.assert_array_equal(lanes[e].sims, alone[e].sims)


def test_a_failing_embedder_is_reported_in_its_place_and_the_others_go_on(tmp_path, monkeypatch):
    """fastText fails while it trains (beside word2vec), a model's loading ahead fails, an id is unknown: each
    failure is reported in its own turn with its sentence, and the others are prepared (the model by its worker)."""
    from n2o_core.errors import EmbedderError

    ws = workspace(tmp_path)
    real = pipeline.prepare_embedder

    def prepare_embedder(ws_, eid, *a, **kw):
        if eid == "fasttext":
            report(kw["progress"], "train", 0, 5 * len(TEXTS), eid)
            raise EmbedderError("Embedder 'fasttext' could not be trained: out of luck.")
        return real(ws_, eid, *a, **kw)

    def load_model(ws_, eid):
        raise RuntimeError("no graph")

    monkeypatch.setattr(pipeline, "prepare_embedder", prepare_embedder)
    monkeypatch.setattr(pipeline, "load_model", load_model)
    ids = ["word2vec", "fasttext", "tfidf", "paraphrase-minilm-l3-mean", "no-such-embedder"]
    events: list = []
    got = pipeline.prepare_each(ws, ids, POOL, 10, on_event=lambda *event: events.append(event))
    assert set(got) == {"word2vec", "tfidf", "paraphrase-minilm-l3-mean"}
    assert sorted(reported_one_at_a_time(events)) == sorted(ids)
    failed = {e: str(payload) for kind, e, payload in events if kind == "failed"}
    assert failed["fasttext"].endswith("out of luck.") and "no-such-embedder" in failed["no-such-embedder"]
    assert set(failed) == {"fasttext", "no-such-embedder"}
    assert (
        "stage",
        "fasttext",
        ProgressEvent("train", "fasttext", 0, 5 * len(TEXTS)),
    ) in events  # its progress came before the failure
    prepared = prepare_all(ws, ids, plan_queries(len(ws.corpus), 10, 2, 0), 10)
    assert set(prepared.neighbors) == set(got) and set(prepared.errors) == set(failed)


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
    # approx=False: pynndescent's compile (~30 s of CPU, not what is tested) is paid once, in tests/search
    done = preload.preload(ws, ["tfidf"], heros=False, maps=False, approx=False, every_sentence=(10, False))
    assert "neighbors of every sentence, tfidf" in done and "pynndescent" not in done
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
