"""ui.nav: every page has its module, and a renamed page's old URL path still leads to it."""

from __future__ import annotations

from pathlib import Path

from ui.nav import OLD_PATHS, PAGE_NAMES, heading, title

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_has_its_module_and_no_module_is_left_out():
    """pages/ holds each page's module and, for an old URL path, the file that hands a fresh server's first run of
    it to app.py."""
    modules = sorted(p.stem for p in (ROOT / "pages").glob("*.py") if p.stem != "__init__")
    assert modules == sorted([*PAGE_NAMES, *OLD_PATHS])
    for old in OLD_PATHS:
        assert "through_app()" in (ROOT / "pages" / f"{old}.py").read_text(encoding="utf-8")


def test_an_old_path_names_a_page_and_is_no_page_itself():
    assert OLD_PATHS == {"similarity": "sts"}
    assert [new for new in OLD_PATHS.values() if new not in PAGE_NAMES] == []
    assert sorted(set(OLD_PATHS) & set(PAGE_NAMES)) == []
    assert title("sts") == heading("sts") == "Human similarity (STS)"
