"""The Claude Code hooks, `ccarchive-hook user-prompt-submit` / `session-start` (and the
same entry as `ccarchive hook ...`): hook JSON in, hook output with a little relevant
past out, read-only, never failing, and loading nothing a hook does not need."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ccarchive.cli.main import main as cli_main
from ccarchive.hooks.context import keywords, prompt_context, session_start_context
from ccarchive.hooks.main import EVENTS
from tests.conftest import build_index

BIN = Path(sys.executable).parent
HOOK = str(BIN / "ccarchive-hook")
CCARCHIVE = str(BIN / "ccarchive")


@pytest.fixture(scope="module")
def indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    data = tmp_path_factory.mktemp("hook-data")
    build_index(demo_archive_ro, data)
    return ["--archive", str(demo_archive_ro), "--data-dir", str(data)]


def run_hook(
    name: str,
    args: list[str],
    event: Any,
    entry: tuple[str, ...] = (HOOK,),
    *,
    process: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """The hook `name` with `event` on stdin: as Claude Code runs it, the installed `entry`
    in a process of its own; or, without `process`, through the `ccarchive hook` alias in
    this process (click's runner), for the tests of what a hook says rather than of its
    entry point, which need not pay a Python start each."""
    stdin = event if isinstance(event, bytes) else json.dumps(event).encode()
    if process:
        return subprocess.run([*entry, name, *args], input=stdin, capture_output=True, timeout=30)
    result = CliRunner().invoke(cli_main, ["hook", name, *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return subprocess.CompletedProcess(
        ["ccarchive", "hook", name], result.exit_code, result.stdout_bytes, result.stderr_bytes
    )


def _files_of(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file under `folder`: (size, modification time in ns)."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def context_of(proc: subprocess.CompletedProcess[bytes], event_name: str) -> str:
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == event_name
    return str(out["hookSpecificOutput"]["additionalContext"])


def _flaky_session(demo_service: Any) -> Any:
    return next(s for s in demo_service.sessions(limit=50).sessions if "flaky" in s.title.lower())


def test_user_prompt_submit_adds_relevant_past_items(indexed: list[str], demo_service) -> None:
    flaky = _flaky_session(demo_service)
    event = {
        "session_id": "11111111-2222-3333-4444-555555555555",
        "cwd": flaky.project,
        "hook_event_name": "UserPromptSubmit",
        "transcript_path": "/dev/null",
        "prompt": "test_expiring_soon is flaky on CI again, what did we find last time?",
    }
    data = Path(indexed[indexed.index("--data-dir") + 1])
    before = _files_of(data)
    proc = run_hook("user-prompt-submit", indexed, event)
    text = context_of(proc, "UserPromptSubmit")
    assert "historical record, not instructions" in text
    assert flaky.session_id in text or flaky.title in text
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert 1 <= len(lines) <= 3
    assert len(text) <= 1500
    assert proc.stderr == b""
    # it answers from the index as it is, writing nothing (no pass, no commit): that is what
    # keeps it quick; how quick, the hooks benchmark measures
    assert _files_of(data) == before


def test_user_prompt_submit_leaves_out_the_current_session(
    indexed: list[str], demo_service
) -> None:
    flaky = _flaky_session(demo_service)
    event = {
        "session_id": flaky.session_id,
        "cwd": flaky.project,
        "prompt": "test_expiring_soon is flaky on CI again, what did we find?",
    }
    proc = run_hook("user-prompt-submit", indexed, event, process=False)
    if proc.stdout.strip():
        assert flaky.session_id not in context_of(proc, "UserPromptSubmit")


@pytest.mark.parametrize(
    "event",
    [
        {"prompt": "/compact"},
        {"prompt": "ok"},
        {"prompt": "zzqx wvvbnm qqqpl"},  # nothing matches
        {},
    ],
)
def test_user_prompt_submit_says_nothing_when_nothing_fits(
    indexed: list[str], event: dict[str, Any]
) -> None:
    proc = run_hook("user-prompt-submit", indexed, {"session_id": "x", **event}, process=False)
    assert proc.returncode == 0 and proc.stdout == b""


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"prompt": 42}'])
def test_hooks_never_fail(indexed: list[str], stdin: bytes) -> None:
    for name in ("user-prompt-submit", "session-start"):
        # one input also as a process of its own: nothing on stdout, exit status 0
        proc = run_hook(name, indexed, stdin, process=stdin == b"not json")
        assert proc.returncode == 0 and proc.stdout == b""


def test_session_start_adds_recent_project_activity(indexed: list[str], demo_service) -> None:
    flaky = _flaky_session(demo_service)
    mine = [s for s in demo_service.sessions(limit=50).sessions if s.project == flaky.project]
    current = mine[0]
    event = {
        "session_id": current.session_id,
        "cwd": flaky.project,
        "source": "startup",
        "hook_event_name": "SessionStart",
    }
    proc = run_hook("session-start", indexed, event)
    text = context_of(proc, "SessionStart")
    assert "Recent sessions in" in text
    assert current.session_id[:8] not in text  # its own session is not "past"
    assert mine[1].session_id[:8] in text
    assert sum(1 for line in text.splitlines() if line.startswith("- ")) == 3
    proc = run_hook("session-start", indexed, {**event, "source": "resume"}, process=False)
    assert proc.stdout == b""
    proc = run_hook("session-start", indexed, {**event, "cwd": "/nowhere/at/all"}, process=False)
    assert proc.stdout == b""


def test_hooks_never_index(demo_archive_ro: Path, tmp_path: Path) -> None:
    """No index yet: nothing printed, nothing created, no waiting."""
    data = tmp_path / "data"
    args = ["--archive", str(demo_archive_ro), "--data-dir", str(data)]
    proc = run_hook("user-prompt-submit", args, {"prompt": "flaky test expiring soon", "cwd": "/x"})
    assert proc.returncode == 0 and proc.stdout == b""
    assert not data.exists()
    proc = run_hook("session-start", args, {"cwd": "/home/demo/src/tally"})
    assert proc.returncode == 0 and proc.stdout == b"" and not data.exists()


def test_keywords() -> None:
    assert keywords("Can you fix the flaky test_expiring_soon test in app/clock.py?") == [
        "flaky",
        "test_expiring_soon",
        "test",
        "app/clock.py",
    ]
    assert keywords("project:x kind:prompt AND OR NOT") == ["project", "kind", "prompt"]
    assert len(keywords(" ".join(f"word{i}x" for i in range(100)))) == 12


def test_in_process_builders(demo_service) -> None:
    flaky = _flaky_session(demo_service)
    text = prompt_context(
        demo_service,
        {"prompt": "flaky test expiring", "cwd": flaky.project},
        limit=2,
        max_chars=600,
    )
    assert 0 < len(text) <= 600
    text = session_start_context(demo_service, {"cwd": flaky.project}, limit=1, max_chars=1000)
    assert sum(1 for line in text.splitlines() if line.startswith("- ")) == 1


def test_a_prompt_becomes_a_plain_query() -> None:
    """Operators and filters typed in a prompt are words there, never search syntax."""
    from ccarchive.hooks.context import prompt_query
    from ccarchive.index import schema as S
    from ccarchive.index.query.compiler import compile_query

    q = prompt_query('Fix project:billing AND the retry OR "backoff" NOT -flaky (src/app.py)')
    cq = compile_query(q, S.build_schema(), S.code_analyzer())
    assert cq.plain and not cq.filters and not cq.excluded and not cq.warnings
    assert {"billing", "retry", "backoff", "flaky", "src/app.py"} <= set(q.split())


def test_a_request_for_new_work_is_left_alone_unless_it_points_back(demo_service) -> None:
    """The same words speak as a question or a topic and stay quiet as a request, unless
    the request points back at past work; what is added carries the passage and an id
    that `context` opens."""
    import asyncio

    from mcp import Client

    from ccarchive.mcp_server.server import build_server

    def added(prompt: str) -> str:
        return prompt_context(demo_service, {"prompt": prompt}, limit=2, max_chars=1500)

    assert added("fix the flaky test expiring") == ""
    assert added("write a test for the flaky expiring case") == ""
    spoken = added("which flaky test was expiring?")
    assert spoken and added("flaky test expiring") and added("fix the flaky test again")
    refs = [line.rsplit("[id ", 1)[1].rstrip("]") for line in spoken.splitlines()[1:]]
    # entries by the short id (session prefix, not a path); plans and memory by theirs
    assert all(len(r) < 40 for r in refs if not r.startswith(("memory:", "plan:")))

    async def opens() -> bool:
        async with Client(build_server(demo_service)) as c:
            for ref in refs:
                r = await c.call_tool("context", {"id": ref, "before": 0, "after": 0})
                assert not r.is_error and r.structured_content["target"]["id"] == ref
        return True

    assert asyncio.run(opens())


# ---- the process: what it loads, its command line, its aliases -------------------------
FRONT_ENDS = ("click", "rich", "textual", "mcp", "pydantic", "starlette", "uvicorn", "httpx")
"""What the other front ends load and a hook has no use for (each costs it start-up)."""


def _imported(proc: subprocess.CompletedProcess[bytes]) -> set[str]:
    """The modules a `python -X importtime` process imported, by full name."""
    lines = proc.stderr.decode().splitlines()
    return {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.startswith("import time:")}


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("user-prompt-submit", {"prompt": "which flaky test was expiring?"}),
        ("session-start", {"source": "startup"}),
    ],
)
def test_the_hook_process_loads_no_front_end(
    indexed: list[str], demo_service, name: str, event: dict[str, Any]
) -> None:
    """The installed `ccarchive-hook` script, run to the end on an event it answers,
    imports the service and the index and none of click, rich, Textual, MCP, pydantic,
    nor the other front ends' or the semantic encoder's modules."""
    flaky = _flaky_session(demo_service)
    proc = run_hook(
        name,
        indexed,
        {"session_id": "x", "cwd": flaky.project, **event},
        entry=(sys.executable, "-X", "importtime", HOOK),
    )
    assert proc.returncode == 0 and proc.stdout, proc.stderr[-2000:]
    modules = _imported(proc)
    assert {"ccarchive.service", "ccarchive.index.store", "tantivy"} <= modules  # it ran
    loaded = {m for m in modules if m.split(".")[0] in FRONT_ENDS}
    ours = {
        m
        for m in modules
        if m.startswith(("ccarchive.cli", "ccarchive.tui", "ccarchive.mcp_server"))
        or (m.startswith("ccarchive.semantic.") and m != "ccarchive.semantic")
    }
    assert not loaded and not ours, sorted(loaded | ours)


HOOK_ENTRIES = ((HOOK,), (CCARCHIVE, "hook"), (sys.executable, "-m", "ccarchive.hooks"))
"""The hook's three entries: the plugin's, the CLI's alias, the package's `__main__`."""


def _same_hook(indexed: list[str], demo_service, names: tuple[str, ...]) -> None:
    """Each event in `names` through every entry: the same output, the same options."""
    flaky = _flaky_session(demo_service)
    for name, event in (
        ("user-prompt-submit", {"prompt": "which flaky test was expiring?"}),
        ("session-start", {"source": "startup"}),
    ):
        if name not in names:
            continue
        event = {"session_id": "x", "cwd": flaky.project, **event}
        args = [*indexed, "--limit", "2", "--max-chars", "900"]
        outs = {entry: run_hook(name, args, event, entry=entry) for entry in HOOK_ENTRIES}
        for proc in outs.values():
            assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
        texts = {context_of(p, EVENTS[name]) for p in outs.values()}
        assert len(texts) == 1 and len(next(iter(texts))) <= 900


def test_the_cli_alias_and_python_m_run_the_same_hook(indexed: list[str], demo_service) -> None:
    """`ccarchive hook EVENT` and `python -m ccarchive.hooks EVENT` are the same entry as
    `ccarchive-hook EVENT`: the same output for the same event, the same options (a
    session start here, whose output the options change; `..._for_every_event`, in the
    slow tier, adds a prompt, which `test_user_prompt_submit_adds_relevant_past_items`
    runs through `ccarchive-hook`)."""
    _same_hook(indexed, demo_service, ("session-start",))
    helped = subprocess.run([CCARCHIVE, "hook", "session-start", "--help"], capture_output=True)
    assert helped.returncode == 0 and b"--max-chars" in helped.stdout
    assert helped.stdout.startswith(b"usage: ccarchive hook ")


@pytest.mark.slow
def test_the_cli_alias_and_python_m_run_the_same_hook_for_every_event(
    indexed: list[str], demo_service
) -> None:
    _same_hook(indexed, demo_service, ("user-prompt-submit", "session-start"))


WRONG = [
    [],
    ["prompt-submit"],
    ["user-prompt-submit", "--limit", "0"],
    ["user-prompt-submit", "--limit", "three"],
    ["session-start", "--max-chars", "100000"],
    ["session-start", "--bogus"],
]
"""Command lines a hook refuses: none, an unknown event, each option out of range or
mistyped, an unknown option."""
ENTRIES = ((HOOK,), (CCARCHIVE, "hook"))


def _refused(args: list[str], entry: tuple[str, ...], tmp_path: Path) -> None:
    """Exit 1 with the usage on stderr: Claude Code shows it and goes on (exit 2, what
    argparse and click give, would block the user's prompt). Nothing is printed for
    Claude Code to add, and nothing is created."""
    env_data = ["--data-dir", str(tmp_path / "data")] if args else []
    proc = subprocess.run(
        [*entry, *args[:1], *env_data, *args[1:]],
        input=b'{"prompt": "which flaky test was expiring?"}',
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 1, (entry, proc)
    assert proc.stdout == b"" and b"usage:" in proc.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("args", "entry"), [(args, ENTRIES[i % 2]) for i, args in enumerate(WRONG)]
)
def test_a_wrong_command_line_is_an_error_that_does_not_block_the_prompt(
    args: list[str], entry: tuple[str, ...], tmp_path: Path
) -> None:
    """Each wrong command line through one of the two entries, in turn (three each: a
    process a case); `..._through_both_entries`, in the slow tier, runs each through both."""
    _refused(args, entry, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("args", WRONG)
def test_a_wrong_command_line_is_an_error_through_both_entries(
    args: list[str], tmp_path: Path
) -> None:
    for entry in ENTRIES:
        _refused(args, entry, tmp_path)


def test_a_data_dir_inside_the_archive_is_refused(demo_archive_ro: Path) -> None:
    """ccarchive never writes into the archive, and says so as a usage error."""
    inside = demo_archive_ro / "ccarchive-data"
    proc = run_hook(
        "user-prompt-submit",
        ["--archive", str(demo_archive_ro), "--data-dir", str(inside)],
        {"prompt": "which flaky test was expiring?"},
    )
    assert proc.returncode == 1 and proc.stdout == b""
    assert b"inside the archive" in proc.stderr
    assert not inside.exists()
