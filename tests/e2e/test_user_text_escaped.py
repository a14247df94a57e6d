"""User text never becomes markup (issue 35, item 5), end to end in Chromium on a shared server (N2O_SHARED=1).

One visitor uploads a corpus whose file name holds a Markdown link, a Markdown image and HTML; another opens the
shared link (`?corpus=upload:…`) on every page, with an embedder whose spec names a word-vectors file so named
(under the operator's model folder), an unknown embedder, a page parameter and typed query text that hold the same;
on the human-similarity page a pair file so named is uploaded. On no page does an element they could create
appear: no link or image to the hosts they name, no <b> of theirs, no KaTeX, no request to those hosts; and the
names are on screen as text.

Runs on its own server (a shared one: the session's e2e server is a personal one), isolation off so that the
pages' jobs run in the server process. The views that compute for long (HEROS pairs with WordNet and spaCy, the
similarity measures, a probing run) are drawn in a test marked slow; the fast one visits every page."""

from __future__ import annotations

import contextlib
import re
import sys
import urllib.parse
from pathlib import Path

import numpy as np
import pytest
from browser_app import no_exception, running_app, settle

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from synthetic_text import sentences  # noqa: E402

#: The hosts the names point at; nothing on the page may link to, show an image from or fetch from them.
HOSTS = ("example.com", "127.0.0.1:9", "evil.example")
#: A Markdown link, a Markdown image and HTML (URLs without a slash, "http:host": a file name cannot hold one).
CORPUS_NAME = "[click me](https:example.com)![x](http:127.0.0.1:9)<img src=http:127.0.0.1:9><b>bold.txt"
VECTORS_NAME = "wv [v](https:evil.example)![i](http:127.0.0.1:9)<b>bold $x$.txt"
PAIRS_NAME = "pairs [p](https:evil.example)<img src=http:127.0.0.1:9><b>bold.tsv"
UNKNOWN_EMBEDDER = "[e](https:evil.example)<b>bold</b>"
LINK_VALUE = "[l](https://127.0.0.1:9/l)<b>bold</b>"
QUERY_TEXT = "![q](http://127.0.0.1:9/q.png) <b>bold</b> www.evil.example $y$ team"
#: Each page's own link parameter, set to a hostile value (a note says it was not used).
PAGES = {
    "heatmap": {"view": LINK_VALUE},
    "query": {"text": QUERY_TEXT},
    "tokens": {"words": LINK_VALUE},
    "agreement": {"pair": LINK_VALUE, "map": LINK_VALUE},
    "measures": {},
    "needle": {"min_score": LINK_VALUE},
    "sts": {"hpairs": "upload"},
    "quality": {"qx": LINK_VALUE},
    "findings": {"fpairs": LINK_VALUE},
    "probe": {"tasks": LINK_VALUE},
    "about": {},
}

_CREATED = """
(hosts) => {
  const out = [];
  // a link or a source on a host the names point at (the app's own links may quote them in their query)
  const bad = (v) => {
    try { return v && hosts.includes(new URL(v, document.baseURI).host); } catch (e) { return false; }
  };
  for (const a of document.querySelectorAll('a')) {
    const href = a.getAttribute('href') || a.getAttribute('xlink:href');
    if (bad(href)) out.push('link ' + href);
  }
  for (const i of document.querySelectorAll('img, image, source, iframe')) {
    const src = i.getAttribute('src') || i.getAttribute('href') || i.getAttribute('xlink:href');
    if (bad(src)) out.push('image ' + src);
  }
  for (const b of document.querySelectorAll('b, strong, tspan')) {  // the names' <b> starts with "bold"
    if (b.textContent.trim().startsWith('bold')) out.push('bold ' + b.outerHTML.slice(0, 80));
  }
  for (const k of document.querySelectorAll('.katex')) out.push('math ' + k.textContent.slice(0, 40));
  return out;
}
"""


def _vectors(path: Path) -> None:
    """A word2vec text file with a vector for every word of the synthetic corpus (seeded, 8 dimensions)."""
    words = sorted({w.strip(".,").lower() for s in sentences(200, seed=0) for w in s.split()} - {""})
    rng = np.random.default_rng(0)
    rows = [f"{w} " + " ".join(f"{x:.4f}" for x in rng.normal(size=8)) for w in words]
    path.write_text(f"{len(words)} 8\n" + "\n".join(rows) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """(the server's URL, the spec of the hostile word vectors) on a shared server with a model folder."""
    folder = tmp_path_factory.mktemp("escaped")
    models = folder / "models"
    models.mkdir()
    _vectors(models / VECTORS_NAME)
    env = {
        "N2O_SHARED": "1",
        "N2O_ISOLATE": "0",
        "N2O_MODEL_DIRS": str(models),
        "N2O_DEFAULT_EMBEDDERS": "tfidf",
        "N2O_DEFAULT_QUERIES": "20",
        "N2O_DEFAULT_SAMPLES": "2",
    }
    with running_app(folder, env, sentences=80) as url:
        yield url, f"wv:{models / VECTORS_NAME}"


@pytest.fixture(scope="module")
def link(shared, browser) -> str:
    """The shared link's query string after one visitor uploaded the hostile corpus (tfidf and the hostile
    vectors chosen, one unknown embedder named)."""
    url, spec = shared
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url)
    settle(page)
    page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="Upload a file…").click()
    settle(page)
    body = "\n".join(sentences(80, seed=1)) + "\n"
    page.locator("[data-testid='stSidebar'] input[type='file'][accept*='.txt']").set_input_files(
        files=[{"name": CORPUS_NAME, "mimeType": "text/plain", "buffer": body.encode()}]
    )
    page.wait_for_function("() => window.location.search.includes('corpus=upload')", timeout=120_000)
    settle(page)
    corpus = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)["corpus"][0]
    page.close()
    params = {"corpus": corpus, "emb": f"tfidf,{spec},{UNKNOWN_EMBEDDER}", "k": "5", "queries": "20"}
    return urllib.parse.urlencode({**params, "samples": "2"})


