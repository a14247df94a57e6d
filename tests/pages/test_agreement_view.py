"""AppTest: the per-sentence agreement page ("where two embedders disagree")."""

from __future__ import annotations

import os
import threading
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from app_checks import EMBEDDERS, no_exception, plotly_specs, shown

from n2o_core.analyses.compare import compare
from n2o_core.corpora import load_corpus
from n2o_core.corpus_workspace import Workspace
from n2o_core.storage.cache import Cache

NAMES = EMBEDDERS.split(",")
SELECTION = "_agree_selection"


def open_page(app, **params):
    app.query_params.update(params)
    app.run()
    app.switch_page("pages/agreement.py").run()
    no_exception(app)
    return app


def workspace() -> Workspace:
    corpus = load_corpus(os.environ["N2O_DEFAULT_CORPUS"], max_sentences=5000, seed=0)
    return Workspace(corpus, cache=Cache(os.environ["N2O_CACHE_DIR"]))


def histogram_mean(spec: dict) -> float:
    """The mean the histogram shows, exactly: sum of value x count over the count."""
    bars = spec["data"][0]
    x, y = np.array(bars["x"], float), np.array(bars["y"], float)
    return float((x * y).sum() / y.sum())


def metric(app, label: str) -> str:
    return next(m.value for m in app.metric if m.label == label)


def test_page_renders_and_the_mean_equals_compare(app):
    open_page(app, pair="word2vec,glove-6b-50d", k="7")
    ws = workspace()
    n = len(ws.corpus)
    cmp = compare(ws, ["word2vec", "glove-6b-50d"], 7, n_queries=n, n_samples=1)
    specs = plotly_specs(app)
    assert histogram_mean(specs["agree_hist"]) == pytest.approx(cmp.mean[0, 1], abs=1e-12)
    assert metric(app, "N2O word2vec vs glove-6b-50d") == f"{cmp.mean[0, 1]:.3f}"
    assert metric(app, "chance k/(N−1)") == f"{7 / (n - 1):.4f}"
    # the pair table: every pair's N2O with every sentence a query, as compare gives it
    pairs = app.dataframe[0].value
    cmp_all = compare(ws, NAMES, 7, n_queries=n, n_samples=1)
    for r in pairs.itertuples():
        assert r.n2o == pytest.approx(cmp_all.mean[NAMES.index(r.a), NAMES.index(r.b)], abs=1e-12)
    # mean pairwise agreement: its mean is the mean of the pair N2Os
    iu = np.triu_indices(len(NAMES), 1)
    assert histogram_mean(specs["agree_hist_all"]) == pytest.approx(cmp_all.mean[iu].mean(), abs=0.5 / 7)

    # two WebGL maps, every sentence once per panel, coloured by its per-sentence N2O
    maps = specs["agree_maps"]
    assert [t["type"] for t in maps["data"]] == ["scattergl", "scattergl"]
    left, right = maps["data"]
    assert sorted(left["customdata"]) == list(range(n)) and sorted(right["customdata"]) == list(range(n))
    color = np.empty(n)
    color[np.array(left["customdata"], int)] = left["marker"]["color"]
    assert float(color.mean()) == pytest.approx(cmp.mean[0, 1], abs=1e-6)
    assert "word2vec · PCA" in maps["layout"]["annotations"][0]["text"]
    assert "glove-6b-50d · PCA" in maps["layout"]["annotations"][1]["text"]
    assert maps["layout"]["dragmode"] == "select" and "selectedpoints" not in left

    # rankings: least agreed first, with a link into the query explorer that keeps the shared settings
    low = app.dataframe[1].value
    ranked = color[np.array([int(parse_qs(urlparse(u).query)["qid"][0]) for u in low["query explorer"]])]
    assert np.all(np.diff(ranked) >= 0) and ranked[0] == pytest.approx(color.min(), abs=1e-6)
    assert low["n2o"].tolist() == pytest.approx(ranked.tolist(), abs=1e-6)
    link = urlparse(low["query explorer"].iloc[0])
    q = parse_qs(link.query)
    assert link.path == "/query" and q["k"] == ["7"] and q["emb"] == [",".join(NAMES)]
    assert q["corpus"] == [os.environ["N2O_DEFAULT_CORPUS"]]
    high = app.dataframe[2].value
    assert high["n2o"].iloc[0] == pytest.approx(color.max(), abs=1e-6)
    deciles = app.dataframe[3].value
    assert list(deciles.index) == ["least agreed 10%", "most agreed 10%", "all"]
    assert deciles.loc["least agreed 10%", "n2o"] < deciles.loc["all", "n2o"] < deciles.loc["most agreed 10%", "n2o"]
    assert app.query_params["pair"] == "word2vec,glove-6b-50d" and app.query_params["map"] == "pca"


