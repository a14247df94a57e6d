"""The findings' building blocks: a check's `Verdict` (✓ / ✗ / not checked, with its numbers), the `Evidence` the
checks read (N2O, token overlap, popular neighbors, HEROS scores, human-similarity correlations, probing
accuracies), a `Finding` of a paper with its rule, an `Untestable` one; the one default setting and the one default
rule (`DEFAULT_SETTING`, `DEFAULT_RULE`), the statuses, and the small helpers the rule modules share (`unchecked`,
`fmt`, `missing`). A finding judged over every run is a `result.FindingResult`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from n2o_core.analyses.overlap import chance_level
from n2o_core.text import SBERT_STOP_WORDS_NAME, TOKEN_WORDS_DEFAULT

NEIGHBORS, HEROS, STS, PROBE = "neighbors", "heros", "sts", "probe"
PAPERS = {
    "N2O": "Lin & Smith (2019), Situating Sentence Embedders with Nearest Neighbor Overlap",
    "Pitfalls": "Eger et al. (2019), Pitfalls in the Evaluation of Sentence Embeddings",
    "Heros": "Chiang et al., Revealing the Blind Spot of Sentence Encoder Evaluation by Heros",
    "SentEval": "Conneau et al. (2018), What you can cram into a single vector: probing sentence embeddings",
}
#: Token-overlap compositions: content words or every word (the keys of the token page's `words=`; the tool's
#: one default, `TOKEN_WORDS_DEFAULT`, is content words, on that page and in every finding).
CONTENT, ALL_WORDS = "content", "all"
#: Popular-neighbor evidence with the default composition, tf-idf left out of the embedders whose top m must agree.
NO_TFIDF = "content, without tfidf"

#: Where a paper is silent about a setting, every finding uses this one default (never a per-finding choice).
DEFAULT_SETTING = (
    f"the tool's one default where a paper is silent, the same for every finding and page: token overlap counts "
    f"content words (stop words of {SBERT_STOP_WORDS_NAME} dropped), as the token-overlap page opens "
    f"({TOKEN_WORDS_DEFAULT!r}); word vectors averaged over every token (N2O Table 1's composition); raw cosine; "
    "exact search"
)
#: The fewest units (queries, originals with both minimal pairs) a comparison over units is judged on.
MIN_UNITS = 10
#: Where a paper gives no number, every rule reads its words this one way (`cutoff_reason` says when it applies).
DEFAULT_RULE = (
    "The paper gives no number here, so the tool's one default for every finding applies: a difference counts when "
    "it lies beyond the 95% sampling error (values on the same units, such as query samples or the minimal pairs "
    "of one original: the 95% interval of the paired difference excludes 0; values whose intervals are drawn "
    "apart, as Fig. 5's error bars: the two intervals do not overlap); “at chance” when the interval contains "
    "chance; where no interval exists (one query sample; the Lee pairs, which share their documents) the point "
    f"value decides; a comparison over units needs at least {MIN_UNITS} of them; “most” is more than half, "
    "“almost all” all but at most one."
)

#: The sensitivity row that applies an N2O finding's rule to the linear CKA matrix of the same embedders on the same
#: corpus: beyond the papers, a different measure rather than another setting of the paper's.
CKA_SCORING = "linear CKA instead of N2O (beyond the paper: Kornblith et al. 2019)"
#: Sensitivity rows that swap the measure, not the setting: shown and counted like the others (their own ✓ / ✗,
#: holds of runs) but, a different measure's disagreement saying nothing about the paper's setting, never making a
#: finding setting-sensitive (`FindingResult.sensitive_to`).
OTHER_MEASURES = frozenset({CKA_SCORING})
#: How a sensitivity row that reads the paper's words differently (rather than changing a setting) is labelled.
READINGS = ("stricter reading", "looser reading", "narrower reading", "wider reading")

#: A finding's status over every run of its fixed setting (`FindingResult.status`); they sum to the findings.
STATUSES = ("holds", "fails", "unstable", "not_checked")
#: The mark of each status: ✓ every run, ✗ no run, ◐ some runs, – no run could be judged.
STATUS_MARKS = {"holds": "✓", "fails": "✗", "unstable": "◐", "not_checked": "–"}
#: How each status reads in a sentence.
STATUS_LABELS = {"holds": "holds", "fails": "fails", "unstable": "unstable across runs", "not_checked": "not checked"}


def row_kind(label: str) -> str:
    """A sensitivity row's kind: "measure" (another measure, `OTHER_MEASURES`), "reading" (a stricter or looser
    reading of the paper's words, labelled with one of `READINGS`) or "setting" (another setting)."""
    if label in OTHER_MEASURES:
        return "measure"
    return "reading" if label.startswith(READINGS) else "setting"


