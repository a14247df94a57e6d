"""Apply token-level edits to a spaCy Doc and render clean text (spacing, sentence case, a/an)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from n2o_core.evaluation.heros.inflect import article_for, match_case


@dataclass
class _Piece:
    text: str
    ws: str
    changed: bool
    token: Any = None  # the source token, None for inserted words


def _first_word(pieces: list[_Piece]) -> int | None:
    for k, p in enumerate(pieces):
        if any(ch.isalpha() for ch in p.text):
            return k
    return None


def render(
    doc: Any,
    replace: Mapping[int, str] | None = None,
    insert_before: Mapping[int, str] | None = None,
    delete: Iterable[int] = (),
) -> str:
    """Text of `doc` with token i replaced / preceded by a word / deleted.

    Deleting a token keeps its trailing space when the previous word had none ("did" + "n't " ->
    "did "). An article right before an edited word is re-chosen (a/an), and the sentence's first
    word is capitalized when an edit moved or changed it.
    """
    replace = dict(replace or {})
    insert_before = dict(insert_before or {})
    delete = set(delete)
    pieces: list[_Piece] = []
    for tok in doc:
        if tok.i in insert_before:
            pieces.append(_Piece(insert_before[tok.i], " ", True))
        if tok.i in delete:
            if pieces and not pieces[-1].ws:
                pieces[-1].ws = tok.whitespace_
            continue
        if tok.i in replace:
            pieces.append(_Piece(replace[tok.i], tok.whitespace_, True, tok))
        else:
            pieces.append(_Piece(tok.text, tok.whitespace_, False, tok))
    _fix_articles(pieces)
    _fix_sentence_case(doc, pieces)
    return "".join(p.text + p.ws for p in pieces).strip()


def _fix_articles(pieces: list[_Piece]) -> None:
    for k in range(len(pieces) - 1):
        p, nxt = pieces[k], pieces[k + 1]
        if p.text.lower() in ("a", "an") and nxt.changed and nxt.text[:1].isalpha():
            p.text = match_case(article_for(nxt.text), p.text)


def _fix_sentence_case(doc: Any, pieces: list[_Piece]) -> None:
    first_tok = next((t for t in doc if t.is_alpha), None)
    k = _first_word(pieces)
    if first_tok is None or k is None or not first_tok.text[:1].isupper():
        return
    new_first = pieces[k]
    if _is(new_first.token, first_tok) and not new_first.changed:
        return
    new_first.text = new_first.text[:1].upper() + new_first.text[1:]
    for p in pieces[k + 1 :]:
        if _is(p.token, first_tok):
            keep = (
                first_tok.pos_ == "PROPN"
                or first_tok.text == "I"
                or (len(first_tok.text) > 1 and first_tok.text.isupper())
            )
            if not keep and not p.changed:
                p.text = p.text[:1].lower() + p.text[1:]
            break


def _is(a: Any, b: Any) -> bool:
    """Same token of the same doc (spaCy creates a new Token object on every access)."""
    return a is not None and b is not None and a.i == b.i