def test_pair_and_map_method_live_in_the_url(app):
    open_page(app, pair="fasttext,tfidf", by="all", map="pca")
    assert app.selectbox(key="w_agree_a").value == "fasttext" and app.selectbox(key="w_agree_b").value == "tfidf"
    assert app.segmented_control(key="w_agree_by").value == "all"
    assert any("mean over all 6 pairs" in c.value for c in app.caption)
    app.selectbox(key="w_agree_b").set_value("glove-6b-50d").run()
    no_exception(app)
    assert app.query_params["pair"] == "fasttext,glove-6b-50d"
    assert any(m.label == "N2O fasttext vs glove-6b-50d" for m in app.metric)
    # choosing B as A swaps nothing silently: B's list never offers A
    app.selectbox(key="w_agree_a").set_value("glove-6b-50d").run()
    no_exception(app)
    assert app.selectbox(key="w_agree_b").value != "glove-6b-50d"
    assert "glove-6b-50d" not in app.selectbox(key="w_agree_b").options


def test_bad_link_values_fall_back_with_a_note(app):
    open_page(app, pair="nope,word2vec", map="tsne", by="x")
    warnings = " ".join(w.value for w in app.warning)
    assert "'pair' in the link" in warnings and "'map' in the link" in warnings and "'by' in the link" in warnings
    assert app.query_params["pair"] == "tfidf,word2vec" and app.query_params["map"] == "pca"


def test_a_selection_is_highlighted_in_both_maps_and_tabled(app):
    open_page(app)
    n = len(workspace().corpus)
    fp = workspace().corpus.fingerprint
    picked = [3, 40, 77, n - 1]
    app.session_state[SELECTION] = (fp, picked)  # what a box selection's callback stores
    app.run()
    no_exception(app)
    left, right = plotly_specs(app)["agree_maps"]["data"]
    for t in (left, right):
        ids = np.array(t["customdata"], int)
        assert sorted(ids[t["selectedpoints"]].tolist()) == picked
    assert any(h.value == "Selected: 4 sentences" for h in app.subheader)
    groups = app.dataframe[1].value
    assert list(groups.index) == ["selected (4)", "all"] and groups.loc["selected (4)", "sentences"] == 4
    table = app.dataframe[2].value
    qids = sorted(int(parse_qs(urlparse(u).query)["qid"][0]) for u in table["query explorer"])
    assert qids == picked and np.all(np.diff(table["n2o"].to_numpy()) >= 0)
    app.button(key="agree_clear").click().run()
    no_exception(app)
    assert "selectedpoints" not in plotly_specs(app)["agree_maps"]["data"][0]
    assert any(h.value == "Least and most agreed sentences" for h in app.subheader)


def test_fewer_than_two_embedders(app):
    open_page(app, emb="tfidf")
    assert any("Choose at least 2 embedders" in i.value for i in app.info)
    assert not app.get("plotly_chart")


def _render(texts: list[str], k: int, embedders: tuple[str, ...]) -> None:
    """The page alone, for settings the sidebar never produces (it caps k) and tiny corpora."""
    from n2o_core.corpora import from_texts
    from n2o_core.settings import Settings
    from pages import agreement

    agreement.render(Settings(corpus="tiny", embedders=embedders, k=k), from_texts(texts, name="tiny"))


def test_k_not_below_the_corpus_size(app_env):
    from streamlit.testing.v1 import AppTest

    texts = [f"sentence number {i} about the match" for i in range(6)]
    at = AppTest.from_function(_render, args=(texts, 6, ("tfidf", "word2vec")), default_timeout=120).run()
    no_exception(at)
    assert any("must be smaller than the corpus size (6 sentences)" in e.value for e in at.error)
    assert not at.get("plotly_chart")


def test_a_corpus_too_small_to_map(app_env):
    """Only two sentences have a GloVe vector: no map (said in place), the rest of the page still works."""
    from streamlit.testing.v1 import AppTest

    texts = ["The team won the match.", "Shares fell on Monday.", "zzqv xqqj", "wqqz zzkx", "qqvz kkzx"]
    at = AppTest.from_function(_render, args=(texts, 2, ("tfidf", "glove-6b-50d")), default_timeout=120).run()
    no_exception(at)
    assert any("Too few sentences to draw a map: 2 have a vector" in w.value for w in at.warning)
    assert "agree_maps" not in plotly_specs(at) and "agree_hist" in plotly_specs(at)
    assert any("3 sentence(s) have no vector under tfidf or glove-6b-50d" in c.value for c in at.caption)


def test_a_corpus_too_small_for_umap_gets_pca_with_the_reason(app_env):
    from streamlit.testing.v1 import AppTest

    texts = [f"sentence number {i} about the {w} match" for i, w in enumerate("abcdefgh")]
    at = AppTest.from_function(_render, args=(texts, 3, ("tfidf", "word2vec")), default_timeout=120)
    at.query_params["map"] = "umap"
    at.run()
    no_exception(at)
    warnings = shown(at.warning)
    assert "UMAP for tfidf: A UMAP map with n_neighbors=15 needs more than 15 sentences" in warnings
    assert "The PCA map is shown." in warnings
    maps = plotly_specs(at)["agree_maps"]
    assert "tfidf · PCA" in maps["layout"]["annotations"][0]["text"]


