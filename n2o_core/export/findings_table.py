"""The papers' findings as Markdown, from the `findings --json` document (the README's table is made so): one table
row per finding, the summary counts, then per finding what is tested and what may explain it where it does not
hold."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from n2o_core.evaluation.findings.verdict import READINGS

__all__ = ["findings_markdown"]

_STATUS = {"holds": "✓ holds", "fails": "✗ fails", "unstable": "◐ unstable across runs", "not_checked": "– not checked"}


def _cell(text: Any) -> str:
    """One table cell: no line breaks, no bare pipes."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _short_setting(scoring: str) -> str:
    """A sensitivity row's setting up to its first colon or parenthesis ("content words", "linear CKA ...");
    a reading keeps what it reads ("stricter reading: below every family")."""
    if scoring.startswith(READINGS):
        head, _, rest = scoring.partition(": ")
        return f"{head}: {rest.split(' (', 1)[0].split(';', 1)[0].split(':', 1)[0].strip()}"
    head = scoring.split(":", 1)[0]
    return head.split(" (", 1)[0].strip()


def _sensitivity(rows: list[Mapping[str, Any]]) -> str:
    parts = []
    for s in rows:
        passed = s.get("passed")
        mark = "✓" if passed is True else "✗" if passed is False else "–"
        runs = f" ({s['holds']} of {s['runs']})" if s.get("runs") else ""
        parts.append(f"{mark} {_short_setting(str(s.get('scoring', '')))}{runs}")
    return "; ".join(parts) or "–"


def _sensitive(f: Mapping[str, Any]) -> str:
    rows = f.get("sensitive_to") or []
    if not rows:
        return "no"
    return "yes: " + "; ".join(_short_setting(str(d.get("scoring", ""))) for d in rows)


def findings_markdown(doc: Mapping[str, Any]) -> str:
    """A Markdown table of a `findings --json` document: one row per finding with where the paper says it, its
    status over every run of its fixed setting and "holds in x of n", whether another setting or reading judges a
    run differently, each sensitivity row with its own mark and runs, the data it read and the first run's
    numbers; then the summary counts and, per finding, what is tested here and, where it does not hold, what may
    explain it."""
    lines = [
        "| finding | where | status | holds | setting-sensitive | sensitivity (holds) | data | measured (first run) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    findings = list(doc.get("findings", []))
    for f in findings:
        status = f.get("status", "")
        data = "corpus" if str(f.get("data", "")).startswith("the current corpus") else f.get("data", "")
        lines.append(
            "| "
            + " | ".join(
                _cell(x)
                for x in (
                    f.get("title", f.get("id", "")),
                    f"{f.get('paper', '')} {f.get('where', '')}".strip(),
                    _STATUS.get(status, status),
                    f"{f.get('holds', 0)} of {f.get('runs', 0)}",
                    _sensitive(f),
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
            f"{s.get('holds', 0)} hold, {s.get('fails', 0)} fail, {s.get('unstable', 0)} unstable across runs, "
            f"{s.get('not_checked', 0)} not checked, of {s.get('findings', len(findings))} findings; "
            f"{s.get('setting_sensitive', 0)} setting-sensitive ({doc.get('corpus', '')}, "
            f"{doc.get('sentences', 0):,} sentences as loaded)."
        )
    if doc.get("default_rule"):
        lines += ["", f"The one default rule, where a paper gives no number: {_cell(doc['default_rule'])}"]
    if findings:
        lines += ["", "What each finding tests here and, where it does not hold, what may explain it:", ""]
    for f in findings:
        why = f" *What may explain it:* {_cell(f['explanation'])}" if f.get("explanation") else ""
        lines.append(
            f"- **{_cell(f.get('title', f.get('id', '')))}** ({f.get('id', '')}): {_cell(f.get('tested', ''))}{why}"
        )
    return "\n".join(lines) + "\n"
