"""The shape of the codebase, checked: layers, no import cycles, packaging.

ARCHITECTURE.md describes the layers; these tests keep it true:

- the import-linter contracts in pyproject.toml (`[tool.importlinter]`) hold;
- no two modules of `ccarchive` import each other, however indirectly (function-level and
  TYPE_CHECKING imports count: a newcomer reading either module meets the other);
- every import names the module that defines the name (no re-export shims: a module imports
  only what it uses, and only a package's `__init__` offers names, those of its `__all__`);
- no `_private` name is imported from another module (make it public in its home instead);
- the query service is composed, not stacked: no class of `ccarchive.service` derives
  from another of its classes (a part asks another through the reference it was given);
- every folder under app/ that holds Python is a package in pyproject.toml (else a wheel
  silently leaves it out), and a built wheel holds `ccarchive` and nothing else.

grimp (under import-linter) finds `ccarchive` the way Python does: the editable install's
import finder maps it to app/. No path trick is needed, as long as the project is installed
(`pip install -e .`), which the test run requires anyway.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"
PACKAGE = "ccarchive"


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


# ---- the layer contract -------------------------------------------------------------


def test_the_checks_read_this_checkout() -> None:
    """grimp resolves `ccarchive` as Python does; it must be app/ here, not another copy."""
    spec = importlib.util.find_spec(PACKAGE)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).resolve().parent == APP.resolve(), spec.origin


def test_import_contracts_hold() -> None:
    """`lint-imports` in a subprocess: it puts its working directory on sys.path, which
    must not happen to this test process (a stray `import app` would start working)."""
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--no-cache",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "120"},
    )
    print(run.stdout, run.stderr)
    assert run.returncode == 0, f"import contracts broken:\n{run.stdout}\n{run.stderr}"
    summary = re.search(r"Contracts: (\d+) kept, (\d+) broken", run.stdout)
    contracts = _pyproject()["tool"]["importlinter"]["contracts"]
    assert summary is not None, run.stdout
    assert (int(summary[1]), int(summary[2])) == (len(contracts), 0), run.stdout


# ---- import cycles ------------------------------------------------------------------


def _strongly_connected(graph: grimp.ImportGraph) -> Iterator[list[str]]:
    """Tarjan's algorithm, iterative: groups of modules that all reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    yield sorted(group)


def _cycle_through(graph: grimp.ImportGraph, group: list[str]) -> list[str]:
    """One shortest cycle inside a group: from its first module back to it."""
    first, members = group[0], set(group)
    paths = {first: [first]}
    queue = [first]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph.find_modules_directly_imported_by(node)):
            if child == first:
                return [*paths[node], first]
            if child in members and child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    return group  # unreachable for a real group


def _describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    lines = []
    for importer, imported in zip(cycle, cycle[1:], strict=False):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = ", ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)
        lines.append(f"  {importer} -> {imported}  ({where})")
    return "\n".join(lines)


def test_no_import_cycles() -> None:
    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    assert {f"{PACKAGE}.cli.main", f"{PACKAGE}.live.live_archive"} <= graph.modules
    found = [_describe(graph, _cycle_through(graph, group)) for group in _strongly_connected(graph)]
    print("\n\n".join(found) or "no import cycles")
    assert not found, "import cycles:\n" + "\n\n".join(found)


def test_cycle_finder_finds_a_cycle() -> None:
    """The check above can fail: a graph with a three-module loop is reported, with lines."""
    graph = grimp.ImportGraph()
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=a, imported=b, line_number=1, line_contents=f"import {b}")
    groups = list(_strongly_connected(graph))
    assert groups == [["p.a", "p.b", "p.c"]]
    assert _cycle_through(graph, groups[0]) == ["p.a", "p.b", "p.c", "p.a"]
    assert "p.c -> p.a  (line 1: import p.a)" in _describe(graph, ["p.a", "p.b", "p.c", "p.a"])


# ---- imports point home -------------------------------------------------------------


