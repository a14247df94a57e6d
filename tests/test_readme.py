"""The README cannot rot: its quick start, embedders table and CLI examples are checked against the code."""

import re
import shlex
from pathlib import Path

import pytest

from n2o_core.cli import build_parser
from n2o_core.embedders.registry import list_embedders

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"## {title}")
    nxt = README.find("\n## ", start + 1)
    return README[start: nxt if nxt > 0 else None]


def test_quick_start_is_the_two_commands():
    blocks = re.findall(r"```bash\n(.*?)```", section("Quick start"), re.S)
    assert [b.strip() for b in blocks] == [
        "pip install -r requirements.txt && streamlit run app.py",
        "pip install -r requirements.txt && python -m pytest",
    ]


def test_ci_runs_exactly_the_test_command():
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert ci.strip().splitlines()[-1] == "pip install -r requirements.txt && python -m pytest"


def test_embedders_table_matches_registry():
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \| ([^|]+) \| ((?:\\\||[^|])+) \|", section("Embedders"), re.M)
    table = {r[0]: (r[1].strip(), r[2].strip(), r[3].strip()) for r in rows}
    infos = list_embedders()
    assert list(table) == [i.id for i in infos]
    for i in infos:
        family, composition, dim = table[i.id]
        assert family == i.family and composition == i.composition
        assert dim == (str(i.dim) if i.dim else r"\|V\|")


def cli_examples() -> list[list[str]]:
    block = re.search(r"```bash\n(.*?)```", section("Command line"), re.S).group(1)
    lines = block.replace("\\\n", " ").splitlines()
    out = []
    for line in lines:
        args = shlex.split(re.sub(r"\[[^\]]*\]", "", line))  # drop optional [--flags]
        assert args[:3] == ["python", "-m", "n2o_core"]
        out.append(args[3:])
    return out


@pytest.mark.parametrize("argv", cli_examples(), ids=lambda a: a[0])
def test_cli_examples_parse(argv):
    args = build_parser().parse_args(argv)
    assert args.command == argv[0]
