"""Hostile and broken input in the dashboard (AppTest): a hostile link, an upload above the size cap, broken
files, and a corpus full of markup, RTL text, emoji and control characters. Every case is a message in place,
never an exception element, and nothing already in the cache is lost. (What the browser finally renders is
checked in Chromium by test_browser_hostile.py.)"""

from __future__ import annotations

import html
import os
from pathlib import Path

import pytest
from harness import ROOT, lost_entries, scan, write_corpus

HOSTILE_LINES = [
    "The strong <b>team</b> won the final <script>alert(1)</script> on Monday.",
    'A quote " and an <img src=x onerror=alert(2)> tag appeared in the report.',
    "مرحبا بالعالم، هذه جملة عربية عن الفريق.",
    "שלום עולם, זה משפט בעברית על הבנק.",
    "The family 👨‍👩‍👧 went to the 🏖️ beach with the team.",
    "Red \x1b[31malert\x1b[0m rang a bell\x07 at the bank.",
    "A [link](http:evil.example) and **bold** markdown in a sentence about the market.",
]


@pytest.fixture
def app(tmp_path, monkeypatch):
    """A fresh AppTest of app.py on a small corpus with two cheap embedders and its own cache."""
    from streamlit.testing.v1 import AppTest

    corpus = write_corpus(tmp_path / "corpus.txt", 80)
    env = {
        "N2O_CACHE_DIR": str(tmp_path / "cache"),
        "N2O_DEFAULT_CORPUS": str(corpus),
        "N2O_DEFAULT_EMBEDDERS": "tfidf,glove-6b-50d",
        "N2O_DEFAULT_QUERIES": "20",
        "N2O_DEFAULT_SAMPLES": "2",
    }
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(ROOT)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.cache_dir = tmp_path / "cache"
    yield at
    from ui import n2o_runs

    n2o_runs.clear_failures()


def _no_exception(at) -> None:
    assert not at.exception, [e.value for e in at.exception]


def _plain(md: str) -> str:
    """Markdown source as the reader sees it: `escape_markup`'s character references decoded, its invisible word
    joiners dropped."""
    return html.unescape(md).replace("\u2060", "")


def test_hostile_link_is_answered_with_notes(app):
    app.query_params.update(
        corpus="../../etc/passwd",
        embedders="<script>alert(1)</script>,tfidf,glove-6b-50d",
        k="-3",
        queries="lots",
        cap="1e99",
        text="<img src=x onerror=alert(3)>",
    )
    app.run()
    _no_exception(app)
    warnings = _plain(" ".join(w.value for w in app.sidebar.warning))
    assert "Unknown corpus '../../etc/passwd'" in warnings
    assert "'k' must be a whole number" in warnings
    assert not os.path.exists("/etc/passwd") or "passwd" not in " ".join(c.value for c in app.sidebar.caption)
    app.switch_page("pages/query.py").run()
    _no_exception(app)
    md = "\n".join(m.value for m in app.markdown)
    assert "&#60;img src=x onerror=alert(3)&#62;" in md and "<img" not in md


def test_markdown_in_a_link_is_shown_as_text(app):
    """A link whose value holds markdown (a clickable phishing link in the note) is shown literally."""
    app.query_params.update(corpus="[Log in again](http:evil.example)")
    app.run()
    _no_exception(app)
    note = next(w.value for w in app.sidebar.warning if "Unknown corpus" in w.value)
    assert "](http:evil.example)" not in note and "[Log in" not in note  # escaped: no markdown link survives
    assert "Unknown corpus '[Log in again](http:evil.example)' in the link" in _plain(note)


def _choose_upload(at):
    at.run()
    at.sidebar.selectbox(key="w_corpus").set_value("__upload__").run()
    _no_exception(at)
    return at.sidebar.file_uploader[0]


def test_upload_above_the_size_cap_is_refused_in_place(app):
    from n2o_core.corpora.uploads import MAX_UPLOAD_MB

    app.run()
    before = scan(app.cache_dir)
    up = _choose_upload(app)
    big = b"The team won the match on Monday.\n" * (MAX_UPLOAD_MB * 1_000_000 // 34 + 10)
    up.set_value(("huge.txt", big, "text/plain")).run()
    _no_exception(app)
    errors = " ".join(e.value for e in app.sidebar.error)
    assert f"uploads are limited to {MAX_UPLOAD_MB} MB" in errors and "huge.txt" in errors
    after = scan(app.cache_dir)
    assert lost_entries(before, after) == [] and not any(r.startswith("uploads/") for r in after.valid)


@pytest.mark.parametrize(
    ("name", "data", "expect"),
    [
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "not UTF-8"),
        ("long.csv", ("text\n" + "Short row.\n" * 30 + "word " * 199_999 + "words\n").encode(), "1,000,000 characters"),
        ("../../../etc/passwd.txt", b"root:x:0:0:root:/root:/bin/bash\n" * 3, "needs at least"),
    ],
    ids=["binary .txt", "1M-character CSV line", "name with ../"],
)
def test_broken_uploads_are_refused_in_place(app, name, data, expect):
    app.run()
    before = scan(app.cache_dir)
    up = _choose_upload(app)
    up.set_value((name, data, "text/plain")).run()
    _no_exception(app)
    errors = " ".join(e.value for e in app.sidebar.error) + " ".join(e.value for e in app.error)
    assert expect.lower() in errors.lower(), errors
    assert lost_entries(before, scan(app.cache_dir)) == []
    assert not Path(app.cache_dir.parent, "etc").exists()


def test_markup_rtl_emoji_and_control_characters_in_an_uploaded_corpus(app):
    """Shown correctly: markup escaped in the neighbor tables and the corpus caption, RTL and emoji exactly as
    written, control characters gone."""
    from synthetic_text import sentences

    text = "\n".join(HOSTILE_LINES + sentences(60, seed=5)) + "\n"
    app.run()
    up = _choose_upload(app)
    up.set_value(("<img src=x onerror=alert(4)> [x](http:evil.example).txt", text.encode(), "text/plain")).run()
    _no_exception(app)
    assert app.query_params["corpus"].startswith("upload:")
    caption = " ".join(c.value for c in app.caption)
    assert "](http:evil.example)" not in caption  # the corpus name is text, not a markdown link
    app.switch_page("pages/query.py").run()
    _no_exception(app)
    seen = []
    for needle, want in [
        ("<script>", "<script>alert(1)</script>"),
        ("onerror", "<img src=x onerror=alert(2)>"),
        ("مرحبا", "مرحبا بالعالم، هذه جملة عربية عن الفريق."),
        ("שלום", "שלום עולם, זה משפט בעברית על הבנק."),
        ("beach", "👨‍👩‍👧 went to the 🏖️ beach"),
        ("rang a bell", "Red [31malert[0m rang a bell at the bank."),
        ("evil.example", "A [link](http:evil.example) and **bold**"),
    ]:
        app.text_input(key="w_qfilter").set_value(needle).run()
        _no_exception(app)
        box = next(s for s in app.selectbox if s.key and s.key.startswith("w_qid_"))
        assert want in box.options[0], (needle, box.options[0])  # a select label is plain text, shown as is
        md = "\n".join(m.value for m in app.markdown)
        query = next(m for m in md.split("\n") if m.startswith("<div class='nq'>"))
        assert html.unescape(query).endswith(want) or want in html.unescape(query), query
        assert "<script" not in md and "<img" not in md and "<b>" not in md  # markup arrives escaped
        assert "\x1b" not in md and "\x07" not in md
        seen.append(needle)
    assert len(seen) == 7
