"""Word tokenization shared by static embedders, tf-idf and the token-overlap measure, and the shared words of
two texts highlighted as escaped HTML."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens: runs of letters/digits, keeping inner apostrophes ("don't")."""
    return _TOKEN.findall(text.lower())


def token_set(text: str) -> frozenset[str]:
    """Distinct lowercased word tokens of `text`."""
    return frozenset(tokenize(text))


# --------------------------------------------------------------------------- shared words, highlighted


def highlight_shared(text: str, query_tokens: Iterable[str], tag: str = "mark") -> str:
    """HTML for `text` with the word tokens it shares with the query wrapped in <mark>.

    Every piece of `text` goes through html.escape, so corpus text can never inject markup."""
    toks = frozenset(query_tokens)
    out: list[str] = []
    pos = 0
    for m in _TOKEN.finditer(text):
        out.append(html.escape(text[pos : m.start()]))
        word = html.escape(m.group())
        out.append(f"<{tag}>{word}</{tag}>" if m.group().lower() in toks else word)
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def shared_tokens(query: str, text: str) -> frozenset[str]:
    """Word tokens the two texts share (lowercased)."""
    return token_set(query) & token_set(text)


# --------------------------------------------------------------------------- Markdown

# Characters that act anywhere in Streamlit's Markdown (emphasis, code, links and images, autolinks and raw HTML,
# strikethrough, $math$, :emoji: and :color[...] directives, tables), and the block markers that act at the start
# of a line (headings, lists, quotes)
_MD_INLINE = re.compile(r"([\\`*_\[\]<>~$:|!])")
_MD_LINE_START = re.compile(r"(?m)^(\s*\d*)([#>+=.)-])")


def escape_markdown(text: str) -> str:
    """`text` with its Markdown-active characters backslash-escaped, so a Markdown renderer (st.markdown,
    st.caption, st.warning, ...) shows it literally: a link, a file name or a corpus name from a user can never
    become a clickable link, an image, emphasis or math."""
    out = _MD_INLINE.sub(r"\\\1", text)
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), out)
