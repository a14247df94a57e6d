"""The README cannot rot: its quick start, embedders table and CLI examples are checked against the code."""

import re
import shlex
from pathlib import Path

import pytest

from n2o_core.cli.main import build_parser
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
        "pip install -r requirements-dev.txt && python -m pytest",
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


def test_ci_runs_exactly_the_test_command_then_the_slow_set():
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    commands = [line for line in ci.splitlines() if line.strip() and not line.startswith(("#", " ", "\t"))]
    assert commands[-2:] == ["pip install -r requirements-dev.txt && python -m pytest", "python -m pytest -m slow -n 0"]
    assert "set -euo pipefail" in commands  # a red default run stops CI before the slow set


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


#: Transformers in the examples, replaced by a cheap embedder when the examples run on the test corpus.
HEAVY = {"minilm-l6-mean", "minilm-l6-cls", "paraphrase-minilm-l3-mean", "e5-small", "model2vec"}


@pytest.fixture(scope="module")
def example_files(tmp_path_factory):
    """A small corpus with the structures every analysis needs, a vectors file and an STS-B-layout pair file."""
    import sys

    import numpy as np

    tests = Path(__file__).resolve().parent
    sys.path[:0] = [str(tests), str(tests / "evaluation" / "probe")]
    from probe_corpus import sentences
    from sts_fixture import write_stsb

    d = tmp_path_factory.mktemp("readme")
    texts = sentences(400)
    corpus = d / "corpus.txt"
    corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    n = len({" ".join(t.split()) for t in texts})
    np.save(d / "my_vectors.npy", np.random.default_rng(0).standard_normal((n, 16)).astype(np.float32))
    write_stsb(d / "sts-test.csv", texts, n=60)
    return d, corpus


def runnable(argv: list[str], folder: Path, corpus: Path) -> list[str]:
    """A README example made to run on the test corpus: its corpus and files replaced, no sentence cap, cheap
    embedders for the transformers, fewer HEROS pairs, and findings limited to one cheap finding."""
    out, it = [], iter(argv)
    for a in it:
        if a == "--max-sentences":
            next(it)
        elif a == "--corpus":
            out += [a, str(corpus)]
            next(it)
        elif a == "--embedder":
            e = next(it)
            e = "glove-6b-50d" if e in HEAVY else e
            if e not in out:
                out += [a, e]
        elif a in ("--json", "--out", "--md", "--csv"):
            out += [a, str(folder / Path(next(it)).name)]
        elif a == "--vectors":
            name, _, file = next(it).partition("=")
            out += [a, f"{name}={folder / file}"]
        elif a == "--pairs" and argv[0] == "heros":
            out += [a, "20"]
            next(it)
        elif a == "--permutations":  # fewer permutations and resamples on the test corpus
            out += [a, "20", "--bootstrap", "20"]
            next(it)
        elif a == "--pairs" and argv[0] == "needle":
            out += [a, str(folder / next(it))]
        else:
            out.append(a)
    if argv[0] == "findings":
        out += ["--finding", "n2o-tfidf-apart", "--k", "10", "--queries", "20"]
    return out


@pytest.mark.parametrize("argv", cli_examples(), ids=lambda a: a[0])
def test_cli_examples_run(argv, example_files, capsys):
    """Each example through the CLI's `main` in this process (`python -m n2o_core` calls just that; the entry point
    itself runs in `test_the_module_entry_point_runs_an_example`): no interpreter start and no re-import per
    example, and WordNet and spaCy load once for both HEROS examples."""
    from n2o_core.cli.main import main

    folder, corpus = example_files
    args = runnable(argv, folder, corpus)
    rc = main([*args, "--cache-dir", str(folder / "cache")] if argv[0] != "embedders" else args)
    out, err = capsys.readouterr()
    assert rc == 0, f"{' '.join(args)}\n{err[-3000:]}"
    assert out.strip(), args  # every example prints its result
    if "--json" in args:
        written = Path(args[args.index("--json") + 1])
        assert written.stat().st_size > 0 and written.read_text().lstrip().startswith("{")


def test_the_module_entry_point_runs_an_example(example_files):
    """`python -m n2o_core` as the README writes it, in a fresh interpreter (the cheapest example: `embedders`)."""
    import subprocess
    import sys

    argv = next(a for a in cli_examples() if a[0] == "embedders")
    r = subprocess.run(
        [sys.executable, "-m", "n2o_core", *runnable(argv, *example_files)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert "tfidf" in r.stdout and "glove-6b-50d" in r.stdout


def test_python_api_example_runs(tmp_path):
    """The README's Python API block, run as it stands (a fresh cache: it embeds for real)."""
    import os
    import subprocess
    import sys

    code = re.search(r"```python\n(.*?)```", section("Python API"), re.S).group(1)
    env = {**os.environ, "N2O_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert "tfidf" in out and "glove-6b-50d" in out and "pearson" in out
    assert "tfidf|mine" not in out  # a number was printed, not the column name


def test_python_api_is_listed_by_help():
    import pydoc

    import n2o_core

    text = pydoc.render_doc(n2o_core, renderer=pydoc.plaintext)
    for name in ("compare", "agreement", "needle", "sts", "heros", "probe", "load_corpus", "list_embedders"):
        assert f"\n    {name}(" in text, name
