"""What an MCP call costs beyond the tool, cut where it was ccarchive's to cut: the
SDK's OpenTelemetry span per message is left out when nothing receives spans, kept when
a tracer provider is set; the answers are the same either way."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from opentelemetry import trace
from opentelemetry.trace import NoOpTracerProvider

from ccarchive.mcp_server.server import build_server
from tests.conftest import DEMO_NOW

TRACING = "OpenTelemetryMiddleware"


def kinds(server: MCPServer) -> list[str]:
    return [type(m).__name__ for m in server.middleware]


def test_the_sdk_still_puts_its_tracing_middleware_on_every_server() -> None:
    """The cut depends on it: a bare SDK server makes a span per message with this
    middleware (if the SDK renames or moves it, this fails and the cut is re-checked)."""
    from mcp.server._otel import OpenTelemetryMiddleware

    bare = MCPServer("bare")
    assert any(isinstance(m, OpenTelemetryMiddleware) for m in bare.middleware)
    assert TRACING in kinds(bare)


def test_no_span_is_made_when_nothing_receives_it(demo_service: Any) -> None:
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
    server = build_server(demo_service, clock=lambda: DEMO_NOW)
    assert TRACING not in kinds(server)
    # only that one: the SDK's request-state boundary and ccarchive's own stay
    assert kinds(server) == [k for k in kinds(MCPServer("bare")) if k != TRACING] + ["SchemaErrors"]


def test_spans_are_kept_when_a_tracer_provider_is_set(
    demo_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: NoOpTracerProvider())
    assert TRACING in kinds(build_server(demo_service, clock=lambda: DEMO_NOW))


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "deploy"}),
    ("search", {"query": "test", "detail": "full", "include_active": True}),
    ("search", {"query": "kind:plan"}),
    ("list_sessions", {"limit": 3}),
    ("status", {}),
    ("search", {"query": "x", "bogus": 1}),
    ("context", {"id": "no-such-entry"}),
]


async def _answers(server: MCPServer) -> list[tuple[bool, str, Any]]:
    out = []
    async with Client(server) as c:
        for name, args in CALLS:
            r = await c.call_tool(name, args)
            text = r.content[0].text
            if name == "status":  # it says when it was asked
                text = json.dumps({k: v for k, v in json.loads(text).items() if k != "last_update"})
            out.append((r.is_error, text, None if name == "status" else r.structured_content))
    return out


async def test_the_answers_are_the_same_with_and_without_spans(
    demo_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    lean = build_server(demo_service, clock=lambda: DEMO_NOW)
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: NoOpTracerProvider())
    traced = build_server(demo_service, clock=lambda: DEMO_NOW)
    assert TRACING not in kinds(lean) and TRACING in kinds(traced)
    ours, theirs = await _answers(lean), await _answers(traced)
    assert ours == theirs
    assert [e for e, _, _ in ours] == [False, False, False, False, False, True, True]
