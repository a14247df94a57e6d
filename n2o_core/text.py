"""Word tokenization shared by static embedders, tf-idf and the token-overlap measure; the one stop list; the
shared words of two texts highlighted as escaped HTML; `escape_markup`, the one way user text reaches Markdown, HTML
or a plotly figure.

Stop words (`SBERT_STOP_WORDS`) are the list sentence-transformers' `WhitespaceTokenizer` drops by default
(`ENGLISH_STOP_WORDS` in sentence_transformers.models.tokenizer, 386 entries: 352 words -- scikit-learn's 318-word
English list plus 34 of NLTK's: contraction stems "didn", "doesn", "t", "ll", ... and "did", "does", "doing",
"having", "just", "theirs" -- and 34 punctuation tokens). It is copied here because
importing sentence-transformers costs seconds (torch); a test asserts the copy equals the installed list. The
averaged GloVe models Heros evaluated (average_word_embeddings_glove.6B.300d: `WordEmbeddings` +
`WhitespaceTokenizer`) drop these words, among them the negations "not", "no", "nor", "never", "cannot" and the
auxiliaries "does", "did", "was": "The deal was approved." and "The deal was not approved." get one vector.

How `tokenize` differs from sentence-transformers' `WhitespaceTokenizer` (v2-v6): that one splits on whitespace
only; it looks each piece up as is, then with punctuation stripped from both ends, then lowercased (each step
checks the stop list first, then the vocabulary), and drops pieces still not in the vocabulary. `tokenize`
lowercases first and splits at every character that is not a letter or digit, keeping inner apostrophes. So
for plain words the two agree, but they differ on
- inner punctuation: "state-of-the-art", "u.s.", "3.5", "e-mail" are one piece there (kept when the vocabulary
  has it), several tokens here ("state", "of", "the", "art" -- of which "of" and "the" are stop words);
- case in cased vocabularies: there "The" at a sentence start is matched as is (not a stop word, and kept when a
  cased vocabulary such as GoogleNews word2vec has it) while "the" is dropped; here both are "the" and dropped;
- punctuation-only pieces ("--", "!") are stop words or unknown there and never tokens here, with the same
  result: nothing is averaged for them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Collection, Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

_SBERT_WORDS = """
a about above across after afterwards again against ain all almost alone along already also although always am
among amongst amoungst amount an and another any anyhow anyone anything anyway anywhere are aren around as at back
be became because become becomes becoming been before beforehand behind being below beside besides between beyond
bill both bottom but by call can cannot cant co con could couldn couldnt cry d de describe detail did didn do does
doesn doing don done down due during each eg eight either eleven else elsewhere empty enough etc even ever every
everyone everything everywhere except few fifteen fifty fill find fire first five for former formerly forty found
four from front full further get give go had hadn has hasn hasnt have haven having he hence her here hereafter
hereby herein hereupon hers herself him himself his how however hundred i ie if in inc indeed interest into is isn
it its itself just keep last latter latterly least less ll ltd m ma made many may me meanwhile might mightn mill
mine more moreover most mostly move much must mustn my myself name namely needn neither never nevertheless next
nine no nobody none noone nor not nothing now nowhere o of off often on once one only onto or other others
otherwise our ours ourselves out over own part per perhaps please put rather re s same see seem seemed seeming
seems serious several shan she should shouldn show side since sincere six sixty so some somehow someone something
sometime sometimes somewhere still such system t take ten than that the their theirs them themselves then thence
there thereafter thereby therefore therein thereupon these they thick thin third this those though three through
throughout thru thus to together too top toward towards twelve twenty two un under until up upon us ve very via
was wasn we well were weren what whatever when whence whenever where whereafter whereas whereby wherein whereupon
wherever whether which while whither who whoever whole whom whose why will with within without won would wouldn y
yet you your yours yourself yourselves
"""

#: sentence-transformers' default stop list (386 entries; only its 352 words can match a `tokenize` token).
SBERT_STOP_WORDS: frozenset[str] = frozenset(_SBERT_WORDS.split()) | frozenset(string.punctuation) | {"''", "``"}

#: How compositions and reports name `SBERT_STOP_WORDS`.
SBERT_STOP_WORDS_NAME = "sentence-transformers' 386-entry list"

#: What a token overlap counts (the token page's `words=` and the findings): content words (`SBERT_STOP_WORDS`
#: dropped) or every word. The N2O paper does not say; counted with stop words, every embedder's neighbors share
#: "the", "of", ... with the query. `TOKEN_WORDS_DEFAULT` is the tool's one default, on the page and in the findings.
TOKEN_WORDS: dict[str, str] = {"content": "content words (stop words dropped)", "all": "every word"}
TOKEN_WORDS_DEFAULT = "content"


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens: runs of letters/digits, keeping inner apostrophes ("don't")."""
    return _TOKEN.findall(text.lower())


