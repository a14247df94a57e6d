"""The papers' findings as a Markdown table, from the `findings --json` document (the README's table is made so)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["findings_markdown"]

_STATUS = {
    "holds": "✓ holds",
    "fails": "✗ fails",
    "depends_on_setting": "depends on the setting",
    "unstable": "unstable across runs",
    "not_checked": "not checked",
}


def _cell(text: Any) -> str:
    """One table cell: no line breaks, no bare pipes."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _short_setting(scoring: str) -> str:
    """A sensitivity row's setting up to its first colon or parenthesis ("content words", "linear CKA ...")."""
    head = scoring.split(":", 1)[0]
    return head.split(" (", 1)[0].strip()


def _sensitivity(rows: list[Mapping[str, Any]]) -> str:
    parts = []
    for s in rows:
        mark = "✓" if s.get("passed") else "✗"
        runs = f" ({s['holds']} of {s['runs']})" if s.get("runs") else ""
        parts.append(f"{mark} {_short_setting(str(s.get('scoring', '')))}{runs}")
    return "; ".join(parts) or "–"


def findings_markdown(doc: Mapping[str, Any]) -> str:
    """A Markdown table of a `findings --json` document: one row per finding with where the paper says it, the
    verdict under its one a-priori setting (the first run's ✓ / ✗ and the status over every run), holds in x of
    n runs, each sensitivity row with its own mark and runs, the data it read and the measured summary; then the
    summary counts."""
    lines = [
        "| finding | where | status | verdict (first run) | holds | sensitivity (holds) | data | measured |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in doc.get("findings", []):
        status = f.get("status", "")
        verdict = "–" if status == "not_checked" else ("✓" if f.get("passed") else "✗")
        holds = f"{f.get('holds', 0)} of {f.get('runs', 0)}"
        data = "corpus" if str(f.get("data", "")).startswith("the current corpus") else f.get("data", "")
        lines.append(
            "| "
            + " | ".join(
                _cell(x)
                for x in (
                    f.get("title", f.get("id", "")),
                    f"{f.get('paper', '')} {f.get('where', '')}".strip(),
                    _STATUS.get(status, status),
                    verdict,
                    holds,
                    _sensitivity(f.get("sensitivity", [])),
                    data,
                    f.get("summary", ""),
                )
            )
            + " |"
        )
    s = doc.get("summary", {})
    if s:
        lines.append("")
        lines.append(
            f"{s.get('holds', 0)} hold, {s.get('fails', 0)} fail, {s.get('depends_on_setting', 0)} depend on the "
            f"setting, {s.get('unstable', 0)} unstable across runs, {s.get('not_checked', 0)} not checked, of "
            f"{s.get('findings', len(doc.get('findings', [])))} findings ({doc.get('corpus', '')}, "
            f"{doc.get('sentences', 0):,} sentences as loaded)."
        )
    return "\n".join(lines) + "\n"
