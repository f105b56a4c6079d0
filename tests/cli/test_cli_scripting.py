"""The CLI as a script uses it: misspelled flags, closed pipes, cursors, whole sessions,
queries that say nothing, clean piped text, the status hint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccarchive.cli.main import main


@pytest.fixture(scope="module")
def indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """`--archive A --data-dir D` of the demo archive, indexed once."""
    data = tmp_path_factory.mktemp("cli-data")
    args = ["--archive", str(demo_archive_ro), "--data-dir", str(data)]
    result = CliRunner().invoke(main, ["index", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return args


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def cli(*args: str, pipe_to: list[str] | None = None) -> subprocess.CompletedProcess:
    """The real command in a process (optionally piped into another, as a shell would)."""
    cmd = [sys.executable, "-m", "ccarchive", *args]
    if pipe_to is None:
        return subprocess.run(cmd, capture_output=True, text=True, check=False)
    producer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    consumer = subprocess.run(
        pipe_to, stdin=producer.stdout, capture_output=True, text=True, check=False
    )
    producer.stdout.close()
    err = producer.stderr.read().decode()
    producer.wait(30)
    return subprocess.CompletedProcess(cmd, producer.returncode, consumer.stdout, err)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("--grup", "--group"),
        ("--limt", "--limit"),
        ("--jsno", "--json"),
        ("--projet", "--project"),
        ("--limt=3", "--limit"),
    ],
)
def test_a_misspelled_flag_is_an_error_that_names_the_flag(indexed, typo, meant) -> None:
    result = run("search", "tests", "fail", typo, *indexed)
    assert result.exit_code == 2
    assert meant in result.output and typo.split("=")[0] in result.output


def test_a_flag_searched_for_on_purpose_is_still_searched(indexed) -> None:
    result = run("search", "--no-verify", "--json", *indexed)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["hits"] is not None
    # a word like an option, after --, is searched
    result = run("search", "--json", *indexed, "--", "--limt")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "command",
    [["search", "walker"], ["show", "f26dbc60"], ["sessions"], ["search", "walker", "--json"]],
)
def test_a_closed_pipe_is_success(indexed, command) -> None:
    out = cli(*command, *indexed, pipe_to=["head", "-c", "1"])
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr


def test_search_cursor_reads_the_next_page(indexed) -> None:
    first = json.loads(run("search", "the", "--entries", "--limit", "3", "--json", *indexed).output)
    assert first["next_cursor"]
    second = json.loads(
        run(
            "search",
            "the",
            "--entries",
            "--limit",
            "3",
            "--json",
            "--cursor",
            first["next_cursor"],
            *indexed,
        ).output
    )
    ids = [h["id"] for h in first["hits"]]
    assert second["hits"] and not {h["id"] for h in second["hits"]} & set(ids)


def test_show_reads_a_session_whole_in_pages(indexed) -> None:
    whole = json.loads(run("show", "f26dbc60", "--all", "--json", *indexed).output)
    total = whole["total"]
    assert len(whole["entries"]) == total and whole["next_cursor"] is None
    ids = [e["id"] for e in whole["entries"]]
    assert len(set(ids)) == total
    # more than the service's page: the pages joined; a limit past the end: all
    big = json.loads(run("show", "f26dbc60", "--limit", "5000", "--json", *indexed).output)
    assert [e["id"] for e in big["entries"]] == ids
    # a page and the cursor after it give the rest, in order
    head = json.loads(run("show", "f26dbc60", "--limit", "7", "--json", *indexed).output)
    rest = json.loads(
        run("show", "f26dbc60", "--all", "--cursor", head["next_cursor"], "--json", *indexed).output
    )
    assert [e["id"] for e in head["entries"] + rest["entries"]] == ids


def test_a_query_that_is_entirely_ignored_fails_and_says_why(indexed) -> None:
    long_word = "a" * 5000
    result = run("search", long_word, "--json", *indexed)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ignored"] is True and data["hits"] == [] and data["warnings"]
    text = run("search", "?", *indexed)
    assert text.exit_code == 1
    assert "ignored" in text.output and len(max(text.output.splitlines(), key=len)) < 300
    # a filter alone is a question: it lists what matches
    assert run("search", "kind:plan", *indexed).exit_code == 0


def test_piped_text_has_no_trailing_spaces(indexed) -> None:
    for command in (["status"], ["sessions"], ["search", "walker"], ["show", "f26dbc60"]):
        out = cli(*command, *indexed)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines and not [ln for ln in lines if ln != ln.rstrip(" ")], command


def test_status_keeps_the_semantic_extra_in_its_hint(indexed) -> None:
    text = run("status", *indexed).output
    data = json.loads(run("status", "--json", *indexed).output)
    if "[semantic]" in json.dumps(data):
        assert "ccarchive[semantic]" in text


def test_sessions_since_with_none_prints_no_empty_table(indexed) -> None:
    result = run("sessions", "--since", "2099-01-01", *indexed)
    assert result.exit_code == 0
    assert result.output.strip() == "no sessions since 2099-01-01"
