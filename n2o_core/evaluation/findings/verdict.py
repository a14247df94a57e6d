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

from n2o_core.storage.fileio import json_plain

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
#: Popular-neighbor evidence with every word counted, tf-idf left out of the embedders whose top m must agree.
ALL_NO_TFIDF = "all, without tfidf"

#: Where a paper is silent, every finding uses this one default (never a per-finding choice).
DEFAULT_SETTING = (
    "the tool's one default where a paper is silent, the same for every finding: every token counted (lowercased "
    "words, no stop-word list), word vectors averaged over all tokens, raw cosine, exact search"
)

#: The sensitivity row that applies an N2O finding's rule to the linear CKA matrix of the same embedders on the same
#: corpus: beyond the papers, a different measure rather than another setting of the paper's.
CKA_SCORING = "linear CKA instead of N2O (beyond the paper: Kornblith et al. 2019)"
#: Sensitivity rows that swap the measure, not the setting: shown and counted like the others (their own ✓ / ✗,
#: holds of runs) but, a different measure's disagreement saying nothing about the paper's setting, never making a
#: finding "depends on the setting" (`FindingResult.status`).
OTHER_MEASURES = frozenset({CKA_SCORING})

#: The summary's categories (`FindingResult.status`), in the order they are counted.
STATUSES = ("holds", "fails", "depends_on_setting", "unstable", "not_checked")


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
    per_sample: tuple[pd.DataFrame, ...] = ()

    @property
    def chance(self) -> float:
        return self.k / (self.corpus_size - 1)

    @property
    def names(self) -> list[str]:
        return list(self.mean.index)

    def samples(self) -> tuple[pd.DataFrame, ...]:
        """The N2O matrix of each query sample (the mean alone when the per-sample matrices were not kept)."""
        return self.per_sample or (self.mean,)


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
    HEROS scores (heros.score.RESULT_COLUMNS), human-similarity correlations (sts.RESULT_COLUMNS) and the linear
    CKA matrix of the N2O embedders (for the sensitivity rows beyond the paper)."""

    n2o: N2OEvidence | None = None
    tokens: dict[str, pd.DataFrame] = field(default_factory=dict)
    random_tokens: dict[str, float] = field(default_factory=dict)
    popular: dict[str, PopularEvidence] = field(default_factory=dict)
    heros: pd.DataFrame | None = None
    sts: pd.DataFrame | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    #: linear CKA of every two embedders of `n2o` on every sentence of the run's corpus (None: not computed)
    cka: pd.DataFrame | None = None
    #: how `cka` was computed (sentences, tf-idf's route), or why it is missing
    cka_note: str = ""
    #: the other runs (seeds × corpus sizes) of the same analysis, each judged like this one
    replicates: list[Evidence] = field(default_factory=list)


Check = Callable[[Evidence], Verdict]


@dataclass(frozen=True)
class Finding:
    """One qualitative finding of a paper, the embedders and analysis it needs, and its rule.

    `statement`: the paper's words (quoted) or a close paraphrase; `tested`: what is computed here (the offline
    analogue, when one is used, is named); `scoring`: the composition / scoring the verdict uses, fixed before any
    result was seen; `setting_reason`: why (the paper's words, or `DEFAULT_SETTING` where the paper is silent);
    `sensitivity`: (label, check) of the other settings, shown beside the verdict with their own ✓ / ✗ but never
    deciding it; `cutoff_reason`: where each number in the rule comes from (or the test and its null); `data`:
    the data the finding reads when it is not the current corpus."""

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
    setting_reason: str = ""
    sensitivity: tuple[tuple[str, Check], ...] = ()
    paper_numbers: str = ""
    cutoff_reason: str = ""
    data: str = ""

    @property
    def alternative(self) -> tuple[str, Check] | None:
        """The first sensitivity setting (label, check), for readers of the former single alternative."""
        return self.sensitivity[0] if self.sensitivity else None


@dataclass(frozen=True)
class Untestable:
    """A finding of a paper this tool cannot check offline, and why."""

    paper: str
    where: str
    statement: str
    reason: str


@dataclass
class FindingResult:
    """A finding with its verdict under its own setting (`verdict`: the reference run, the first seed at the
    largest corpus size), the sensitivity settings' verdicts on the same run, how many of the runs (seeds ×
    corpus sizes) hold (`holds` of `runs`, runs that could not be judged not counted), the same for each
    sensitivity setting, one row per run, the setup, the embedders that failed and the time it took."""

    finding: Finding
    verdict: Verdict
    sensitivity: list[Verdict] = field(default_factory=list)
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    holds: int = 0
    runs: int = 0
    sensitivity_holds: list[tuple[int, int]] = field(default_factory=list)
    run_rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def mark(self) -> str:
        return self.verdict.mark

    @property
    def alternative(self) -> Verdict | None:
        """The first sensitivity setting's verdict, for readers of the former single alternative."""
        return self.sensitivity[0] if self.sensitivity else None

    @property
    def status(self) -> str:
        """One of STATUSES: not_checked (no run could be judged); depends_on_setting (a sensitivity setting's
        verdict differs from the verdict's on the reference run; the rows of `OTHER_MEASURES`, another measure
        rather than another setting, are not counted here); unstable (holds in some runs, not all); holds (every
        run); fails (no run)."""
        if self.runs == 0 or self.verdict.passed is None:
            return "not_checked"
        settings = [
            v
            for (label, _), v in zip(self.finding.sensitivity, self.sensitivity, strict=False)
            if label not in OTHER_MEASURES
        ]
        if any(v.passed is not None and v.passed != self.verdict.passed for v in settings):
            return "depends_on_setting"
        if 0 < self.holds < self.runs:
            return "unstable"
        return "holds" if self.holds == self.runs else "fails"

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
            "setting_reason": f.setting_reason,
            "cutoff_reason": f.cutoff_reason,
            "data": f.data or "the current corpus",
            "paper_numbers": f.paper_numbers,
            "passed": self.verdict.passed,
            "summary": self.verdict.summary,
            "numbers": _json_numbers(self.verdict.numbers),
            "holds": self.holds,
            "runs": self.runs,
            "status": self.status,
            "sensitivity": [
                {
                    "scoring": label,
                    "passed": v.passed,
                    "summary": v.summary,
                    "numbers": _json_numbers(v.numbers),
                    "holds": h,
                    "runs": n,
                }
                for (label, _), v, (h, n) in zip(
                    f.sensitivity, self.sensitivity, self.sensitivity_counts(), strict=True
                )
            ],
            "run_verdicts": self.run_rows,
            "setup": self.setup,
            "errors": self.errors,
            "seconds": round(self.seconds, 2),
        }
        return out

    def sensitivity_counts(self) -> list[tuple[int, int]]:
        """(holds, runs) of each sensitivity setting, in `finding.sensitivity`'s order."""
        if len(self.sensitivity_holds) == len(self.sensitivity):
            return self.sensitivity_holds
        return [(int(v.passed is True), int(v.passed is not None)) for v in self.sensitivity]


def summary_counts(results: Sequence[FindingResult]) -> dict[str, int]:
    """How many findings hold, fail, depend on the setting, are unstable across runs or could not be checked
    (`FindingResult.status`), with the total: the top-level "summary" of `findings --json`."""
    out = {s: 0 for s in STATUSES}
    for r in results:
        out[r.status] += 1
    out["findings"] = len(results)
    return out


def findings_document(
    corpus_name: str, sentences: int, params: Any, results: Sequence[FindingResult]
) -> dict[str, Any]:
    """The `findings --json` document (the page's download is the same): corpus, sentences, the run's parameters
    (a dataclass or a mapping), the summary counts and every finding's `to_json()`; numpy scalars become Python
    numbers, so `json.dumps` needs no default."""
    raw = {
        "corpus": corpus_name,
        "sentences": int(sentences),
        "params": dict(vars(params)) if not isinstance(params, Mapping) else dict(params),
        "summary": summary_counts(results),
        "findings": [r.to_json() for r in results],
    }
    return json_plain(raw)


def _json_numbers(d: Mapping[str, float]) -> dict[str, float | None]:
    return {k: (round(float(v), 6) if v is not None and np.isfinite(v) else None) for k, v in d.items()}
