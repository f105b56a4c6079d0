"""The demo archive while it is being made: every file in memory, written in one go.

Sessions, subagents, plans and memory files add their files here as they are played;
`history.jsonl` collects one line per typed prompt and is sorted by time at the end, as
Claude Code's own appends from several projects would leave it.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Protocol

from ccarchive.demo.conventions import epoch_ms, project_dirname


@dataclass
class Project:
    """A made-up repository: its path and its files, edited in place by the sessions."""

    path: str
    files: dict[str, str]

    @property
    def dirname(self) -> str:
        return project_dirname(self.path)


class Recorded(Protocol):
    """What the builder needs of a transcript to write its JSONL file."""

    lines: list[dict]
    t_max: dt.datetime


class ArchiveBuilder:
    """Collects every file of the demo in memory, then writes them in one go."""

    def __init__(self, now: dt.datetime):
        self.now = now
        self.text: dict[str, str | bytes] = {}
        self.mtime: dict[str, dt.datetime] = {}
        self.transcripts: list[tuple[str, Recorded]] = []
        self.history: list[tuple[dt.datetime, int, dict]] = []
        self.counts = {"sessions": 0, "subagents": 0, "plans": 0, "memory_files": 0}

    def day(self, days_ago: int, hour: int, minute: int, second: int = 0) -> dt.datetime:
        """A wall-clock time (UTC) `days_ago` days before now."""
        base = self.now - dt.timedelta(days=days_ago)
        return base.replace(hour=hour, minute=minute, second=second, microsecond=0)

    def put(self, rel: str, data: str | bytes, mtime: dt.datetime) -> None:
        self.text[rel] = data
        self.mtime[rel] = mtime

    def add_history(
        self,
        t: dt.datetime,
        display: str,
        project: str,
        sid: str | None,
        pasted: dict | None = None,
    ) -> None:
        line = {
            "display": display,
            "pastedContents": pasted or {},
            "timestamp": epoch_ms(t),
            "project": project,
        }
        if sid:
            line["sessionId"] = sid
        self.history.append((t, len(self.history), line))

    def render(self) -> None:
        """Serialise transcripts and history into `self.text`."""
        for rel, tr in self.transcripts:
            body = "".join(
                json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in tr.lines
            )
            self.put(rel, body, tr.t_max)
        self.history.sort(key=lambda h: (h[0], h[1]))
        body = "".join(
            json.dumps(h[2], ensure_ascii=False, separators=(",", ":")) + "\n" for h in self.history
        )
        self.put("history.jsonl", body, self.history[-1][0])
