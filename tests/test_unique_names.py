"""Test modules are imported by their file name (no packages under tests/): two files with one name in different
folders stop the whole collection ("import file mismatch"). Keep names unique."""

from collections import Counter
from pathlib import Path


def test_test_module_names_are_unique():
    names = Counter(p.name for p in Path(__file__).parent.rglob("*.py") if p.name != "conftest.py")
    assert [n for n, c in names.items() if c > 1] == []
