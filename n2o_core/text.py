"""Word tokenization shared by static embedders, tf-idf and the token-overlap measure."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Lowercased word tokens: runs of letters/digits, keeping inner apostrophes ("don't")."""
    return _TOKEN.findall(text.lower())


def token_set(text: str) -> frozenset[str]:
    """Distinct lowercased word tokens of `text`."""
    return frozenset(tokenize(text))
