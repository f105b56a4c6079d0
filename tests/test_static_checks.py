"""The static checks, run as tests so that CI (which runs pytest only) runs them too.

- `ruff check app tests` with the rules of pyproject.toml;
- `ruff format --check app tests`: the code is as the formatter writes it;
- `mypy` (configured in pyproject.toml) finds no error in `ccarchive`;
- the type checker reads the package under its import name, and the tantivy stub it is
  given is tantivy's own plus what that lacks (so an upgrade of tantivy says when the copy
  can go);
- no test module imports another (shared builders live in tests/support/).

The import-linter contracts run in tests/test_structure.py. Each check runs its tool in a
subprocess and fails with the tool's own output.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import tantivy

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
TYPECHECK = ROOT / "typecheck"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def _explain(run: subprocess.CompletedProcess[str]) -> str:
    return f"{' '.join(map(str, run.args[2:]))} exited {run.returncode}:\n{run.stdout}{run.stderr}"


def test_ruff_check() -> None:
    run = _run("ruff", "check", "--no-cache", "app", "tests")
    assert run.returncode == 0, _explain(run)


def test_ruff_format() -> None:
    run = _run("ruff", "format", "--check", "--no-cache", "app", "tests")
    assert run.returncode == 0, _explain(run)


@pytest.mark.long
def test_mypy() -> None:
    run = _run("mypy")
    assert run.returncode == 0, _explain(run)
    assert "Success: no issues found" in run.stdout, _explain(run)


def test_mypy_reads_the_package_under_its_import_name() -> None:
    """typecheck/ccarchive is app/ (mypy cannot follow the editable install's import hook)."""
    link = TYPECHECK / "ccarchive"
    assert link.is_symlink() and link.resolve() == (ROOT / "app").resolve()


STUB_EDITS = [
    (
        """    def hits(self) -> list[tuple[Any, DocAddress]]:
        pass
""",
        """    def hits(self) -> list[tuple[Any, DocAddress]]:
        pass

    @property
    def count(self) -> int | None:
        \"\"\"The number of matching documents; None unless searched with `count=True`.\"\"\"
        pass
""",
    ),
    (
        "        words: list[Union[str, tuple[int, str]]],",
        "        words: Sequence[Union[str, tuple[int, str]]],",
    ),
]
"""What typecheck/tantivy/tantivy.pyi changes in tantivy's own stub: (theirs, ours)."""


def test_the_tantivy_stub_is_tantivys_own_with_its_edits() -> None:
    """typecheck/tantivy replaces the installed stub whole: it must be that stub with the
    edits of STUB_EDITS only. Once tantivy's own stub declares `count`, drop the copy."""
    installed = (Path(tantivy.__file__).parent / "tantivy.pyi").read_text()
    result_class = installed.split("class SearchResult:")[1].split("\nclass ")[0]
    assert "def count(" not in result_class, (
        "tantivy's own stub now declares SearchResult.count: delete typecheck/tantivy"
    )
    lines = (TYPECHECK / "tantivy" / "tantivy.pyi").read_text().splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    ours = "".join(lines[header:])  # after the header that says why the copy exists
    expected = installed
    for theirs, edited in STUB_EDITS:
        assert theirs in expected, f"the installed tantivy stub changed: {theirs!r}"
        expected = expected.replace(theirs, edited)
    assert ours == expected, "copy tantivy's stub again and apply STUB_EDITS"


def test_no_test_module_imports_another() -> None:
    """A helper two test modules need goes to tests/support/ (or a conftest fixture): a
    test module that imports another runs that module's imports and fixtures as well."""
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if name.startswith("tests.") and last.startswith(("test_", "bench_")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {name}")
    assert not found, "\n".join(found)
