"""The suite's own order (tests/suite_order.py, applied by tests/conftest.py): the longest files first, each
file's tests in their order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from suite_order import LONGEST_FILES, longest_first

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_file_exists_once():
    assert [f for f in LONGEST_FILES if not (ROOT / f).is_file()] == []
    assert len(set(LONGEST_FILES)) == len(LONGEST_FILES)


def test_listed_files_come_first_in_their_order_and_tests_keep_theirs():
    first, second = LONGEST_FILES[0], LONGEST_FILES[1]
    ids = ["tests/a.py::t1", f"{second}::x", "tests/a.py::t2", f"{first}::y", f"{second}::z", "tests/b.py::t"]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    longest_first(items)
    assert [i.nodeid for i in items] == [
        f"{first}::y",
        f"{second}::x",
        f"{second}::z",
        "tests/a.py::t1",
        "tests/a.py::t2",
        "tests/b.py::t",
    ]
