"""AppTest: the About page lists every built-in embedder with its family and dimension."""

from __future__ import annotations

from app_checks import no_exception

from n2o_core.embedders.registry import list_embedders


def test_about_lists_embedders(app):
    app.run()
    app.switch_page("pages/about.py").run()
    no_exception(app)
    df = app.dataframe[0].value
    assert set(df["id"]) == {i.id for i in list_embedders()}
    assert {"family", "composition", "dimension", "trained on"} <= set(df.columns)
    assert any("k / (N − 1)" in m.value for m in app.markdown)
