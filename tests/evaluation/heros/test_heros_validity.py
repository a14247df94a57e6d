"""The validity the page and README state is the one docs/heros_sample.md records (its tables, counted here)."""

from __future__ import annotations

import re
from pathlib import Path

from n2o_core.evaluation.heros.validity import (
    SAMPLE_DOC,
    VALID_BEFORE_FIXES,
    VALID_BLIND,
    VALID_SHIPPED,
    validity_sentence,
)

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


def _section(text: str, title: str) -> str:
    """The body of the '## <title>…' section, up to the next '## ' heading."""
    return text.split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]


def test_stated_validity_is_the_judged_tables():
    text = (ROOT / SAMPLE_DOC).read_text(encoding="utf-8")
    blind = _section(text, "Sample 3: blind reading of the rules at commit 5257258")
    assert _counted(blind) == VALID_BLIND
    assert _counted(_section(text, "Sample 2")) == VALID_SHIPPED
    assert _counted(_section(text, "Sample 1")) == VALID_BEFORE_FIXES
    sentence = validity_sentence()
    for subset, (valid, read) in VALID_BLIND.items():
        assert f"| {subset} | {valid} / {read} |" in blind  # the section's summary table agrees with its tables
        assert f"{subset} {valid}/{read}" in sentence
    assert "read blind" in sentence and "not seen the rules" in sentence
    assert ", ".join(str(v) for v, _ in VALID_SHIPPED.values()) in sentence
    assert ", ".join(str(v) for v, _ in VALID_BEFORE_FIXES.values()) in sentence


def test_blind_section_states_each_invalid_pair_and_yield_per_corpus():
    """Every pair judged n in sample 3's tables is listed with its reason, and each corpus's yield is stated."""
    blind = _section(
        (ROOT / SAMPLE_DOC).read_text(encoding="utf-8"), "Sample 3: blind reading of the rules at commit 5257258"
    )
    head, tables = blind.split("\n### ", 1)
    for block in ("### " + tables).split("\n### "):
        name = block.removeprefix("### ").split(" (", 1)[0]
        for row in re.findall(r"^\| (\d+) \|.*\| n: ([^|]+) \|$", block, flags=re.M):
            assert f"- {name} {row[0]}: " in head, (name, row[0])
    for corpus in ("bbc-news", "lee-news", "wiki"):
        assert re.search(rf"^\| {corpus} \| \d+ \| .+ \| \d+\.\d% \|", head, flags=re.M), corpus
