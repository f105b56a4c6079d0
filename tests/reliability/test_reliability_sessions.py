"""Promise: no client can fill the HTTP server's session table and lock the others out.

A real `ccarchive serve --http` on a loopback port, flooded with `initialize` requests
that never close their sessions (what once made every client get 503 for 30 minutes):
every flood request is answered, the table stays at its bound (the oldest sessions on
probation are ended first, and a client that was working before the flood keeps its
session), memory stays flat, and a fresh client initializes and searches (6,000 of them:
in the slow tier, `-m slow`). Idle sessions end after the idle timeout (a short one here),
sessions in use do not; a table full of busy sessions still admits a newcomer: those two
ask one server (`served`), with a short timeout and a small table.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import SERVE_AUTH
from tests.support.http_clients import RawHTTP, httpx_client
from tests.support.serve_process import data_args, indexed_copy, serving_http

pytestmark = pytest.mark.long

HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
    **SERVE_AUTH,
}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "flood", "version": "0"},
    },
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
MAX_SESSIONS = 100


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@pytest.fixture(scope="module")
def indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    data = tmp_path_factory.mktemp("sessions") / "data"
    return data_args(demo_archive_ro, indexed_copy(demo_archive_ro, data, tmp_path_factory))


IDLE = 1.0
"""The shared server's idle timeout, in seconds (`--session-idle`)."""
TABLE = 5
"""The shared server's table of sessions (`--max-sessions`)."""


