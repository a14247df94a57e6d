"""How many minimal pairs a corpus gave against how many were asked, and why the other sentences gave none.

The generator reads the corpus's distinct sentences in seeded random order and stops once every subset has the
pairs asked; `coverage(pairset)` says how far it read (`tried`), what it made per subset (`made`), the yield
(pairs made per sentence tried) and, when it read every sentence and still made fewer than asked, that the
corpus is too small for the request. One sentence of it (`Coverage.sentence`) is what the HEROS page and the
`heros` command print; `Coverage.to_json` is what the JSON carries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from n2o_core.evaluation.heros.generate import MAX_WORDS, MIN_WORDS, PairSet

#: Why a sentence tried gave no pair, in words (the keys of `PairSet.skipped`): (one sentence, several).
SKIP_REASONS = {
    "length": (
        f"is outside {MIN_WORDS}–{MAX_WORDS} words (Heros' length filter)",
        f"are outside {MIN_WORDS}–{MAX_WORDS} words (Heros' length filter)",
    ),
    "question": ("is a question", "are questions"),
    "not_a_sentence": ("is not a full sentence", "are not full sentences"),
    "multiple_sentences": ("holds more than one sentence", "hold more than one sentence"),
    "no_target": (
        "has no verb or adjective the vetted lexicon lists in its context",
        "have no verb or adjective the vetted lexicon lists in its context",
    ),
    "incomplete": ("failed a rule for every target tried", "failed a rule for every target tried"),
}


def _reason(reason: str, n: int) -> str:
    one, many = SKIP_REASONS.get(reason, (reason, reason))
    return f"{n:,} {one if n == 1 else many}"


#: Below this many pairs per subset the page and the CLI warn that the scores rest on few pairs.
FEW_PAIRS = 30


@dataclass(frozen=True)
class Coverage:
    """Pairs made against pairs asked for one corpus."""

    asked: int
    made: dict[str, int]
    sentences: int
    tried: int
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def exhausted(self) -> bool:
        """Every sentence of the corpus was tried."""
        return self.tried >= self.sentences

    @property
    def short(self) -> bool:
        """Some subset has fewer pairs than asked."""
        return not self.made or min(self.made.values()) < self.asked

    @property
    def small_corpus(self) -> bool:
        """The corpus ran out before the request was met (every sentence tried, fewer pairs than asked)."""
        return self.exhausted and self.short

    def yields(self) -> dict[str, float]:
        """Pairs made per subset / sentences tried."""
        return {s: (n / self.tried if self.tried else 0.0) for s, n in self.made.items()}

    def made_text(self) -> str:
        """ "made 7 of 50 asked per subset", or per subset where they differ."""
        counts = sorted(set(self.made.values()))
        if len(counts) == 1:
            return f"made {counts[0]:,} of {self.asked:,} asked per subset"
        per = ", ".join(f"{s} {n:,}" for s, n in self.made.items())
        return f"made {per} of {self.asked:,} asked per subset"

    def sentence(self) -> str:
        """One sentence for the page and the CLI: made vs asked, from how many sentences, the yield, and (when the
        corpus ran out) why the others gave none."""
        made = self.made_text()
        most = max(self.made.values(), default=0)
        rate = f"{most / self.tried:.1%}" if self.tried else "0%"
        if self.exhausted:
            where = f"from all {self.sentences:,} sentences of the corpus"
        else:
            where = f"from the first {self.tried:,} of {self.sentences:,} sentences (in random order)"
        text = f"HEROS {made} {where}; yield {rate} of the sentences tried."
        if self.small_corpus:
            why = "; ".join(_reason(r, n) for r, n in sorted(self.skipped.items(), key=_by_count))
            text += f" The corpus is too small for {self.asked:,} per subset: of its sentences, {why}."
        if 0 < most < FEW_PAIRS:
            text += f" Scores on {most} pairs per subset are rough: read their 95% intervals."
        return text

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: asked, made per subset, sentences, tried, yield per subset, skipped, small_corpus."""
        return {
            "asked": self.asked,
            "made": dict(self.made),
            "sentences": self.sentences,
            "tried": self.tried,
            "yield": {s: round(v, 4) for s, v in self.yields().items()},
            "skipped": dict(self.skipped),
            "small_corpus": self.small_corpus,
            "text": self.sentence(),
        }


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return -item[1], item[0]


def coverage(ps: PairSet) -> Coverage:
    """The coverage of one generated pair set."""
    return Coverage(
        asked=ps.n_asked,
        made=ps.counts() if not ps.pairs.empty else {},
        sentences=ps.n_sentences,
        tried=ps.n_tried,
        skipped=dict(ps.skipped),
    )
