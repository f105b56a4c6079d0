"""The shape of the codebase, checked: layers, no import cycles, packaging.

ARCHITECTURE.md describes the layers; these tests keep it true:

- the import-linter contracts in pyproject.toml (`[tool.importlinter]`) hold;
- no two modules of `ccarchive` import each other, however indirectly (function-level and
  TYPE_CHECKING imports count: a newcomer reading either module meets the other);
- every folder under app/ that holds Python is a package in pyproject.toml (else a wheel
  silently leaves it out), and a built wheel holds `ccarchive` and nothing else.

grimp (under import-linter) finds `ccarchive` the way Python does: the editable install's
import finder maps it to app/. No path trick is needed, as long as the project is installed
(`pip install -e .`), which the test run requires anyway.
"""

from __future__ import annotations

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
        [sys.executable, "-c",
         "from importlinter.cli import lint_imports_command; lint_imports_command()",
         "--no-cache"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "COLUMNS": "120"})
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
                    work.append((child, iter(sorted(
                        graph.find_modules_directly_imported_by(child)))))
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
    found = [_describe(graph, _cycle_through(graph, group))
             for group in _strongly_connected(graph)]
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


# ---- packaging --------------------------------------------------------------------------


def _package_folders() -> dict[str, Path]:
    """Each package in pyproject.toml's `packages`, with the folder setuptools takes it from
    (the longest `package-dir` prefix that maps it, as setuptools resolves it)."""
    tool = _pyproject()["tool"]["setuptools"]
    mapping: dict[str, str] = tool.get("package-dir", {})
    folders = {}
    for name in tool["packages"]:
        prefix = max((p for p in mapping if name == p or name.startswith(p + ".")),
                     key=len, default="")
        rest = name[len(prefix):].lstrip(".").replace(".", "/")
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
        if "__pycache__" not in folder.parts and any(folder.glob("*.py"))
        and folder.resolve() not in listed_folders)
    assert not unlisted, (
        f"folders under app/ holding Python but missing from pyproject.toml's packages "
        f"(a wheel would leave them out): {unlisted}")


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
        capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    (wheel,) = out.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/", 1)[0] for name in names if not name.split("/", 1)[0]
            .endswith((".dist-info", ".data"))}
    print(wheel.name, sorted(tops))
    assert tops == {PACKAGE}, f"top-level entries in the wheel: {sorted(tops)}"
    modules = {n for n in names if n.endswith(".py")}
    expected = {f"{PACKAGE}/{p.relative_to(APP).as_posix()}" for p in APP.rglob("*.py")
                if "__pycache__" not in p.parts}
    assert expected <= modules, f"missing from the wheel: {sorted(expected - modules)}"
