"""AppTest: the HEROS subsets page (minimal pairs made from the corpus, scored per embedder)."""

from __future__ import annotations

import re

import numpy as np
from app_checks import no_exception, plotly_specs


def test_heros_heatmap_bars_tables_and_pair_count(app):
    app.query_params.update({"emb": "tfidf,glove-6b-50d"})
    app.run()
    app.switch_page("pages/heros.py").run(timeout=300)
    no_exception(app)
    heat = plotly_specs(app)["heros"]["data"][0]
    # by default averaged word vectors drop stop words, as the GloVe model Heros evaluated does
    assert heat["type"] == "heatmap" and heat["y"] == ["tfidf", "glove-6b-50d-nostop"]
    assert any("glove-6b-50d → glove-6b-50d-nostop" in c.value for c in app.caption)
    norm = app.dataframe[0].value
    assert "baseline b" in norm.columns and set(norm.index) == {"glove-6b-50d-nostop", "tfidf"}
    z = np.array(heat["z"], float)
    labels = heat["x"]
    assert len(labels) == z.shape[1] == norm.shape[1] - 1
    # the cells are the table's normalized values (the table rounds to 3 decimals)
    for r, e in enumerate(heat["y"]):
        np.testing.assert_allclose(np.sort(z[r]), np.sort(norm.loc[e].drop("baseline b").to_numpy(float)), atol=6e-4)
    assert heat["zmax"] - heat["zmin"] < 1.0  # the colour scale fits the data, not 0-1

    app.segmented_control(key="w_heros_show").set_value("relative").run(timeout=300)
    no_exception(app)
    rel = plotly_specs(app)["heros"]["data"][0]
    assert "Synonym" not in rel["x"] and rel["zmid"] == 0
    zr = np.array(rel["z"], float)
    for r, e in enumerate(rel["y"]):  # each subset minus the synonym subset of the same embedder
        row = norm.loc[e].drop("baseline b")
        np.testing.assert_allclose(
            np.sort(zr[r]), np.sort((row.drop("synonym") - row["synonym"]).to_numpy(float)), atol=1e-3
        )

    app.segmented_control(key="w_heros_show").set_value("bars").run(timeout=300)
    no_exception(app)
    bars = plotly_specs(app)["heros"]["data"]
    assert sorted(t["name"] for t in bars) == ["glove-6b-50d-nostop", "tfidf"]
    for t in bars:
        y = np.array(t["y"], float)
        assert np.all(np.isfinite(y)) and np.all(y <= 1.0 + 1e-9)
    first = app.dataframe[-1].value
    assert {"original", "variant", "tfidf", "glove-6b-50d-nostop"} <= set(first.columns)

    app.segmented_control(key="w_avg").set_value("all").run(timeout=300)  # every token averaged, as N2O did
    no_exception(app)
    assert app.query_params["avg"] == "all"
    assert sorted(t["name"] for t in plotly_specs(app)["heros"]["data"]) == ["glove-6b-50d", "tfidf"]
    allt = app.dataframe[0].value
    # dropping stop words changes GloVe's scores, not tf-idf's
    assert allt.loc["tfidf"].equals(norm.loc["tfidf"])
    assert not np.allclose(allt.loc["glove-6b-50d"].to_numpy(float), norm.loc["glove-6b-50d-nostop"].to_numpy(float))

    app.select_slider(key="w_pairs").set_value(10).run(timeout=300)
    no_exception(app)
    assert app.query_params["pairs"] == "10"
    n = [t["customdata"] for t in plotly_specs(app)["heros"]["data"]]
    assert max(int(row[1]) for rows in n for row in rows) <= 10


def test_bad_pairs_in_the_link_is_named_and_replaced(app):
    app.query_params.update({"emb": "tfidf,glove-6b-50d", "pairs": "abc"})
    app.switch_page("pages/heros.py").run(timeout=300)
    no_exception(app)
    assert any("'pairs' in the link must be one of" in w.value for w in app.warning)
    assert app.select_slider(key="w_pairs").value == 50 and app.query_params["pairs"] == "50"


def test_the_page_says_how_many_pairs_it_made_of_those_asked(app):
    """50 asked per subset from the test corpus (151 sentences): the page says how many were made (the n of every
    cell), from how many sentences, and, when the corpus ran out first, that it is too small."""
    app.query_params.update({"emb": "tfidf,glove-6b-50d", "pairs": "50"})
    app.switch_page("pages/heros.py").run(timeout=300)
    no_exception(app)
    said = [e.value for e in [*app.caption, *app.warning] if "HEROS made" in e.value]
    assert len(said) == 1, said
    made = re.search(r"HEROS made (\d+) of 50 asked per subset from (all|the first) ([\d,]+)", said[0])
    assert made is not None, said[0]
    n = {int(row[4]) for t in plotly_specs(app)["heros"]["data"] for rows in t["customdata"] for row in rows}
    assert n == {int(made.group(1))}  # every cell scores the pairs the sentence counts
    if int(made.group(1)) < 50:
        assert made.group(2) == "all" and "too small for 50 per subset" in said[0]
        assert any("HEROS made" in w.value for w in app.warning)
