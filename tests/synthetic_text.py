"""A small, deterministic English corpus for dashboard tests: three topics, sentences of 9-16 words whose
adjectives and verbs have WordNet synonyms and antonyms (so HEROS pairs can be made from it)."""

from __future__ import annotations

import random
from pathlib import Path

_TOPICS = {
    "sport": (
        ["team", "striker", "coach", "club", "player", "goalkeeper"],
        ["won", "lost", "played", "finished", "started"],
        ["match", "final", "league game", "cup tie", "season"],
    ),
    "money": (
        ["bank", "company", "investor", "market", "firm", "lender"],
        ["increased", "reduced", "raised", "lowered", "doubled"],
        ["profits", "prices", "interest rates", "dividends", "shares"],
    ),
    "weather": (
        ["storm", "wind", "rain", "heatwave", "snow", "frost"],
        ["hit", "left", "reached", "covered", "crossed"],
        ["the coast", "the valley", "the northern towns", "the old harbour", "the farms"],
    ),
}
_ADJ = ["strong", "weak", "happy", "sad", "large", "small", "quick", "slow", "cold", "warm", "good", "bad"]
_TAIL = [
    "on Monday.",
    "last week.",
    "after a long delay.",
    "despite the warnings.",
    "for the first time.",
    "in the early morning.",
    "according to local reports.",
]


def sentences(n: int = 150, seed: int = 0) -> list[str]:
    """`n` distinct sentences (deterministic for a seed)."""
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        topic = rng.choice(sorted(_TOPICS))
        subj, verbs, objs = _TOPICS[topic]
        s = (
            f"The {rng.choice(_ADJ)} {rng.choice(subj)} {rng.choice(verbs)} the {rng.choice(_ADJ)} "
            f"{rng.choice(objs)} {rng.choice(_TAIL)}"
        )
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def write_corpus(path: Path, n: int = 150, seed: int = 0) -> Path:
    """Write one sentence per line; returns the path."""
    path.write_text("\n".join(sentences(n, seed)) + "\n", encoding="utf-8")
    return path
