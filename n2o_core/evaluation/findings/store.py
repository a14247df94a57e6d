"""Findings results kept in the cache, per corpus and parameters, so that the dashboard opens on the last ones
computed for the same settings (by the page itself, `findings` or `warm --findings`), with when they were computed.

One JSON document per finding (`FindingResult.to_json`, read back with `result_from_json`), keyed by the corpus's
fingerprint, every field of `FindingParams` and the finding's own form (its rule, setting, cut-off and sensitivity
rows): a finding whose rule changes is computed again, never shown from an older rule.

    save_results(cache, corpus.fingerprint, params, results)
    got = load_results(cache, corpus.fingerprint, params)     # {finding id: FindingResult}, computed_at set

Beside them, per analysis, the last check's duration here (`AnalysisTiming`: seconds, its size in the analysis's
own units, the corpus's sentences and which embedders' corpus vectors it had to compute), whatever its settings:
`save_timing` / `load_timings`, from which `estimate.estimate_check` scales how long a new check takes.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from n2o_core.evaluation.findings.catalog import FINDINGS
from n2o_core.evaluation.findings.result import FindingResult, result_from_json
from n2o_core.evaluation.findings.verdict import Finding
from n2o_core.storage.fileio import hash_key

if TYPE_CHECKING:
    from n2o_core.storage.cache import Cache

#: The parameters of a check: a `compute.FindingParams` (any dataclass; not imported, so that `compute` can keep)
FindingParams = Any

#: Bump when what a stored result holds changes.
STORE_VERSION = "2"  # 2: the analysis's code identity in the key (results of older HEROS rules dropped)
TIMING_REL = "findings/last-timing.json"


@dataclass(frozen=True)
class AnalysisTiming:
    """How long one analysis of a check took: seconds, its size (`estimate.analysis_size`'s units), the corpus's
    sentences, the embedders whose corpus vectors it computed (not cached before) and where it was measured."""

    seconds: float
    size: float
    sentences: int
    embedded: tuple[str, ...] = ()
    where: str = "here"


def code_identity(analysis: str) -> list[str]:
    """What of the code shapes an analysis's evidence beyond the finding's own form: the HEROS generator's version
    and the hash of its rules and lexicon, the probing tasks' parse and readout versions (a result computed by an
    older generator or task builder is computed again, never shown as this code's)."""
    if analysis == "heros":
        from n2o_core.evaluation.heros.pair_cache import GENERATOR_VERSION, rules_digest

        return [GENERATOR_VERSION, rules_digest()]
    if analysis == "probe":
        from n2o_core.evaluation.probe.parse import PARSE_VERSION
        from n2o_core.evaluation.probe.readout import READOUT_VERSION

        return [PARSE_VERSION, READOUT_VERSION]
    return []


def _finding_key(f: Finding) -> str:
    return hash_key(
        STORE_VERSION,
        f.id,
        f.rule,
        f.scoring,
        f.cutoff_reason,
        f.embedders,
        [label for label, _ in f.sensitivity],
        code_identity(f.analysis),
    )


def _rel(corpus_fingerprint: str, params: FindingParams, f: Finding) -> str:
    return f"findings/{corpus_fingerprint}/{hash_key(asdict(params))}/{f.id}-{_finding_key(f)}.json"


def stored_at() -> str:
    """Now, as results record when they were computed ('2026-11-26 19:40 UTC')."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def save_results(
    cache: Cache, corpus_fingerprint: str, params: FindingParams, results: Iterable[FindingResult]
) -> None:
    """Keep each result (its `computed_at` set to now when empty) for this corpus and these parameters."""
    for r in results:
        if not r.computed_at:
            r.computed_at = stored_at()
        cache.save_json(
            _rel(corpus_fingerprint, params, r.finding), r.to_json(), description=f"finding {r.finding.id} ({r.status})"
        )


def load_results(
    cache: Cache, corpus_fingerprint: str, params: FindingParams, findings: Sequence[Finding] = FINDINGS
) -> dict[str, FindingResult]:
    """The kept results of `findings` for this corpus and these parameters, by finding id (those never computed, or
    computed under another form of their rule, are absent)."""
    out: dict[str, FindingResult] = {}
    for f in findings:
        doc = cache.load_json(_rel(corpus_fingerprint, params, f))
        if doc is None:
            continue
        try:
            out[f.id] = result_from_json(f, doc)
        except (ValueError, KeyError, TypeError):
            continue  # an unreadable document: computed again when asked
    return out


def save_timing(cache: Cache, analysis: str, timing: AnalysisTiming) -> None:
    """Keep `timing` as the last one of `analysis` (the others' are kept as they are)."""
    doc = cache.load_json(TIMING_REL)
    doc = doc if isinstance(doc, dict) else {}
    doc[analysis] = asdict(timing)
    cache.save_json(TIMING_REL, doc, description="findings: the last check's seconds per analysis")


def load_timings(cache: Cache) -> dict[str, AnalysisTiming]:
    """The last timing of each analysis checked with this cache, by analysis ({} before the first; an unreadable
    entry is left out)."""
    doc = cache.load_json(TIMING_REL)
    out: dict[str, AnalysisTiming] = {}
    for analysis, row in (doc if isinstance(doc, dict) else {}).items():
        try:
            t = AnalysisTiming(**row)
            out[analysis] = AnalysisTiming(float(t.seconds), float(t.size), int(t.sentences), tuple(t.embedded))
        except (TypeError, ValueError):
            continue
    return out
