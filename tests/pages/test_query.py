"""AppTest: the query explorer (corpus sentence, typed sentence, escaping of corpus text)."""

from __future__ import annotations

import collections
import os

from app_checks import EMBEDDERS, HTML_SENTENCE, no_exception


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_corpus_sentence_neighbors_and_tables(app):
    app.run()
    app.switch_page("pages/query.py").run()
    no_exception(app)
    box = next(s for s in app.selectbox if s.key and s.key.startswith("w_qid_"))
    first = box.value
    md = _markdown(app)
    assert "<table class='nb'>" in md and "<mark>" in md
    assert md.count("<table class='nb'>") == 4  # one table per embedder
    assert app.query_params["qid"] == str(first)
    assert len(app.tabs) >= 2

    _check_popular_and_outliers(app, int(first))

    second = box.options[1]
    box.set_value(int(second.split(":")[0].lstrip("#")) if isinstance(second, str) else second).run()
    no_exception(app)
    assert _markdown(app) != md
    assert app.query_params["qid"] != str(first)


def test_corpus_html_is_escaped(app):
    app.run()
    app.switch_page("pages/query.py").run()
    app.text_input(key="w_qfilter").set_value("script").run()
    no_exception(app)
    md = _markdown(app)
    # the tags arrive escaped, never as markup (neighbor cells: see highlight_shared's own tests)
    assert "&#60;script&#62;alert(1)&#60;/script&#62;" in md and "&#60;b&#62;team&#60;/b&#62;" in md
    assert "<script>" not in md and "<b>" not in md and "</b>" not in md
    texts = [c for c in app.selectbox if c.key and c.key.startswith("w_qid_")]
    assert texts and HTML_SENTENCE[:20] in texts[0].format_func(texts[0].value)


def test_typed_sentence(app):
    app.run()
    app.switch_page("pages/query.py").run()
    app.radio(key="w_qmode").set_value("Type a sentence").run()
    no_exception(app)
    assert any("Type a sentence" in i.value for i in app.info)
    app.text_input(key="w_qtext").set_value("The strong bank raised interest rates on Monday.").run()
    no_exception(app)
    md = _markdown(app)
    assert "embedded on the fly" in md
    assert "<mark>bank</mark>" in md or "<mark>rates</mark>" in md
    assert app.query_params["text"].startswith("The strong bank")


def test_no_match_filter_warns(app):
    app.run()
    app.switch_page("pages/query.py").run()
    app.text_input(key="w_qfilter").set_value("zzzqqq").run()
    no_exception(app)
    assert any("No sentence contains" in w.value for w in app.warning)


def _check_popular_and_outliers(app, qid: int) -> None:
    """The popular / outlier tables hold exactly what the neighbor lists say (recomputed here from the core's
    search, with plain set arithmetic)."""
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.pipeline import search_corpus_sentence
    from n2o_core.storage.cache import Cache

    k = app.sidebar.slider(key="w_k").value
    r = app.slider(key="w_r").value
    ws = Workspace(load_corpus(os.environ["N2O_DEFAULT_CORPUS"]), cache=Cache(os.environ["N2O_CACHE_DIR"]))
    lists = {e: [int(i) for i in search_corpus_sentence(ws, e, qid, k).ids[0]] for e in EMBEDDERS.split(",")}
    in_all = set.intersection(*(set(v) for v in lists.values()))
    outliers = {
        (e, rank, i)
        for e, v in lists.items()
        for rank, i in enumerate(v[:r], start=1)
        if all(i not in lists[o] for o in lists if o != e)
    }
    frames = [d.value for d in app.dataframe]
    pop = next((f for f in frames if "mean rank" in f.columns), None)
    if in_all:
        assert pop is not None and set(pop["id"]) == in_all
        texts = ws.corpus.texts
        assert list(pop["sentence"]) == [texts[i] for i in pop["id"]]
        ranks = [sum(lists[e].index(i) + 1 for e in lists) / len(lists) for i in pop["id"]]
        assert list(pop["mean rank"]) == [round(x, 1) for x in ranks] and ranks == sorted(ranks)
    else:  # the nearest thing, labelled: the top k of n - 1 embedders (n - 2 only when n - 1 has none)
        counts = collections.Counter(i for v in lists.values() for i in v)
        need = max(counts.values())
        assert need < len(lists)
        said = " ".join(i.value for i in app.info)
        assert f"No sentence is in the top {k} of all {len(lists)} embedders" in said
        if need >= 2:
            assert pop is not None and set(pop["id"]) == {i for i, c in counts.items() if c == need}
            assert set(pop["embedders"]) == {need} and f"in the top {k} of {need} of the {len(lists)}" in said
            assert all(e not in lists or i not in lists[e] for i, e in zip(pop["id"], pop["missing from"]))
    out = next((f for f in frames if "rank" in f.columns and "embedder" in f.columns), None)
    if outliers:
        assert out is not None
        assert set(zip(out["embedder"], out["rank"], out["id"])) == outliers
    else:
        assert out is None


def test_popular_neighbors_fall_back_to_the_nearest_thing_labelled(app):
    """A query whose neighbor lists share no sentence across all embedders: the page says so and shows the
    sentences in the top k of n − 1 of them (the core's search gives the lists)."""
    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.pipeline import search_corpus_sentence
    from n2o_core.storage.cache import Cache

    ws = Workspace(load_corpus(os.environ["N2O_DEFAULT_CORPUS"]), cache=Cache(os.environ["N2O_CACHE_DIR"]))
    names = EMBEDDERS.split(",")

    def most_embedders(qid: int) -> int:  # the most embedders whose top 10 share a sentence
        lists = [search_corpus_sentence(ws, e, qid, 10).ids[0].tolist() for e in names]
        return max(collections.Counter(i for v in lists for i in v).values())

    qid = next(q for q in range(len(ws.corpus)) if most_embedders(q) == len(names) - 1)
    app.query_params["qid"] = str(qid)
    app.run()
    app.switch_page("pages/query.py").run()
    no_exception(app)
    assert app.query_params["qid"] == str(qid)
    _check_popular_and_outliers(app, qid)
