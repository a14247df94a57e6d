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
    return README[start : nxt if nxt > 0 else None]


def test_quick_start_is_the_two_commands():
    blocks = re.findall(r"```bash\n(.*?)```", section("Quick start"), re.S)
    assert [b.strip() for b in blocks] == [
        "pip install -r requirements.txt && streamlit run app.py",
        "pip install -r requirements.txt && python -m pytest",
    ]


def test_quick_start_names_the_app_defaults():
    from n2o_core.settings import Settings

    words = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
    fam = {i.id: i.family for i in list_embedders()}
    ids = Settings().embedders
    families = sorted({fam[e] for e in ids}, key=str.lower)
    m = re.search(r"with (\w+) default embedders from (\w+)\s+families \(([^)]*)\)", section("Quick start"))
    assert m, "the quick start names the default embedders and their families"
    assert (m.group(1), m.group(2)) == (words[len(ids)], words[len(families)])
    assert sorted(x.strip() for x in m.group(3).split(",")) == sorted(families)


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
