"""Test fixture maker: STS Benchmark-layout pair files written from corpus sentences (no human data is installed).

`write_stsb` writes the real sts-*.csv layout: headerless, tab-separated genre, file, year, id, score, sentence1,
sentence2, with the real files' quirks on some lines (a stray double quote inside a sentence, extra trailing
fields). Sentence1 is a corpus sentence; sentence2 is a rewrite of it (words swapped through a small synonym table,
every second word dropped, the tail moved to the front) for "paraphrase" rows, or another corpus sentence for
unrelated rows. The scores are the fixture's own labels (4.2-5.0 for rewrites, 0.4-2.0 for unrelated rows), not human
judgments.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

SYNONYMS = {
    "strong": "powerful",
    "weak": "feeble",
    "happy": "glad",
    "sad": "unhappy",
    "large": "big",
    "small": "little",
    "quick": "fast",
    "slow": "sluggish",
    "cold": "chilly",
    "warm": "mild",
    "good": "fine",
    "bad": "poor",
    "won": "took",
    "lost": "dropped",
    "played": "contested",
    "finished": "completed",
    "started": "began",
    "increased": "raised",
    "reduced": "cut",
    "doubled": "multiplied",
    "hit": "struck",
    "left": "departed",
    "reached": "arrived at",
    "covered": "blanketed",
    "crossed": "traversed",
    "the": "a",
    "said": "stated",
    "after": "following",
    "on": "upon",
}
GENRES = ("main-news", "main-captions", "main-forums")


def rewrite(sentence: str, drop_every: int = 2) -> str:
    """A crude "paraphrase": synonyms swapped in, every `drop_every`-th word dropped (so the word overlap with the
    sentence is about 0.5, under the paper's 0.6 filter, also for BBC sentences), the last three words moved to
    the front."""
    words = [SYNONYMS.get(w.lower(), w) for w in sentence.rstrip(".").split()]
    words = [w for i, w in enumerate(words) if i % drop_every != drop_every - 1]
    if len(words) > 5:
        words = [*words[-3:], ",", *words[:-3]]
    out = " ".join(words).replace(" ,", ",")
    return out[:1].upper() + out[1:] + "."


def stsb_rows(sentences: Sequence[str], n: int, seed: int = 0, related_share: float = 0.7) -> list[list[str]]:
    """`n` rows [genre, file, year, id, score, sentence1, sentence2] from distinct corpus sentences."""
    if n > len(sentences):
        raise ValueError(f"need {n} sentences, got {len(sentences)}")
    rng = random.Random(seed)
    order = list(range(len(sentences)))
    rng.shuffle(order)
    rows = []
    for k in range(n):
        s1 = sentences[order[k]]
        if rng.random() < related_share:
            s2, score = rewrite(s1), 4.2 + 0.2 * rng.randrange(5)
        else:
            s2, score = sentences[order[(k + 1) % len(order)]], 0.4 + 0.4 * rng.randrange(5)
        rows.append([GENRES[k % 3], "fixture", "2024", f"{k:04d}", f"{score:.3f}", s1, s2])
    return rows


def write_stsb(
    path: Path, sentences: Sequence[str], n: int = 60, seed: int = 0, quirks: bool = True
) -> list[list[str]]:
    """Write an STS-B-layout file; returns the rows as written (quirks excluded from the 7 fields)."""
    rows = stsb_rows(sentences, n, seed)
    lines = []
    for k, r in enumerate(rows):
        r = list(r)
        if quirks and k % 7 == 3:
            r[6] = r[6].replace(" ", ' "', 1)  # a stray double quote, as in the real files
            rows[k] = r
        line = "\t".join(r)
        if quirks and k % 5 == 1:
            line += "\tsource-a\tsource-b"  # extra trailing fields, as in the real files
        lines.append(line)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return rows
