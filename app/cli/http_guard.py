"""What one HTTP client can hold of `serve --http`: its token, connections, time, the log.

Loopback is not a trust boundary: any local user can connect to 127.0.0.1. So the server
asks for a bearer token by default, one generated on first use and kept in the data dir
(`http-token`, mode 0600, created exclusively, never through a link), unless `--no-auth`
asks otherwise.

A client that opens connections and sends its request a byte at a time (slowloris) held
every file descriptor the process had: with 1,100 such sockets under the common 1,024-fd
limit every real request timed out, and each refused `accept` logged a traceback (672 MB
in two minutes). Here:

* the connections open at once are bounded (`max_connections`, well under the fd limit,
  which is raised to its hard limit first); when they are all taken, the one that has been
  sending its request the longest is closed to admit the newcomer (one still answering a
  request is never closed), so a flood never locks a real client out;
* a request must arrive whole, headers and body, within `REQUEST_SECONDS` of its first
  byte (of the connection, for the first one), else its connection is closed;
* what a flood makes happen is logged once when it begins, then as one line of counts at
  most every `LOG_EVERY` seconds, never a line per connection.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import secrets
import stat
import time
from pathlib import Path
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from ccarchive.config import UnsafeWrite, create_private_file, private_dir

log = logging.getLogger("ccarchive.serve")

TOKEN_FILE = "http-token"
REQUEST_SECONDS = 10.0
"""Time a request has to arrive whole (an MCP request is a few kB: far less is needed)."""
LOG_EVERY = 60.0
FD_RESERVE = 200
"""File descriptors kept for the index, the archive's files and the process itself."""


# ---- the token -------------------------------------------------------------------------
def http_token(data_dir: Path, archive_root: Path | None = None) -> tuple[str, Path]:
    """The bearer token kept in `data_dir/http-token` (made on first use) and its path.

    Raises:
        UnsafeWrite: the file is a link, not ours, or readable by others: refused rather
            than trusted (whoever could plant it would know the token).
    """
    private_dir(data_dir, under=data_dir, archive_root=archive_root)
    path = data_dir / TOKEN_FILE
    try:
        create_private_file(path, secrets.token_urlsafe(32).encode() + b"\n", mode=0o600)
    except UnsafeWrite:
        pass  # there already: read it, checked as below
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError as exc:
        why = "it is a symbolic link" if path.is_symlink() else f"it cannot be read ({exc})"
        raise UnsafeWrite(
            13,
            f"refused the token file {path}: {why}; remove it and "
            "ccarchive makes a new one (mode 0600)",
        ) from None
    try:
        st = os.fstat(fd)
        why = (
            "it is not a regular file"
            if not stat.S_ISREG(st.st_mode)
            else f"it has {st.st_nlink} links"
            if st.st_nlink != 1
            else "another user owns it"
            if st.st_uid != os.geteuid()
            else f"others can read or write it (mode {stat.S_IMODE(st.st_mode):o})"
            if st.st_mode & 0o077
            else ""
        )
        if why:
            raise UnsafeWrite(
                13,
                f"refused the token file {path}: {why}; remove it and "
                "ccarchive makes a new one (mode 0600)",
            )
        token = os.read(fd, 4096).decode("ascii", "replace").strip()
    finally:
        os.close(fd)
    if len(token) < 16:
        raise UnsafeWrite(
            22,
            f"the token in {path} is shorter than 16 characters; remove "
            "the file and ccarchive makes a new one",
        )
    return token, path


