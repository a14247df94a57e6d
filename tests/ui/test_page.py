"""Text meant for a file (the HTML report, a JSON table's meta) is plain text: no Markdown escapes or bold."""

from __future__ import annotations

from types import SimpleNamespace

from ui import page


class _Corpus(list):
    name = "bbc-news[5000]"


def test_chance_caption_plain_for_reports():
    lo = SimpleNamespace(
        corpus=_Corpus(range(5000)),
        plan=SimpleNamespace(samples=[list(range(100))] * 5),
        settings=SimpleNamespace(approx=False, znorm=False),
    )
    shown = page.chance_caption(lo, 10)
    assert "**bbc-news&#91;5000&#93;**" in shown  # on the page: Markdown, escaped
    plain = page.chance_caption(lo, 10, markdown=False)
    assert "Corpus bbc-news[5000]: N = 5,000" in plain and "\\" not in plain and "**" not in plain
