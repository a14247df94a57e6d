"""Word tokens: `token_incidence` marks exactly the tokens `token_set` finds, text by text."""

from __future__ import annotations

import re

import numpy as np
import pytest

from n2o_core.text import SBERT_STOP_WORDS, token_incidence, token_set

TEXTS = [
    "Don't stop: the U.S. economy grew 3.5% in 2024!",
    "",
    "   ",
    "ΟΔΥΣΣΕΥΣ sailed home\nacross the sea",  # a line break inside a text; Greek capitals ending in a final sigma
    "snake_case and CamelCase, l’été and naïve café",
    "the and of",  # stop words only
    "Don't stop: the U.S. economy grew 3.5% in 2024!",  # a repeat
]


def test_token_incidence_matches_token_set_per_text():
    for stop in (frozenset(), SBERT_STOP_WORDS):
        assert _rows(TEXTS, stop) == [token_set(t) - stop for t in TEXTS]
    assert {"don't", "οδυσσευς", "l’été", "snake", "case"} <= set().union(*(token_set(t) for t in TEXTS))


def _rows(texts: list[str], stop: frozenset[str] = frozenset()) -> list[frozenset[str]]:
    """The token set of each row of `token_incidence(texts, stop)`, read through its vocabulary."""
    M, vocab = token_incidence(texts, stop)
    assert M.shape[0] == len(texts) and set(np.unique(M.data)) <= {1.0}
    assert len(set(vocab.tolist())) == len(vocab)  # one column per token
    return [frozenset(vocab[j] for j in M.indices[M.indptr[i] : M.indptr[i + 1]]) for i in range(M.shape[0])]


def test_token_incidence_of_nothing():
    for texts in ([], [""], ["", " ", "--"]):
        M, _ = token_incidence(texts)
        assert M.shape[0] == len(texts) and M.nnz == 0


ASCII_TEXTS = [
    "Don't stop: 'quoted' rock'n'roll, a''b and x'y' -- O'NEIL's 3'4",
    "snake_case __dunder__ CamelCase 2024-11-25 e-mail",
    "",
    "tab\there and\x0bthere",
    "'''",
]


def test_token_incidence_of_ascii_text_matches_token_set():
    """ASCII text is split by numpy and pyarrow, not the regex: the same rows as token_set text by text."""
    rows = _rows(ASCII_TEXTS)
    assert rows == [token_set(t) for t in ASCII_TEXTS]
    assert {"don't", "rock'n'roll", "o'neil's", "3'4", "snake", "case", "dunder"} <= rows[0] | rows[1]


def test_ascii_incidence_equals_token_set_on_random_ascii():
    """Random ASCII texts (apostrophes at a text's ends and beside line breaks, underscores, tabs, capitals), 50
    per call so that texts meet at the joins: every row is exactly the text's token_set."""
    import random

    rng = random.Random(0)
    alphabet = "aZ09_' \n\t-.'"
    for _ in range(100):
        texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(50)]
        assert _rows(texts) == [token_set(t) for t in texts], texts


def test_non_ascii_texts_take_the_unicode_tokenizer():
    texts = ["caf\u00e9 don\u2019t", "plain ascii's text", "na\u00efve_caf\u00e9"]
    assert _rows(texts, frozenset({"text"})) == [token_set(t) - {"text"} for t in texts]


# --------------------------------------------------------------------------- escape_markup

HOSTILE_TEXTS = [
    "[click me](https:example.com).txt",
    "![x](http://127.0.0.1:9/x.png)<b>bold</b>.txt",
    "<img src=x onerror=alert(1)> <script>alert(2)</script> &lt;i&gt; &amp;",
    "*a* _b_ `c` ~~s~~ $x^2$ $$y$$ :red[y] :smile: a|b \\(z\\) %{x} 100%",
    "# heading\n1. item\n- item\n> quote\n    code\n\n<div>\n\n[z](http://127.0.0.1:9/z)",
    "https://127.0.0.1:9/a www.evil.example me@evil.example <https://127.0.0.1:9/b>",
    "  12) starts indented\r\nRed \x1b[31malert\x1b[0m rang a bell\x07",
    r"C:\path\to\file.txt",
    "مرحبا 👨‍👩‍👧 naïve",
]
#: What a renderer reads as markup: Markdown's inline and block specials, HTML, KaTeX's $, plotly's %{...}.
ACTIVE = set("\\`*_[]<>~$|%")


def _shown(escaped: str) -> str:
    """The text a reader sees: character references decoded, the invisible word joiner dropped."""
    import html

    return html.unescape(escaped).replace("\u2060", "")


def _as_text(original: str) -> str:
    """The original as the helper promises to show it: each line break a space, control characters dropped."""
    import re

    no_controls = re.sub(r"[\x00-\x08\x0e-\x1b\x1f\x7f]", "", original)
    return re.sub(r"[\r\n\v\f]", " ", no_controls)


def test_escape_markup_leaves_no_markup_and_reads_as_the_original():
    from n2o_core.text import escape_markup

    for text in HOSTILE_TEXTS:
        out = escape_markup(text)
        assert ACTIVE.isdisjoint(out), (text, out)
        assert "\n" not in out and "\r" not in out and "\x1b" not in out
        assert _shown(out) == _as_text(text)
    assert escape_markup("plain words, 3 of them: fine.") == "plain words, 3 of them: fine."
    assert escape_markup(12) == "12"
    # a block marker or indentation at the start cannot open a heading, a list or a code block
    for start in ("# h", "- x", "+ x", "=== x", "1. x", "7) x", "    x"):
        assert escape_markup(start)[0] == "&", start


def test_escape_markup_breaks_what_gfm_links_by_itself():
    """GFM autolink literals (mdast-util-gfm-autolink-literal's patterns) match the decoded text, so a word joiner
    (U+2060) must sit inside each: no pattern matches what the page reads."""
    import html
    import re

    from n2o_core.text import escape_markup

    literal = re.compile(r"(https?://|www(?=\.))([-.\w]+)|([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.IGNORECASE)
    text = "see https://127.0.0.1:9/a, HTTP://x.org, www.evil.example and me@evil.example"
    assert len(literal.findall(text)) == 4
    decoded = html.unescape(escape_markup(text))
    assert literal.findall(decoded) == []
    assert decoded.replace("\u2060", "") == text


def test_escape_markup_renders_as_text_in_markdown_and_in_an_html_block():
    """CommonMark with GFM tables and strikethrough (markdown-it), inline and inside the app's HTML blocks (raw HTML
    on): one paragraph or the app's own element, whose text is exactly the original's."""
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py is not installed")
    from n2o_core.text import escape_markup

    md = markdown_it.MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    tags = re.compile(r"</?([a-z0-9]+)")
    for text in HOSTILE_TEXTS:
        out = escape_markup(text)
        inline = md.render(f"**{out}** and more")
        assert tags.findall(inline) == ["p", "strong", "strong", "p"], (text, inline)
        assert _shown(re.sub(r"<[^>]+>", "", inline)).strip() == f"{_as_text(text)} and more".strip()
        block = md.render(f"<div class='nq'><strong>Query</strong>: {out}</div>")
        assert tags.findall(block) == ["div", "strong", "strong", "div"], (text, block)
        assert _shown(re.sub(r"<[^>]+>", "", block)).strip() == f"Query: {_as_text(text)}".strip()
