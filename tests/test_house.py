"""The house rules of docs/architecture.md, checked on the code itself: imports point down (no circle between the
core's modules, and no folder importing a folder above it), nobody imports another module's `_private` names, no
core module is over 600 lines, and the front end runs no pipeline step itself."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "n2o_core"

#: The core's units (a folder, or a module at the top of n2o_core), lowest first: a unit may import only units on
#: a lower line. The same table is drawn in docs/architecture.md.
LAYERS: list[set[str]] = [
    {"errors", "version"},
    {"text", "limits"},
    {"runtime"},
    {"storage"},
    {"corpora"},
    {"search"},
    {"variants"},
    {"embedders"},
    {"distributed"},
    {"corpus_workspace"},
    {"pipeline"},
    {"analyses"},
    {"measures"},
    {"evaluation"},
    {"figures", "export"},
    {"settings", "preload", "api"},
    {"cli"},
    {"__main__", "n2o_core"},
]
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def unit_of(module: str) -> str:
    parts = module.split(".")
    return "n2o_core" if len(parts) == 1 else parts[1]


def imported_modules(path: Path) -> Iterator[tuple[int, str, list[str]]]:
    """(line, absolute module, imported names) of every import in a file, relative ones resolved."""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield node.lineno, module, [a.name for a in node.names]


def core_files() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def core_graph() -> dict[str, set[str]]:
    modules = {module_name(p) for p in core_files()}
    graph: dict[str, set[str]] = {}
    for p in core_files():
        me = module_name(p)
        deps = set()
        for _, module, names in imported_modules(p):
            deps |= {m for m in [module, *(f"{module}.{n}" for n in names)] if m in modules and m != me}
        graph[me] = deps
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member (import circles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_strongly_connected_finds_a_circle():
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_in_the_core():
    assert strongly_connected(core_graph()) == []


def test_every_core_unit_has_a_layer():
    units = {unit_of(module_name(p)) for p in core_files()}
    assert units - set(RANK) == set(), "add the new folder or module to LAYERS and docs/architecture.md"


def test_imports_point_down():
    upward = []
    for p in core_files():
        me = unit_of(module_name(p))
        for line, module, _ in imported_modules(p):
            if module.startswith("n2o_core") and unit_of(module) != me and RANK[unit_of(module)] >= RANK[me]:
                upward.append(f"{p.relative_to(ROOT)}:{line} ({me}) imports {module}")
    assert upward == []


def test_the_core_never_imports_the_front_end():
    bad = [
        f"{p.relative_to(ROOT)}:{line} imports {module}"
        for p in core_files()
        for line, module, _ in imported_modules(p)
        if module.split(".")[0] in {"streamlit", "ui", "pages", "app"}
    ]
    assert bad == []


def private_imports(path: Path) -> list[str]:
    """Imports of another module's `_name` (a package's own private submodules are fine)."""
    bad = []
    for line, module, names in imported_modules(path):
        if not module.startswith(("n2o_core", "ui", "pages")):
            continue
        target = ROOT.joinpath(*module.split("."))
        for name in names:
            if name.startswith("_") and not name.startswith("__"):
                if target.is_dir() and ((target / f"{name}.py").exists() or (target / name).is_dir()):
                    continue
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name} from {module}")
    return bad


@pytest.mark.parametrize("folder", ["n2o_core", "ui", "pages", "benchmarks"])
def test_no_private_imports(folder):
    files = [ROOT / "app.py"] if folder == "pages" else []
    files += sorted((ROOT / folder).rglob("*.py"))
    assert [x for p in files for x in private_imports(p)] == []


def test_private_imports_are_found(tmp_path):
    (tmp_path / "x.py").write_text(
        "from n2o_core.search.exact import _private\nfrom n2o_core.search import _topk_kernel\n"
    )
    fake = ROOT / "tests" / "_house_probe.py"
    fake.write_text((tmp_path / "x.py").read_text())
    try:
        assert [m.split(" imports ")[1] for m in private_imports(fake)] == ["_private from n2o_core.search.exact"]
    finally:
        fake.unlink()


def test_no_core_module_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in core_files() if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}


#: What only the pipeline does: embed a corpus or texts, search neighbors. The front end asks the core for results.
PIPELINE_STEPS = {"embeddings", "neighbors", "encode_texts", "search_text", "exact_knn", "approx_knn"}


def test_the_front_end_runs_no_pipeline_step():
    calls = []
    for p in [ROOT / "app.py", *sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py"))]:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if name in PIPELINE_STEPS:
                    calls.append(f"{p.relative_to(ROOT)}:{node.lineno} calls {name}")
    assert calls == []
