"""In-process MCP clients over the real server: `connect` and `call` for async tests,
`SyncClient` for synchronous callers (hypothesis tests)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

from mcp import Client

from ccarchive.mcp_server.server import build_server
from tests.conftest import DEMO_NOW


@contextlib.asynccontextmanager
async def connect(service: Any, mode: str = "auto", **options: Any) -> AsyncIterator[Client]:
    options.setdefault("clock", lambda: DEMO_NOW)
    async with Client(build_server(service, **options), mode=mode) as client:
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


class SyncClient:
    """An in-process MCP client to the server, on an event loop in a thread, so that
    hypothesis (synchronous) can call tools through it."""

    def __init__(self, service: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.stop: asyncio.Event | None = None
        self.client: Any = None
        self.tools: dict[str, dict] = {}
        self.thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self._main(service),), daemon=True
        )
        self.thread.start()
        assert self.ready.wait(30)

    async def _main(self, service: Any) -> None:
        self.stop = asyncio.Event()
        async with Client(build_server(service, clock=lambda: DEMO_NOW)) as c:
            self.client = c
            self.tools = {t.name: t.input_schema for t in (await c.list_tools()).tools}
            self.ready.set()
            await self.stop.wait()

    def call(self, tool: str, args: Any) -> Any:
        fut = asyncio.run_coroutine_threadsafe(self.client.call_tool(tool, args), self.loop)
        return fut.result(30)

    def close(self) -> None:
        assert self.stop is not None
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(10)