def row_title(label: str) -> str:
    """A sensitivity row as outputs name it: a reading as it is labelled ("stricter reading: ..."), another
    setting or measure with its kind in front ("setting: every word counted, ...")."""
    kind = row_kind(label)
    return label if kind == "reading" else f"{kind}: {label}"


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
        """The chance level k/(N − 1) (`overlap.chance_level`); 0 without a corpus (the CKA rows' evidence)."""
        return chance_level(self.k, self.corpus_size) if self.corpus_size >= 2 else 0.0

    @property
    def names(self) -> list[str]:
        return list(self.mean.index)

    def samples(self) -> tuple[pd.DataFrame, ...]:
        """The N2O matrix of each query sample (the mean alone when the per-sample matrices were not kept)."""
        return self.per_sample or (self.mean,)


@dataclass(frozen=True)
class PopularEvidence:
    """Token overlap with the query of its popular neighbors (in every embedder's top m) and of all the embedders'
    k neighbors, one value of each per query that has at least one popular neighbor (same order)."""

    m: int
    k: int
    n_popular: int
    popular: np.ndarray  # per query: mean overlap of its popular neighbors
    neighbors: np.ndarray  # per query: mean overlap of every embedder's k neighbors (each slot once)

    @property
    def n_queries(self) -> int:
        return len(self.popular)


@dataclass
class Evidence:
    """What the checks read: any of N2O, token overlap (per composition), popular neighbors (per composition),
    HEROS scores (heros.score.RESULT_COLUMNS) and each minimal pair's normalized score, human-similarity
    correlations (sts.RESULT_COLUMNS), probing accuracies (probe.run.RESULT_COLUMNS and its tasks), the linear CKA
    matrix of the N2O embedders (for the sensitivity rows beyond the paper) and the same-recipe reference of the
    corpus-trained embedders."""

    n2o: N2OEvidence | None = None
    tokens: dict[str, pd.DataFrame] = field(default_factory=dict)
    random_tokens: dict[str, float] = field(default_factory=dict)
    popular: dict[str, PopularEvidence] = field(default_factory=dict)
    heros: pd.DataFrame | None = None
    #: one row per (embedder, minimal pair): embedder, subset, original, normalized
    heros_pairs: pd.DataFrame | None = None
    sts: pd.DataFrame | None = None
    #: probing accuracies (embedder, task, classifier, accuracy, n_test, ...) and the tasks (task, majority, skipped)
    probe: pd.DataFrame | None = None
    probe_tasks: pd.DataFrame | None = None
    setup: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    #: linear CKA of every two embedders of `n2o` on every sentence of the run's corpus (None: not computed)
    cka: pd.DataFrame | None = None
    #: how `cka` was computed (sentences, tf-idf's route), or why it is missing
    cka_note: str = ""
    #: N2O between two trainings of a corpus-trained embedder that differ in the seed alone, by embedder: mean and
    #: std over the same query samples at the same k (`analyses.seed_reference`)
    seed_reference: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: the other runs (seeds × corpus sizes) of the same analysis, each judged like this one
    replicates: list[Evidence] = field(default_factory=list)


Check = Callable[[Evidence], Verdict]


@dataclass(frozen=True)
class Finding:
    """One qualitative finding of a paper, the embedders and analysis it needs, and its rule.

    `statement`: the paper's sentence, quoted; `tested`: what is computed here (the offline analogue, when one is
    used, is named); `scoring`: the composition / scoring of the fixed setting the status is judged on;
    `setting_reason`: the rule that chose it (the paper's words, else `DEFAULT_SETTING`, the same for every
    finding); `sensitivity`: (label, check) of other settings, stricter or looser readings (`READINGS`) and other
    measures, shown beside it with their own ✓ / ✗ but never deciding it; `cutoff_reason`: where each number in
    the rule comes from (the paper's, or `DEFAULT_RULE`); `history`: when the setting or rule changed and why;
    `explanation`: what may explain a failure here (model substitution, corpus-trained vectors, generated pairs,
    other data), shown wherever the finding does not hold; `data`: the data it reads when not the current corpus."""

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
    history: str = ""
    explanation: str = ""


@dataclass(frozen=True)
class Untestable:
    """A finding of a paper this tool cannot check offline, and why."""

    paper: str
    where: str
    statement: str
    reason: str
