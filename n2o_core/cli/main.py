"""`python -m n2o_core ...`: batch work with tqdm progress. Bad input exits with code 2 and one clear line.

The parser and the entry point only: each subcommand lives in its own module with `add_parser(subparsers)` (which
sets `func`), and adding one is a line in `COMMANDS`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import n2o_core.cli.agreement as agreement
import n2o_core.cli.compare as compare
import n2o_core.cli.embed as embed
import n2o_core.cli.embedders as embedders
import n2o_core.cli.findings as findings
import n2o_core.cli.heros as heros
import n2o_core.cli.heros_sample as heros_sample
import n2o_core.cli.measures as measures
import n2o_core.cli.needle as needle
import n2o_core.cli.neighbors as neighbors
import n2o_core.cli.probe as probe
import n2o_core.cli.sts as sts
import n2o_core.cli.variants as variants
import n2o_core.cli.warm as warm
from n2o_core.cli.common import run_command

__all__ = ["COMMANDS", "build_parser", "main"]

#: the subcommand modules, in the order `--help` lists them
COMMANDS = (
    embedders,
    embed,
    neighbors,
    compare,
    heros,
    heros_sample,
    needle,
    sts,
    agreement,
    findings,
    probe,
    warm,
    measures,
    variants,
)


def build_parser() -> argparse.ArgumentParser:
    """The `python -m n2o_core` parser with every subcommand."""
    p = argparse.ArgumentParser(
        prog="python -m n2o_core",
        description="N2O Explorer: compare sentence embedders by nearest neighbor overlap (Lin & Smith 2019).",
    )
    sub = p.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Parse `argv` (default: sys.argv[1:]) and run the subcommand; the exit code (0, 2 on bad input, 130)."""
    args = build_parser().parse_args(argv)
    return run_command(args)
