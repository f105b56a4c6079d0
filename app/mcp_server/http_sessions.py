"""The HTTP server's session table: bounded, idle sessions expire, a full table evicts.

The MCP SDK's streamable-HTTP session manager already expires a session once no request
has been in flight for `session_idle_timeout`, and caps the table at `max_sessions`; but
at the cap it answers 503 to every new client until a session expires. One client that
opened sessions without closing them (10,000 `initialize` calls) locked everyone out for
the whole idle timeout. Here a full table makes room instead: the session that matters
least is ended (its id then answers 404, which tells an MCP client to initialize again)
and the newcomer is admitted.

Which session matters least, in this order:

1. idle before busy (a request in flight or an open GET stream);
2. sessions still on probation before established ones: a session is established once it
   has made a request beyond the handshake (`initialize` and `notifications/initialized`),
   so a flood of handshakes evicts itself before it evicts a client that works;
3. the one idle the longest.

The defaults (table size, idle timeout) are `ccarchive serve`'s options, in
`ccarchive.cli.serve`.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger(__name__)

HANDSHAKE_REQUESTS = 1
"""Requests under a session id that are still part of the handshake (the
`notifications/initialized` POST); a session that makes more is established."""

_SESSION_HEADER = MCP_SESSION_ID_HEADER.lower().encode("latin-1")


class BoundedSessionManager(StreamableHTTPSessionManager):
    """The SDK's session manager with a table that evicts rather than refuses."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.session_idle_timeout is None or self.max_sessions is None:
            raise ValueError("a bounded session table needs an idle timeout and a maximum")
        self._uses: dict[str, int] = {}
        self.evicted = 0
        """Sessions ended to make room (for tests and logs)."""

    # ---- bookkeeping -------------------------------------------------------------------
    async def _handle_stateful_request(self, scope: Any, receive: Any, send: Any) -> None:
        sid = next(
            (v.decode("latin-1") for k, v in scope.get("headers", ()) if k == _SESSION_HEADER), None
        )
        if sid is not None and sid in self._server_instances:
            self._uses[sid] = self._uses.get(sid, 0) + 1
        await super()._handle_stateful_request(scope, receive, send)

    async def _discard_session(
        self, session_id: str, transport: StreamableHTTPServerTransport
    ) -> None:
        self._uses.pop(session_id, None)
        await super()._discard_session(session_id, transport)

    # ---- admission ---------------------------------------------------------------------
    def _admit_session(self, requestor: Any) -> StreamableHTTPServerTransport | None:
        assert self.max_sessions is not None
        while len(self._server_instances) >= self.max_sessions:
            if not self._evict_one():
                break  # every session is still opening: the SDK answers 503
        return super()._admit_session(requestor)

    def _evict_one(self) -> bool:
        """End the session that matters least (see the module docstring); False if none
        can be ended (all are still answering their opening request)."""
        best: tuple[bool, bool, float] | None = None
        victim = ""
        for sid, transport in self._server_instances.items():
            scope = transport.idle_scope
            if scope is None or scope.cancel_called:
                continue  # not connected yet, or already ending
            # The transport keeps the idle deadline at infinity while a request is in
            # flight, and at (end of the last request + timeout) otherwise.
            busy = math.isinf(scope.deadline)
            established = self._uses.get(sid, 0) > HANDSHAKE_REQUESTS
            key = (busy, established, scope.deadline)
            if best is None or key < best:
                best, victim = key, sid
        if best is None:
            return False
        transport = self._server_instances.pop(victim)
        self._session_owners.pop(victim, None)
        self._uses.pop(victim, None)
        assert transport.idle_scope is not None
        # Cancelling the idle scope ends the session's message loop as an idle timeout
        # would; the session's task then terminates the transport.
        transport.idle_scope.cancel()
        self.evicted += 1
        log.info(
            "session table full (%d): ended session %s (%s, %s)",
            self.max_sessions,
            victim[:12],
            "busy" if best[0] else "idle",
            "established" if best[1] else "on probation",
        )
        return True
