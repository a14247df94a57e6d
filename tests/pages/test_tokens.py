"""AppTest: the token-overlap page."""

from __future__ import annotations

import numpy as np
from app_checks import EMBEDDERS, no_exception, plotly_specs


def test_token_overlap_bars_follow_k(app):
    app.run()
    app.switch_page("pages/tokens.py").run()
    no_exception(app)
    bars = plotly_specs(app)["tokens"]["data"][0]
    assert sorted(bars["x"]) == sorted(EMBEDDERS.split(","))
    y = np.array(bars["y"], float)
    assert np.all((y > 0) & (y <= 1))
    df = app.dataframe[0].value
    assert list(df["embedder"]) == bars["x"]
    assert np.all(df["ci_low"] <= df["mean"]) and np.all(df["mean"] <= df["ci_high"])

    app.sidebar.slider(key="w_k").set_value(2).run()
    no_exception(app)
    y2 = np.array(plotly_specs(app)["tokens"]["data"][0]["y"], float)
    assert not np.allclose(np.sort(y2), np.sort(y))


def test_content_words_or_every_word(app):
    app.run()
    app.switch_page("pages/tokens.py").run()
    no_exception(app)
    assert app.query_params["words"] == "content"
    assert any("stop words (sentence-transformers' 386-entry list) not counted" in c.value for c in app.caption)
    content = dict(zip(*[plotly_specs(app)["tokens"]["data"][0][f] for f in ("x", "y")]))
    app.segmented_control(key="w_words").set_value("all").run()
    no_exception(app)
    assert app.query_params["words"] == "all"
    assert any("every word counted" in c.value for c in app.caption)
    every = dict(zip(*[plotly_specs(app)["tokens"]["data"][0][f] for f in ("x", "y")]))
    assert set(every) == set(content) and all(every[e] != content[e] for e in every), (every, content)
