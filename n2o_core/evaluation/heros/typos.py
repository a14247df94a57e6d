"""Typos, as in Heros: a common misspelling from a list when the word has one, else one random edit.

The list is codespell's `dictionary.txt` (PyPI `codespell`, built largely from Wikipedia's "Lists of
common misspellings", the source the paper used); only entries with a single correction are used,
inverted to correct word -> misspellings, and of those only misspellings one edit away that keep the first
letter (the list also holds "neccsessary" for "necessary", which no reader takes for one typo).
Without codespell, or for words not in it, one deletion, keyboard-adjacent substitution or adjacent
transposition is applied (He et al., 2021), drawn from the caller's seeded RNG and retried until the result
is not itself an English word.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from n2o_core.evaluation.heros.inflect import match_case

_QWERTY = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
_ALPHA = re.compile(r"^[a-z]+$")
EDIT_OPS = ("deletion", "substitution", "transposition")


@lru_cache(maxsize=1)
def _keyboard_neighbors() -> dict[str, str]:
    pos = {ch: (r, c) for r, row in enumerate(_QWERTY) for c, ch in enumerate(row)}
    out: dict[str, str] = {}
    for ch, (r, c) in pos.items():
        near = [
            o
            for o, (r2, c2) in pos.items()
            if o != ch and abs(r2 - r) <= 1 and abs((c2 + 0.5 * r2) - (c + 0.5 * r)) <= 1
        ]
        out[ch] = "".join(sorted(near))
    return out


def damerau_levenshtein(a: str, b: str) -> int:
    """Optimal-string-alignment distance (insertions, deletions, substitutions, adjacent transpositions)."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def _codespell_dictionary() -> Path | None:
    try:
        import codespell_lib  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(codespell_lib.__file__).parent / "data" / "dictionary.txt"
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def common_misspellings() -> dict[str, tuple[str, ...]]:
    """Correct word -> its common misspellings (empty when codespell is not installed)."""
    path = _codespell_dictionary()
    if path is None:
        return {}
    inv: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        wrong, _, right = line.partition("->")
        targets = [t.strip() for t in right.split(",") if t.strip()]
        wrong = wrong.strip()
        if len(targets) != 1 or not _ALPHA.match(wrong) or not _ALPHA.match(targets[0]):
            continue
        inv.setdefault(targets[0], []).append(wrong)
    return {k: tuple(sorted(v)) for k, v in inv.items()}


def one_edit_typo(word: str, rng: random.Random, op: str | None = None) -> tuple[str, str]:
    """One deletion, keyboard-adjacent substitution or adjacent transposition of `word` (lowercase letters).

    Returns (typo, op). The first letter is kept (readers rarely mistype it); words shorter than 3
    letters are returned unchanged with op "none".
    """
    if len(word) < 3:
        return word, "none"
    ops = [op] if op else [o for o in EDIT_OPS if o != "deletion" or len(word) > 3]  # not "won" -> "wn"
    near = _keyboard_neighbors()
    for _ in range(20):
        kind = rng.choice(ops)
        if kind == "deletion":
            i = rng.randrange(1, len(word))
            out = word[:i] + word[i + 1 :]
        elif kind == "substitution":
            i = rng.randrange(1, len(word))
            choices = near.get(word[i], "") or "etaoinshr"
            out = word[:i] + rng.choice(choices) + word[i + 1 :]
        else:
            spots = [i for i in range(1, len(word) - 1) if word[i] != word[i + 1]]
            if not spots:
                continue
            i = rng.choice(spots)
            out = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
        if out != word:
            return out, kind
    return word, "none"


def make_typo(
    word: str, rng: random.Random, is_word: Callable[[str], bool], use_list: bool = True, tries: int = 10
) -> tuple[str | None, str]:
    """A typo of `word` that is not itself a word: (typo, method) or (None, drop reason)."""
    low = word.lower()
    if not _ALPHA.match(low):
        return None, "not_alphabetic"
    if use_list:
        listed = [
            m
            for m in common_misspellings().get(low, ())
            if m[:1] == low[:1] and damerau_levenshtein(m, low) == 1 and not is_word(m)
        ]
        if listed:
            return match_case(rng.choice(listed), word), "misspelling_list"
    for _ in range(tries):
        out, op = one_edit_typo(low, rng)
        if op != "none" and not is_word(out):
            return match_case(out, word), f"edit_{op}"
    return None, "no_nonword_typo"
