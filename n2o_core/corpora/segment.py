"""Sentence segmentation for news-like English text.

Backend: Bling Fire's `text_to_sentences` (a compiled finite-state splitter: handles "Mr.", "U.S.", "No. 1", "a.m.",
decimals like "3.6" and quoted speech; fast, measured: benchmarks/README.md, 'Measurements behind the code's choices').
When Bling Fire cannot be loaded (its wheel ships an x86-64 library only), spaCy's rule-based `sentencizer` on
`spacy.blank("en")` is used instead (much slower, and it leaves an opening quote at the end of the previous sentence,
which is moved back here).

Both backends get the same two clean-ups:
- a sentence that ends in whitespace + an opening quote or bracket gives that mark to the next one;
- a lowercase sentence right after one that ends in '?"' or '!"' is merged into it
  ('"What hope is there?" he said.' stays one sentence).

Paragraphs: a blank line always ends a sentence; a single line break is treated as a space.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Sequence

from n2o_core.runtime.import_lock import heavy_imports

__all__ = ["backend_name", "looks_like_paragraphs", "split_many", "split_sentences"]

_PARA_BREAK = re.compile(r"\n\s*\n")
_WS = re.compile(r"\s+")
_TRAILING_OPENER = re.compile(r"\s([\"“‘'(\[])$")
_QUOTE_END = re.compile(r"[?!][\"”’']$")


@functools.cache
def _blingfire() -> Callable[[str], list[str]] | None:
    try:
        import blingfire  # noqa: PLC0415

        blingfire.text_to_sentences("A test. Another one.")
    except Exception:  # ImportError, or OSError when the native library does not load
        return None

    def split(text: str) -> list[str]:
        return blingfire.text_to_sentences(text).split("\n")

    return split


@functools.cache
def _spacy_nlp():  # type: ignore[no-untyped-def]
    with heavy_imports():
        import spacy  # noqa: PLC0415

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.max_length = 10**8
    return nlp


def backend_name(backend: str | None = None) -> str:
    """The backend `split_sentences` uses: "blingfire" when it loads, else "spacy"."""
    if backend is not None:
        if backend not in ("blingfire", "spacy"):
            raise ValueError(f"Unknown segmentation backend {backend!r}; use 'blingfire' or 'spacy'.")
        if backend == "blingfire" and _blingfire() is None:
            raise ValueError("The 'blingfire' segmentation backend is not installed on this machine.")
        return backend
    return "blingfire" if _blingfire() is not None else "spacy"


def _paragraphs(text: str) -> list[str]:
    """Blank-line separated blocks, each whitespace-normalized (single newlines become spaces)."""
    out = []
    for block in _PARA_BREAK.split(text):
        block = _WS.sub(" ", block).strip()
        if block:
            out.append(block)
    return out


def _cleanup(raw: Iterable[str]) -> list[str]:
    """Whitespace-normalize, move stray opening quotes forward, merge '?" he said.' fragments."""
    out: list[str] = []
    carry = ""
    for s in raw:
        s = _WS.sub(" ", carry + s).strip()
        carry = ""
        if not s:
            continue
        m = _TRAILING_OPENER.search(s)
        if m:
            carry = m.group(1)
            s = s[: m.start()].rstrip()
            if not s:
                continue
        if out and s[0].islower() and _QUOTE_END.search(out[-1]):
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    if carry:
        if out:
            out[-1] = f"{out[-1]} {carry}"
        else:
            out.append(carry)
    return out


def split_many(texts: Sequence[str], *, backend: str | None = None) -> list[list[str]]:
    """Sentences of each text (batched; same rules as `split_sentences`)."""
    name = backend_name(backend)
    paras_per_text = [_paragraphs(t) for t in texts]
    flat = [p for ps in paras_per_text for p in ps]
    if name == "blingfire":
        split = _blingfire()
        assert split is not None
        flat_sents = [split(p) for p in flat]
    else:
        nlp = _spacy_nlp()
        flat_sents = [[s.text for s in doc.sents] for doc in nlp.pipe(flat, batch_size=256)]
    out: list[list[str]] = []
    i = 0
    for ps in paras_per_text:
        sents: list[str] = []
        for _ in ps:
            sents.extend(_cleanup(flat_sents[i]))
            i += 1
        out.append(sents)
    return out


def split_sentences(text: str, *, backend: str | None = None) -> list[str]:
    """Split `text` into whitespace-normalized sentences (blank lines always end a sentence)."""
    return split_many([text], backend=backend)[0]


#: how many non-blank entries `looks_like_paragraphs` reads by default
PARAGRAPH_SAMPLE = 2000


def looks_like_paragraphs(
    entries: Sequence[str], *, threshold: float = 0.2, sample: int = PARAGRAPH_SAMPLE, backend: str | None = None
) -> bool:
    """True when at least `threshold` of the non-blank entries (first `sample`) hold 2+ sentences.

    This is the rule that decides whether a user's lines / rows are sentences already or paragraphs
    to be segmented.
    """
    picked = [e for e in entries[: sample * 2] if e and e.strip()][:sample]
    if not picked:
        return False
    multi = sum(len(s) >= 2 for s in split_many(picked, backend=backend))
    return multi >= threshold * len(picked)
