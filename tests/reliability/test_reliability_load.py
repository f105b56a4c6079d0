"""Promise: the HTTP server holds 50 concurrent clients and shrugs off bad requests.

A real `ccarchive serve --http` on a loopback port; 50 clients (raw JSON-RPC over
streamable HTTP, one MCP session each) call tools in a loop while malformed and
oversized requests are thrown at it. Zero crashes, zero errors for the good calls,
an error status for every bad request, and the server's RSS (sampled) bounded.
The load is a number of calls, not a length of time: each client makes its calls one
after another and the bad requests keep coming until every client is done, so the same
work is checked on a fast machine and a loaded one: 60 calls per client. In the slow tier
(`-m slow`), for its load: the suite checks the same server over HTTP with one client
(tests/mcp/test_mcp_transports.py) and bad arguments to every tool in process
(tests/reliability/test_reliability_input.py).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from pathlib import Path

import httpx2
import pytest

from tests.conftest import SERVE_AUTH
from tests.support.http_clients import RawHTTP, httpx_client
from tests.support.serve_process import data_args, indexed_copy, serving_http

HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    **SERVE_AUTH,
}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "load", "version": "0"},
    },
}
CALLS = [
    ("search", {"query": "flaky"}),
    ("search", {"query": "walker OR tally", "group_by_session": True}),
    ("list_sessions", {"limit": 5}),
    ("status", {}),
    ("timeline", {"days": 3660}),
    ("search_history", {"limit": 5}),
    ("list_plans", {}),
]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _client(url: str, calls: int, stats: dict[str, int], rng: random.Random) -> None:
    """One client: a connection of its own (`RawHTTP`: 50 httpx clients cost the test more
    CPU than the server spent answering them), a session, `calls` tool calls."""
    async with RawHTTP(url) as h:
        status, headers, body = await h.post(INIT, HEADERS)
        assert status == 200, body
        sess = {**HEADERS, "mcp-session-id": headers["mcp-session-id"]}
        status, _, body = await h.post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"}, sess
        )
        assert status == 202, (status, body)
        for n in range(2, 2 + calls):
            tool, args = rng.choice(CALLS)
            status, _, body = await h.post(
                {
                    "jsonrpc": "2.0",
                    "id": n,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": args},
                },
                sess,
            )
            ok = status == 200 and not json.loads(body).get("result", {}).get("isError")
            stats["ok" if ok else "failed"] += 1


BAD = [
    (b"{not json", {}),
    (b"\xff\xfe\x00garbage", {}),
    (b"[1, 2, 3]", {}),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "no/such"}', {}),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search"}}', {}),
    (b"{" + b'"a": "' + b"x" * (20 << 20) + b'"}', {}),  # 20 MB
    (b'{"jsonrpc": "2.0"}', {"content-type": "text/plain"}),
    (b"", {}),
]


async def _bad(url: str, done: asyncio.Event, stats: dict[str, int], rng: random.Random) -> None:
    """Bad requests of every kind, in a shuffled round, round after round until every
    client is done (at least one whole round: no kind goes untried however soon they are)."""
    order = list(range(len(BAD)))
    async with httpx_client(timeout=60) as h:
        for n in itertools.count():
            if n % len(BAD) == 0:
                if done.is_set():
                    return
                rng.shuffle(order)
            kind = order[n % len(BAD)]
            body, extra = BAD[kind]
            stats[f"bad_kind_{kind}"] = stats.get(f"bad_kind_{kind}", 0) + 1
            try:
                r = await h.post(url, content=body, headers={**HEADERS, **extra})
            except httpx2.TransportError:
                # closed unanswered: the guard closes a request still arriving (the 20 MB
                # body, slow on a loaded machine) when it is too slow or its connection is
                # the longest-arriving one while all are taken (ccarchive.cli.http_guard)
                stats["bad_closed"] += 1
            else:
                stats["bad_rejected" if r.status_code >= 400 else "bad_accepted"] += 1
            await asyncio.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("calls", [pytest.param(60, id="60-calls")])
async def test_http_under_50_clients_and_bad_requests(
    demo_archive_ro: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, calls: int
) -> None:
    data = indexed_copy(demo_archive_ro, tmp_path / "data", tmp_path_factory)
    args = data_args(demo_archive_ro, data)
    with serving_http("--read-only", *args, log=tmp_path / "serve.log") as (url, proc):
        stats = {"ok": 0, "failed": 0, "bad_rejected": 0, "bad_closed": 0, "bad_accepted": 0}
        rss: list[float] = [_rss_mb(proc.pid)]

        done = asyncio.Event()

        async def sample() -> None:
            while not done.is_set():
                rss.append(_rss_mb(proc.pid))
                await asyncio.sleep(0.5)

        async def clients() -> None:
            try:
                await asyncio.gather(
                    *(_client(url, calls, stats, random.Random(i)) for i in range(50))
                )
            finally:
                done.set()

        await asyncio.gather(
            clients(),
            *(_bad(url, done, stats, random.Random(100 + i)) for i in range(3)),
            sample(),
        )
        rss.append(_rss_mb(proc.pid))
        assert proc.poll() is None, "the server died"
        warm = rss[min(len(rss) - 1, 4)]
        print(
            f"\n{calls} calls x 50 clients: {stats['ok']} calls ok, {stats['failed']} failed; "
            f"{stats['bad_rejected']} bad requests rejected, {stats['bad_closed']} closed "
            f"unanswered, {stats['bad_accepted']} accepted; RSS start {rss[0]:.0f} MB, "
            f"after warm-up {warm:.0f} MB, peak {max(rss):.0f} MB"
        )
        assert stats["failed"] == 0 and stats["ok"] == 50 * calls
        # no bad request was taken; each got an error status, or (see `_bad`) its
        # connection closed while it was still arriving
        assert stats["bad_accepted"] == 0 and stats["bad_rejected"] > 0
        assert all(stats.get(f"bad_kind_{k}", 0) >= 3 for k in range(len(BAD))), stats
        assert max(rss) < warm + 300, rss  # bounded: no growth with requests
        async with httpx_client(timeout=30) as h:  # still serving
            assert (await h.post(url, json=INIT, headers=HEADERS)).status_code == 200
