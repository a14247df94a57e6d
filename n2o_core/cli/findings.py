"""`python -m n2o_core findings`: check the papers' findings on a corpus and print each with its status over every
run ("holds in x of n"), its numbers and, where it does not hold, what may explain it.

Every finding is printed, held or not; one that could not be checked says why. `--json`, `--txt` and `--markdown`
write the same results (the JSON document, this report, the README's table); the results are also kept in the
cache, where the dashboard's findings page opens on them for the same corpus and settings. `--list` prints the
catalogue (and the findings this tool cannot test offline, with the reason) without computing anything.
"""

from __future__ import annotations

import argparse
import textwrap
from typing import Any

from n2o_core.cli.common import (
    add_corpus_args,
    add_json_arg,
    check_max_sentences,
    findings_bars,
    open_workspace,
    write_json,
)
from n2o_core.errors import N2OError
from n2o_core.storage.fileio import atomic_write_text


def add_parser(subparsers: Any) -> None:
    """Add the `findings` subcommand."""
    from n2o_core.settings import PROBE_DEFAULT_PER_CLASS

    p = subparsers.add_parser(
        "findings", help="check the papers' qualitative findings on a corpus (holds in x of n runs, with numbers)"
    )
    add_corpus_args(p, storage=False)
    p.add_argument(
        "--finding", action="append", default=[], metavar="ID", help="check only this finding (repeatable; see --list)"
    )
    p.add_argument("--k", type=int, default=50, help="neighbors per query (default %(default)s, as the paper)")
    p.add_argument("--queries", type=int, default=100, help="queries per sample (default %(default)s)")
    p.add_argument("--samples", type=int, default=5, help="query samples (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="the first seed (default %(default)s)")
    p.add_argument(
        "--seeds",
        type=int,
        default=None,
        metavar="N",
        help="judge each finding on N seeds (--seed, --seed + 1, ...): query samples, HEROS pairs and probing splits "
        "are drawn anew (default: FindingParams' n_seeds, 3)",
    )
    p.add_argument(
        "--sizes",
        default="",
        metavar="N,N",
        help="corpus sizes to judge each finding on, e.g. 2000,5000: fixed random samples of the corpus as loaded "
        "(without --max-sentences a size N is the sample --max-sentences N gives); default: the corpus as loaded",
    )
    p.add_argument("--pairs", type=int, default=200, metavar="N", help="HEROS pairs per subset (default %(default)s)")
    p.add_argument(
        "--per-class",
        type=int,
        default=PROBE_DEFAULT_PER_CLASS,
        metavar="N",
        help="items per class of each probing task, at most (default %(default)s, as the probing page)",
    )
    p.add_argument("--list", action="store_true", help="print the findings and the untestable ones; compute nothing")
    add_json_arg(p, "write every result as JSON")
    p.add_argument("--txt", default=None, metavar="OUT", help="write the printed report to a text file too")
    p.add_argument(
        "--markdown", default=None, metavar="OUT", help="write the findings as a Markdown table (the README's)"
    )
    p.set_defaults(func=run)


def _wrap(text: str, indent: str = "    ") -> str:
    return textwrap.fill(text, 116, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def _print_catalogue() -> None:
    from n2o_core.evaluation.findings import DEFAULT_RULE, DEFAULT_SETTING, FINDINGS, NOT_TESTABLE

    print(_wrap(f"default setting: {DEFAULT_SETTING}", ""))
    print(_wrap(f"default rule: {DEFAULT_RULE}", ""))
    for f in FINDINGS:
        print(f"\n{f.id}  [{f.paper} {f.where}]  {f.title}")
        print(_wrap(f"claim: {f.statement}"))
        print(_wrap(f"embedders: {', '.join(f.embedders)}"))
        print(_wrap(f"rule: {f.rule}"))
        print(_wrap(f"setting: {f.scoring} ({f.setting_reason})"))
        for label, _ in f.sensitivity:
            print(_wrap(f"sensitivity: {label}"))
    print("\nnot testable here:")
    for u in NOT_TESTABLE:
        print(f"  [{u.paper} {u.where}] {u.statement}")
        print(_wrap(f"why: {u.reason}", "      "))


def run(args: argparse.Namespace) -> int:
    """Run the `findings` subcommand."""
    from n2o_core.evaluation.findings import FindingParams, check_findings, finding, findings_document

    if args.list:
        _print_catalogue()
        return 0
    sizes = _sizes(args.sizes)
    n_seeds = FindingParams().n_seeds if args.seeds is None else args.seeds
    for name, v in (
        ("--k", args.k),
        ("--queries", args.queries),
        ("--samples", args.samples),
        ("--pairs", args.pairs),
        ("--seeds", n_seeds),
        ("--per-class", args.per_class),
    ):
        if v < 1:
            raise N2OError(f"{name} must be at least 1 (got {v}).")
    check_max_sentences(args)
    for fid in args.finding:
        finding(fid)  # an unknown id fails before any work
    ws = open_workspace(args)
    corpus = ws.corpus
    params = FindingParams(
        args.k,
        args.queries,
        args.samples,
        args.seed,
        args.pairs,
        n_seeds=n_seeds,
        sizes=sizes,
        probe_per_class=args.per_class,
    )

    bars = findings_bars()
    try:
        results = check_findings(ws, args.finding or None, params, bars, keep=True)
    finally:
        bars.close()
    doc = findings_document(corpus.name, len(corpus), params, results)
    text = report_text(doc)
    print(text, end="")
    if args.json:
        write_json(args.json, doc, allow_nan=True)
    if args.txt:
        atomic_write_text(args.txt, text)
    if args.markdown:
        from n2o_core.export.findings_table import findings_markdown

        atomic_write_text(args.markdown, findings_markdown(doc))
    return 0


def _sizes(text: str) -> tuple[int, ...]:
    """--sizes "2000,5000" as (2000, 5000); N2OError for anything but positive integers."""
    try:
        sizes = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise N2OError(f"--sizes takes positive integers separated by commas (got {text!r}).") from None
    if any(n < 2 for n in sizes):
        raise N2OError(f"--sizes must be at least 2 sentences each (got {text!r}).")
    return sizes


def report_text(doc: dict[str, Any]) -> str:
    """The printed report of a `findings --json` document (what `--txt` writes): the corpus, then per finding its
    status over every run, the claim, what is tested, the rule and its setting with their reasons, the numbers of
    the first run, each sensitivity row, whether another setting judges a run differently, and what may explain a
    failure; then the summary."""
    from n2o_core.evaluation.findings import STATUS_LABELS, STATUS_MARKS, row_title, summary_line
    from n2o_core.evaluation.findings.catalog_text import HISTORY

    lines = [
        f"corpus {doc['corpus']}: {doc['sentences']:,} sentences",
        _wrap(f"history: {HISTORY}", ""),
        _wrap(f"default setting (where a paper is silent): {doc.get('default_setting', '')}", ""),
        _wrap(f"default rule (where a paper gives no number): {doc.get('default_rule', '')}", ""),
    ]
    for f in doc["findings"]:
        status = f["status"]
        lines += [
            "",
            f"{STATUS_MARKS[status]} {f['id']}  [{f['paper']} {f['where']}]  {f['title']}",
            _wrap(f"{STATUS_LABELS[status]}: {f['holds_text']}"),
            _wrap(f"claim: {f['statement']}"),
            _wrap(f"tested: {f['tested']}"),
            _wrap(f"rule: {f['rule']}"),
            _wrap(f"setting: {f['scoring']}"),
            _wrap(f"why this setting: {f['setting_reason']}"),
        ]
        if f.get("cutoff_reason"):
            lines.append(_wrap(f"cut-off: {f['cutoff_reason']}"))
        extra = str(f.get("history", "")).removeprefix(HISTORY).strip()
        if extra:
            lines.append(_wrap(f"history: {extra}"))
        if f.get("data") and f["data"] != "the current corpus":
            lines.append(_wrap(f"data: {f['data']}"))
        lines.append(_wrap(f"numbers of {f['numbers_from']}: {f['summary']}"))
        for s in f["sensitivity"]:
            mark = "✓" if s["passed"] is True else "✗" if s["passed"] is False else "–"
            row = f"{mark} {row_title(s['scoring'])} ({s['holds']} of {s['runs']} runs): {s['summary']}"
            lines.append(_wrap(row))
        for d in f["sensitive_to"]:
            lines.append(_wrap(f"setting-sensitive: “{d['scoring']}” judges differently in {', '.join(d['runs'])}"))
        if f.get("paper_numbers"):
            lines.append(_wrap(f"paper: {f['paper_numbers']}"))
        if f.get("explanation"):
            lines.append(_wrap(f"what may explain it: {f['explanation']}"))
    lines += ["", summary_line(doc["summary"])]
    return "\n".join(lines) + "\n"
