"""In-process MCP clients over the real server: `connect` and `call` for async tests,
`SyncClient` for synchronous callers (hypothesis tests)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

from mcp import Client
from mcp.server.mcpserver import MCPServer

from ccarchive.mcp_server.server import build_server
from tests.conftest import DEMO_NOW

_KEEP = 4
"""Servers `served` keeps, the most recently used."""


def served(service: Any, **options: Any) -> MCPServer:
    """The server `build_server(service, clock=DEMO_NOW, **options)` builds, built once
    per test process for each service and set of plain options.

    Building one registers the 13 tools, and the SDK derives their schemas with pydantic:
    ~0.1 CPU-s a server, most of an in-process test's own cost, paid again by every test
    for the very same server. The server keeps nothing of a client between connections
    (what the HTTP serve's many sessions rely on), only a 2-second cache of the caller's
    session keyed by the index's generation; a server is made for each client all the
    same where an option is a function (a clock, a callback), which cannot be compared.
    `build_server` sets its service's redaction, and servers kept share their service:
    handing a kept server out sets the service back to what its build left it."""
    if any(callable(v) for v in options.values()):
        options.setdefault("clock", lambda: DEMO_NOW)
        return build_server(service, **options)
    server, redaction = _built(service, tuple(sorted(options.items())))
    service.redact_secrets = redaction
    return server


@functools.lru_cache(maxsize=_KEEP)
def _built(service: Any, options: tuple[tuple[str, Any], ...]) -> tuple[MCPServer, bool]:
    """A server over `service` with `options`, and the redaction its build left the
    service with (the cache holds the service: its identity names no other while kept)."""
    server = build_server(service, clock=lambda: DEMO_NOW, **dict(options))
    return server, service.redact_secrets


_COMPILED: dict[str, Any] = {}
"""Output-schema validators the clients of this process compiled: schema (as JSON) -> it."""


def validators_compiled_once(monkeypatch: Any) -> None:
    """Every MCP client the test makes compiles a tool's output-schema validator once per
    schema for the whole test process, not once per client: the SDK's client compiles one
    the first time each of its sessions meets a tool (checking the schema against JSON
    Schema's own meta-schema first, ~15 ms of CPU for a search result's), and a test
    makes a client or more. The same schema gives the same validator, so every result is
    checked as before; a schema that fails the meta-schema still fails (a failed compile
    is never kept). tests/mcp/test_client_validators.py fails if the SDK changes what
    this wraps."""
    from mcp.client.session import ClientSession

    compile_ = ClientSession._output_schema_validator

    def compiled_once(self: Any, name: str, output_schema: dict[str, Any]) -> Any:
        own = self._tool_output_validators.get(name)
        if own is not None:
            return own
        key = json.dumps(output_schema, sort_keys=True)
        validator = _COMPILED.get(key)
        if validator is None:
            validator = _COMPILED[key] = compile_(self, name, output_schema)
        self._tool_output_validators[name] = validator
        return validator

    monkeypatch.setattr(ClientSession, "_output_schema_validator", compiled_once)


@contextlib.asynccontextmanager
async def connect(service: Any, mode: str = "auto", **options: Any) -> AsyncIterator[Client]:
    async with Client(served(service, **options), mode=mode) as client:
        yield client


async def call(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    """Call a tool that must succeed; check the text copy matches the structured one."""
    r = await client.call_tool(tool, args)
    assert not r.is_error, r.content[0].text
    data = r.structured_content
    assert data is not None
    text = json.loads(r.content[0].text)
    # the text copy is the structured one without its empty fields
    for key, value in text.items():
        assert data[key] == value or isinstance(value, (dict, list)), key
    return data


class ThreadedClient:
    """An MCP client on an event loop of its own, in a thread, to `target` (what `Client`
    takes: a server, a transport): synchronous callers (hypothesis) call tools through
    `call`, and a test on its own event loop through `relay`, so one client (and the
    server it connected to) outlives the test that made it."""

    def __init__(self, target: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.stop: asyncio.Event | None = None
        self.client: Any = None
        self.failed: BaseException | None = None
        self.tools: dict[str, dict] = {}
        self.thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self._main(target),), daemon=True
        )
        self.thread.start()
        assert self.ready.wait(60), "the client did not connect"
        assert self.failed is None, self.failed

    async def _main(self, target: Any) -> None:
        self.stop = asyncio.Event()
        try:
            async with Client(target) as c:
                self.client = c
                self.tools = {t.name: t.input_schema for t in (await c.list_tools()).tools}
                self.ready.set()
                await self.stop.wait()
        except BaseException as exc:
            self.failed = exc
            self.ready.set()
            raise

    def call(self, tool: str, args: Any) -> Any:
        fut = asyncio.run_coroutine_threadsafe(self.client.call_tool(tool, args), self.loop)
        return fut.result(30)

    @property
    def relay(self) -> Any:
        """The client as an async test uses it: its methods awaited on the caller's loop,
        run on the client's."""
        return _Relay(self)

    def close(self) -> None:
        assert self.stop is not None
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


class _Relay:
    def __init__(self, owner: ThreadedClient) -> None:
        self._owner = owner

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._owner.client, name)
        if not inspect.iscoroutinefunction(value):
            return value
        loop = self._owner.loop

        async def relayed(*args: Any, **kwargs: Any) -> Any:
            done = asyncio.run_coroutine_threadsafe(value(*args, **kwargs), loop)
            return await asyncio.wrap_future(done)

        return relayed


class SyncClient(ThreadedClient):
    """A `ThreadedClient` to the in-process server over `service`."""

    def __init__(self, service: Any) -> None:
        super().__init__(served(service))
