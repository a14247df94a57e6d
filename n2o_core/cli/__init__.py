"""The command line, `python -m n2o_core COMMAND` (`n2o` once installed): batch work with tqdm progress, bad input
one `error:` line and exit code 2.

Commands, one module each (`add_parser(subparsers)` and `run(args)`): embedders, embed, neighbors, compare (N2O
between every pair of embedders), heros (minimal pairs), needle (paraphrase needle in a haystack), sts (cosine vs
human scores), agreement (per-sentence N2O), findings (the papers' findings checked), probe (probing tasks), warm
(fill the cache for the dashboard). `main.py` holds the parser and the entry point, `common.py` what the commands
share.

The entry point is `n2o_core.cli.main:main`; `build_parser` is exported here. (`n2o_core.cli.main` is the module:
a package attribute `main` would be the submodule once it is imported, so the face does not export the function.)
"""

from __future__ import annotations

from typing import Any

__all__ = ["build_parser"]


def __getattr__(name: str) -> Any:
    # lazy: importing a command module (or running `python -m n2o_core.cli.warm`) does not load every command
    if name == "build_parser":
        from n2o_core.cli.main import build_parser

        return build_parser
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
