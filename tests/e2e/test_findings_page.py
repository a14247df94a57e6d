"""End to end: the papers' findings page in Chromium: every finding listed, one cheap finding checked in place and
shown as the core computes it (status, holds in x of n, numbers, what may explain it), and a new visit opening on
that result with when it was computed (session fixtures in conftest.py)."""

from __future__ import annotations

from browser_app import no_exception, settle

from n2o_core.evaluation.findings import FINDINGS, STATUS_LABELS, FindingParams, check_finding

FID = "sts-znorm-glove"  # averaged GloVe on gensim's Lee pairs: cheap, and the same whatever the corpus


def _core(tmp_path):
    """The core's result for the page's settings (the server's: 3 samples of 40 queries); the Lee pairs do not
    depend on the corpus, so any corpus gives the page's numbers."""
    from synthetic_text import write_corpus

    from n2o_core.corpora import load_corpus
    from n2o_core.corpus_workspace import Workspace
    from n2o_core.storage.cache import Cache

    cache = Cache(tmp_path / "cache")
    ws = Workspace(load_corpus(str(write_corpus(tmp_path / "c.txt", 60))), cache=cache)
    return check_finding(ws, FID, FindingParams(k=50, n_queries=40, n_samples=3, seed=0, heros_pairs=200))


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_findings_page_checks_a_finding(server, tab, tmp_path):
    core = _core(tmp_path)
    page = tab({"width": 1400, "height": 1000})
    page.goto(f"{server}/findings")
    page.get_by_role("heading", name="The papers' findings, checked live").wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    for f in FINDINGS:
        assert page.locator(f".st-key-finding_{f.id}").count() == 1, f.id
    assert "fpairs=200" in page.url

    page.locator(f".st-key-check_{FID} button").click()
    card = page.locator(f".st-key-finding_{FID}")
    card.get_by_text(core.holds_text).first.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    text = _flat(card.inner_text())
    assert f"{STATUS_LABELS[core.status].capitalize()}: {core.holds_text}" in text
    assert _flat(core.verdict.summary) in text
    assert "Sensitivity" in text and _flat(core.sensitivity[0].summary) in text
    if core.explanation:
        assert f"What may explain it ({FID}): {_flat(core.explanation)}" in text
    assert ("Setting-sensitive:" in text) == core.setting_sensitive

    # a new visit opens on the kept result, says when it was computed, and offers to compute it again
    again = tab({"width": 1400, "height": 1000})
    again.goto(f"{server}/findings")
    again.get_by_role("heading", name="The papers' findings, checked live").wait_for(timeout=240_000)
    settle(again)
    no_exception(again)
    card = again.locator(f".st-key-finding_{FID}")
    text = _flat(card.inner_text())
    assert core.holds_text in text and _flat(core.verdict.summary) in text and "computed on" in text
    assert card.locator(f".st-key-check_{FID} button").inner_text() == "Check again"
    assert "as last computed on" in _flat(again.inner_text("body"))
