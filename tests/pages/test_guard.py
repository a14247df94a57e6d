"""An unexpected exception anywhere in a page is one sentence in place; the page's other parts and the sidebar
stay; no exception element (traceback) reaches the browser."""

from __future__ import annotations

from app_checks import no_exception


def test_unexpected_error_in_a_view_is_one_sentence(app, monkeypatch):
    import n2o_core.analyses.overlap as overlap

    def broken(*a, **kw):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(overlap, "n2o_distribution", broken)
    app.query_params.update({"view": "box", "seed": "11"})  # settings no other test caches
    app.run()
    no_exception(app)
    errors = [e.value for e in app.error]
    assert any("failed unexpectedly (RuntimeError)" in e for e in errors), errors
    assert not any("simulated bug" in e or "Traceback" in e for e in errors)
    assert app.sidebar.slider(key="w_k").value == 10  # the sidebar is still there


def test_unexpected_error_in_a_page_section_leaves_the_rest(app, monkeypatch):
    import n2o_core.analyses.overlap as overlap

    def broken(*a, **kw):
        raise ValueError("simulated bug")

    monkeypatch.setattr(overlap, "robustness_across_k", broken)
    app.query_params.update({"view": "robustness", "emb": "tfidf,word2vec,fasttext", "seed": "12"})
    app.run()
    no_exception(app)
    assert any("Robustness across k failed unexpectedly (ValueError)" in e.value for e in app.error)
    assert any(m.label == "mean Spearman ρ between samples" for m in app.metric)  # the other section is drawn
