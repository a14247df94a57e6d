"""The seeds' qualitative findings, checked live on the current corpus with the built-in embedders.

Each `Finding` quotes one claim of a paper (with its section), names the embedders it needs, the analysis it rests
on and the one setting its status is judged on (the paper's, else `DEFAULT_SETTING`, the same for every finding),
and writes its rule out as the paper words the claim (where the paper gives no number: `DEFAULT_RULE`, the same for
every finding): a pure check function turns computed results (`Evidence`) into a `Verdict` -- passed (✓), failed
(✗, with its numbers) or None (could not be checked, with the reason). `evidence(ws, finding, params)` computes
what one finding needs through the existing cores (pipeline + overlap for neighbors, heros.run for minimal pairs,
sts for human similarity, probe.run for probing, analyses.seed_reference for the same-recipe reference);
`check_finding` / `check_findings` put the two together, and `judge` judges evidence already computed.

    params = FindingParams(k=50, n_queries=100, n_samples=5, seed=0, heros_pairs=200)
    results = check_findings(ws, params=params)        # every finding in FINDINGS
    for r in results: print(r.mark, r.finding.title, r.holds_text, r.explanation)

Each finding is judged on every run of `FindingParams.run_seeds` × `run_sizes`, and its status comes from its fixed
setting alone over those runs (`STATUSES`: holds, fails, unstable, not_checked; they sum to the findings). Other
settings, stricter or looser readings of the paper's words and, beyond the papers, linear CKA (`CKA_SCORING`) are
sensitivity rows with their own ✓ / ✗ and holds of runs; a setting or reading that judges some run differently makes
the finding `setting_sensitive` (a flag beside the status, counted apart in the summary), another measure never
does (`OTHER_MEASURES`). A finding that does not hold says what may explain it (`FindingResult.explanation`).
Claims about models that are not available offline (ELMo, BERT, GPT, InferSent, USE, BiLSTM encoders, ...) are
mapped to an offline analogue only where that is faithful; the others are listed in `NOT_TESTABLE` with the reason.
Results are kept in the cache per corpus and parameters (`store`), so the dashboard opens on the last ones.

The package, by job: `verdict` (the building blocks, defaults and statuses), `result` (`FindingResult`, `judge`, the
JSON document, the page's `overview_table`), `rules_n2o` / `rules_tokens` / `rules_heros` / `rules_sts` / `rules_probe`
(the pure rules, by paper; `rules_cka`: the N2O rules on linear CKA), `catalog` (FINDINGS, `finding`; the findings by
paper in `catalog_n2o`, `catalog_papers`, `catalog_senteval`, what they share in `catalog_text`), `untestable`
(NOT_TESTABLE), `compute` (the evidence through the cores; `cka_matrix`, linear CKA by `measures.run.feature_matrix`;
`check_finding`, `check_findings`), `store` (results and each analysis's last timing kept in the cache) and
`estimate` (how long a check will take here). This face exports their public names.
"""

from __future__ import annotations