@pytest.fixture(scope="module")
def served(
    indexed: list[str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """One server for the idle and the busy sessions' tests (a serve costs ~2 CPU-s
    before it answers): a short idle timeout and a small table. Each test makes its own
    sessions, and what one leaves in the table has ended, or ends, by the other's rules."""
    log = tmp_path_factory.mktemp("sessions-served") / "serve.log"
    options = ("--session-idle", str(IDLE), "--max-sessions", str(TABLE))
    with serving_http("--read-only", *options, *indexed, log=log) as served:
        yield served


@asynccontextmanager
async def _server(
    indexed: list[str], tmp_path: Path, *options: str
) -> AsyncIterator[tuple[str, subprocess.Popen[bytes]]]:
    with serving_http("--read-only", *options, *indexed, log=tmp_path / "serve.log") as served:
        yield served


def _client(url: str, mode: str = "legacy") -> Client:
    """An MCP client; "legacy" (the initialize handshake, as Claude Code speaks it) holds a
    session, the 2026 protocol ("auto") is stateless and never enters the table."""
    return Client(
        streamable_http_client(url, http_client=httpx_client(timeout=30, headers=SERVE_AUTH)),
        mode=mode,
    )  # type: ignore[arg-type]


async def _searches(c: Client) -> None:
    r = await c.call_tool("search", {"query": "flaky", "include_active": True})
    assert not r.is_error, r.content[0].text
    assert r.structured_content["total"] > 0


async def _flood(url: str, count: int, workers: int = 16) -> tuple[list[str], dict[int, int]]:
    """`count` initializes that never close; the session ids in order, and the statuses."""
    ids: list[str] = [""] * count
    statuses: dict[int, int] = {}
    todo = iter(range(count))

    async def worker() -> None:  # a connection each (`RawHTTP`: httpx cost more CPU)
        async with RawHTTP(url) as h:
            for i in todo:
                status, headers, _ = await h.post(INIT, HEADERS)
                statuses[status] = statuses.get(status, 0) + 1
                ids[i] = headers.get("mcp-session-id", "")

    await asyncio.gather(*(worker() for _ in range(workers)))
    return ids, statuses


async def _alive(url: str, ids: list[str]) -> list[bool]:
    """Which sessions still answer (a ping: 200) rather than 404."""
    out: list[bool] = []
    async with RawHTTP(url) as h:
        for sid in ids:
            status, _, body = await h.post(PING, {**HEADERS, "mcp-session-id": sid}, timeout=30)
            assert status in (200, 404), (status, body)
            out.append(status == 200)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("flood", [pytest.param(6000, id="6000")])
async def test_initialize_flood_cannot_lock_clients_out(
    indexed: list[str], tmp_path: Path, flood: int
) -> None:
    async with _server(indexed, tmp_path, "--max-sessions", str(MAX_SESSIONS)) as (url, proc):
        async with _client(url) as before:  # a client at work before the flood
            await _searches(before)
            await _flood(url, 300)  # warm the server up before measuring memory
            rss = [_rss_mb(proc.pid)]
            first, statuses = await _flood(url, flood // 2)
            rss.append(_rss_mb(proc.pid))
            second, more = await _flood(url, flood // 2)
            rss.append(_rss_mb(proc.pid))
            print(
                f"\n{flood:,} initializes, table of {MAX_SESSIONS}: statuses "
                f"{statuses} + {more}; RSS {' -> '.join(f'{m:.0f}' for m in rss)} MB"
            )
            # nobody was refused, not even the flood
            assert statuses == more == {200: flood // 2}
            ids = first + second
            assert all(ids) and len(set(ids)) == flood
            # the client at work kept its session through the flood
            await _searches(before)
            async with _client(url) as fresh, _client(url, "auto") as modern:
                await _searches(fresh)  # newcomers get in
                await _searches(modern)
                newest = await _alive(url, ids[-2 * MAX_SESSIONS :])
                older = await _alive(url, ids[: -2 * MAX_SESSIONS : 7])
            # the table holds `before`, `fresh` and the newest of the flood (newest by
            # when they were answered: up to `workers` (16) out of the order they were sent)
            assert sum(newest) == MAX_SESSIONS - 2
            assert not any(older) and not any(newest[: MAX_SESSIONS + 2 - 16]), "old kept"
            # memory: bounded by the table, not by the number of sessions ever opened
            # (at most 25 KB a session ever opened: a leak of 20 KB a session fails)
            assert rss[2] - rss[0] < 60 * min(1, flood / 2000), rss
            assert rss[2] - rss[1] < 25 * min(1, flood / 2000), rss
        assert proc.poll() is None


async def test_idle_sessions_end_sessions_in_use_do_not(
    served: tuple[str, subprocess.Popen[bytes]],
) -> None:
    """A full table of sessions left idle, and one in use more often than the timeout:
    the idle ones end (the newcomer in use ends the oldest of them to get in), the one in
    use does not."""
    url, proc = served
    ids, statuses = await _flood(url, TABLE, workers=1)
    assert statuses == {200: TABLE}
    async with _client(url) as busy:
        await _searches(busy)
        end = time.monotonic() + 2.5 * IDLE
        while time.monotonic() < end:  # used more often than the idle timeout
            await busy.call_tool("status", {})
            await asyncio.sleep(IDLE / 4)
        assert not any(await _alive(url, ids)), "idle sessions outlived the timeout"
        await _searches(busy)
    async with _client(url) as fresh:
        await _searches(fresh)
    await asyncio.sleep(1.5 * IDLE)
    assert not any(await _alive(url, ids))
    assert proc.poll() is None


async def test_sessions_held_busy_cannot_lock_clients_out(
    served: tuple[str, subprocess.Popen[bytes]],
) -> None:
    """Every session of the table holds a GET stream open (busy, never idle, however long
    past the idle timeout): a newcomer still gets in, by ending the oldest of them."""
    url, proc = served
    ids, statuses = await _flood(url, TABLE, workers=1)
    assert statuses == {200: TABLE}
    async with httpx_client(timeout=30) as h, AsyncExitStack() as streams:
        for sid in ids:
            r = await streams.enter_async_context(
                h.stream(
                    "GET",
                    url,
                    headers={**HEADERS, "accept": "text/event-stream", "mcp-session-id": sid},
                )
            )
            assert r.status_code == 200
        await asyncio.sleep(2 * IDLE)  # held streams keep their sessions busy
        async with _client(url) as fresh:
            await _searches(fresh)
        alive = await _alive(url, ids)
    assert alive == [False] + [True] * (TABLE - 1)
    assert proc.poll() is None
