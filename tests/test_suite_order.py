"""The suite's own order (tests/suite_order.py, applied by tests/conftest.py): the longest files first, each
file's tests in their order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from suite_order import LONGEST_FILES, longest_first, work_unit

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


def test_browser_files_are_one_work_unit_and_the_others_their_file():
    assert work_unit("tests/e2e/test_browser.py::test_pages_render_in_chromium") == "browser"
    assert work_unit("tests/e2e/test_talk_mode.py::test_talk_mode_fills_the_screen") == "browser"
    assert work_unit("tests/reliability/test_browser_hostile.py::test_hostile_link") == "browser"
    assert work_unit("tests/reliability/test_kill9.py::test_x[1]") == "tests/reliability/test_kill9.py"
    assert work_unit("tests/test_readme.py::test_cli_examples_run[heros]") == "tests/test_readme.py"
