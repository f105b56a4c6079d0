"""`ccarchive serve` as agents run it: spawned over stdio, and as a real HTTP server on
a free loopback port (Host/Origin checks, bearer token)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import SERVE_TOKEN, build_index
from tests.support.http_clients import httpx_client
from tests.support.serve_process import (
    CCARCHIVE,
    SharedServe,
    data_args,
    indexed_copy,
    stdio_params,
)

FAKE_KEY = "sk-ant-api03-DEMO"


@pytest.fixture
def served(
    demo_archive_ro: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> list[str]:
    """--archive/--data-dir of the demo archive with a copy of its index, private to the
    test (the server it spawns becomes its writer)."""
    return data_args(
        demo_archive_ro, indexed_copy(demo_archive_ro, tmp_path / "data", tmp_path_factory)
    )


async def _every_tool(c: Client) -> dict[str, Any]:
    """Call every tool once (and a page, a bad call); return what search found."""
    tools = {t.name for t in (await c.list_tools()).tools}
    assert len(tools) == 13
    page = await c.call_tool(
        "search", {"query": "test", "limit": 3, "include_active": True, "group_by_session": False}
    )
    assert not page.is_error
    hits = page.structured_content["results"]
    nxt = await c.call_tool(
        "search",
        {
            "query": "test",
            "limit": 3,
            "cursor": page.structured_content["next_cursor"],
            "group_by_session": False,
        },
    )
    assert not {h["id"] for h in hits} & {h["id"] for h in nxt.structured_content["results"]}
    sid = next(h["session"] for h in hits if h.get("session"))
    listed = await c.call_tool("list_plans", {})
    codename = listed.structured_content["plans"][0]["codename"]
    calls = [
        ("context", {"id": hits[0]["id"]}),
        ("get_entries", {"ids": [hits[0]["id"]]}),
        ("get_session", {"session_id": sid, "limit": 2}),
        ("list_projects", {}),
        ("list_sessions", {"limit": 2}),
        ("timeline", {"days": 3660}),
        ("get_plan", {"codename": codename}),
        ("list_memory_files", {}),
        ("get_memory_file", {"project": "tally"}),
        ("search_history", {"limit": 2}),
        ("status", {}),
    ]
    for tool, args in calls:
        r = await c.call_tool(tool, args)
        assert not r.is_error, (tool, r.content[0].text)
        assert r.structured_content and json.loads(r.content[0].text)
    bad = await c.call_tool("context", {"id": "no-such-id"})
    assert bad.is_error and "unknown entry id" in bad.content[0].text
    bad = await c.call_tool(
        "search", {"query": "x", "since": "whenever", "group_by_session": False}
    )
    assert bad.is_error and "since" in bad.content[0].text
    secret = await c.call_tool(
        "search", {"query": "DATABASE_URL", "include_tool_results": True, "group_by_session": False}
    )
    ids = [h["id"] for h in secret.structured_content["results"]]
    full = await c.call_tool("get_entries", {"ids": ids, "max_chars": 100_000})
    return {"hits": hits, "secret_text": full.content[0].text}


# ---- stdio ----------------------------------------------------------------------------
async def test_stdio_serves_every_tool_redacted(shared_stdio: SharedServe) -> None:
    got = await _every_tool(shared_stdio.client)
    assert FAKE_KEY not in got["secret_text"] and "[REDACTED:" in got["secret_text"]


def test_stdio_stdout_carries_only_the_protocol(served: list[str]) -> None:
    """Raw JSON-RPC over the pipes: every line on stdout is a protocol message. The serve
    is started with `--no-redact`, and serves the demo archive's secret as it is (its
    own serve once: the shared one redacts, `test_stdio_serves_every_tool_redacted`)."""
    msgs = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "flaky"}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "get_entries", "arguments": {"ids": ["nope"]}},
        },
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "status", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {
                "name": "search",
                "arguments": {
                    "query": "DATABASE_URL",
                    "include_tool_results": True,
                    "group_by_session": False,
                },
            },
        },
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get_entries"}},
    ]
    proc = subprocess.Popen(
        [CCARCHIVE, "serve", "-vv", "--no-redact", *served],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers: dict[int, Any] = {}
    try:
        for m in msgs:
            if m.get("id") == 6:  # the entries the search found, whole
                found = answers[5]["result"]["structuredContent"]["results"]
                m["params"]["arguments"] = {"ids": [h["id"] for h in found]}
            proc.stdin.write(json.dumps(m).encode() + b"\n")
            proc.stdin.flush()
            if "id" in m:
                line = proc.stdout.readline()
                reply = json.loads(line)
                assert reply["jsonrpc"] == "2.0"
                answers[reply["id"]] = reply
        proc.stdin.close()
        rest, err = proc.stdout.read(), proc.stderr.read() if proc.stderr else b""
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    for line in rest.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert answers[1]["result"]["serverInfo"]["name"] == "ccarchive"
    assert answers[2]["result"]["structuredContent"]["results"][0]["text"]
    assert answers[3]["result"]["isError"] is True
    assert answers[4]["result"]["structuredContent"]["sessions"] > 0
    assert FAKE_KEY in answers[6]["result"]["content"][0]["text"]  # --no-redact
    assert err  # -vv logs went to stderr


# ---- HTTP -------------------------------------------------------------------------------
def _client(url: str, token: str | None = SERVE_TOKEN, **headers: str) -> Client:
    if token:
        headers["authorization"] = f"Bearer {token}"
    return Client(
        streamable_http_client(url, http_client=httpx_client(headers=headers, timeout=30))
    )


async def test_http_serves_every_tool(shared_http: SharedServe) -> None:
    async with _client(shared_http.url) as c:
        got = await _every_tool(c)
    assert FAKE_KEY not in got["secret_text"]


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
JSON_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"authorization": "Bearer wrong-token-0123456789"}, 401),
        ({"authorization": f"Basic {SERVE_TOKEN}"}, 401),
        ({"authorization": f"Bearer {SERVE_TOKEN}", "host": "evil.example:80"}, 421),
        ({"authorization": f"Bearer {SERVE_TOKEN}", "host": "127.0.0.1"}, 421),
        ({"authorization": f"Bearer {SERVE_TOKEN}", "origin": "http://evil.example"}, 403),
        (
            {
                "authorization": f"Bearer {SERVE_TOKEN}",
                "origin": "http://127.0.0.1.evil.example:80",
            },
            403,
        ),
        ({"authorization": f"Bearer {SERVE_TOKEN}"}, 200),
        ({"authorization": f"Bearer {SERVE_TOKEN}", "origin": "http://localhost:3000"}, 200),
    ],
)
async def test_http_checks_token_host_and_origin(
    shared_http: SharedServe, headers: dict[str, str], status: int
) -> None:
    async with httpx_client(timeout=10) as h:
        r = await h.post(shared_http.url, json=INIT, headers={**JSON_HEADERS, **headers})
    assert r.status_code == status, r.text
    if status == 401:
        assert "Bearer" in r.headers.get("www-authenticate", "")


async def test_http_rejected_client_cannot_call_tools(shared_http: SharedServe) -> None:
    with pytest.raises(BaseException):  # noqa: B017 (the SDK wraps it in a group)
        async with _client(shared_http.url, token="wrong-token-0123456789") as c:
            await c.call_tool("status", {})


def test_http_without_a_token_only_on_request_and_only_on_loopback(served: list[str]) -> None:
    from ccarchive.cli.main import main

    env = {k: v for k, v in os.environ.items() if k != "CCARCHIVE_TOKEN"}
    r = CliRunner(env={"CCARCHIVE_TOKEN": ""}).invoke(
        main, ["serve", "--http", "--host", "0.0.0.0", "--no-auth", *served], env=env
    )
    assert r.exit_code == 2 and "--no-auth is refused" in r.output
    r = CliRunner().invoke(main, ["serve", "--http", "--no-auth", "--token", SERVE_TOKEN, *served])
    assert r.exit_code == 2 and "contradict" in r.output
    r = CliRunner().invoke(
        main, ["serve", "--http", "--host", "0.0.0.0", "--token", "short", *served]
    )
    assert r.exit_code == 2 and "16 characters" in r.output


def test_http_app_accepts_the_bound_host_and_allowed_extras() -> None:
    from starlette.testclient import TestClient

    from ccarchive.cli.serve import http_app
    from ccarchive.mcp_server.server import build_server

    class Dummy:  # the app is built without touching the service
        redact_secrets = True
        generation = 0

    server = build_server(Dummy(), active_minutes=0)  # type: ignore[arg-type]
    app = http_app(
        server,
        host="10.1.2.3",
        token=SERVE_TOKEN,
        allow_hosts=["archive.lan"],
        allow_origins=["https://ui.lan"],
    )
    auth = {**JSON_HEADERS, "authorization": f"Bearer {SERVE_TOKEN}"}
    with TestClient(app, base_url="http://10.1.2.3:8765") as tc:
        assert tc.post("/mcp", json=INIT, headers=auth).status_code == 200
        assert (
            tc.post("/mcp", json=INIT, headers={**auth, "host": "archive.lan:8765"}).status_code
            == 200
        )
        assert (
            tc.post("/mcp", json=INIT, headers={**auth, "host": "other.lan:8765"}).status_code
            == 421
        )
        assert (
            tc.post("/mcp", json=INIT, headers={**auth, "origin": "https://ui.lan"}).status_code
            == 200
        )
        assert (
            tc.post("/mcp", json=INIT, headers={**auth, "origin": "https://x.lan"}).status_code
            == 403
        )
        assert tc.post("/mcp", json=INIT, headers=JSON_HEADERS).status_code == 401


async def test_stdio_serves_what_is_appended_and_leaves_out_the_active_session(
    demo_archive: Path, tmp_path: Path
) -> None:
    """The live index keeps what `serve` answers current; the session just written to is
    the caller's own, so it is left out of searches unless asked for."""
    import uuid
    from datetime import UTC, datetime

    data = tmp_path / "data"
    build_index(demo_archive, data)
    path = next((demo_archive / "projects").glob("*dotfiles/*.jsonl"))
    first = next(
        r
        for r in map(json.loads, path.read_text().splitlines())
        if r.get("type") == "user" and isinstance(r["message"]["content"], str)
    )
    sid = first["sessionId"]
    async with Client(stdio_params(*data_args(demo_archive, data))) as c:
        before = await c.call_tool(
            "search", {"query": "zebrafinch", "include_active": True, "group_by_session": False}
        )
        assert before.structured_content["total"] == 0
        line = {
            **first,
            "uuid": str(uuid.uuid4()),
            "parentUuid": None,
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "message": {"role": "user", "content": "where did the zebrafinch go?"},
        }
        with path.open("a") as f:
            f.write(json.dumps(line) + "\n")
        deadline = time.monotonic() + 20
        found: dict[str, Any] = {}
        while time.monotonic() < deadline:
            r = await c.call_tool(
                "search", {"query": "zebrafinch", "include_active": True, "group_by_session": False}
            )
            found = r.structured_content
            if found["total"]:
                break
            await asyncio.sleep(0.2)
        assert found["total"] == 1 and sid.startswith(found["results"][0]["session"])
        mine = (
            await c.call_tool("search", {"query": "zebrafinch", "group_by_session": False})
        ).structured_content
        assert mine["excluded_sessions"] == [sid] and mine["total"] == 0


