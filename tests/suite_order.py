"""The order the suite runs its files in: the longest first (tests/conftest.py applies it)."""

from __future__ import annotations

#: The test files that take longest (`python -m pytest --durations=0` on a quiet 2-core machine, 2026-11-27; at
#: least 7 s each, longest first): they start first. pytest.ini runs each file on one of two workers in collection order
#: (`--dist loadfile --no-loadscope-reorder`); a long file started last would keep one worker busy alone at the end.
#: A file not listed keeps its place after these; a stale list only costs balance, never a test.
LONGEST_FILES = (
    "tests/e2e/test_user_text_escaped.py",
    "tests/test_readme.py",
    "tests/e2e/test_own_embedders_browser.py",
    "tests/e2e/test_browser.py",
    "tests/e2e/test_figure_labels.py",
    "tests/pages/test_shared_server.py",
    "tests/search/test_neighbors.py",
    "tests/e2e/test_agreement_page.py",
    "tests/e2e/test_talk_mode.py",
    "tests/reliability/test_browser_hostile.py",
    "tests/e2e/test_findings_page.py",
    "tests/pages/test_findings_app.py",
    "tests/e2e/test_measures_browser.py",
    "tests/pages/test_needle_page.py",
    "tests/e2e/test_heros_browser.py",
    "tests/pages/test_agreement_view.py",
    "tests/e2e/test_upload_keeps_controls.py",
    "tests/pages/test_messages_once.py",
    "tests/evaluation/test_findings.py",
    "tests/embedders/test_embedders_defaults.py",
    "tests/embedders/test_embedders_e5.py",
    "tests/reliability/test_cache_faults.py",
    "tests/pages/test_small_corpora.py",
    "tests/test_code_style.py",
    "tests/e2e/test_probe_page_browser.py",
    "tests/evaluation/heros/test_heros_rules.py",
    "tests/e2e/test_evaluation_pages.py",
    "tests/pages/test_probe_page.py",
    "tests/evaluation/heros/test_heros_vetted.py",
)


def longest_first(items: list) -> None:
    """LONGEST_FILES first, in their order; every file's tests keep their order (a stable sort)."""
    rank = {f: i for i, f in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


#: The browser test files: one work unit for the worker that runs them, so that one dashboard server of the e2e
#: session (tests/e2e/conftest.py), its warm caches and one Chromium serve them all, instead of one of each per
#: worker.
BROWSER_FILES = ("tests/e2e/", "tests/reliability/test_browser_hostile.py")


def work_unit(nodeid: str) -> str:
    """The unit a test is sent to a worker in: its file, or "browser" for every browser test file."""
    path = nodeid.split("::", 1)[0]
    return "browser" if path.startswith(BROWSER_FILES) else path
