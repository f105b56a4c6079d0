"""One code path: `ccarchive search --json` answers what `ArchiveService.search` answers.

The command runs in this process (click's runner): the answers are what is compared, and a
process per case cost half a second of CPU to start; the installed command itself is run
as a process by the bad-argument test here and by tests/cli/test_cli.py."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccarchive.cli.main import main
from ccarchive.service import ArchiveService
from ccarchive.service.search import narrows_to_entries
from tests.conftest import build_index


def _ccarchive() -> str:
    exe = Path(__import__("sys").executable).with_name("ccarchive")
    return str(exe) if exe.exists() else (shutil.which("ccarchive") or "ccarchive")


@pytest.fixture(scope="module")
def indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("cli-data")
    return demo_archive_ro, data, build_index(demo_archive_ro, data)


CASES = [
    (["test"], {}),
    (['"release" OR tally'], {}),
    (["kind:plan"], {}),
    (["test", "--kind", "tool_result", "--kind", "prompt"], {"kind": ["tool_result", "prompt"]}),
    (
        ["the", "--all-kinds", "--limit", "30"],
        {"include_tool_results": True, "include_thinking": True, "limit": 30},
    ),
    (["the", "--project", "tally"], {"project": "tally"}),
    (
        ["the", "--since", "2026-11-10", "--until", "2026-11-18"],
        {"since": "2026-11-10", "until": "2026-11-18"},
    ),
    (["test", "--group"], {"group_by_session": True}),
    (["test", "--entries"], {"group_by_session": False}),
    (["test", "--recent"], {"recency": True}),
    (['"unclosed'], {}),
]


@pytest.mark.parametrize("args,kwargs", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_cli_json_equals_the_service(indexed, args: list[str], kwargs: dict) -> None:
    root, data, svc = indexed
    assert isinstance(svc, ArchiveService)
    out = CliRunner().invoke(
        main, ["search", "--archive", str(root), "--data-dir", str(data), "--json", *args]
    )
    assert out.exit_code == 0, (out.stderr, out.exception)
    got = json.loads(out.stdout)
    query = " ".join(
        a
        for a in args
        if not a.startswith("--")
        and a not in [str(v) for v in kwargs.values() if not isinstance(v, bool | list)]
        and a not in sum([v for v in kwargs.values() if isinstance(v, list)], [])
    )
    # sessions are the default; --entries or a kind asks for single entries
    kwargs = {"group_by_session": not narrows_to_entries(query, kwargs.get("kind")), **kwargs}
    page = svc.search(query, **kwargs)
    assert [h["id"] for h in got["hits"]] == [h.id for h in page.hits]
    assert got["total"] == page.total
    assert got["warnings"] == page.warnings
    if kwargs.get("group_by_session"):
        assert [g["session_id"] for g in got["groups"]] == [g.session_id for g in page.groups]


def test_cli_bad_argument_is_a_clear_error(indexed) -> None:
    root, data, _svc = indexed
    out = subprocess.run(
        [
            _ccarchive(),
            "search",
            "--archive",
            str(root),
            "--data-dir",
            str(data),
            "--json",
            "test",
            "--since",
            "bogus",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert "since" in out.stderr and "Traceback" not in out.stderr