from n2o_core.evaluation.findings.catalog import FINDINGS, finding
from n2o_core.evaluation.findings.catalog_text import (
    HEROS_SET,
    HEROS_TRANSFORMERS,
    N2O_SET,
    PROBE_SET,
    STATIC,
    STS_SET,
    TFIDF_FAMILIES,
    TRANSFORMERS,
)
from n2o_core.evaluation.findings.compute import (
    FindingParams,
    check_finding,
    check_findings,
    cka_matrix,
    evidence,
    heros_evidence,
    neighbor_evidence,
    popular_evidence,
    probe_evidence,
    sts_evidence,
)
from n2o_core.evaluation.findings.estimate import CheckEstimate, analysis_size, embed_seconds, estimate_check, timing_of
from n2o_core.evaluation.findings.result import (
    FindingResult,
    computed_range,
    findings_document,
    judge,
    overview_table,
    result_from_json,
    summary_counts,
    summary_line,
)
from n2o_core.evaluation.findings.rules_cka import (
    BY_VALUE,
    cka_apart_from_every_family,
    cka_evidence,
    cka_further_than_analogue,
    cka_group_agreement,
    cka_low_with_others,
    cka_subword_apart,
)
from n2o_core.evaluation.findings.rules_heros import (
    antonym_effect_apart,
    main_below_antonym,
    most_negations_above_synonym,
    negation_far_above,
    negations_above_synonym,
    negations_above_synonym_means,
    paired_difference,
)
from n2o_core.evaluation.findings.rules_n2o import (
    PAPER_LOWEST_KAPPA,
    above_chance,
    above_chance_by_margin,
    apart_from_every_family,
    further_than_analogue,
    group_agreement,
    low_with_others,
    rankings_stable,
    subword_apart,
)
from n2o_core.evaluation.findings.rules_probe import above_chance as probe_above_chance
from n2o_core.evaluation.findings.rules_probe import at_chance, beats, wilson
from n2o_core.evaluation.findings.rules_sts import PAPER_RANGE, znorm_narrows_range, znorm_raises
from n2o_core.evaluation.findings.rules_tokens import (
    below_analogue,
    highest_apart,
    lowest_apart,
    popular_share_more_words,
)
from n2o_core.evaluation.findings.store import (
    AnalysisTiming,
    load_results,
    load_timings,
    save_results,
    save_timing,
    stored_at,
)
from n2o_core.evaluation.findings.untestable import NOT_TESTABLE
from n2o_core.evaluation.findings.verdict import (
    ALL_WORDS,
    CKA_SCORING,
    CONTENT,
    DEFAULT_RULE,
    DEFAULT_SETTING,
    HEROS,
    MIN_UNITS,
    NEIGHBORS,
    NO_TFIDF,
    OTHER_MEASURES,
    PAPERS,
    PROBE,
    READINGS,
    STATUS_LABELS,
    STATUS_MARKS,
    STATUSES,
    STS,
    Check,
    Evidence,
    Finding,
    N2OEvidence,
    PopularEvidence,
    Untestable,
    Verdict,
    mark,
    row_kind,
    row_title,
)

__all__ = [
    "ALL_WORDS",
    "BY_VALUE",
    "CKA_SCORING",
    "CONTENT",
    "DEFAULT_RULE",
    "DEFAULT_SETTING",
    "FINDINGS",
    "HEROS",
    "HEROS_SET",
    "HEROS_TRANSFORMERS",
    "MIN_UNITS",
    "N2O_SET",
    "NEIGHBORS",
    "NOT_TESTABLE",
    "NO_TFIDF",
    "OTHER_MEASURES",
    "PAPERS",
    "PAPER_LOWEST_KAPPA",
    "PAPER_RANGE",
    "PROBE",
    "PROBE_SET",
    "READINGS",
    "STATIC",
    "STATUSES",
    "STATUS_LABELS",
    "STATUS_MARKS",
    "STS",
    "STS_SET",
    "TFIDF_FAMILIES",
    "TRANSFORMERS",
    "AnalysisTiming",
    "Check",
    "CheckEstimate",
    "Evidence",
    "Finding",
    "FindingParams",
    "FindingResult",
    "N2OEvidence",
    "PopularEvidence",
    "Untestable",
    "Verdict",
    "above_chance",
    "above_chance_by_margin",
    "analysis_size",
    "antonym_effect_apart",
    "apart_from_every_family",
    "at_chance",
    "beats",
    "below_analogue",
    "check_finding",
    "check_findings",
    "cka_apart_from_every_family",
    "cka_evidence",
    "cka_further_than_analogue",
    "cka_group_agreement",
    "cka_low_with_others",
    "cka_matrix",
    "cka_subword_apart",
    "computed_range",
    "embed_seconds",
    "estimate_check",
    "evidence",
    "finding",
    "findings_document",
    "further_than_analogue",
    "group_agreement",
    "heros_evidence",
    "highest_apart",
    "judge",
    "load_results",
    "load_timings",
    "low_with_others",
    "lowest_apart",
    "main_below_antonym",
    "mark",
    "most_negations_above_synonym",
    "negation_far_above",
    "negations_above_synonym",
    "negations_above_synonym_means",
    "neighbor_evidence",
    "overview_table",
    "paired_difference",
    "popular_evidence",
    "popular_share_more_words",
    "probe_above_chance",
    "probe_evidence",
    "rankings_stable",
    "result_from_json",
    "row_kind",
    "row_title",
    "save_results",
    "save_timing",
    "stored_at",
    "sts_evidence",
    "subword_apart",
    "summary_counts",
    "summary_line",
    "timing_of",
    "wilson",
    "znorm_narrows_range",
    "znorm_raises",
]
