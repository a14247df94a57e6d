"""Each folder's `__init__.py` is its face (docs/architecture.md): a docstring that lists what its modules offer
and `__all__`, resolved on first use, so importing one module never loads the whole folder."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[1] / "n2o_core"
FACES = sorted(".".join(p.parent.relative_to(CORE.parent).parts) for p in CORE.rglob("__init__.py"))
#: Faces whose docstring names every module and subpackage of their folder (the others name their main ones).
LISTS_EVERY_MODULE = [
    "n2o_core.analyses",
    "n2o_core.corpora",
    "n2o_core.evaluation",
    "n2o_core.evaluation.findings",
    "n2o_core.evaluation.pairs",
    "n2o_core.export",
    "n2o_core.runtime",
    "n2o_core.search",
    "n2o_core.storage",
    "n2o_core.variants",
]
#: Libraries that no lazy face may import by itself.
HEAVY = ["numpy", "scipy", "pandas", "sklearn", "plotly", "torch", "spacy", "nltk", "umap", "pynndescent", "numba"]
#: Faces that load no library of HEAVY (evaluation.probe imports its task table eagerly, which needs numpy).
LIGHT = ["analyses", "evaluation", "evaluation.heros", "export", "figures", "runtime", "search", "storage", "variants"]
#: One module of a folder, imported alone: the parts of its folder it may load (itself and what it needs, a
#: subpackage with everything under it) and the heavy libraries it may not load.
ONE_MODULE = {
    "n2o_core.analyses.overlap": (["overlap"], ["umap", "pynndescent", "sklearn", "torch"]),
    "n2o_core.evaluation.sts": (["pairs", "ranks", "sts"], ["spacy", "nltk", "torch", "sklearn"]),
    "n2o_core.runtime.notices": (["notices"], HEAVY),
    "n2o_core.storage.fileio": (["fileio"], HEAVY),
}


def folder_parts(face: str) -> list[str]:
    folder = CORE.parent.joinpath(*face.split("."))
    modules = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
    return sorted(modules + [p.name for p in folder.iterdir() if (p / "__init__.py").exists()])


def fresh_imports(*statements: str) -> list[dict[str, list[str]]]:
    """After each of `statements`, run in turn in one new interpreter: its n2o_core modules and HEAVY libraries."""
    snap = (
        "print(json.dumps({'core': sorted(m for m in sys.modules if m.startswith('n2o_core.')), "
        f"'heavy': [m for m in {HEAVY!r} if m in sys.modules]}}))"
    )
    code = "import json, sys\n" + "".join(f"{s}\n{snap}\n" for s in statements)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=CORE.parent)
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.mark.parametrize("face", FACES)
def test_every_face_has_a_docstring_and_names_that_resolve(face):
    module = importlib.import_module(face)
    assert (module.__doc__ or "").strip(), f"{face}: the face has no docstring"
    names = getattr(module, "__all__", [])
    assert names, f"{face}: no __all__"
    assert [n for n in names if getattr(module, n, None) is None] == []
    # A name of the face never hides a module of its folder (`from pkg import module` must give the module).
    assert sorted(set(names) & set(folder_parts(face))) == []


@pytest.mark.parametrize("face", LISTS_EVERY_MODULE)
def test_the_face_docstring_names_every_module_of_its_folder(face):
    doc = importlib.import_module(face).__doc__ or ""
    assert [m for m in folder_parts(face) if not re.search(rf"\b{re.escape(m)}\b", doc)] == []


@pytest.mark.parametrize("face", [f for f in FACES if hasattr(importlib.import_module(f), "_LAZY")])
def test_a_lazy_face_imports_no_module_of_its_folder_until_a_name_is_used(face):
    module = importlib.import_module(face)
    lazy = module._LAZY
    assert sorted(lazy) == sorted(n for n in module.__all__ if n not in vars(module)), "__all__ and _LAZY differ"
    # Each lazy name is the one its module defines.
    assert [
        n for n, m in lazy.items() if getattr(importlib.import_module(f"{face}.{m}"), n) is not getattr(module, n)
    ] == []
    # What the face imports at module level (its eager names) may load modules of its folder; nothing else may.
    eager = "\n".join(
        f"from {node.module} import {', '.join(a.name for a in node.names)}"
        for node in _module_imports(face)
        if node.module and node.module.startswith("n2o_core.")
    )
    before, got = fresh_imports(eager or "pass", f"import {face}")
    assert [m for m in got["core"] if m.startswith(face + ".")] == [
        m for m in before["core"] if m.startswith(face + ".")
    ]
    if face.removeprefix("n2o_core.") in LIGHT:
        assert got["heavy"] == []


def _module_imports(face: str) -> list:
    import ast

    path = CORE.parent.joinpath(*face.split("."), "__init__.py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in tree.body if isinstance(node, ast.ImportFrom)]


@pytest.mark.parametrize("module", sorted(ONE_MODULE))
def test_importing_one_module_leaves_the_rest_of_its_folder_unloaded(module):
    parts, not_heavy = ONE_MODULE[module]
    folder = module.rsplit(".", 1)[0]
    (got,) = fresh_imports(f"import {module}")
    loaded = {m.removeprefix(folder + ".").split(".")[0] for m in got["core"] if m.startswith(folder + ".")}
    assert sorted(loaded) == parts
    assert sorted(set(got["heavy"]) & set(not_heavy)) == []
