"""The order the suite runs its files in: the longest first (tests/conftest.py applies it)."""

from __future__ import annotations

#: The test files that take longest (from `python -m pytest --durations=0`, longest first; 2026-11-27, 2 cores):
#: they start first. pytest.ini runs each file on one of two workers in collection order
#: (`--dist loadfile --no-loadscope-reorder`); a long file started last would keep one worker busy alone at the end.
#: A file not listed keeps its place after these; a stale list only costs balance, never a test.
LONGEST_FILES = (
    "tests/test_readme.py",
    "tests/search/test_neighbors.py",
    "tests/e2e/test_user_text_escaped.py",
    "tests/embedders/test_embedders_e5.py",
    "tests/embedders/test_embedders_defaults.py",
    "tests/e2e/test_browser.py",
    "tests/embedders/test_embedders_sbert.py",
    "tests/pages/test_messages_once.py",
    "tests/test_code_style.py",
    "tests/e2e/test_figure_labels.py",
    "tests/evaluation/heros/test_heros_rules.py",
    "tests/e2e/test_own_embedders_browser.py",
    "tests/e2e/test_agreement_page.py",
    "tests/pages/test_shared_server.py",
    "tests/test_pipeline.py",
    "tests/e2e/test_findings_page.py",
    "tests/embedders/test_embedders_registry.py",
    "tests/e2e/test_talk_mode.py",
    "tests/reliability/test_browser_hostile.py",
    "tests/pages/test_agreement_view.py",
    "tests/evaluation/heros/test_heros_vetted.py",
    "tests/pages/test_needle_page.py",
    "tests/evaluation/test_findings.py",
    "tests/e2e/test_measures_browser.py",
    "tests/reliability/test_cache_faults.py",
    "tests/e2e/test_evaluation_pages.py",
)


def longest_first(items: list) -> None:
    """LONGEST_FILES first, in their order; every file's tests keep their order (a stable sort)."""
    rank = {f: i for i, f in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
