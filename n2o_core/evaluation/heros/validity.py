"""How valid the generated pairs are, as read by hand (docs/heros_sample.md): one definition for the page, the
CLI and the README, checked against that file by tests/evaluation/heros/test_heros_validity.py."""

from __future__ import annotations

from n2o_core.evaluation.heros.subsets import ALL_SUBSETS
from n2o_core.evaluation.heros.vetted import entries

#: Where the judgments are, and how the last blind sample (sample 4) was drawn.
SAMPLE_DOC = "docs/heros_sample.md"
SAMPLE_COMMAND = (
    "heros-sample --corpus builtin:bbc-news --corpus builtin:lee-news --corpus builtin:wiki --seed 93151 "
    "--sample-n 100 --sample-seed 93151"
)
#: The commit whose rules the last blind sample read, and the one the earlier blind sample read.
BLIND_COMMIT = "03cd5ad"
EARLIER_BLIND_COMMIT = "5257258"


def _of_100(*valid: int) -> dict[str, tuple[int, int]]:
    """Pairs judged valid / read, per subset (in ALL_SUBSETS' order), of 100 read per subset."""
    return {s: (v, 100) for s, v in zip(ALL_SUBSETS, valid, strict=True)}


#: By a reader who had not seen the rules or the fixes (sample 4: the generator of commit 03cd5ad on BBC News, Lee's
#: news and Wikipedia).
VALID_BLIND = _of_100(97, 100, 100, 100, 97, 100)
#: The blind reading before it (sample 3: the rules of commit 5257258, tightened afterwards for its failure classes;
#: docs/heros_sample.md says by which commits).
VALID_BLIND_EARLIER = _of_100(93, 96, 100, 98, 97, 100)
#: Earlier readings, by the rules' author, of earlier generators on BBC News: as shipped before issue 33 (sample 2)
#: and before that one's fixes (sample 1).
VALID_SHIPPED = _of_100(100, 100, 100, 100, 100, 100)
VALID_BEFORE_FIXES = _of_100(96, 97, 100, 98, 98, 99)


def validity_sentence() -> str:
    """One sentence for the page and the CLI: what the readings by hand measured, and for which generator."""
    blind = ", ".join(f"{s} {v}/{n}" for s, (v, n) in VALID_BLIND.items())
    earlier = ", ".join(f"{v}" for v, _ in VALID_BLIND_EARLIER.values())
    shipped = ", ".join(f"{v}" for v, _ in VALID_SHIPPED.values())
    before = ", ".join(f"{v}" for v, _ in VALID_BEFORE_FIXES.values())
    return (
        f"Validity of the generator of commit {BLIND_COMMIT}, read blind ({SAMPLE_DOC}, sample 4: 100 pairs per "
        f"subset drawn from BBC News, Lee's news and Wikipedia by a reader who had not seen the rules or their "
        f"fixes): valid in their sentence {blind}; with 100 pairs a subset, one pair is one point. The blind reading "
        f"before it (sample 3, the rules of commit {EARLIER_BLIND_COMMIT}, tightened since) found {earlier} of 100. "
        f"Earlier readings, by the rules' author, of earlier generators on BBC News found {shipped} and, before "
        f"that one's fixes, {before} of 100 (same subset order). Targets come from a "
        f"vetted lexicon of {_target_rows()} verb and adjective rows; another corpus may use other words, and few "
        "of its sentences may give a pair."
    )


def _target_rows() -> int:
    return sum(1 for e in entries() if e.is_target)
