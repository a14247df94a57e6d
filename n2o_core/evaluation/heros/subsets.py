"""Subset names of Heros and the aliases accepted in user and Heros files."""

from __future__ import annotations

import re

ALL_SUBSETS: tuple[str, ...] = ("synonym", "antonym", "typo", "random", "negation_main", "negation_antonym")

#: Alias spellings (compared after lowercasing and removing everything but letters).
SUBSET_ALIASES: dict[str, tuple[str, ...]] = {
    "synonym": ("synonym", "synonyms", "syn"),
    "antonym": ("antonym", "antonyms", "ant"),
    "typo": ("typo", "typos", "misspelling", "misspellings"),
    "random": ("random", "random mlm", "random_mlm", "mlm", "random word", "randomword", "random masked lm"),
    "negation_main": ("negation (main)", "negation main", "main negation", "neg main", "negation_main", "negmain"),
    "negation_antonym": (
        "negation (antonym)",
        "negation antonym",
        "antonym negation",
        "neg antonym",
        "negation_antonym",
        "negant",
    ),
}


def squash(name: str) -> str:
    """Lowercase letters only: "Negation (Main) " -> "negationmain"."""
    return re.sub(r"[^a-z]", "", str(name).lower())


_LOOKUP = {squash(a): canon for canon, aliases in SUBSET_ALIASES.items() for a in aliases}


def canonical_subset(name: str) -> str | None:
    """The canonical subset for a column/label name, or None when it is not a known alias."""
    return _LOOKUP.get(squash(name))


def subset_label(name: str) -> str:
    """Canonical name when known, else a snake_case version of the user's label."""
    canon = canonical_subset(name)
    if canon:
        return canon
    return re.sub(r"[^a-z0-9]+", "_", str(name).strip().lower()).strip("_") or "unnamed"
