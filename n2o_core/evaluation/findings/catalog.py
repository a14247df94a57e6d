"""The catalogue: every finding of the papers checked here (`FINDINGS`, in the papers' order: N2O, Pitfalls, Heros,
SentEval), and `finding(id)`. Each finding is bound to its rule, the setting its status is judged on and why, its
sensitivity rows (other settings, stricter or looser readings of the paper's words, and, for the findings that
judge the N2O matrix between embedders, the same rule on linear CKA), where each cut-off comes from, its history
and what may explain a failure. The findings by paper live in `catalog_n2o`, `catalog_papers` (Pitfalls and
Heros) and `catalog_senteval`; what they share in `catalog_text`; the untestable ones in `untestable`."""

from __future__ import annotations

from n2o_core.errors import N2OError
from n2o_core.evaluation.findings.catalog_n2o import N2O_FINDINGS
from n2o_core.evaluation.findings.catalog_papers import HEROS_FINDINGS, PITFALLS_FINDINGS
from n2o_core.evaluation.findings.catalog_senteval import SENTEVAL_FINDINGS
from n2o_core.evaluation.findings.verdict import Finding

FINDINGS: tuple[Finding, ...] = (*N2O_FINDINGS, *PITFALLS_FINDINGS, *HEROS_FINDINGS, *SENTEVAL_FINDINGS)

_BY_ID = {f.id: f for f in FINDINGS}


def finding(fid: str) -> Finding:
    """The finding with this id (N2OError when unknown)."""
    try:
        return _BY_ID[fid]
    except KeyError:
        raise N2OError(f"Unknown finding '{fid}'; known: {', '.join(_BY_ID)}.") from None
