"""What a client meets beyond the happy path, through the official SDK client: wrong
tool and prompt names, arguments a tool does not take, the capabilities advertised, the
size of the tool list; and every id a tool returns, fed to the tool it points to.
(Over stdio and HTTP, the same checks run against a spawned `ccarchive serve`, shared
with the other tests that only ask it questions: tests/mcp/conftest.py.)
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.conftest import SERVE_AUTH
from tests.eval.agent_harness import tool_list_tokens
from tests.support.http_clients import httpx_client
from tests.support.mcp_client import connect
from tests.support.serve_process import SharedServe

TOOL_LIST_TOKENS = 1500


async def _conformance(c: Client) -> None:
    """The checks every transport must pass."""
    with pytest.raises(MCPError) as unknown:
        await c.call_tool("no_such_tool", {})
    assert unknown.value.code == -32602 and "unknown tool 'no_such_tool'" in str(unknown.value)
    assert "search" in str(unknown.value)  # names the tools there are
    r = await c.call_tool("search", {"query": "flaky", "projects": "tally"})
    assert r.is_error and "unknown argument 'projects'" in r.content[0].text
    assert "project" in r.content[0].text.split("are:")[1]
    with pytest.raises(MCPError) as prompt:
        await c.get_prompt("nope")
    assert prompt.value.code == -32601
    caps = c.server_capabilities
    assert caps is not None and caps.tools is not None
    assert caps.resources is None and caps.prompts is None
    tools = (await c.list_tools()).tools
    assert tool_list_tokens(tools) <= TOOL_LIST_TOKENS
    assert all("\n" not in (t.description or "") for t in tools)
    ok = await c.call_tool("search", {"query": "flaky"})
    assert not ok.is_error and ok.structured_content["results"]


async def test_in_process(demo_service, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with connect(demo_service) as c:
        await _conformance(c)
    assert "Traceback" not in caplog.text


def test_schemas_say_only_what_helps(demo_service) -> None:
    """No pydantic titles, no `anyOf [T, null]`, no `default: null` in any input schema."""
    import asyncio

    async def listed() -> list[Any]:
        async with connect(demo_service) as c:
            return (await c.list_tools()).tools

    text = json.dumps([t.input_schema for t in asyncio.run(listed())])
    assert '"title"' not in text and '{"type": "null"}' not in text
    assert '"default": null' not in text


# ---- over the wire ----------------------------------------------------------------------
async def test_stdio(shared_stdio: SharedServe) -> None:
    """(The serve's whole stderr, from its start: what the other tests asked it too.)"""
    await _conformance(shared_stdio.client)
    err = shared_stdio.stderr()
    assert "Traceback" not in err and "Error" not in err, err[-2000:]


async def test_streamable_http(shared_http: SharedServe) -> None:
    http = httpx_client(headers=SERVE_AUTH, timeout=30)
    async with Client(streamable_http_client(shared_http.url, http_client=http)) as c:
        await _conformance(c)
    err = shared_http.stderr()
    assert "Traceback" not in err, err[-2000:]


# ---- every id chains --------------------------------------------------------------------
async def test_every_id_opens_with_the_tool_it_points_to(demo_service) -> None:
    async with connect(demo_service) as c:

        async def ok(tool: str, **args: Any) -> dict[str, Any]:
            r = await c.call_tool(tool, args)
            assert not r.is_error, (tool, args, r.content[0].text)
            return r.structured_content

        kinds: dict[str, dict[str, Any]] = {}
        for query, kind in [
            ("test", None),
            ("", "plan"),
            ("", "memory"),
            ("", "history"),
            ("", "tool_call"),
            ("", "prompt"),
            ("flaky", None),
        ]:
            page = await ok("search", query=query, kind=kind, limit=50, include_active=True)
            for row in page["results"]:
                kinds.setdefault(row["kind"], row)
                for t in row.get("more", []):
                    kinds.setdefault(t["kind"], {**t, "session": row.get("session", "")})
        assert {"plan", "memory", "history", "prompt", "tool_call"} <= set(kinds)
        for kind, row in kinds.items():
            # an entry id reads back the same entry, in context and in full
            ctx = await ok("context", id=row["id"], before=1, after=1)
            assert ctx["target"]["id"] == row["id"], kind
            full = await ok("get_entries", ids=[row["id"]])
            assert full["entries"][0]["id"] == row["id"]
            if row.get("session"):
                # a session's short id opens the session, and is as short as it is unique
                page = await ok("get_session", session_id=row["session"], limit=1)
                assert page["session_id"].startswith(row["session"])
                assert len(row["session"]) < len(page["session_id"])
                hist = await ok("search_history", session_id=row["session"])
                assert all(
                    i["session_id"].startswith(row["session"]) for i in hist.get("items", [])
                )
        plan = await ok("get_plan", codename=kinds["plan"]["id"])
        assert plan["plan"]["codename"] and plan["text"]
        memory = await ok("get_memory_file", project=kinds["memory"]["id"])
        assert memory["text"] and memory["info"]["filename"].endswith(".md")
        # the ids other tools give chain too
        sessions = await ok("list_sessions", limit=3)
        for s in sessions["sessions"]:
            await ok("get_session", session_id=s["session_id"][:8], limit=1)
        plans = await ok("list_plans", include_agent_plans=True)
        for p in plans["plans"]:
            await ok("get_plan", codename=p["codename"])
        files = await ok("list_memory_files")
        for f in files["files"][:5]:
            await ok("get_memory_file", project=f["project"], filename=f["filename"])
        hist = await ok("search_history", limit=3)
        for item in hist["items"]:
            if item.get("session_id"):
                await ok("get_session", session_id=item["session_id"], limit=1)
        page = await ok("get_session", session_id=sessions["sessions"][0]["session_id"], limit=3)
        for e in page["entries"]:
            assert (await ok("context", id=e["id"], before=0, after=0))["target"]["id"] == e["id"]


async def test_a_short_id_that_names_nothing_or_forged_says_so(demo_service) -> None:
    async with connect(demo_service) as c:
        for bad in ["ffffffff:0:0", "ffff/agent:12:0", "f:1:0", "plan:plans/nope.md"]:
            r = await c.call_tool("context", {"id": bad})
            assert r.is_error and "unknown entry id" in r.content[0].text, bad
        r = await c.call_tool("get_plan", {"codename": "plan:plans/nope.md"})
        assert r.is_error and "unknown plan" in r.content[0].text
        r = await c.call_tool("get_memory_file", {"project": "memory:projects/x/MEMORY.md"})
        assert r.is_error and "unknown memory file" in r.content[0].text
