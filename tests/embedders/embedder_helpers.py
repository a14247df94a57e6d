"""Plain helpers shared by the embedder tests (imported by name: tests/embedders is on sys.path)."""

from __future__ import annotations

import random

import numpy as np

_SUBJECTS = ["team", "player", "coach", "bank", "market", "investor", "storm", "wind", "farmer", "city"]
_VERBS = ["won", "lost", "raised", "lowered", "hit", "crossed", "sold", "bought", "watched", "left"]
_OBJECTS = ["match", "final", "prices", "shares", "coast", "valley", "harvest", "river", "league", "profits"]
_TAILS = ["on monday", "last week", "after a delay", "in the morning", "for the first time", "despite warnings"]

#: (a_i, b_i) are paraphrases; a_i and b_j (i != j) are unrelated.
PARAPHRASES = [
    ("A man is playing a guitar on the stage.", "Someone is playing the guitar at a concert."),
    ("The stock market fell sharply today.", "Share prices dropped steeply on the exchange today."),
    ("The cat is sleeping on the sofa.", "A kitten is napping on the couch."),
    ("Heavy rain flooded the streets of the town.", "The town's roads were flooded by a downpour."),
]


def make_corpus(n: int = 240, seed: int = 0) -> list[str]:
    """`n` distinct short sentences over a small vocabulary (every word occurs many times)."""
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        s = f"The {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} the {rng.choice(_OBJECTS)} {rng.choice(_TAILS)}."
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a, dtype=np.float64).ravel()
    b = np.asarray(b, dtype=np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def paraphrase_margins(encode) -> np.ndarray:
    """For each pair i: cos(a_i, b_i) - max_{j != i} cos(a_i, b_j) (positive: the paraphrase wins)."""
    a = np.asarray(encode([p[0] for p in PARAPHRASES]), dtype=np.float64)
    b = np.asarray(encode([p[1] for p in PARAPHRASES]), dtype=np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    S = a @ b.T
    off = S.copy()
    np.fill_diagonal(off, -np.inf)
    return np.diag(S) - off.max(axis=1)
