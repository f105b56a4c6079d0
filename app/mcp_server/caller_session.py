"""Which session is calling the MCP server, so that searches can leave it out."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ccarchive.service import ArchiveService


class ActiveSessions:
    """Which session is calling: the most recently active one, within a few minutes.

    Claude Code does not tell an MCP server which session it serves, so this guesses:
    among the sessions active in the last `minutes`, the most recent one in the
    server's own project (`project_hint`, the working directory of a stdio server)
    or, failing that, the most recent overall. Cached for a second or two.
    """

    def __init__(
        self,
        service: ArchiveService,
        *,
        minutes: float,
        project_hint: str | None,
        clock: Callable[[], datetime],
    ) -> None:
        self.service = service
        self.minutes = minutes
        self.project_hint = project_hint.rstrip("/") if project_hint else None
        self.clock = clock
        self._cache: tuple[float, int, list[str]] = (0.0, -1, [])
        self._lock = threading.Lock()

    def current(self) -> list[str]:
        if self.minutes <= 0:
            return []
        with self._lock:
            at, gen, ids = self._cache
            if time.monotonic() - at < 2.0 and gen == self.service.generation:
                return ids
        since = self.clock() - timedelta(minutes=self.minutes)
        active = self.service.sessions(since=since, limit=20).sessions
        ids = []
        if active:
            mine = [s for s in active if self.project_hint and s.project == self.project_hint]
            ids = [(mine or active)[0].session_id]
        with self._lock:
            self._cache = (time.monotonic(), self.service.generation, ids)
        return ids
