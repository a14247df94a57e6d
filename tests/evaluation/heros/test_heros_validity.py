"""The validity the page and README state is the one docs/heros_sample.md records (its tables, counted here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from n2o_core.evaluation.heros.validity import (
    SAMPLE_DOC,
    VALID_BEFORE_FIXES,
    VALID_BLIND,
    VALID_BLIND_EARLIER,
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


BLIND = "Sample 4: blind reading of the rules at commit 03cd5ad"
EARLIER_BLIND = "Sample 3: blind reading of the rules at commit 5257258"


def test_stated_validity_is_the_judged_tables():
    text = (ROOT / SAMPLE_DOC).read_text(encoding="utf-8")
    blind = _section(text, BLIND)
    assert _counted(blind) == VALID_BLIND
    earlier = _section(text, EARLIER_BLIND)
    assert _counted(earlier) == VALID_BLIND_EARLIER
    assert _counted(_section(text, "Sample 2")) == VALID_SHIPPED
    assert _counted(_section(text, "Sample 1")) == VALID_BEFORE_FIXES
    sentence = validity_sentence()
    for subset, (valid, read) in VALID_BLIND.items():
        assert f"| {subset} | {valid} / {read} |" in blind  # the section's summary table agrees with its tables
        assert f"{subset} {valid}/{read}" in sentence
        earlier_valid = VALID_BLIND_EARLIER[subset][0]
        assert f"| {subset} | {valid} / {read} | {earlier_valid} / 100 |" in blind  # sample 3 beside it
    assert "read blind" in sentence and "not seen the rules" in sentence and "sample 4" in sentence
    assert "03cd5ad" in sentence and "5257258" in sentence
    assert ", ".join(str(v) for v, _ in VALID_BLIND_EARLIER.values()) in sentence
    assert ", ".join(str(v) for v, _ in VALID_SHIPPED.values()) in sentence
    assert ", ".join(str(v) for v, _ in VALID_BEFORE_FIXES.values()) in sentence


def test_readme_states_the_blind_reading():
    """README's two statements of the blind reading give sample 4's numbers, in the doc's subset order."""
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    v = [valid for valid, _ in VALID_BLIND.values()]
    numbers = (
        f"synonym {v[0]}, antonym {v[1]}, typo {v[2]}, random {v[3]}, negation (main) {v[4]}, "
        f"negation (antonym) {v[5]} of 100"
    )
    assert readme.count(numbers) == 2, numbers
    assert readme.count("sample 4") >= 2


@pytest.mark.parametrize("title", [BLIND, EARLIER_BLIND])
def test_blind_section_states_each_invalid_pair_and_yield_per_corpus(title):
    """Every pair judged n in a blind sample's tables is listed with its reason, and each corpus's yield is stated."""
    blind = _section((ROOT / SAMPLE_DOC).read_text(encoding="utf-8"), title)
    head, tables = blind.split("\n### ", 1)
    for block in ("### " + tables).split("\n### "):
        name = block.removeprefix("### ").split(" (", 1)[0]
        for row in re.findall(r"^\| (\d+) \|.*\| n: ([^|]+) \|$", block, flags=re.M):
            assert f"- {name} {row[0]}: " in head, (name, row[0])
    for corpus in ("bbc-news", "lee-news", "wiki"):
        assert re.search(rf"^\| {corpus} \| \d+ \| .+ \| \d+\.\d% \|", head, flags=re.M), corpus
