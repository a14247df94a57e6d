"""AppTest: the N2O heatmap page (default page), the sidebar and the URL state."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from app_checks import EMBEDDERS, no_exception, plotly_specs

from n2o_core.errors import EmbedderError

NAMES = EMBEDDERS.split(",")


def heat(at) -> dict:
    return plotly_specs(at)["heatmap"]["data"][0]


def test_heatmap_renders_and_k_changes_it(app):
    app.run()
    no_exception(app)
    h = heat(app)
    assert sorted(h["x"]) == sorted(NAMES)
    z = np.array(h["z"], float)
    assert z.shape == (4, 4)
    off = ~np.eye(4, dtype=bool)
    assert np.isnan(np.diag(z)).all()  # the diagonal is kept off the colour scale
    assert np.all((z[off] >= 0) & (z[off] <= 1))
    assert h["zmin"] == pytest.approx(min(np.nanmin(z), h["zmin"])) and h["zmax"] >= np.nanmax(z[off]) - 1e-9
    assert h["zmax"] < 1.0  # the scale spans the pairs, not the 1.0 self-overlap
    assert any("chance" in t for t in h["colorbar"]["ticktext"]) or "chance" in h["colorbar"]["title"]["text"]
    assert any("chance level k/(N−1)" in c.value for c in app.caption)
    assert app.query_params["k"] == "10"

    app.sidebar.slider(key="w_k").set_value(3)
    t0 = time.perf_counter()
    app.run()
    warm = time.perf_counter() - t0
    no_exception(app)
    z3 = np.array(heat(app)["z"], float)
    assert not np.allclose(z3, z, equal_nan=True)
    assert any("k = 3" in c.value for c in app.caption)
    assert app.query_params["k"] == "3"
    assert warm < 5, warm  # a warm k change only slices cached arrays


def test_order_chosen_and_url_state(app):
    app.query_params.update({"emb": "glove-6b-50d,tfidf,word2vec", "order": "chosen", "k": "7", "samples": "2"})
    app.run()
    no_exception(app)
    assert heat(app)["x"] == ["glove-6b-50d", "tfidf", "word2vec"]
    assert app.sidebar.slider(key="w_k").value == 7
    assert app.sidebar.number_input(key="w_samples").value == 2
    assert app.query_params["emb"] == "glove-6b-50d,tfidf,word2vec"
    assert "box" not in plotly_specs(app)  # one section at a time

    app.segmented_control(key="w_hview").set_value("box").run()
    no_exception(app)
    assert app.query_params["view"] == "box"
    box = [t for t in plotly_specs(app)["box"]["data"] if t["type"] == "box"]  # the chance line is a legend entry
    assert sorted(t["name"] for t in box) == sorted(["glove-6b-50d", "tfidf", "word2vec"])
    for t in box:  # each embedder's box holds its N2O with the two others
        assert len(t["y"]) == 2 and all(0 <= v <= 1 for v in t["y"])

    app.segmented_control(key="w_hview").set_value("robustness").run()
    no_exception(app)
    specs = plotly_specs(app)
    rho = np.array(specs["spearman"]["data"][0]["z"], float)
    np.testing.assert_allclose(np.diag(rho), 1.0)
    assert any(m.label == "mean Spearman ρ between k" for m in app.metric)
    across = np.array(specs["samples"]["data"][0]["z"], float)  # 2 samples: a 2 x 2 matrix of ρ
    assert across.shape == (2, 2) and np.allclose(np.diag(across), 1.0)
    assert any(m.label == "mean Spearman ρ between samples" for m in app.metric)
    sizes = specs["sizes"]["data"][0]
    assert sizes["x"][-1] == 30 and np.isclose(sizes["y"][-1], 1.0)  # full-size samples reproduce the ranking

    app.segmented_control(key="w_hview").set_value("downloads").run()
    no_exception(app)
    assert {b.proto.label for b in app.get("download_button")} >= {"Matrix (CSV)", "Neighbors (JSON)"}


def test_view_in_link(app):
    app.query_params.update({"view": "box"})
    app.run()
    no_exception(app)
    assert "box" in plotly_specs(app) and "heatmap" not in plotly_specs(app)


def test_bad_url_values_are_explained(app):
    app.query_params.update({"k": "abc", "emb": "tfidf,nope,word2vec", "corpus": "/etc/passwd"})
    app.run()
    no_exception(app)
    warnings = " ".join(w.value for w in app.sidebar.warning)
    assert "nope" in warnings and "'k'" in warnings and "Unknown corpus" in warnings
    assert heat(app)["x"] and sorted(heat(app)["x"]) == ["tfidf", "word2vec"]


def test_k_above_corpus_size(app, monkeypatch):
    monkeypatch.setenv("N2O_MAX_SENTENCES", "20")
    app.query_params.update({"k": "40"})
    app.run()
    no_exception(app)
    assert any("above what this corpus allows" in w.value for w in app.sidebar.warning)
    assert app.sidebar.slider(key="w_k").value == 19
    assert np.array(heat(app)["z"]).shape == (4, 4)


def test_failing_embedder_is_reported_and_others_render(app, monkeypatch):
    import n2o_core.embedders.registry as registry

    real = registry.get_embedder

    def flaky(eid, *a, **kw):
        if eid == "fasttext":
            raise EmbedderError("The fastText model could not be loaded (simulated).")
        if eid == "glove-6b-50d":
            raise RuntimeError("boom")
        return real(eid, *a, **kw)

    monkeypatch.setattr(registry, "get_embedder", flaky)
    # a corpus sample no other test uses: nothing on disk or in memory hides the failure
    app.query_params.update({"cap": "120"})
    app.run()
    no_exception(app)
    errors = " ".join(e.value for e in app.error)
    assert "simulated" in errors
    # an unexpected exception is one sentence: the app's own wording, or the core's EmbedderError around it
    assert "glove-6b-50d" in errors and "Traceback" not in errors
    assert "failed unexpectedly (RuntimeError)" in errors or "failed while encoding the corpus" in errors
    assert sorted(heat(app)["x"]) == ["tfidf", "word2vec"]


@pytest.mark.slow  # pynndescent's numba compilation takes ~80 s in a fresh process
def test_approximate_search_shows_recall(app):
    pytest.importorskip("pynndescent")
    app.query_params.update({"search": "approx", "emb": "tfidf,word2vec"})
    app.run(timeout=400)
    no_exception(app)
    specs = plotly_specs(app)
    assert "recall" in specs
    assert all(0 <= v <= 1 for v in specs["recall"]["data"][0]["y"])
    notes = [c.value for c in app.caption if c.value.startswith("Approximate search")]
    assert notes and "recall@10 tfidf" in notes[0] and "largest N2O error of a pair" in notes[0]
    for page in ("pages/tokens.py", "pages/query.py"):  # every view of approximate neighbors says how good they are
        app.switch_page(page).run(timeout=400)
        no_exception(app)
        assert any(c.value.startswith("Approximate search") for c in app.caption), page


@pytest.mark.slow  # the Dask client gives up on an unreachable address after its 20 s timeout
def test_unreachable_scheduler_is_one_message(app):
    pytest.importorskip("distributed")
    app.run()
    app.sidebar.text_input(key="w_scheduler").set_value("tcp://127.0.0.1:9").run(timeout=120)
    no_exception(app)
    errors = " ".join(e.value for e in app.error)
    assert "Dask scheduler" in errors and "Traceback" not in errors
    assert "heatmap" not in plotly_specs(app)
    assert "scheduler" not in app.query_params  # a link never makes the server connect somewhere

    app.sidebar.text_input(key="w_scheduler").set_value("").run()
    no_exception(app)
    assert len(heat(app)["x"]) == 4


def test_changing_the_number_of_samples_recomputes_n2o(app):
    """On a 151-sentence corpus, 100 queries per sample cover nearly the whole corpus, so 5 and 6 samples share
    one query pool: the N2O shown must still be the 6-sample mean and std (it once kept the 5-sample values)."""
    import os

    from n2o_core.analyses.compare import compare
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    app.query_params.update({"queries": "100", "samples": "5", "order": "chosen"})
    app.run()
    no_exception(app)
    app.sidebar.number_input(key="w_samples").set_value(6).run()
    no_exception(app)
    h = heat(app)
    ws = Workspace(load_corpus(os.environ["N2O_DEFAULT_CORPUS"]), cache=Cache(os.environ["N2O_CACHE_DIR"]))
    want = compare(ws, h["x"], 10, n_queries=100, n_samples=6, seed=0, k_max=50)
    five = compare(ws, h["x"], 10, n_queries=100, n_samples=5, seed=0, k_max=50)
    assert np.array_equal(want.pool, five.pool)  # the case the bug hid in: the same pool
    off = ~np.eye(len(h["x"]), dtype=bool)
    np.testing.assert_allclose(np.array(h["z"], float)[off], want.mean[off], atol=1e-9)
    std = np.array(h["customdata"], float)[..., 0]
    np.testing.assert_allclose(std[off], want.std[off], atol=1e-9)
    assert not np.allclose(want.std[off], five.std[off])
    assert any("6 sample(s) of 100 queries" in c.value for c in app.caption)


def test_cold_cache_shows_progress_per_embedder(app):
    """A corpus sample nothing has touched: every embedder is prepared with a status line, a progress bar and
    a 'ready in' line; the status ends complete with the count."""
    app.query_params.update({"cap": "130"})
    app.run()
    no_exception(app)
    text = " ".join(m.value for m in app.markdown)
    for e in NAMES:
        assert f"**{e}**: ready in" in text, e
    status = [el for el in app.main.children.values() if type(el).__name__ == "Status"]
    assert [el.proto.label for el in status] == ["4 of 4 embedders ready"]
    assert len(status[0].get("progress")) == len(NAMES)  # a bar per embedder


def test_a_60_sentence_upload_says_chance_k_and_the_trained_embedders(app):
    """Small data said in place: the default k lowered to 10% of the N − 1 candidates, chance beside every value,
    word2vec / fastText trained on 60 sentences flagged (GloVe, pretrained, and tf-idf are not), and each
    embedder's random-pair cosine in the embedder table, as the core computes it."""
    from synthetic_text import sentences

    from n2o_core.analyses.anisotropy import anisotropy
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    app.run()
    app.sidebar.selectbox(key="w_corpus").set_value("__upload__").run()
    text = "\n".join(sentences(60, seed=11)).encode()
    app.sidebar.file_uploader[0].set_value(("sixty.txt", text, "text/plain")).run()
    no_exception(app)
    assert app.query_params["k"] == "5"  # 10% of 59
    said = " ".join(i.value for i in app.info)
    assert "Chance k/(N−1) = 5/59 = 0.085" in said
    h = heat(app)
    off = [t for row in h["text"] for t in row if t]
    assert off and all(t.count("<br>") == 1 and t.endswith("×") for t in off)  # value, then × chance
    warned = " ".join(w.value for w in app.warning)
    assert "word2vec and fasttext are trained on only 60 sentences here, so their neighbors are mostly noise" in warned
    assert any(t.label == "Train word2vec / fastText with BBC News" for t in app.sidebar.toggle)
    table = app.dataframe[0].value
    ws = Workspace(load_corpus(app.query_params["corpus"]), cache=Cache(os.environ["N2O_CACHE_DIR"]))
    for e, v, z in zip(table["embedder"], table["random-pair cosine"], table["after z-norm"]):
        a = anisotropy(ws, e)
        assert v == pytest.approx(round(a.raw, 3)) and z == pytest.approx(round(a.znorm, 3))


def test_the_reordered_note_follows_a_partial_view_only(app):
    """A corpus sample nothing has embedded: the partial heatmap is drawn while embedders come in, and the complete
    one says that it is now ordered and coloured from all the values (again on a rerun of these settings). After a
    server restart (the process's memos cleared) everything comes from the disk cache: the heatmap is complete at
    once, and no such note."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    def said(at) -> list[str]:
        return [c.value for c in at.caption if c.value.startswith("All 4 embedders are in")]

    app.query_params.update({"cap": "137"})
    app.run()
    no_exception(app)
    (note,) = said(app)
    z = heat(app)
    assert f"colours span {z['zmin']:.2f}–{z['zmax']:.2f}" in note and "ordered by clustering" in note
    app.sidebar.slider(key="w_k").set_value(4).run()  # the same comparison at another k: still said
    assert len(said(app)) == 1

    st.cache_resource.clear()
    st.cache_data.clear()
    restarted = AppTest.from_file(str(app._script_path), default_timeout=180)
    restarted.query_params.update({"cap": "137"})
    restarted.run()
    no_exception(restarted)
    assert sorted(heat(restarted)["x"]) == sorted(NAMES) and said(restarted) == []