@contextlib.contextmanager
def _requests_to_the_hosts(page):
    """The requests `page` makes to `HOSTS` in the block (the listener goes with the block: the tab is reused)."""
    fetched: list[str] = []

    def on_request(request) -> None:
        if urllib.parse.urlparse(request.url).netloc in HOSTS:
            fetched.append(request.url)

    page.on("request", on_request)
    try:
        yield fetched
    finally:
        page.remove_listener("request", on_request)


def _visit(page, url: str, path: str, query: str, extra: dict[str, str]) -> None:
    """A new visitor on `path` with the shared link (and the page's hostile parameter)."""
    where = "" if path == "heatmap" else path  # the heatmap is the app's main page
    page.goto(f"{url}/{where}?{query}&{urllib.parse.urlencode(extra)}")
    settle(page, timeout=300_000)
    page.wait_for_timeout(300)
    settle(page, timeout=300_000)


def _inert(page, fetched: list[str], where: str) -> str:
    """Check that no element the user text could create is on the page; returns the page's text (HTML and SVG)."""
    no_exception(page)
    page.wait_for_timeout(300)  # plotly draws after the script run ends
    created = page.evaluate(_CREATED, list(HOSTS))
    assert created == [], (where, created)
    assert fetched == [], where
    return page.evaluate("() => document.body.innerText + '\\n' + document.body.textContent")


def _upload_pairs(page) -> None:
    """Upload a scored pair file under the hostile name (human-similarity page, `hpairs=upload`) and open the
    expander that names its columns."""
    rows = [f"{a}\t{b}\t{i % 6}" for i, (a, b) in enumerate(zip(sentences(12, seed=3), sentences(12, seed=4)))]
    body = "sentence1\tsentence2\tscore\n" + "\n".join(rows) + "\n"
    page.locator("input[type='file'][accept*='.tsv']").set_input_files(
        files=[{"name": PAIRS_NAME, "mimeType": "text/plain", "buffer": body.encode()}]
    )
    settle(page, timeout=120_000)
    page.locator("[data-testid='stExpander'] summary", has_text="Columns").first.click()
    page.get_by_text("(auto) picks them by their usual names").wait_for(timeout=60_000)


@pytest.mark.parametrize("path", list(PAGES))
def test_user_text_stays_text_on_every_page(shared, link, tab, path):
    url, _ = shared
    page = tab({"width": 1400, "height": 1100})
    with _requests_to_the_hosts(page) as fetched:
        _visit(page, url, path, link, PAGES[path])
        if path == "sts":
            _inert(page, fetched, path)
            _upload_pairs(page)
        text = _inert(page, fetched, path)
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert f"Unknown embedder(s) in the link ignored: {UNKNOWN_EMBEDDER}" in sidebar
    flat = re.sub(r"\s+", " ", text).replace("\u2060", "")
    if path in ("heatmap", "query", "tokens", "agreement", "needle", "sts", "quality"):
        assert VECTORS_NAME in flat, path  # the vectors' spec in a figure or a caption, as text
    if path in ("heatmap", "agreement", "needle", "sts", "findings", "probe"):
        assert CORPUS_NAME.removesuffix(".txt") in flat, path  # the corpus (named by its file's stem), as text
    if path == "query":
        assert QUERY_TEXT in flat
    if path == "sts":
        assert f"Columns in {PAIRS_NAME}: sentence1, sentence2, score." in flat


@pytest.mark.slow
def test_user_text_stays_text_on_the_heavy_views(shared, link, tab):
    """HEROS (WordNet and spaCy), the similarity measures and a probing run, each drawn."""
    url, _ = shared
    page = tab({"width": 1400, "height": 1100})
    for path, extra, button in (
        ("heros", {"pairs": LINK_VALUE}, None),
        ("measures", {}, "Compute the measures"),
        ("probe", {"tasks": "sentlen", "per_class": "100", "min_train": "1"}, "Run probing"),  # a small corpus
    ):
        with _requests_to_the_hosts(page) as fetched:
            _visit(page, url, path, link, extra)
            if button:
                page.get_by_role("button", name=button).click()
                settle(page, timeout=600_000)
            page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=600_000)
            assert VECTORS_NAME in _inert(page, fetched, path).replace("\u2060", ""), path
