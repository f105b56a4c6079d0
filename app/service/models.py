"""Typed results of the query service: what the TUI shows, the CLI prints and MCP serves.

One set of models for all three front ends, so they cannot drift apart. Every text that
can be huge carries `truncated` and a way to read on (`next_char` / a cursor), because
outputs are bounded.

They are plain dataclasses, not pydantic models: building ~25 pydantic classes costs
~200 ms at import, which alone would break the 100 ms budget of `ccarchive search
--json`; orjson serialises dataclasses and datetimes natively. The MCP server gives
agents compact views of them (`ccarchive.mcp_server.models`).

The search results come first, then the models of the other calls: sessions,
transcripts and entries, plans, memory files, prompt history, the timeline and status.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson


def to_jsonable(obj: Any) -> Any:
    """Plain JSON types (dicts, lists, ISO dates) of a model, for `--json` and tests."""
    return orjson.loads(orjson.dumps(obj))


@dataclass(kw_only=True)
class Hit:
    """One search result: an entry of a transcript, a plan, a memory file or a prompt."""

    id: str  # entry id: pass it to context / get_entries
    kind: str
    role: str = ""
    session_id: str = ""
    agent_id: str = ""
    uuid: str = ""
    project: str = ""
    timestamp: datetime | None = None
    title: str = ""  # the session's title (or the plan/memory file's)
    snippet: str = ""
    highlights: list[tuple[int, int]] = field(default_factory=list)
    score: float = 0.0
    path: str = ""  # source file, relative to the archive root
    tool: str = ""
    model: str = ""
    branch: str = ""
    flags: list[str] = field(default_factory=list)
    prompt: str = ""  # session results: the prompt that opened this hit's turn
    turn_id: str = ""  # ... and that prompt's entry id
    passage: str = ""  # session results: the part of the entry that holds the query's
    #                    evidence (`service.passages`), for readers who pay per character


@dataclass(kw_only=True)
class SessionGroup:
    """Search results grouped by session: the session's best hits."""

    session_id: str
    title: str = ""
    project: str = ""
    timestamp: datetime | None = None
    score: float = 0.0
    hit_count: int = 0
    hits: list[Hit] = field(default_factory=list)  # its best turns, best first
    relevance: float = 0.0  # share of the query (by term rarity) its best turn holds
    on_disk: bool = True  # False: its files are gone (Claude Code's sweep); kept indexed


@dataclass(kw_only=True)
class FacetCount:
    value: str
    count: int


@dataclass(kw_only=True)
class Facets:
    """Counts for the current query, for a filter sidebar."""

    projects: list[FacetCount] = field(default_factory=list)
    kinds: list[FacetCount] = field(default_factory=list)
    first: datetime | None = None
    last: datetime | None = None


@dataclass(kw_only=True)
class SearchPage:
    """A page of search results."""

    query: str
    total: int = 0  # how many entries match (before grouping)
    hits: list[Hit] = field(default_factory=list)
    groups: list[SessionGroup] | None = None
    next_cursor: str | None = None  # pass back as `cursor` for the next page
    warnings: list[str] = field(default_factory=list)
    facets: Facets | None = None
    elapsed_ms: float = 0.0
    ignored: bool = False
    """The query had text and all of it was ignored (`warnings` say why): it matched
    everything, which is no answer to it."""


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
    semantic: str = ""  # its encoder, vectors and progress; or off, and why
