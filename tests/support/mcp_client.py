"""An in-process MCP client for synchronous callers (hypothesis tests)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from tests.conftest import DEMO_NOW


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
        from mcp import Client

        from ccarchive.mcp_server.server import build_server

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
