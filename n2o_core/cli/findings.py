"""`python -m n2o_core findings`: check the papers' findings on a corpus and print each with ✓ / ✗ and its numbers.

Every finding is printed, passed or not; one that could not be checked says why. `--list` prints the catalogue
(and the findings this tool cannot test offline, with the reason) without computing anything.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from n2o_core.cli.common import add_corpus_args, add_json_arg, check_max_sentences, open_workspace, write_json
from n2o_core.errors import N2OError
from n2o_core.storage.fileio import atomic_write_text


def add_parser(subparsers: Any) -> None:
    """Add the `findings` subcommand."""
    p = subparsers.add_parser(
        "findings", help="check the papers' qualitative findings on a corpus (✓ / ✗ with numbers)"
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
        help="judge each finding on N seeds (--seed, --seed + 1, ...): query samples and HEROS pairs are drawn anew "
        "(default: FindingParams' n_seeds, 3)",
    )
    p.add_argument(
        "--sizes",
        default="",
        metavar="N,N",
        help="corpus sizes to judge each finding on, e.g. 2000,5000: fixed random samples of the corpus as loaded "
        "(without --max-sentences a size N is the sample --max-sentences N gives); default: the corpus as loaded",
    )
    p.add_argument("--pairs", type=int, default=200, metavar="N", help="HEROS pairs per subset (default %(default)s)")
    p.add_argument("--list", action="store_true", help="print the findings and the untestable ones; compute nothing")
    add_json_arg(p, "write every result as JSON")
    p.add_argument(
        "--markdown", default=None, metavar="OUT", help="write the findings as a Markdown table (the README's)"
    )
    p.set_defaults(func=run)


def _wrap(text: str, indent: str = "    ") -> str:
    return textwrap.fill(text, 116, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def _print_catalogue() -> None:
    from n2o_core.evaluation.findings import FINDINGS, NOT_TESTABLE

    for f in FINDINGS:
        print(f"{f.id}  [{f.paper} {f.where}]  {f.title}")
        print(_wrap(f"embedders: {', '.join(f.embedders)}"))
        print(_wrap(f"rule: {f.rule}"))
        print(_wrap(f"setting: {f.scoring} ({f.setting_reason})"))
    print("\nnot testable here:")
    for u in NOT_TESTABLE:
        print(f"  [{u.paper} {u.where}] {u.statement}")
        print(_wrap(f"why: {u.reason}", "      "))


def run(args: argparse.Namespace) -> int:
    """Run the `findings` subcommand."""
    from n2o_core.evaluation.findings import FindingParams, check_findings, finding, findings_document, summary_counts

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
    ):
        if v < 1:
            raise N2OError(f"{name} must be at least 1 (got {v}).")
    check_max_sentences(args)
    for fid in args.finding:
        finding(fid)  # an unknown id fails before any work
    ws = open_workspace(args)
    corpus = ws.corpus
    params = FindingParams(args.k, args.queries, args.samples, args.seed, args.pairs, n_seeds=n_seeds, sizes=sizes)

    from tqdm.auto import tqdm

    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        # one bar per embedder for sentence counts ("embed X"); one bar per loop over embedders ("scoring X")
        key = stage.split()[0] if stage.split()[0] in ("scoring", "correlating") else stage
        bar = bars.get(key)
        if bar is None:
            if total > 0 and done >= total:
                return
            bar = bars[key] = tqdm(total=total, desc=stage[:40], file=sys.stderr, leave=False)
        bar.set_description(stage[:40], refresh=False)
        bar.total = total
        bar.n = done
        bar.refresh()
        if done >= total:
            bar.close()

    try:
        results = check_findings(ws, args.finding or None, params, progress)
    finally:
        for bar in bars.values():
            bar.close()
    print(f"corpus {corpus.name}: {len(corpus):,} sentences")
    for r in results:
        _print_result(r)
    counts = summary_counts(results)
    print(
        f"\n{counts['holds']} hold, {counts['fails']} fail, {counts['depends_on_setting']} depend on the setting, "
        f"{counts['unstable']} unstable across runs, {counts['not_checked']} not checked, of {len(results)} findings"
    )
    doc = findings_document(corpus.name, len(corpus), params, results)
    if args.json:
        write_json(args.json, doc, allow_nan=True)
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


def _print_result(r: Any) -> None:
    f = r.finding
    print(f"\n{r.mark} {f.id}  [{f.paper} {f.where}]  {f.title}")
    print(_wrap(f"rule: {f.rule}"))
    print(_wrap(f"setting: {f.scoring}"))
    print(_wrap(f"why this setting: {f.setting_reason}"))
    if f.cutoff_reason:
        print(_wrap(f"cut-off: {f.cutoff_reason}"))
    if f.data:
        print(_wrap(f"data: {f.data}"))
    print(_wrap(r.verdict.summary))
    print(_wrap(f"holds in {r.holds} of {r.runs} runs; {r.status.replace('_', ' ')}"))
    for (label, _), v, (h, n) in zip(f.sensitivity, r.sensitivity, r.sensitivity_counts(), strict=True):
        print(_wrap(f"{v.mark} with {label} (sensitivity, {h} of {n} runs): {v.summary}"))
    if f.paper_numbers:
        print(_wrap(f"paper: {f.paper_numbers}"))
