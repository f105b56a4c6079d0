"""The `ccarchive` command line: every command documented, each one run for real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ccarchive.cli.main import main


def run(*args: str, input: str | None = None):  # noqa: A002
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def _command(name: str) -> click.Command | None:
    return main.get_command(click.Context(main), name)


@pytest.mark.parametrize("name", main.list_commands(click.Context(main)))
def test_every_command_has_help(name: str) -> None:
    command = _command(name)
    assert command is not None and command.help, f"{name} has no help"
    assert run(name, "--help").exit_code == 0


def test_the_mcp_commands_are_listed_and_found() -> None:
    """`serve` and `hook` are added on first look-up; help and typos still see them."""
    assert {"serve", "hook"} <= set(main.list_commands(click.Context(main)))
    assert _command("serve") is not None and _command("hook") is not None
    listed = [
        line.split()[0] for line in run("--help").output.splitlines() if line.startswith("  ")
    ]
    assert {"serve", "hook", "search"} <= set(listed)
    assert "serve" in run("sevre").output


def test_search_leaves_what_it_does_not_need_unimported(demo_service) -> None:
    """Modules kept off the path of `ccarchive search` (each costs its start time)."""
    code = (
        "import sys\n"
        "from ccarchive.cli.main import main\n"
        "main(sys.argv[1:], standalone_mode=False)\n"
        "print('unneeded:', sorted(m for m in sys.modules\n"
        "      if m.split('.')[0] in ('textual', 'mcp', 'rich', 'pydantic')\n"
        "      or m in ('ccarchive.cli.serve', 'ccarchive.index.indexer')),\n"
        "      file=sys.stderr)\n"
    )
    data_dir = demo_service.store.base.parent
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "search",
            "--archive",
            str(demo_service.root),
            "--data-dir",
            str(data_dir),
            "--json",
            "migration",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["hits"]
    assert "unneeded: []" in out.stderr, out.stderr


def test_no_archive_says_so_and_offers_the_demo(tmp_path: Path) -> None:
    result = run(
        "search", "x", "--archive", str(tmp_path / "nothing"), "--data-dir", str(tmp_path / "data")
    )
    assert result.exit_code == 1
    assert "no Claude Code archive" in result.output and "ccarchive demo" in result.output


def test_index_search_status_show_on_the_demo(demo_archive: Path, tmp_path: Path) -> None:
    common = ["--archive", str(demo_archive), "--data-dir", str(tmp_path / "data")]
    result = run("index", *common, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["documents_added"] > 100 and summary["files_read"] > 10

    again = json.loads(run("index", *common, "--json").output)
    assert again["documents_added"] == 0 and again["files_read"] == 0

    hits = json.loads(run("search", *common, "--json", "gitignore walker").output)["hits"]
    assert hits and {
        "kind",
        "session_id",
        "uuid",
        "project",
        "timestamp",
        "title",
        "snippet",
        "score",
        "path",
    } <= set(hits[0])

    text = run("search", *common, "gitignore").output
    assert "matches" in text and hits[0]["id"].split(":")[0] in text.replace("\n", "")

    status = json.loads(run("status", *common, "--json").output)
    assert status["documents"] > 100 and status["sessions"] >= 14
    assert set(status["documents_by_kind"]) >= {"prompt", "assistant", "plan", "memory", "history"}

    sid = hits[0]["session_id"]
    shown = run("show", *common, sid[:8])
    assert shown.exit_code == 0 and "entries" in shown.output
    entry = json.loads(run("show", *common, hits[0]["id"], "--json").output)
    assert entry["id"] == hits[0]["id"] and entry["text"]

    sessions = json.loads(run("sessions", *common, "--json").output)
    assert sessions["total"] >= 14

    bad = run("show", *common, "projects/none.jsonl:0:0")
    assert bad.exit_code == 1 and "unknown entry id" in bad.output
    warned = json.loads(run("search", *common, "--json", '"unclosed').output)
    assert warned["warnings"]


def test_a_data_dir_inside_the_archive_is_refused(demo_archive: Path) -> None:
    result = run(
        "status", "--archive", str(demo_archive), "--data-dir", str(demo_archive / "cache")
    )
    assert result.exit_code == 1 and "never writes into the archive" in result.output
    assert not (demo_archive / "cache").exists()
