"""SentEval probing's findings (Conneau et al. 2018, §4) that the probing module can check offline, on tasks built
from the current corpus: what the paper says of bag-of-vectors (BoV, averaged word vectors). The others are listed
in `untestable` with the reason."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from n2o_core.evaluation.findings.catalog_text import (
    BOV,
    BOV_FASTTEXT,
    DEFAULT_CUT,
    PROBE_HERE,
    PROBE_HISTORY,
    PROBE_REASON,
    PROBE_SCORING,
    PROBE_SET,
    WORD_BASELINE,
)
from n2o_core.evaluation.findings.rules_probe import above_chance, at_chance, beats
from n2o_core.evaluation.findings.verdict import PROBE, Check, Evidence, Finding, Verdict

#: The fixed classifier (Table 2's MLP) and the sensitivity row's (the appendix's logistic regression).
MLP, LR = "mlp", "lr"
_LR_ROW = "logistic regression instead of the MLP (the paper's appendix)"
_FASTTEXT_ROW = "BoV of fastText trained on the corpus (the paper's word vectors are fastText's, pretrained)"
_WORDS = ("tense", "subjnum", "objnum", "topconst")


def _c_chance(ev: Evidence, tasks: tuple[str, ...], eid: str = BOV, clf: str = MLP) -> Verdict:
    return at_chance(ev.probe, ev.probe_tasks, eid, clf, tasks)


def _c_above(ev: Evidence, tasks: tuple[str, ...], eid: str = BOV, clf: str = MLP) -> Verdict:
    return above_chance(ev.probe, ev.probe_tasks, eid, clf, tasks)


def _c_beats(ev: Evidence, eid: str = BOV, clf: str = MLP, baseline_clf: str = LR) -> Verdict:
    return beats(ev.probe, ev.probe_tasks, eid, WORD_BASELINE, clf, _WORDS, baseline_clf)


def _rows(check: Callable[..., Verdict], tasks: tuple[str, ...]) -> tuple[tuple[str, Check], ...]:
    return (
        (_LR_ROW, partial(check, tasks=tasks, clf=LR)),
        (_FASTTEXT_ROW, partial(check, tasks=tasks, eid=BOV_FASTTEXT)),
    )


_TESTED = (
    "BoV here: averaged pretrained GloVe (6B, 50-d) over every token, read out by the probing module's MLP on tasks "
    "built from this corpus (probe.tasks; at most the run's items per class)."
)
_ORDER = (
    "“Not surprisingly, word-order-unaware BoV performs randomly in BShift and in the more sophisticated semantic "
    "tasks SOMO and CoordInv.”"
)
_WORDS_CLAIM = (
    "“BoV is very good at the Tense, SubjNum, ObjNum, and TopConst tasks (much better than the word-based "
    "baselines), and well above chance in TreeDepth.”"
)
_CHANCE_CUT = (
    "“Performs randomly” is read as at chance: the 95% Wilson interval of the test accuracy contains the majority "
    "rate of the test split. " + DEFAULT_CUT
)
_ABOVE_CUT = (
    "“Good” / “well above chance” is read as above chance: the 95% Wilson interval of the test accuracy lies above "
    "the majority rate of the test split. " + DEFAULT_CUT
)


def _bov(
    fid: str,
    title: str,
    statement: str,
    tested: str,
    rule: str,
    check: Callable[..., Verdict],
    tasks: tuple[str, ...],
    numbers: str,
    cut: str,
    explanation: str = "",
) -> Finding:
    """A SentEval finding on BoV against chance on `tasks`: the fixed setting (GloVe BoV, the MLP) and its two rows
    (logistic regression; corpus-trained fastText)."""
    return Finding(
        fid,
        "SentEval",
        "§4, Table 2",
        title,
        statement,
        _TESTED + " " + tested,
        PROBE,
        PROBE_SET,
        rule,
        PROBE_SCORING,
        partial(check, tasks=tasks),
        PROBE_REASON,
        _rows(check, tasks),
        paper_numbers=numbers,
        cutoff_reason=cut,
        history=PROBE_HISTORY,
        explanation=explanation or f"{PROBE_HERE} The paper: {numbers}.",
    )


SENTEVAL_FINDINGS: tuple[Finding, ...] = (
    _bov(
        "senteval-bov-bshift",
        "Bag-of-vectors is at chance on word order (BShift)",
        _ORDER,
        "BShift: intact sentences against ones with two adjacent words swapped; an average of word vectors is the "
        "same for both orders.",
        "BoV's 95% Wilson interval of BShift test accuracy contains chance",
        _c_chance,
        ("bshift",),
        "BoV-fastText BShift 50.8 (chance 50.0), 10k test sentences",
        _CHANCE_CUT,
    ),
    _bov(
        "senteval-bov-somo-coordinv",
        "Bag-of-vectors is at chance on SOMO and CoordInv",
        _ORDER,
        "SOMO: a noun or verb replaced by another of similar bigram frequency; CoordInv: two coordinate clauses "
        "inverted.",
        "BoV's 95% Wilson interval of test accuracy contains chance on SOMO and on CoordInv",
        _c_chance,
        ("somo", "coordinv"),
        "BoV-fastText SOMO 54.2, CoordInv 54.8 (chance 50.0) on 10k test sentences: intervals of ±1 point, so the "
        "paper's own numbers lie above chance by this rule",
        _CHANCE_CUT,
        PROBE_HERE + " The paper's own BoV accuracies (54.2, 54.8) are above chance by this reading.",
    ),
    _bov(
        "senteval-bov-surface",
        "Bag-of-vectors is good at word content and sentence length",
        "“BoV's good WC and SentLen performance was already established by Adi et al. (2017).”",
        "WC: which of the mid-frequency words a sentence contains; SentLen: its length in 6 bins.",
        "BoV's 95% Wilson interval of test accuracy lies above chance on WC and on SentLen",
        _c_above,
        ("wc", "sentlen"),
        "BoV-fastText WC 91.6 (chance 0.5), SentLen 66.6 (chance 20.0)",
        _ABOVE_CUT,
    ),
    Finding(
        "senteval-bov-beats-words",
        "SentEval",
        "§4, Table 2",
        "Bag-of-vectors beats the word-based baseline on tense, number and top constituents",
        _WORDS_CLAIM,
        _TESTED + " The word-based baseline: tf-idf unigrams of the corpus read out by logistic regression on the "
        "sparse features (a linear classifier over word features, as the paper's Naive Bayes).",
        PROBE,
        PROBE_SET,
        "on Tense, SubjNum, ObjNum and TopConst: BoV's (MLP) 95% Wilson interval lies above tf-idf's (logistic "
        "regression)",
        PROBE_SCORING,
        _c_beats,
        PROBE_REASON,
        (
            ("both read out by logistic regression (the paper's appendix)", partial(_c_beats, clf=LR)),
            (_FASTTEXT_ROW, partial(_c_beats, eid=BOV_FASTTEXT)),
        ),
        paper_numbers="BoV-fastText Tense 89.1, SubjNum 82.1, ObjNum 79.8, TopConst 68.1 vs NB-uni-tfidf 77.7, 68.9, "
        "64.0, 41.9",
        cutoff_reason=(
            "“Much better than” is read as better beyond the sampling error: the two 95% Wilson intervals apart. "
            + DEFAULT_CUT
        ),
        history=PROBE_HISTORY,
        explanation=PROBE_HERE + " The paper's word-based baselines are Naive Bayes classifiers; here logistic "
        "regression reads the same tf-idf features.",
    ),
    _bov(
        "senteval-bov-treedepth",
        "Bag-of-vectors is well above chance on tree depth",
        _WORDS_CLAIM,
        "TreeDepth: the depth of the dependency tree (the paper: constituency), de-correlated from length.",
        "BoV's 95% Wilson interval of TreeDepth test accuracy lies above chance",
        _c_above,
        ("treedepth",),
        "BoV-fastText TreeDepth 37.1 (chance 17.9)",
        _ABOVE_CUT,
        PROBE_HERE + " Depth here counts dependency-tree words, not constituency nodes.",
    ),
)