# ---- connections -----------------------------------------------------------------------
def connection_limit() -> int:
    """Connections to keep open at once: the fd limit (raised to its hard limit), less a
    reserve, halved, at most 1,000. The listen backlog is a quarter of it (`backlog`):
    asyncio accepts up to the backlog at once before any connection is looked at, so the
    fds in use stay under connections + backlog + reserve."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        want = 65_536 if hard == resource.RLIM_INFINITY else min(hard, 65_536)
        if want > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
                soft = want
            except (ValueError, OSError):
                pass
    return max(8, min(1_000, (soft - FD_RESERVE) // 2))


class FloodLog:
    """Counts what a flood makes the server do; logs the first, then a line of counts at
    most every `LOG_EVERY` seconds (and one at the end)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._logged = 0
        self._last = 0.0

    def note(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1
        now = time.monotonic()
        if not self._logged:
            log.warning(
                "connection flood: %s (connections are bounded and slow requests "
                "closed; counts follow at most once a minute)",
                what,
            )
            self._logged, self._last = 1, now
        elif now - self._last >= LOG_EVERY:
            self.summary()
            self._last = now

    def summary(self) -> None:
        if self.counts:
            log.warning(
                "connection flood, so far: %s",
                ", ".join(f"{k} {v:,}" for k, v in sorted(self.counts.items())),
            )
            self._logged += 1


class GuardedH11(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a bounded number of connections and a time limit
    on each request's arrival (see the module docstring). Set up by `guarded_protocol`."""

    max_connections = 1_000
    request_seconds = REQUEST_SECONDS
    flood: FloodLog = FloodLog()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._since = self.loop.time()
        self._arm()
        open_now = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_now) > self.max_connections:
            victim = min(
                (
                    c
                    for c in open_now
                    if isinstance(c, GuardedH11) and c is not self and c._reading()
                ),
                key=lambda c: c._since,
                default=None,
            )
            if victim is None:  # every other one is being answered: the newcomer waits
                self.flood.note("connections refused (all busy)")
                self._close()
            else:
                self.flood.note("slowest connections closed to admit new ones")
                victim._close()

    def _reading(self) -> bool:
        """Whether the connection waits for (the rest of) a request: it is not being
        answered."""
        cycle = self.cycle
        return cycle is None or cycle.more_body or cycle.response_complete

    def _arm(self) -> None:
        if self._deadline is None:
            self._since = self.loop.time()
            self._deadline = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._reading() and not self.transport.is_closing():
            self.flood.note("requests too slow to arrive, closed")
            self._close()

    def _close(self) -> None:
        self._disarm()
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
        self.transport.abort()

    def data_received(self, data: bytes) -> None:
        self._arm()
        super().data_received(data)
        if not self._reading():
            self._disarm()  # the request is in: the time is the answer's now

    def on_response_complete(self) -> None:
        self._disarm()  # uvicorn's keep-alive timer takes over until the next request
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def backlog(max_connections: int) -> int:
    """The listen backlog (and asyncio's accepts at once) for `max_connections`."""
    return max(16, min(2048, max_connections // 4))


def guarded_protocol(
    max_connections: int, request_seconds: float = REQUEST_SECONDS
) -> type[GuardedH11]:
    """A `GuardedH11` class with these limits and a flood log of its own."""
    return type(
        "GuardedH11",
        (GuardedH11,),
        {
            "max_connections": max_connections,
            "request_seconds": request_seconds,
            "flood": FloodLog(),
        },
    )


def quiet_loop_errors(flood: FloodLog) -> Any:
    """An asyncio exception handler that counts what a flood makes the loop report (an
    `accept` out of file descriptors, a reset connection) instead of logging each with
    its traceback; anything else is logged as asyncio would."""

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        message = str(context.get("message", ""))
        accepting = "_start_serving" in repr(context.get("handle")) or "_accept_connection" in repr(
            context.get("handle")
        )
        if (
            isinstance(exc, OSError | ConnectionError)
            or accepting
            or "out of system resource" in message
        ):
            what = message.split(":")[0].split(" (")[0][:60] or "connection error"
            flood.note(f"{what} ({type(exc).__name__ if exc else 'no exception'})")
            return
        loop.default_exception_handler(context)

    return handler


class OncePerMinute(logging.Filter):
    """Passes a message the first time and then at most once a minute (with how many were
    held back): uvicorn logs a line per bad request, which a flood turns into megabytes."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: dict[str, tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = str(record.msg)[:40]  # asyncio's messages name each callback: alike anyway
        now = time.monotonic()
        last, held = self._seen.get(key, (0.0, 0))
        if last and now - last < LOG_EVERY:
            self._seen[key] = (last, held + 1)
            return False
        if held:
            record.msg = f"{record.msg} (and {held:,} more like it in the last minute)"
        self._seen[key] = (now, 0)
        record.exc_info = None  # one line, no traceback
        return True