def _module_file(module: str) -> Path | None:
    """The source of a `ccarchive` module (a package's `__init__.py`), or None."""
    base = APP.joinpath(*module.split(".")[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return base.with_suffix(".py") if base.with_suffix(".py").is_file() else None


def _top_level(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names a module defines at its top level (in `if`/`try` blocks too), and its
    `__all__`."""
    defined: set[str] = set()
    exported: set[str] = set()

    def walk(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    defined.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
                    if (
                        isinstance(target, ast.Name)
                        and target.id == "__all__"
                        and isinstance(node.value, ast.List | ast.Tuple)
                    ):
                        exported.update(
                            e.value for e in node.value.elts if isinstance(e, ast.Constant)
                        )
            elif isinstance(node, ast.If | ast.Try):
                walk(node.body)
                walk(node.orelse)

    walk(tree.body)
    return defined, exported


@functools.cache
def _names_of(path: Path) -> tuple[set[str], set[str]]:
    return _top_level(_tree(path.read_text(encoding="utf-8")))


@functools.cache
def _tree(source: str) -> ast.Module:
    """A source parsed once per process: the checks below read the same 300-odd files
    (parsing and walking them was most of their CPU)."""
    return ast.parse(source)


@functools.cache
def _nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of a source, walked once per process."""
    return tuple(ast.walk(_tree(source)))


def _ccarchive_imports(source: str) -> Iterator[tuple[ast.ImportFrom, ast.alias]]:
    for node in _nodes(source):
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] == PACKAGE
        ):
            for alias in node.names:
                yield node, alias


def _misplaced_imports(sources: dict[str, str]) -> list[str]:
    """`path:line: name from module` for each name imported from a module that neither
    defines it, nor has it as a submodule, nor (a package) lists it in `__all__`."""
    found = []
    for where, source in sources.items():
        for node, alias in _ccarchive_imports(source):
            module_file = _module_file(node.module or "")
            if module_file is None or _module_file(f"{node.module}.{alias.name}"):
                continue
            defined, exported = _names_of(module_file)
            if alias.name in defined or (
                module_file.name == "__init__.py" and alias.name in exported
            ):
                continue
            found.append(f"{where}:{node.lineno}: {alias.name} from {node.module}")
    return found


def _reexports(path: str, source: str) -> list[str]:
    """Names a module imports without using them: re-exports (a package's `__init__` may
    offer what its `__all__` lists)."""
    _defined, exported = _top_level(_tree(source))
    nodes = _nodes(source)
    names = {
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
    }
    used = {n.id for n in nodes if isinstance(n, ast.Name)} | {
        n.value
        for n in nodes
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and n.value.isidentifier()
        and n.value not in exported
    }
    allowed = exported if path.endswith("__init__.py") else set()
    return sorted(f"{path}: {name}" for name in names - used - allowed)


def _private_imports(sources: dict[str, str]) -> list[str]:
    return [
        f"{where}:{node.lineno}: {alias.name} from {node.module}"
        for where, source in sources.items()
        for node, alias in _ccarchive_imports(source)
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def _sources(*folders: Path) -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for folder in folders
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts
    }


_SAME_WORKER = pytest.mark.xdist_group("structure-sources")
"""The checks that read every source run on one worker, which parses each file once
(`_tree`, `_nodes`) for all of them."""


@pytest.mark.long
@_SAME_WORKER
def test_every_import_names_the_module_that_defines_it() -> None:
    found = _misplaced_imports(_sources(APP, ROOT / "tests"))
    print("\n".join(found) or "every import points home")
    assert not found, "names imported from a module that only passes them on:\n" + "\n".join(found)


@_SAME_WORKER
def test_no_module_re_exports_names_it_does_not_use() -> None:
    found = [line for path, source in _sources(APP).items() for line in _reexports(path, source)]
    print("\n".join(found) or "no re-exports")
    assert not found, "imported but never used (re-exports):\n" + "\n".join(found)


@_SAME_WORKER
def test_no_private_name_is_imported_across_modules() -> None:
    found = _private_imports(_sources(APP))
    print("\n".join(found) or "no private imports")
    assert not found, "private names imported from another module:\n" + "\n".join(found)


def test_the_import_checks_can_fail() -> None:
    """Each check above finds what it is for, in made-up sources."""
    shim = "from ccarchive.index.query.compiler import tokenize\n"  # defined in tokens
    assert _misplaced_imports({"x.py": shim}) == [
        "x.py:1: tokenize from ccarchive.index.query.compiler"
    ]
    assert _misplaced_imports({"x.py": "from ccarchive.index.query.tokens import tokenize\n"}) == []
    assert _reexports("m.py", "from a import b, c\n__all__ = ['b']\nc()\n") == ["m.py: b"]
    assert _reexports("p/__init__.py", "from a import b\n__all__ = ['b']\n") == []
    assert _private_imports({"x.py": "from ccarchive.service.base import _x\n"}) == [
        "x.py:1: _x from ccarchive.service.base"
    ]


def _service_subclasses(sources: dict[str, str]) -> list[str]:
    """Classes of the service that derive from another class of the service (or from a
    name that says it is a mixin)."""
    defined = {
        node.name
        for text in sources.values()
        for node in _nodes(text)
        if isinstance(node, ast.ClassDef)
    }
    found = []
    for path, text in sources.items():
        for node in _nodes(text):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                name = ast.unparse(base).rsplit(".", 1)[-1]
                if name in defined or "mixin" in name.lower():
                    found.append(f"{path}:{node.lineno}: {node.name}({name})")
    return found


@_SAME_WORKER
def test_the_service_is_composed_of_parts_not_a_stack_of_classes() -> None:
    parts = {p: t for p, t in _sources(APP / "service").items() if not p.endswith("/models.py")}
    found = _service_subclasses(parts)  # (the result models may extend one another)
    print("\n".join(found) or "no service class derives from another")
    assert not found, "service classes stacked on each other:\n" + "\n".join(found)
    checker = {"a.py": "class Base:\n    pass\n", "b.py": "class Part(Base):\n    pass\n"}
    assert _service_subclasses(checker) == ["b.py:1: Part(Base)"]
    assert _service_subclasses({"c.py": "class S(m.SearchMixin):\n    pass\n"}) == [
        "c.py:1: S(SearchMixin)"
    ]


# ---- packaging --------------------------------------------------------------------------


def _package_folders() -> dict[str, Path]:
    """Each package in pyproject.toml's `packages`, with the folder setuptools takes it from
    (the longest `package-dir` prefix that maps it, as setuptools resolves it)."""
    tool = _pyproject()["tool"]["setuptools"]
    mapping: dict[str, str] = tool.get("package-dir", {})
    folders = {}
    for name in tool["packages"]:
        prefix = max(
            (p for p in mapping if name == p or name.startswith(p + ".")), key=len, default=""
        )
        rest = name[len(prefix) :].lstrip(".").replace(".", "/")
        base = ROOT / mapping[prefix] if prefix else ROOT
        folders[name] = base / rest if rest else base
    return folders


def test_every_python_folder_is_a_listed_package() -> None:
    listed = _package_folders()
    missing_folders = sorted(name for name, folder in listed.items() if not folder.is_dir())
    assert not missing_folders, f"listed in pyproject.toml but not on disk: {missing_folders}"
    listed_folders = {folder.resolve() for folder in listed.values()}
    unlisted = sorted(
        folder.relative_to(ROOT).as_posix()
        for folder in [APP, *(p for p in APP.rglob("*") if p.is_dir())]
        if "__pycache__" not in folder.parts
        and any(folder.glob("*.py"))
        and folder.resolve() not in listed_folders
    )
    assert not unlisted, (
        f"folders under app/ holding Python but missing from pyproject.toml's packages "
        f"(a wheel would leave them out): {unlisted}"
    )


@pytest.mark.slow
def test_wheel_holds_only_ccarchive(tmp_path: Path) -> None:
    """Built from a copy of the sources, so no build/ or egg-info lands in the checkout."""
    src = tmp_path / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in ("app", "styles"):
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    out = tmp_path / "wheel"
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (wheel,) = out.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {
        name.split("/", 1)[0]
        for name in names
        if not name.split("/", 1)[0].endswith((".dist-info", ".data"))
    }
    print(wheel.name, sorted(tops))
    assert tops == {PACKAGE}, f"top-level entries in the wheel: {sorted(tops)}"
    modules = {n for n in names if n.endswith(".py")}
    expected = {
        f"{PACKAGE}/{p.relative_to(APP).as_posix()}"
        for p in APP.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert expected <= modules, f"missing from the wheel: {sorted(expected - modules)}"
    assert f"{PACKAGE}/py.typed" in names, "the wheel says nothing of its own annotations"
