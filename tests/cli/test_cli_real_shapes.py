"""The CLI as a person (or a script) meets it, on an archive shaped like a real one: piped
output never wrapped, lists that say what they left out, `show` that names each tool
call's input and each entry's id, any unique id prefix, queries that start with `-`, and
`--help` that lists the default command's options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccarchive.cli.main import main
from ccarchive.service import ArchiveService
from tests.conftest import build_index
from tests.support import shapes_archive as A


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], ArchiveService]:
    root = A.write_shapes_archive(tmp_path_factory.mktemp("cli-shapes") / "claude")
    data = tmp_path_factory.mktemp("cli-shapes-data")
    svc = build_index(root, data)
    return ["--archive", str(root), "--data-dir", str(data)], svc


def run(*args: str):
    """The command as a pipe sees it (CliRunner's stdout is not a terminal)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_piped_output_is_never_wrapped(indexed) -> None:
    common, svc = indexed
    out = run("search", "retry", "--entries", "--limit", "50", *common)
    assert out.exit_code == 0, out.output
    ids = {h.id for h in svc.search("retry", limit=50).hits}
    lines = [ln.strip() for ln in out.stdout.splitlines()]
    assert ids and ids <= set(lines)  # each id whole, on a line of its own
    assert any(len(ln) > 80 for ln in out.stdout.splitlines())  # nothing cut at 80 columns
    shown = run("show", A.PLAN_SESSION, *common).stdout
    assert "  " + A.PLAN_SESSION in shown.splitlines()[0]  # the header, one line


def test_sessions_says_how_many_it_left_out(indexed) -> None:
    common, svc = indexed
    out = run("sessions", "--limit", "2", *common)
    assert out.exit_code == 0
    assert "2 of 6 shown; --limit N for more" in out.stderr  # piped: not among the rows
    assert "shown" not in out.stdout
    rows = out.stdout.splitlines()[1:]
    assert len(rows) == 2 and "tally" in rows[0] and "cli/.worktrees/4" in rows[1]
    every = run("sessions", "--limit", "10", *common)
    assert "shown" not in every.stderr and len(every.stdout.splitlines()) == 7
    search = run("search", "step", "--entries", "--limit", "3", *common)
    total = svc.search("step", limit=3).total
    assert total > 3 and f"3 of {total} hits shown; --limit N for more" in search.stderr


def test_sessions_and_search_name_projects_as_the_app(indexed) -> None:
    common, _svc = indexed
    out = run("sessions", *common).stdout
    for name in A.PROJECTS.values():
        assert f" {name} " in out
    assert "Retry backoff for fetch" in out and "Implement" not in out
    found = run("search", "worktree", *common).stdout
    assert "cli/.worktrees/3" in found and "cli/.worktrees/4" in found


def test_show_names_each_tool_call_and_each_entry_id(indexed) -> None:
    common, svc = indexed
    out = run("show", A.PLAN_SESSION, *common)
    assert out.exit_code == 0, out.output
    text = out.stdout
    head = text.splitlines()[0]
    assert head.startswith("Retry backoff for fetch") and "/home/u/work/cli" in head
    calls = {
        ln.split(None, 3)[2]: ln.split(None, 3)[3]
        for ln in text.splitlines()
        if ln[:4].isdigit() and ln.split(None, 3)[2] in ("Read", "Grep", "Bash")
    }
    assert calls["Read"] == "/home/u/work/cli/src/fetch.py"
    assert calls["Grep"] == "def retry · in /home/u/work/cli"
    assert calls["Bash"] == f"{A.COMMAND} · Commit without the hooks"
    page = svc.transcript(A.PLAN_SESSION)
    lines = {ln.strip() for ln in text.splitlines()}
    assert {e.id for e in page.entries} <= lines
    one = run("show", page.entries[-1].id, *common).stdout  # an id printed there opens
    assert "Committed the retry loop." in one


def test_show_takes_any_unique_prefix(indexed) -> None:
    common, _svc = indexed
    assert run("show", "c0", *common).stdout.startswith("worktree three")
    assert run("show", "a", *common).stdout.startswith("Retry backoff for fetch")
    several = run("show", "c", *common)
    assert several.exit_code == 1
    assert A.TREE3_SESSION in several.output and A.TREE4_SESSION in several.output


def test_show_says_when_entries_are_left_out(indexed) -> None:
    common, _svc = indexed
    out = run("show", A.BIG_SESSION, "--limit", "5", *common)
    assert "5 of 260 entries shown; --limit N for more" in out.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--no-verify", "--json", "--limit", "5"],
        ["--json", "--limit", "5", "--no-verify"],
        ["--limit=5", "--no-verify", "--json"],
        ["--json", "--limit", "5", "--", "--no-verify"],
    ],
)
def test_a_query_that_starts_with_dashes_is_searched(indexed, args: list[str]) -> None:
    common, svc = indexed
    out = run("search", *common, *args)
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    want = svc.search("--no-verify", limit=5)
    assert got["hits"] and [h["id"] for h in got["hits"]] == [h.id for h in want.hits]
    assert got["total"] == want.total


def test_minus_words_anywhere_and_options_after_them(indexed) -> None:
    common, svc = indexed
    out = run("search", "retry", "-flaky", "--json", "--entries", "--limit", "20", *common)
    assert out.exit_code == 0, out.output
    got = [h["id"] for h in json.loads(out.stdout)["hits"]]
    assert got == [h.id for h in svc.search("retry -flaky", limit=20).hits]
    assert got != [h.id for h in svc.search("retry", limit=20).hits]  # -flaky took effect
    # a word with an h in it is a word, not -h: the help is only -h or --help
    assert json.loads(run("search", "-hash", "--json", *common).stdout)["hits"] is not None
    assert "Usage:" in run("search", "-h").stdout


def test_help_lists_the_default_commands_options(tmp_path: Path) -> None:
    out = run("--help").stdout
    section = out[out.index("Options of the app") :]
    for option in ("--archive", "--data-dir", "--demo"):
        assert option in section
