"""HTTP clients for the tests of `ccarchive serve --http` (plain HTTP, on loopback):
httpx clients that skip what costs them most at creation, and a bare HTTP/1.1 client for
the floods.

An `httpx2.AsyncClient()` loads the system's CA certificates into a new SSL context as it
is made, about 50 ms of CPU, for a URL that never uses TLS: `httpx_client` gives every
client one context, made once. And httpx costs about 2.4 ms of CPU a request on the
client's side (measured: 200 `initialize` posts to a serve, 0.49 CPU-s), more than the
request costs the server: a flood of a thousand requests spent more CPU in the test than
in what it tests. `RawHTTP` writes a request as bytes on one keep-alive connection and
reads what the server answers a JSON-RPC post (a body with its length, or chunks), and
nothing else: an answer it cannot read fails the test."""

from __future__ import annotations

import asyncio
import json
import ssl
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import httpx2


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def httpx_client(**options: Any) -> httpx2.AsyncClient:
    """`httpx2.AsyncClient(**options)`, with the default SSL context made once per process."""
    return httpx2.AsyncClient(verify=_tls(), **options)


class RawHTTP:
    """One connection to the server of `url`, reopened when the server closes it."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.path = parts.path or "/"
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawHTTP:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            try:
                await self.writer.wait_closed()
            except OSError:
                pass
        self.reader = self.writer = None

    async def post(
        self, message: Any, headers: dict[str, str], timeout: float = 60
    ) -> tuple[int, dict[str, str], bytes]:
        """POST `message` (as JSON) with `headers`: the status, the answer's headers (names
        in lower case) and its body; `timeout` seconds for all of it."""
        async with asyncio.timeout(timeout):
            return await self._post(message, headers)

    async def _post(
        self, message: Any, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        body = json.dumps(message).encode()
        head = [f"POST {self.path} HTTP/1.1", f"host: {self.host}:{self.port}"]
        head += [f"{k}: {v}" for k, v in headers.items() if k.lower() != "host"]
        head += [f"content-length: {len(body)}", "", ""]
        request = "\r\n".join(head).encode() + body
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(request)
        await self.writer.drain()
        status_line = await self.reader.readline()
        assert status_line.startswith(b"HTTP/1.1 "), status_line
        status = int(status_line.split()[1])
        answer: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            answer[name.strip().lower()] = value.strip()
        if "content-length" in answer:
            data = await self.reader.readexactly(int(answer["content-length"]))
        else:
            assert answer.get("transfer-encoding") == "chunked", answer
            data = b""
            while size := int((await self.reader.readline()).split(b";")[0], 16):
                data += await self.reader.readexactly(size)
                await self.reader.readline()
            await self.reader.readline()
        if answer.get("connection", "").lower() == "close":
            await self.close()
        return status, answer, data
