"""AppTest: a message is said once. A note about the link or the embedder choice appears either in the sidebar or
on the page, never in both, and a page that works with one embedder does not ask for two."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from app_checks import no_exception

from ui.nav import PAGE_NAMES as PAGES

#: Pages that run on one embedder (each scores embedders one by one).
ONE_EMBEDDER_PAGES = {"heros", "needle", "sts", "findings", "probe", "variants", "about"}


def _messages(block) -> list[str]:
    return [re.sub(r"\s+", " ", e.value).strip() for kind in ("warning", "info", "error") for e in getattr(block, kind)]


@pytest.mark.parametrize("page", PAGES)
def test_each_note_once_with_one_embedder_and_a_bad_link(app, page):
    app.query_params["k"] = "abc"
    app.query_params["emb"] = "tfidf,nosuch"
    app.run()
    app.switch_page(f"pages/{page}.py").run()
    no_exception(app)
    said = _messages(app.main) + _messages(app.sidebar)
    twice = {m: n for m, n in Counter(said).items() if n > 1}
    assert not twice, (page, twice)
    assert sum("must be a whole number" in m for m in said) == 1, (page, said)
    assert sum("nosuch" in m for m in said) == 1, (page, said)
    asks_for_two = [m for m in said if re.search(r"at least 2 embedders", m)]
    if page in ONE_EMBEDDER_PAGES:
        assert not asks_for_two, (page, asks_for_two)
    else:
        assert len(asks_for_two) == 1, (page, said)
