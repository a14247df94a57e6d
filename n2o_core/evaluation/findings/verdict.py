"""The findings' result types: a check's `Verdict` (✓ / ✗ / not checked, with its numbers), the `Evidence` the
checks read (N2O, token overlap, popular neighbors, HEROS scores, human-similarity correlations), a `Finding` of
a paper with its rule, an `Untestable` one, and a `FindingResult` (with its JSON form). Also the small helpers the
rule modules share (`unchecked`, `fmt`, `missing`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: progress(stage text, done, total)
Progress = Callable[[str, int, int], None]

NEIGHBORS, HEROS, STS = "neighbors", "heros", "sts"
PAPERS = {
    "N2O": "Lin & Smith (2019), Situating Sentence Embedders with Nearest Neighbor Overlap",
    "Pitfalls": "Eger et al. (2019), Pitfalls in the Evaluation of Sentence Embeddings",
    "Heros": "Chiang et al., Revealing the Blind Spot of Sentence Encoder Evaluation by Heros",
}
#: Token-overlap compositions: content words (the token overlap page's default) or every word.
CONTENT, ALL_WORDS = "content", "all"


# =====================================================================================================================
# results


@dataclass(frozen=True)
class Verdict:
    """The outcome of one check: passed (True ✓ / False ✗ / None: not checked), one line with the numbers, the
    numbers by label, and an optional table of the values the rule looked at."""

    passed: bool | None
    summary: str
    numbers: dict[str, float] = field(default_factory=dict)
    table: pd.DataFrame | None = None

    @property
    def mark(self) -> str:
        return mark(self.passed)


def mark(passed: bool | None) -> str:
    """✓ for True, ✗ for False, – for None (not checked)."""
    return "✓" if passed is True else "✗" if passed is False else "–"


def unchecked(why: str) -> Verdict:
    """A verdict that could not be reached (passed None), with the reason."""
    return Verdict(None, f"not checked: {why}")


def fmt(x: float) -> str:
    """A number as the summaries show it (3 decimals)."""
    return f"{x:.3f}"


def missing(have: Sequence[str], need: Sequence[str]) -> list[str]:
    """The names in `need` that are not in `have`, in `need`'s order."""
    s = set(have)
    return [e for e in need if e not in s]


@dataclass(frozen=True)
class N2OEvidence:
    """Mean and std (across query samples) of N2O for every embedder pair at k, with the run's sizes, and the
    Spearman ρ between pair rankings across k and across samples (None when not computable)."""

    mean: pd.DataFrame
    std: pd.DataFrame
    k: int
    corpus_size: int
    n_queries: int
    n_samples: int
    rho_k: pd.DataFrame | None = None
    rho_samples: pd.DataFrame | None = None

    @property
    def chance(self) -> float:
        return self.k / (self.corpus_size - 1)

    @property
    def names(self) -> list[str]:
        return list(self.mean.index)


@dataclass(frozen=True)
class PopularEvidence:
    """Token overlap with the query of its popular neighbors (in every embedder's top m) and of all the embedders'
    k neighbors, over the queries that have at least one popular neighbor: mean and 95% t-interval over queries."""

    m: int
    k: int
    n_queries: int
    n_popular: int
    popular: tuple[float, float, float]  # mean, ci_low, ci_high
    neighbors: tuple[float, float, float]


@dataclass
class Evidence:
    """What the checks read: any of N2O, token overlap (per composition), popular neighbors (per composition),
    HEROS scores (heros.score.RESULT_COLUMNS) and human-similarity correlations (sts.RESULT_COLUMNS)."""

    n2o: N2OEvidence | None = None
    tokens: dict[str, pd.DataFrame] = field(default_factory=dict)
    random_tokens: dict[str, float] = field(default_factory=dict)
    popular: dict[str, PopularEvidence] = field(default_factory=dict)
    heros: pd.DataFrame | None = None
    sts: pd.DataFrame | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


Check = Callable[[Evidence], Verdict]


@dataclass(frozen=True)
class Finding:
    """One qualitative finding of a paper, the embedders and analysis it needs, and its rule.

    `statement`: the paper's words (quoted) or a close paraphrase; `tested`: what is computed here (the offline
    analogue, when one is used, is named); `scoring`: the composition / scoring the verdict uses; `alternative`:
    (label, check) of a second composition shown beside it."""

    id: str
    paper: str
    where: str
    title: str
    statement: str
    tested: str
    analysis: str
    embedders: tuple[str, ...]
    rule: str
    scoring: str
    check: Check
    alternative: tuple[str, Check] | None = None
    paper_numbers: str = ""


@dataclass(frozen=True)
class Untestable:
    """A finding of a paper this tool cannot check offline, and why."""

    paper: str
    where: str
    statement: str
    reason: str


@dataclass
class FindingResult:
    """A finding with its verdict (and the alternative composition's), the setup it was computed with, the
    embedders that failed and the time it took."""

    finding: Finding
    verdict: Verdict
    alternative: Verdict | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def mark(self) -> str:
        return self.verdict.mark

    def to_json(self) -> dict[str, Any]:
        f = self.finding
        out: dict[str, Any] = {
            "id": f.id,
            "paper": f.paper,
            "where": f.where,
            "title": f.title,
            "statement": f.statement,
            "tested": f.tested,
            "embedders": list(f.embedders),
            "rule": f.rule,
            "scoring": f.scoring,
            "paper_numbers": f.paper_numbers,
            "passed": self.verdict.passed,
            "summary": self.verdict.summary,
            "numbers": _json_numbers(self.verdict.numbers),
            "setup": self.setup,
            "errors": self.errors,
            "seconds": round(self.seconds, 2),
        }
        if self.alternative is not None and f.alternative is not None:
            out["alternative"] = {
                "scoring": f.alternative[0],
                "passed": self.alternative.passed,
                "summary": self.alternative.summary,
                "numbers": _json_numbers(self.alternative.numbers),
            }
        return out


def _json_numbers(d: Mapping[str, float]) -> dict[str, float | None]:
    return {k: (round(float(v), 6) if v is not None and np.isfinite(v) else None) for k, v in d.items()}
