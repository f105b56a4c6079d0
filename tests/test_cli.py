"""The `ccarchive` command line: every command documented, each one run for real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main


def run(*args: str, input: str | None = None):  # noqa: A002
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_has_help(name: str) -> None:
    command = main.commands[name]
    assert command.help, f"{name} has no help"
    assert run(name, "--help").exit_code == 0


def test_no_archive_says_so_and_offers_the_demo(tmp_path: Path) -> None:
    result = run("search", "x", "--archive", str(tmp_path / "nothing"), "--data-dir",
                 str(tmp_path / "data"))
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
    assert hits and {"kind", "session_id", "uuid", "project", "timestamp", "title",
                     "snippet", "score", "path"} <= set(hits[0])

    text = run("search", *common, "gitignore").output
    assert "matches" in text and hits[0]["id"].split(":")[0] in text.replace("\n", "")

    status = json.loads(run("status", *common, "--json").output)
    assert status["documents"] > 100 and status["sessions"] >= 14
    assert set(status["documents_by_kind"]) >= {"prompt", "assistant", "plan", "memory",
                                                 "history"}

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
    result = run("status", "--archive", str(demo_archive), "--data-dir",
                 str(demo_archive / "cache"))
    assert result.exit_code == 1 and "never writes into the archive" in result.output
    assert not (demo_archive / "cache").exists()
