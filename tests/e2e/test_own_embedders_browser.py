"""End to end, in Chromium: a user adds a sentence-transformers model from a local folder and uploads a .npy of
vectors (small files the test makes), sees both in the heatmap, the query explorer, token overlap and HEROS, and
downloads the neighbors with their sentences; bad input is a message in place; talk mode hides the controls."""

from __future__ import annotations

import csv
import io
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from browser_app import HEATMAP, no_exception, settle
from synthetic_text import write_corpus
from tiny_models import tiny_sentence_transformer

SIDEBAR = "[data-testid='stSidebar']"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The tiny model folder, the server's corpus (the same sentences, loaded as the app loads them) and vectors."""
    from n2o_core.corpora import load_corpus

    d = tmp_path_factory.mktemp("own")
    model = tiny_sentence_transformer(d)
    corpus = load_corpus(str(write_corpus(d / "corpus.txt", 200)), max_sentences=5000, seed=0)
    rng = np.random.default_rng(0)
    good = d / "my-vectors.npy"
    np.save(good, rng.standard_normal((len(corpus), 12)).astype(np.float32))
    short = d / "short.npy"
    np.save(short, rng.standard_normal((len(corpus) - 1, 12)).astype(np.float32))
    return {"model": model, "corpus": corpus, "good": good, "short": short}


def _nav(page, label: str, heading: str) -> None:
    page.locator("[data-testid='stSidebarNav'] a", has_text=label).click()
    page.get_by_role("heading", name=heading).wait_for(timeout=240_000)
    settle(page, timeout=600_000)
    no_exception(page)


def _ticks(page) -> str:
    return " ".join(page.locator("[data-testid='stPlotlyChart'] g.xtick text, g.ytick text").all_text_contents())


def test_own_model_and_vectors_in_every_view(server, tab, files, tmp_path):
    spec = f"st:{files['model']}"
    page = tab({"width": 1500, "height": 1100})
    page.goto(server)
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    settle(page)
    sb = page.locator(SIDEBAR)
    sb.locator("summary", has_text="Advanced").click()

    # a spec that fails is refused in place; the heatmap stays
    sb.get_by_role("textbox", name="Add a model").fill("st:/no/such/folder")
    sb.get_by_role("button", name="Add model").click()
    sb.get_by_text("Model folder not found on the server").wait_for(timeout=60_000)
    settle(page)
    assert page.locator(HEATMAP).count() >= 1

    # the local sentence-transformers folder
    sb.get_by_role("textbox", name="Add a model").fill(spec)
    sb.get_by_role("button", name="Add model").click()
    sb.get_by_text(f"Added {spec}").wait_for(timeout=240_000)
    settle(page, timeout=600_000)
    no_exception(page)

    # vectors with one row too few: a warning in place; then the right file
    sb.locator("input[type='file']").set_input_files(str(files["short"]))
    sb.get_by_text("rows but the corpus has").wait_for(timeout=120_000)
    settle(page)
    sb.locator("input[type='file']").set_input_files(str(files["good"]))
    sb.get_by_text("Added vec:my-vectors-").wait_for(timeout=120_000)
    settle(page, timeout=600_000)
    no_exception(page)
    emb = parse_qs(urlparse(page.url).query)["emb"][0].split(",")
    vec = next(e for e in emb if e.startswith("vec:my-vectors-"))
    assert spec in emb

    # the heatmap has both
    page.locator(HEATMAP).first.wait_for(timeout=240_000)
    ticks = _ticks(page)
    assert spec in ticks and vec in ticks, ticks

    # the query explorer: a neighbor table under each of them
    _nav(page, "Query explorer", "Query explorer")
    page.locator("table.nb").first.wait_for(timeout=120_000)
    strong = page.locator("[data-testid='stMain'] strong").all_inner_texts()
    assert spec in strong and vec in strong, strong

    # token overlap: a bar for each
    _nav(page, "Token overlap", "Token overlap")
    page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first.wait_for(timeout=120_000)
    ticks = _ticks(page)
    assert spec in ticks and vec in ticks, ticks

    # HEROS: the model is scored; the vectors cannot embed new sentences and say so in place
    _nav(page, "HEROS subsets", "HEROS subsets")
    page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first.wait_for(timeout=600_000)
    assert spec in _ticks(page)
    left_out = page.locator("[data-testid='stAlertContentError']", has_text=vec)
    assert "cannot embed other or free text" in left_out.first.inner_text()

    # back on the heatmap: download the neighbors with their sentences
    _nav(page, "N2O heatmap", "N2O heatmap")
    page.locator("[data-testid='stMain'] [data-testid='stButtonGroup'] button", has_text="Downloads").click()
    settle(page)
    with page.expect_download(timeout=120_000) as dl:
        page.get_by_role("button", name="Neighbors with sentences (CSV)").click()
    path = tmp_path / "neighbors.csv"
    dl.value.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    texts = files["corpus"].texts
    mine = [r for r in rows if r["embedder"] == vec]
    assert mine and {r["embedder"] for r in rows} >= {spec, vec, "tfidf"}
    for r in mine[:20] + [r for r in rows if r["embedder"] == spec][:20]:
        assert r["sentence"] == texts[int(r["id"])] and r["query"] == texts[int(r["query_id"])]
        assert -1.0 <= float(r["cosine"]) <= 1.0 + 1e-6


def test_talk_mode(server, tab, tmp_path):
    page = tab({"width": 1920, "height": 1080})
    page.goto(f"{server}/?talk=1&k=5&view=box")
    page.locator("[data-testid='stPlotlyChart'] .js-plotly-plot").first.wait_for(timeout=240_000)
    settle(page)
    no_exception(page)
    assert not page.locator(SIDEBAR).is_visible()
    assert not page.locator("[data-testid='stButtonGroup']").first.is_visible()  # the view switch is hidden
    assert page.evaluate("getComputedStyle(document.documentElement).fontSize") == "24px"  # ui.talk.ROOT_FONT_PX
    assert page.get_by_text("k = 5 ·").first.is_visible() or page.get_by_text("chance").first.is_visible()
    assert "talk=1" in page.url and "k=5" in page.url and "view=box" in page.url
    page.screenshot(path=str(tmp_path / "talk.png"))
    # the faint way back keeps the rest of the link
    page.locator("a.n2o-talk-exit").click()
    page.locator(SIDEBAR).wait_for(state="visible", timeout=120_000)
    settle(page)
    assert "talk=1" not in page.url and "k=5" in page.url
