"""The first `ccarchive serve` on an archive with no index: it answers at once and, while
the index is built, every answer says so. An agent that reads "0 sessions" must also
read that the archive is still being read."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import SERVE_AUTH, free_port, serve_env, wait_for_port
from tests.support.generated import generate
from tests.support.http_clients import httpx_client
from tests.support.serve_process import CCARCHIVE, data_args, stdio_params


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("first-run") / "claude"
    generate(
        root.parent,
        [
            "--out",
            str(root),
            "--seed",
            "3",
            "--size-mb",
            "15",
            "--force",
            "--manifest",
            str(root.parent / "m.jsonl"),
        ],
    )
    return root


# ---- every tool, at once -------------------------------------------------------------------
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("status", {}),
    ("search", {"query": "why did the test fail"}),
    ("list_projects", {}),
    ("list_sessions", {}),
    ("timeline", {}),
    ("list_plans", {}),
    ("list_memory_files", {}),
    ("search_history", {"query": "what did I ask"}),
    ("get_session", {"session_id": "0f1e2d3c"}),
    ("context", {"id": "projects/x/0f1e2d3c.jsonl:0:0"}),
    ("get_entries", {"ids": ["projects/x/0f1e2d3c.jsonl:0:0"]}),
    ("get_plan", {"codename": "quiet-lazy-river"}),
    ("get_memory_file", {"project": "nowhere-such"}),
]
"""Every tool, with arguments that find nothing on a partial index (or an unknown id)."""


def _says_indexing(r: Any) -> bool:
    if r.is_error:
        return "indexing: " in r.content[0].text
    return "indexing" in (r.structured_content or {})


@contextlib.asynccontextmanager
async def _client(transport: str, archive: Path, data: Path) -> AsyncIterator[Client]:
    if transport == "stdio":
        async with Client(stdio_params(*data_args(archive, data))) as c:
            yield c
        return
    port = free_port()
    proc = subprocess.Popen(
        [CCARCHIVE, "serve", *data_args(archive, data), "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=serve_env(),
    )
    try:
        wait_for_port(proc, port)
        http = httpx_client(headers=SERVE_AUTH, timeout=30)
        url = f"http://127.0.0.1:{port}/mcp"
        async with Client(streamable_http_client(url, http_client=http)) as c:
            yield c
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=20)
        assert b"Traceback" not in err, err.decode()[-2000:]


async def _every_tool_at_once(c: Client) -> dict[str, Any]:
    """Right after the handshake, on a fresh data dir: the first `status` says it is
    indexing, and each of the 13 tools, called at once, either says it is indexing or
    answers after the index is complete (known from a `status` asked after it:
    completion never goes back). What each tool answered (None for an error)."""
    first = (await c.call_tool("status", {})).structured_content
    assert "% of the archive searched so far" in first["indexing"], first
    during, answered = 0, {}
    for name, args in CALLS:
        r = await c.call_tool(name, args)
        answered[name] = None if r.is_error else r.structured_content
        after = (await c.call_tool("status", {})).structured_content
        if "indexing" in after:
            assert _says_indexing(r), (name, r)
            during += 1
        if not r.is_error and not _says_indexing(r):
            assert after["documents"] > 0
    assert during >= 1, "the index was complete before the second call"
    return answered


async def test_every_tool_called_right_after_initialize_says_it_is_indexing_over_http(
    archive: Path, tmp_path: Path
) -> None:
    """`_every_tool_at_once` over HTTP; over stdio it is the start of
    `test_every_answer_says_it_is_indexing_until_complete` (a serve fewer: ~3.5 CPU-s)."""
    async with _client("http", archive, tmp_path / "data") as c:
        await _every_tool_at_once(c)


@pytest.mark.long
async def test_every_answer_says_it_is_indexing_until_complete(
    archive: Path, tmp_path: Path
) -> None:
    """Over stdio: every tool at once right after the handshake (`_every_tool_at_once`),
    then rounds of `status`, `list_projects` and `search` until the index is complete:
    each answer of either says it is indexing, or answers for the whole archive. (On a
    loaded machine the build may end during the first part: its `status`,
    `list_projects` and `search` are checked as the rounds' are.)"""
    answers = []
    async with Client(stdio_params(*data_args(archive, tmp_path / "data"))) as c:
        at_once = await _every_tool_at_once(c)
        seen_note = "indexing" in at_once["status"]  # the note, whenever the build ends
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status = (await c.call_tool("status", {})).structured_content
            projects = (await c.call_tool("list_projects", {})).structured_content
            found = (await c.call_tool("search", {"query": "test"})).structured_content
            answers.append((status, projects, found))
            if "indexing" not in status:
                break
            seen_note = True
            assert "% of the archive searched so far" in status["indexing"]
            # the build may end between two calls: a later answer of the same round can
            # be complete, and is then checked below as a final one
        final = (await c.call_tool("status", {})).structured_content
        final_projects = (await c.call_tool("list_projects", {})).structured_content
        final_found = (await c.call_tool("search", {"query": "test"})).structured_content
        asked = dict(CALLS)["search"]
        found_at_once = (await c.call_tool("search", asked)).structured_content
    assert "indexing" not in final and final["documents"] > 0
    if "indexing" not in at_once["status"]:
        assert at_once["status"]["documents"] == final["documents"]
    if "indexing" not in at_once["list_projects"]:
        assert at_once["list_projects"]["total"] == final_projects["total"]
    if "indexing" not in at_once["search"]:
        assert at_once["search"]["total"] == found_at_once["total"]
    # what was answered without the note was the whole archive, never a part of it
    for status, projects, found in answers:
        if "indexing" not in status:
            assert status["documents"] == final["documents"]
        if "indexing" not in projects:
            assert projects["total"] == final_projects["total"]
        if "indexing" not in found:
            assert found["total"] == final_found["total"]
    assert seen_note, "the first answers came before the index was built"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_first_handshake_is_reported_once(demo_service, mode: str) -> None:
    """What starts the first indexing pass of `serve`: the first message after the
    handshake (`notifications/initialized`, or a request after `server/discover`),
    once, however many clients follow."""
    from ccarchive.mcp_server.server import build_server

    seen: list[int] = []
    server = build_server(demo_service, on_initialized=lambda: seen.append(len(seen)))
    assert seen == []
    async with Client(server, mode=mode) as c:
        await c.call_tool("status", {})
        assert seen == [0]
    async with Client(server, mode=mode) as c:
        await c.call_tool("status", {})
    assert seen == [0]


async def test_a_second_server_says_another_process_is_indexing(demo_settings) -> None:
    """Two servers on one first run: the one that follows says that another process is
    building the index (not "0 documents"), until that one has finished."""
    import threading

    from ccarchive.live.live_archive import LiveArchive
    from ccarchive.mcp_server.server import build_server
    from ccarchive.service import open_service
    from tests.support.appends import wait_for

    begin = threading.Event()
    writer = LiveArchive(demo_settings, watch=False).start(begin=begin)
    follower = LiveArchive(demo_settings, watch=False).start()
    try:
        assert writer.is_writer and not follower.is_writer
        server = build_server(open_service(demo_settings, live=follower), active_minutes=0)
        async with Client(server) as c:
            st = (await c.call_tool("status", {})).structured_content
            assert st["documents"] == 0
            assert st["indexing"].startswith("indexing: another ccarchive process")
            gone = await c.call_tool("get_session", {"session_id": "0f1e2d3c"})
            assert gone.is_error and "another ccarchive process" in gone.content[0].text
            begin.set()
            assert wait_for(lambda: writer.store.complete, timeout=60)
            assert wait_for(lambda: follower.searches_whole_index, timeout=10)
            st = (await c.call_tool("status", {})).structured_content
            assert "indexing" not in st and st["documents"] > 0
    finally:
        follower.stop()
        writer.stop()


def test_a_client_that_never_speaks_still_gets_an_index(
    demo_archive_ro: Path, tmp_path: Path
) -> None:
    """The first pass waits for the handshake at most `HANDSHAKE_WAIT` seconds: a stdio
    server whose client says nothing indexes all the same."""
    from ccarchive.config import Settings
    from ccarchive.index.store import complete_index_exists
    from tests.support.appends import wait_for

    data = tmp_path / "data"
    proc = subprocess.Popen(
        [CCARCHIVE, "serve", "--archive", str(demo_archive_ro), "--data-dir", str(data)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stderr is not None
    try:
        where = Settings(demo_archive_ro, data).archive_data_dir
        assert wait_for(lambda: complete_index_exists(where), timeout=90)
    finally:
        proc.stdin.close()  # end of input: the server exits
        proc.wait(timeout=30)
    err = proc.stderr.read()
    assert proc.returncode == 0 and b"Traceback" not in err, err.decode()[-2000:]
