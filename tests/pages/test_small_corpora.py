"""AppTest: every page on uploaded corpora of 3, 10, 50 and 120 sentences. The default k is kept where it fits and
is at most 10% of the N − 1 candidates, else lowered with a note; every widget's range stays valid (no exception
element on any page)."""

from __future__ import annotations

import pytest
from app_checks import no_exception, shown
from synthetic_text import sentences

from n2o_core.limits import k_share_cap
from ui.nav import PAGE_NAMES as PAGES


def _upload(app, n: int) -> None:
    app.run()
    app.sidebar.selectbox(key="w_corpus").set_value("__upload__").run()
    text = "\n".join(sentences(n, seed=5)).encode()
    app.sidebar.file_uploader[0].set_value((f"small-{n}.txt", text, "text/plain")).run()
    no_exception(app)
    assert any(f"{n} sentences" in c.value for c in app.sidebar.caption)


@pytest.mark.parametrize("n", [3, 10, 50, 120])
def test_every_page_on_a_small_upload(app, n):
    _upload(app, n)
    want = str(min(10, n - 1, k_share_cap(n)))
    assert app.query_params["k"] == want  # the default k = 10 kept where it is at most 10% of N − 1, else lowered
    notes = [w for w in shown(app.sidebar.info).splitlines() if "k lowered from 10" in w]
    assert bool(notes) == (n < 111)
    # a 50-line corpus has no sample to choose
    assert not any(s.label == "Sentences (fixed sample)" for s in app.sidebar.selectbox)
    for page in PAGES:
        app.switch_page(f"pages/{page}.py").run()
        no_exception(app)
        assert not any("failed unexpectedly" in e.value for e in app.error), (page, [e.value for e in app.error])
        assert app.query_params["k"] == want, page
        if page == "findings" and n >= 3:  # the paper's k = 50 is over 10% of any of these: said before a check
            said = [w.value for w in app.warning if "the N2O findings (neighbors" in w.value]
            k = min(50, n - 1)  # at most every other sentence
            assert said and f"k = {k} (the paper's" in said[0] and f"of the {n - 1} other sentences" in said[0]
            assert f"so random neighbors would already share {k / (n - 1):.2f} of them" in said[0]
            assert "They need 501 sentences or more" in said[0]


def test_a_chosen_k_is_kept_with_a_warning(app):
    _upload(app, 120)
    app.sidebar.slider(key="w_k").set_value(30).run()
    no_exception(app)
    assert app.query_params["k"] == "30"  # the user's k above 10% of N − 1 is kept, and said
    assert any("k = 30 is 25% of the 119 other sentences" in w.value for w in app.sidebar.warning)


def test_k_comes_back_on_a_larger_corpus(app):
    _upload(app, 3)
    assert app.query_params["k"] == "1"
    app.sidebar.selectbox(key="w_corpus").set_value(app.sidebar.selectbox(key="w_corpus").options[0]).run()
    no_exception(app)
    assert app.query_params["k"] == "10"
    assert not any("is above" in w.value for w in app.sidebar.warning)


@pytest.mark.parametrize(("link_k", "want"), [("many", "5"), ("7", "7")])
def test_a_bad_k_in_the_link_gets_the_corpus_default_and_a_good_one_is_kept(app, link_k, want):
    """A link's k that is not a whole number from 1 to K_MAX is said and replaced by the default, which a small
    corpus then lowers like any default (10% of the 59 candidates of 60 sentences: 5); a valid one is the user's."""
    app.query_params["k"] = link_k
    _upload(app, 60)
    assert app.query_params["k"] == want
    said = " ".join(str(el.value) for el in [*app.warning, *app.sidebar.warning, *app.info, *app.sidebar.info])
    assert ("'k' must be a whole number from 1 to" in said) == (link_k == "many")
