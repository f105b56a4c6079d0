"""A slowloris against `ccarchive serve --http`, and a real client beside it.

`flood(url, ...)` opens `sockets` connections to the server (loopback only) that send a
request's headers a line at a time and never finish them; each one closed by the server is
opened again, until `seconds` have passed: then everything stops by itself. Meanwhile a real
client sends a whole `initialize` now and then and counts the answers.

Run it against a server by hand (the closing report's figures):

    python -m tests.reliability.http_flood http://127.0.0.1:8765/mcp TOKEN 20 1100
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "real", "version": "0"},
    },
}


@dataclass
class FloodResult:
    asked: int = 0
    answered: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    opened: int = 0
    closed_by_server: int = 0
    connect_failed: int = 0


async def _slow_socket(host: str, port: int, end: float, res: FloodResult) -> None:
    while time.monotonic() < end:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout=2)
        except (TimeoutError, OSError):
            res.connect_failed += 1
            await asyncio.sleep(0.2)
            continue
        res.opened += 1
        try:
            writer.write(f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n".encode())
            await writer.drain()
            i = 0
            while time.monotonic() < end:
                try:  # the server closing the connection ends the read
                    if await asyncio.wait_for(reader.read(1024), timeout=0.5) == b"":
                        res.closed_by_server += 1
                        break
                except TimeoutError:
                    pass
                writer.write(f"X-Slow-{i}: a\r\n".encode())
                await writer.drain()
                i += 1
        except (OSError, ConnectionError):
            res.closed_by_server += 1
        finally:
            writer.close()


def _real(host: str, port: int, token: str, end: float, res: FloodResult) -> None:
    """The real client, in a thread of its own with plain sockets: its timing is the
    server's, not that of the flood's event loop in this process."""
    body = json.dumps(INIT).encode()
    while time.monotonic() < end:
        res.asked += 1
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\n"
            "Accept: application/json, text/event-stream\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        ).encode()
        try:
            with socket.create_connection((host, port), timeout=5) as s:
                s.sendall(head + body)
                status = s.makefile("rb").readline()
            code = int(status.split()[1]) if status.startswith(b"HTTP/") else 0
            res.statuses[code] = res.statuses.get(code, 0) + 1
            res.answered += code == 200
        except TimeoutError:  # -1: no answer within 5 s
            res.statuses[-1] = res.statuses.get(-1, 0) + 1
        except (OSError, ValueError, IndexError):  # 0: refused, reset or garbled
            res.statuses[0] = res.statuses.get(0, 0) + 1
        time.sleep(0.3)


async def flood(url: str, token: str, seconds: float, sockets: int) -> FloodResult:
    """The flood and the real client, both for `seconds`; loopback only."""
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or 80
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError("the flood runs against loopback only")
    res = FloodResult()
    end = time.monotonic() + seconds

    async def later(i: int) -> None:
        await asyncio.sleep(i * 0.002)  # a ramp, not one burst
        await _slow_socket(host, port, end, res)

    await asyncio.gather(
        *(later(i) for i in range(sockets)), asyncio.to_thread(_real, host, port, token, end, res)
    )
    return res


if __name__ == "__main__":
    u, t, secs, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
    print(asyncio.run(flood(u, t, secs, n)))
