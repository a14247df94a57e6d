"""The seeds' qualitative findings, checked live on the current corpus with the built-in embedders.

Each `Finding` states one claim of a paper (quoted, with its section), names the embedders it needs, the
analysis it rests on and how sentences are composed / scored, and writes its rule out: a pure check function
turns computed results (`Evidence`) into a `Verdict` -- passed (✓), failed (✗, with its numbers) or None
(could not be checked, with the reason). `evidence(ws, finding, params)` computes what one finding needs through
the existing cores (pipeline + overlap for neighbors, heros.run for minimal pairs, sts for human similarity);
`check_finding` / `check_findings` put the two together.

    params = FindingParams(k=50, n_queries=100, n_samples=5, seed=0, heros_pairs=200)
    results = check_findings(ws, params=params)        # every finding in FINDINGS
    for r in results: print(r.mark, r.finding.title, r.verdict.summary)

Settings are the papers' unless stated: N2O findings use k = 50 (capped at N - 1), the pooled query samples,
exact search on raw cosine (no z-normalization); HEROS findings use Heros' normalization (s - b)/(1 - b) on pairs
made from the corpus; the human-similarity findings use gensim's Lee pairs (the corpus has no human scores).
Each finding's verdict uses one setting fixed before any result was seen (`Finding.scoring`, with its reason in
`setting_reason`: the paper's own setup, or `DEFAULT_SETTING` where the paper is silent, the same for every
finding); other settings (stop words kept vs dropped, tf-idf left out) are judged beside it as sensitivity rows,
so the effect of the setting is shown and counted (`FindingResult.status`, `summary_counts`), never chosen.
Beyond the papers, the findings that judge the N2O matrix between embedders add one sensitivity row
(`CKA_SCORING`): the same rule on the linear CKA matrix of the same embedders on every sentence of the same corpus
(`rules_cka`, `cka_matrix`); it has its own ✓ / ✗ and holds of runs but never makes a finding depend on the
setting (`OTHER_MEASURES`).
Each finding is judged on every run of `FindingParams.run_seeds` × `run_sizes` and reports "holds in x of n".
Claims about models that are not available offline (ELMo, BERT, GPT, InferSent, USE, ...) are mapped to an
offline analogue only where that is faithful; the others are listed in `NOT_TESTABLE` with the reason.

The package, by job: `verdict` (the result types), `rules_n2o` / `rules_heros` / `rules_sts` (the pure rules, by
paper; `rules_cka`: the N2O rules on linear CKA), `catalog` (FINDINGS, `finding`), `untestable` (NOT_TESTABLE)
and `compute` (the evidence through the cores; `cka_matrix`, `judge`, `check_finding`, `check_findings`). This face
exports their public names.
"""

from __future__ import annotations

from n2o_core.evaluation.findings.catalog import (
    FINDINGS,
    HEROS_SET,
    N2O_SET,
    STATIC,
    STS_SET,
    TFIDF_FAMILIES,
    TRANSFORMERS,
    finding,
)
from n2o_core.evaluation.findings.compute import (
    CkaCache,
    FindingParams,
    check_finding,
    check_findings,
    cka_matrix,
    evidence,
    heros_evidence,
    judge,
    neighbor_evidence,
    popular_evidence,
    sts_evidence,
)
from n2o_core.evaluation.findings.rules_cka import (
    BY_VALUE,
    cka_apart_from_every_family,
    cka_evidence,
    cka_further_than_analogue,
    cka_group_agreement,
    cka_subword_apart,
)
from n2o_core.evaluation.findings.rules_heros import (
    antonym_clearly_below_synonym,
    main_below_antonym,
    negation_far_above,
    negations_above_synonym,
)
from n2o_core.evaluation.findings.rules_n2o import (
    PAPER_LOWEST_KAPPA,
    above_chance,
    apart_from_every_family,
    further_than_analogue,
    group_agreement,
    highest_apart,
    lowest_apart,
    popular_share_more_words,
    rankings_stable,
    subword_apart,
)
from n2o_core.evaluation.findings.rules_sts import znorm_narrows_range, znorm_raises
from n2o_core.evaluation.findings.untestable import NOT_TESTABLE
from n2o_core.evaluation.findings.verdict import (
    ALL_NO_TFIDF,
    ALL_WORDS,
    CKA_SCORING,
    CONTENT,
    DEFAULT_SETTING,
    HEROS,
    NEIGHBORS,
    OTHER_MEASURES,
    PAPERS,
    STATUSES,
    STS,
    Check,
    Evidence,
    Finding,
    FindingResult,
    N2OEvidence,
    PopularEvidence,
    Progress,
    Untestable,
    Verdict,
    findings_document,
    mark,
    summary_counts,
)

__all__ = [
    "ALL_NO_TFIDF",
    "ALL_WORDS",
    "BY_VALUE",
    "CKA_SCORING",
    "CONTENT",
    "DEFAULT_SETTING",
    "FINDINGS",
    "HEROS",
    "HEROS_SET",
    "N2O_SET",
    "NEIGHBORS",
    "NOT_TESTABLE",
    "OTHER_MEASURES",
    "PAPERS",
    "PAPER_LOWEST_KAPPA",
    "STATIC",
    "STATUSES",
    "STS",
    "STS_SET",
    "TFIDF_FAMILIES",
    "TRANSFORMERS",
    "Check",
    "CkaCache",
    "Evidence",
    "Finding",
    "FindingParams",
    "FindingResult",
    "N2OEvidence",
    "PopularEvidence",
    "Progress",
    "Untestable",
    "Verdict",
    "above_chance",
    "antonym_clearly_below_synonym",
    "apart_from_every_family",
    "check_finding",
    "check_findings",
    "cka_apart_from_every_family",
    "cka_evidence",
    "cka_further_than_analogue",
    "cka_group_agreement",
    "cka_matrix",
    "cka_subword_apart",
    "evidence",
    "finding",
    "findings_document",
    "further_than_analogue",
    "group_agreement",
    "heros_evidence",
    "highest_apart",
    "judge",
    "lowest_apart",
    "main_below_antonym",
    "mark",
    "negation_far_above",
    "negations_above_synonym",
    "neighbor_evidence",
    "popular_evidence",
    "popular_share_more_words",
    "rankings_stable",
    "sts_evidence",
    "subword_apart",
    "summary_counts",
    "znorm_narrows_range",
    "znorm_raises",
]