async def test_read_only_serve_follows_another_writer(demo_archive: Path, tmp_path: Path) -> None:
    import uuid

    data = tmp_path / "data"
    args = ["--archive", str(demo_archive), "--data-dir", str(data)]
    from ccarchive.cli.main import main

    r = CliRunner().invoke(main, ["serve", "--read-only", *args])
    assert r.exit_code == 1 and "ccarchive index" in r.output  # never indexes itself
    build_index(demo_archive, data)
    path = next((demo_archive / "projects").glob("*tally/*.jsonl"))
    first = next(
        r
        for r in map(json.loads, path.read_text().splitlines())
        if r.get("type") == "user" and isinstance(r["message"]["content"], str)
    )
    async with Client(stdio_params("--read-only", *args)) as c:
        status = (await c.call_tool("status", {})).structured_content
        assert status["role"] == "read-only"
        line = {
            **first,
            "uuid": str(uuid.uuid4()),
            "message": {"role": "user", "content": "the quokka benchmark"},
        }
        with path.open("a") as f:
            f.write(json.dumps(line) + "\n")
        # another writer: this process, as `ccarchive index` (the serve only reads)
        indexed = CliRunner().invoke(main, ["index", *args])
        assert indexed.exit_code == 0, indexed.output
        deadline = time.monotonic() + 10
        total = 0
        while time.monotonic() < deadline and not total:
            r = await c.call_tool(
                "search", {"query": "quokka", "include_active": True, "group_by_session": False}
            )
            total = r.structured_content["total"]
            await asyncio.sleep(0.2)
        assert total == 1