@pytest.fixture
def fake_umap(monkeypatch):
    """umap-learn replaced by a gated stand-in (no numba): the test decides when the background job ends."""
    from n2o_core.analyses import projection
    from ui import agreement_runs

    gate = threading.Event()

    def layout(data, knn_ids, knn_dist, **kw):
        gate.wait(60)
        return np.column_stack([np.arange(len(data)), np.zeros(len(data))]).astype(np.float32)

    monkeypatch.setattr(projection, "umap_coords", layout)
    monkeypatch.setattr(projection, "library_version", lambda m: "fake-for-tests")  # its own disk cache key
    agreement_runs.clear_maps()
    yield gate
    gate.set()
    agreement_runs.wait_for_maps(60)
    agreement_runs.clear_maps()
    agreement_runs._worker()["warm"] = False


def test_umap_runs_in_the_background_with_pca_meanwhile(app, fake_umap):
    from ui import agreement_runs

    open_page(app, map="umap", pair="tfidf,fasttext")
    maps = plotly_specs(app)["agree_maps"]
    assert "tfidf · PCA" in maps["layout"]["annotations"][0]["text"]  # PCA while UMAP is computed
    lines = [m.value for m in app.markdown]
    # the job's progress is on the page: tfidf's map is being made (laid out once its inputs are loaded),
    # fasttext's waits for it
    assert any(m.startswith("**tfidf**: ") and "ready in" not in m for m in lines), lines
    assert any(m.startswith("**fasttext**: waiting for the map before it") for m in lines), lines
    fake_umap.set()
    assert agreement_runs.wait_for_maps(60)
    app.run()
    no_exception(app)
    maps = plotly_specs(app)["agree_maps"]
    assert "tfidf · UMAP" in maps["layout"]["annotations"][0]["text"]
    assert "fasttext · UMAP" in maps["layout"]["annotations"][1]["text"]
    left = maps["data"][0]
    kept = np.array(left["customdata"], int)
    # the stand-in lays sentence i (of those with a vector) at x = i: the page draws the job's coordinates
    assert np.array_equal(np.array(left["x"], float), np.arange(len(kept), dtype=float))


def test_ties_at_the_extremes_are_said_and_paged(app):
    """At k = 1 a sentence's N2O is 0 or 1: many tie at each end. The page says how many and pages through them."""
    from n2o_core.analyses.agreement import extreme_ties

    open_page(app, pair="word2vec,tfidf", k="1", by="pair")
    v = np.array(plotly_specs(app)["agree_maps"]["data"][0]["marker"]["color"], float)
    order = np.array(plotly_specs(app)["agree_maps"]["data"][0]["customdata"], int)
    values = np.empty(len(v))
    values[order] = v
    ties = extreme_ties(values)
    assert ties.n_low > 10 and ties.low == 0
    said = " ".join(i.value for i in app.info)
    assert f"{ties.n_low:,} sentences" in said and "tied at 0; 10 shown at random" in said
    first = list(app.dataframe[1].value["text"])
    pager = app.number_input(key="w_agree_low_page")
    assert pager.max == -(-ties.n_low // 10)
    pager.set_value(2).run()
    no_exception(app)
    second = app.dataframe[1].value
    assert not set(second["text"]) & set(first) and set(second["n2o"]) == {0.0}


def test_isolated_jobs_search_every_sentence_in_one_child_process(app_env, isolated_jobs):
    """Where jobs run in child processes (a shared server), the every-sentence search of all the chosen embedders
    runs in one child (`jobs.run_with_bars`), each with its bar and line, and gives what the search here gives;
    each PCA map is computed in a child of its own (`jobs.run_with_bar`). A second visit reads the search and the
    maps from the disk cache without a child."""
    from streamlit.testing.v1 import AppTest

    from n2o_core.corpora import from_texts

    texts = [f"isolated sentence {i} about the {w} market" for i, w in enumerate("abcdefghijklmnopqrstuvwxyz" * 2)]
    args = (texts, 5, ("tfidf", "glove-6b-50d"))
    at = AppTest.from_function(_render, args=args, default_timeout=180).run()
    no_exception(at)
    assert isolated_jobs == ["each_call"] * 3, isolated_jobs  # the search, then the map of each embedder
    lines = [m.value for m in at.markdown]
    assert any(v.startswith("**tfidf**: ready in") for v in lines) and any(
        "**glove-6b-50d**: ready in" in v for v in lines
    )
    ws = Workspace(from_texts(texts, name="tiny"), cache=Cache(os.environ["N2O_CACHE_DIR"]))
    cmp = compare(ws, ["tfidf", "glove-6b-50d"], 5, n_queries=len(texts), n_samples=1)
    assert metric(at, "N2O tfidf vs glove-6b-50d") == f"{cmp.mean[0, 1]:.3f}"
    from ui import agreement_runs

    agreement_runs._memo.clear()  # a new server process: the search and maps come from the disk cache, here
    again = AppTest.from_function(_render, args=args, default_timeout=180).run()
    no_exception(again)
    assert isolated_jobs == ["each_call"] * 3, isolated_jobs
    assert plotly_specs(again)["agree_maps"] == plotly_specs(at)["agree_maps"]
