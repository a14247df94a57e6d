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


def test_about_says_what_the_needle_uses_offline(app):
    """The needle's offline default is gensim's Lee pairs, rated by humans; About said they were synthetic."""
    from n2o_core.evaluation.pairs import load_pairs
    from n2o_core.settings import NEEDLE_DEFAULT_SOURCE

    app.run()
    app.switch_page("pages/about.py").run()
    no_exception(app)
    text = "\n".join(m.value for m in app.markdown)
    needle = text[text.index("**Paraphrase needle**") :].split("\n- **")[0]
    assert "Offline the pairs are human-rated: gensim's Lee news documents" in needle
    assert "Offline the pairs are synthetic" not in needle and "labelled *synthetic*" in needle
    src = load_pairs(NEEDLE_DEFAULT_SOURCE).source
    assert NEEDLE_DEFAULT_SOURCE == "builtin:lee" and src.scored and not src.synthetic
