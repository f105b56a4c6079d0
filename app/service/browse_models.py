"""The models of the service's calls other than search: sessions, transcripts and
entries, plans, memory files, prompt history, the timeline and status.

Import them from `ccarchive.service.models` (which loads this module on first use): they are
kept apart from the search results only so that `ccarchive search` does not pay for
creating them at start (see `ccarchive.service.models`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(kw_only=True)
class TokenTotals:
    """Tokens of a session's main conversation, each API message counted once."""

    input: int = 0
    output: int = 0
    cache_creation: int = 0
    cache_read: int = 0
    total: int = 0
    subagents: int = 0  # tokens spent by its subagents, not in `total`


@dataclass(kw_only=True)
class ProjectInfo:
    path: str
    sessions: int = 0
    messages: int = 0
    tokens: int = 0
    first_activity: datetime | None = None
    last_activity: datetime | None = None
    archive_bytes: int = 0


@dataclass(kw_only=True)
class SubagentInfo:
    agent_id: str
    agent_type: str = ""
    description: str = ""
    tool_use_id: str = ""  # the Task/Agent tool call that spawned it
    entries: int = 0
    tokens: int = 0
    path: str = ""
    warmup: bool = False
    first_ts: datetime | None = None


@dataclass(kw_only=True)
class SessionInfo:
    """A session's figures, as the session list and the timeline show them."""

    session_id: str
    title: str = ""
    first_prompt: str = ""
    project: str = ""
    branches: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    slugs: list[str] = field(default_factory=list)
    messages: int = 0
    prompts: int = 0
    tool_calls: int = 0
    tokens: TokenTotals = field(default_factory=TokenTotals)
    first_activity: datetime | None = None
    last_activity: datetime | None = None
    duration_s: float = 0.0
    subagent_count: int = 0
    subagents: list[SubagentInfo] = field(default_factory=list)
    compactions: int = 0
    on_disk: bool = True
    path: str = ""
    archive_bytes: int = 0
    version: str = ""
    pr_links: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class SessionPage:
    sessions: list[SessionInfo] = field(default_factory=list)
    total: int = 0
    next_cursor: str | None = None


@dataclass(kw_only=True)
class DayActivity:
    day: str  # YYYY-MM-DD (or the first day of the week/month)
    sessions: int = 0
    prompts: int = 0
    messages: int = 0
    tokens: int = 0


@dataclass(kw_only=True)
class Timeline:
    since: datetime
    until: datetime
    bucket: str = "day"
    project: str | None = None
    days: list[DayActivity] = field(default_factory=list)


@dataclass(kw_only=True)
class Entry:
    """One unit of a transcript, in conversation order."""

    id: str
    kind: str
    role: str = ""
    uuid: str = ""
    parent_uuid: str = ""
    session_id: str = ""
    agent_id: str = ""
    timestamp: datetime | None = None
    text: str = ""
    text_len: int = 0  # length of the full text
    truncated: bool = False
    next_char: int | None = None  # pass as char_offset to read on
    tool: str = ""
    tool_use_id: str = ""
    subagent_id: str = ""  # for a Task/Agent call: the subagent it spawned
    files: list[str] = field(default_factory=list)
    model: str = ""
    flags: list[str] = field(default_factory=list)
    path: str = ""
    offset: int = 0
    length: int = 0
    project: str = ""


@dataclass(kw_only=True)
class TranscriptPage:
    session_id: str
    agent_id: str = ""
    title: str = ""
    project: str = ""
    total: int = 0
    start: int = 0
    entries: list[Entry] = field(default_factory=list)
    next_cursor: str | None = None
    subagents: list[SubagentInfo] = field(default_factory=list)
    on_disk: bool = True


@dataclass(kw_only=True)
class ContextResult:
    target: Entry
    before: list[Entry] = field(default_factory=list)
    after: list[Entry] = field(default_factory=list)


@dataclass(kw_only=True)
class PlanInfo:
    codename: str
    title: str = ""
    agent_id: str = ""  # set for an agent subplan
    project: str = ""
    modified: datetime | None = None
    size: int = 0
    path: str = ""
    sessions: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class PlanList:
    plans: list[PlanInfo] = field(default_factory=list)
    total: int = 0


@dataclass(kw_only=True)
class PlanTree:
    """A plan with its agent subplans and the sessions that wrote or used it."""

    plan: PlanInfo
    text: str = ""
    truncated: bool = False
    subplans: list[PlanTree] = field(default_factory=list)
    sessions: list[SessionInfo] = field(default_factory=list)


@dataclass(kw_only=True)
class MemoryFileInfo:
    project: str
    filename: str
    title: str = ""
    path: str = ""
    size: int = 0
    modified: datetime | None = None
    session_id: str = ""  # set for a session-memory summary


@dataclass(kw_only=True)
class MemoryFile:
    info: MemoryFileInfo
    text: str = ""
    truncated: bool = False


@dataclass(kw_only=True)
class HistoryItem:
    id: str
    text: str
    project: str = ""
    session_id: str = ""
    timestamp: datetime | None = None
    snippet: str = ""


@dataclass(kw_only=True)
class HistoryPage:
    items: list[HistoryItem] = field(default_factory=list)
    total: int = 0
    warnings: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class Status:
    archive: str
    index_path: str
    role: str = "writer"  # writer | read-only | offline
    projects: int = 0
    sessions: int = 0
    sessions_gone: int = 0
    documents: int = 0
    documents_by_kind: dict[str, int] = field(default_factory=dict)
    files: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    repaired_by_reason: dict[str, int] = field(default_factory=dict)
    unreadable_by_reason: dict[str, int] = field(default_factory=dict)
    """Files of the archive not indexed, by why: a symbolic or hard link, not a regular
    file, replaced while read, unreadable (as the last indexing run found them)."""
    refused_reads_by_reason: dict[str, int] = field(default_factory=dict)
    """Reads back refused by this process (a file replaced since it was indexed, ...)."""
    index_bytes: int = 0
    archive_bytes: int = 0
    last_update: datetime | None = None
    message: str | None = None
    semantic: str = ""  # on or off (and how to turn it on), vectors, progress