def content_tokens(text: str, stop_words: Collection[str] = ()) -> list[str]:
    """`tokenize(text)` without the tokens in `stop_words` (all tokens when it is empty)."""
    tokens = tokenize(text)
    return [t for t in tokens if t not in stop_words] if stop_words else tokens


def token_set(text: str) -> frozenset[str]:
    """Distinct lowercased word tokens of `text`."""
    return frozenset(tokenize(text))


_TOKEN_OR_BREAK = re.compile(_TOKEN.pattern + r"|\n", re.UNICODE)
# A character reference of `escape_markup` (left as it is) or a word token, in escaped text
_REFERENCE_OR_TOKEN = re.compile(r"&#\d+;|" + _TOKEN.pattern, re.UNICODE)

#: In lowercased ASCII text a word character is [a-z0-9] and the only apostrophe is ': a token is a maximal run of
#: these characters and of apostrophes that have one on each side.
_ASCII_WORD = np.zeros(256, bool)
_ASCII_WORD[np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", np.uint8)] = True


class TokenIncidence(NamedTuple):
    """Which tokens each text holds: `matrix` (texts x vocabulary, 0/1 float32 CSR) and `vocabulary[j]`, the token
    of column j. Columns of dropped tokens (stop words, and separators a tokenizer path numbers) stay empty."""

    matrix: Any
    vocabulary: np.ndarray


def token_incidence(texts: Sequence[str], stop_words: Collection[str] = ()) -> TokenIncidence:
    """Row i marks `token_set(texts[i])` less `stop_words`, for all texts at once (line breaks inside a text are
    spaces, which no token holds).

    ASCII text (the common case) is split by numpy and pyarrow without a Python string per token, faster than one regex
    pass and pandas.factorize (measured: benchmarks/README.md, 'Measurements behind the code's choices'). Other text
    takes that regex pass."""
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1:  # a line break inside a text: a space there
        joined = "\n".join(t.replace("\n", " ") for t in texts)
    joined = joined.lower()
    if joined.isascii():
        rows, codes, vocab = _ascii_tokens(joined, len(texts))
    else:
        rows, codes, vocab = _regex_tokens(joined)
    import scipy.sparse as sp

    drop = frozenset(stop_words) | {"", "\n"}
    dropped = np.fromiter((w in drop for w in vocab), bool, len(vocab))
    keep = ~dropped[codes]
    M = sp.csr_matrix(
        (np.ones(int(keep.sum()), np.float32), (rows[keep], codes[keep])), shape=(len(texts), max(len(vocab), 1))
    )
    M.data[:] = 1.0  # a token repeated in a sentence was summed: mark it once
    return TokenIncidence(M, vocab)


def _ascii_tokens(joined: str, n_texts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, column) of every token of lowercased ASCII texts joined by line breaks, and the columns' tokens.

    Every byte that cannot be in a token (an apostrophe without a word character on each side included) becomes a
    space, the texts are sliced out of that buffer at their line breaks as one pyarrow string array, which pyarrow
    splits at whitespace (an empty piece marks a text's trailing space) and numbers with its hash table."""
    import pyarrow as pa
    import pyarrow.compute as pc

    b = np.frombuffer(joined.encode("ascii"), np.uint8).copy()
    word = _ASCII_WORD[b]
    inner_apostrophe = np.zeros(len(b), bool)
    inner_apostrophe[1:-1] = (b[1:-1] == 39) & word[:-2] & word[2:]
    breaks = np.flatnonzero(b == 10)
    b[~(word | inner_apostrophe)] = 32
    offsets = np.empty(n_texts + 1, np.int64)  # text i is b[offsets[i]:offsets[i + 1]], its line break included
    offsets[0], offsets[1:n_texts], offsets[n_texts] = 0, breaks + 1, len(b)
    texts = pa.LargeStringArray.from_buffers(n_texts, pa.py_buffer(offsets), pa.py_buffer(b))
    pieces = pc.ascii_split_whitespace(texts)
    encoded = pc.dictionary_encode(pc.list_flatten(pieces))
    rows = _int_values(pc.list_parent_indices(pieces))
    codes = _int_values(encoded.indices)
    return rows, codes, np.array(encoded.dictionary.to_pylist(), dtype=object)


def _int_values(arr: Any) -> np.ndarray:
    """The values of a pyarrow integer array without nulls, as int64, read from its buffer (pyarrow's to_numpy
    imports pandas for its type checks: time that a command-line `compare` does not otherwise spend;
    measured: benchmarks/README.md, 'Measurements behind the code's choices')."""
    if arr.null_count:
        raise ValueError("a pyarrow array with nulls")
    width = arr.type.bit_width // 8
    values = np.frombuffer(arr.buffers()[1], dtype=f"<i{width}", count=len(arr), offset=arr.offset * width)
    return values.astype(np.int64)


def _regex_tokens(joined: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_ascii_tokens` for any text: one regex pass (breaks matched as tokens of their own), pandas.factorize."""
    import pandas as pd

    tokens = _TOKEN_OR_BREAK.findall(joined)
    codes, vocab = pd.factorize(pd.Series(tokens, dtype=object), sort=False)
    is_break = np.asarray(vocab == "\n", bool)
    rows = np.cumsum(is_break[codes]) if codes.size else np.zeros(0, np.int64)
    return rows, codes.astype(np.int64), np.asarray(vocab, object)


# --------------------------------------------------------------------------- shared words, highlighted


def highlight_shared(text: str, query_tokens: Iterable[str], tag: str = "mark") -> str:
    """HTML for `text` with the word tokens it shares with the query wrapped in <mark>.

    The text goes through `escape_markup` first, so corpus text can never inject markup."""
    toks = frozenset(query_tokens)

    def mark(m: re.Match[str]) -> str:
        word = m.group()
        return f"<{tag}>{word}</{tag}>" if not word.startswith("&#") and word.lower() in toks else word

    return _REFERENCE_OR_TOKEN.sub(mark, escape_markup(text))


def shared_tokens(query: str, text: str) -> frozenset[str]:
    """Word tokens the two texts share (lowercased)."""
    return token_set(query) & token_set(text)


# --------------------------------------------------------------------------- user text in markup

# Characters that act in Streamlit's Markdown (CommonMark, GFM tables / strikethrough / autolinks, $math$,
# :color[...] directives), in HTML text, or in a plotly template (%{...}) become numeric character references:
# Markdown, HTML and plotly all decode them back into the character, as text. Line breaks become spaces; control
# characters go.
_MARKUP = "\\`*_[]<>~$|&%"
_LINE_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_INERT = {
    **{c: f"&#{ord(c)};" for c in _MARKUP},
    **{c: " " for c in _LINE_BREAKS},
    **{chr(c): "" for c in [*range(0x00, 0x09), *range(0x0E, 0x1C), 0x1F, *range(0x7F, 0x85), *range(0x86, 0xA0)]},
}
_ACTIVE = re.compile("[" + re.escape("".join(_INERT)) + "]")
# Block markers that act at the start of a line (headings, lists, setext underlines), and indentation (code)
_LINE_START = re.compile(r"[ \t]*(?:[#+=-]|\d+[.)])?")
# GFM autolink literals (www.x, http://x, https://x, a@b.c) are found in the decoded text, so no escape stops
# them: an invisible WORD JOINER (U+2060) goes inside each.
_AUTOLINK = re.compile(r"(?i)(?<=www)(?=\.)|(?<=:)(?=//)|(?=@)")


def escape_markup(text: object) -> str:
    """The one way user text reaches the page: `text` (a corpus, file or embedder name, a pair-file label, a link's
    value, typed query text, a sentence, a message quoting any of them) made inert for every renderer the
    dashboard feeds it to: Streamlit's Markdown (st.markdown, st.caption, st.info/warning/error, widget labels,
    `help=`, status and progress labels), raw HTML in st.markdown(unsafe_allow_html=True) and plotly's text (titles,
    tick labels, legends, hover, templates). Each of them shows the text as it is: it never becomes a link, an
    image, an HTML element, emphasis, a heading or a list, math, a colour directive or a template field.

    Markup characters become numeric character references; an invisible word joiner breaks what GFM would link
    by itself (`www.`, `http://`, `a@b`); each line break becomes a space (user text never starts a block of its own,
    nor ends an HTML block); control characters are dropped. For element text only, never an attribute value."""
    s = _ACTIVE.sub(lambda m: _INERT[m.group()], str(text))
    start = _LINE_START.match(s).end()  # type: ignore[union-attr]  # it matches every string
    if start:
        s = "".join(f"&#{ord(c)};" for c in s[:start]) + s[start:]
    if "@" in s or "//" in s or ("." in s and "ww" in s.lower()):  # (most text has none of them: skip the search)
        s = _AUTOLINK.sub("\u2060", s)
    return s
