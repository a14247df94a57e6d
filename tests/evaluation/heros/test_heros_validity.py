"""The validity the page and README state is the one docs/heros_sample.md records (its tables, counted here)."""

from __future__ import annotations

import re
from pathlib import Path

from n2o_core.evaluation.heros.subsets import ALL_SUBSETS
from n2o_core.evaluation.heros.validity import SAMPLE_DOC, VALID_BEFORE_FIXES, VALID_SHIPPED, validity_sentence

ROOT = Path(__file__).resolve().parents[3]


def _counted(section: str) -> dict[str, tuple[int, int]]:
    """Per subset: rows whose 'valid?' cell starts with y, and rows, counted from the tables themselves."""
    out = {}
    for block in re.split(r"^### ", section, flags=re.M)[1:]:
        name = block.split(" (", 1)[0].strip()
        rows = [ln for ln in block.splitlines() if re.match(r"^\| \d+ \|", ln)]
        valid = [ln for ln in rows if ln.rstrip(" |").rsplit("| ", 1)[-1].startswith("y")]
        out[name] = (len(valid), len(rows))
        assert f"valid: {len(valid)} / {len(rows)}" in block, name
    return out


def test_stated_validity_is_the_judged_tables():
    text = (ROOT / SAMPLE_DOC).read_text(encoding="utf-8")
    shipped, before = text.split("## Sample 2", 1)[1].split("## Sample 1", 1)
    assert _counted(shipped) == VALID_SHIPPED
    assert _counted(before) == VALID_BEFORE_FIXES
    assert set(VALID_SHIPPED) == set(ALL_SUBSETS)
    for subset, (valid, read) in VALID_SHIPPED.items():
        assert f"| {subset} |" in text and f"{valid} / {read}" in text
        assert f"{subset} {valid}/{read}" in validity_sentence()
