"""What the MCP tools return: compact views of the service's models, sized for agents.

The service's dataclasses carry everything the app shows (byte offsets, highlight spans,
token splits). An agent pays for every character, so each tool returns only what it
needs to decide its next call, and the JSON Schema of these models is the tool's
published `outputSchema`. Every model is built from a service model in one function
below: the MCP layer never queries on its own, so it cannot drift from the CLI or app.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from ccarchive.service import models as M
from ccarchive.text import clip

Kind = Literal[
    "prompt",
    "assistant",
    "thinking",
    "tool_call",
    "tool_result",
    "summary",
    "event",
    "plan",
    "memory",
    "history",
]
"""What a search hit or entry is (the service's searchable kinds)."""

TITLE_CHARS = 160
"""Per-field budget for titles and first prompts (a pasted prompt can be a title)."""


class Hit(BaseModel):
    """One search hit: enough to decide whether to look closer."""

    id: str = Field(description="Entry id: pass it to `context` or `get_entries`.")
    kind: str
    role: str = ""
    session_id: str = ""
    agent_id: str = Field("", description="Set when the hit is inside a subagent's transcript.")
    project: str = ""
    timestamp: datetime | None = None
    title: str = Field("", description="The session's title (or the plan's / memory file's).")
    snippet: str = Field("", description="A short excerpt around the match.")
    tool: str = ""
    prompt: str = Field(
        "",
        description="In session results: the prompt that opened "
        "this hit's turn (empty when the hit is it).",
    )
    turn_id: str = Field("", description="That prompt's entry id (for `context`).")


class SessionHits(BaseModel):
    """One session found, with its best turns (the default shape of `search`)."""

    session_id: str
    title: str = ""
    project: str = ""
    timestamp: datetime | None = None
    hit_count: int = 0
    relevance: float = Field(
        0.0, description="Share of the query (by word rarity) its best turn or title holds, 0-1."
    )
    hits: list[Hit] = Field(default_factory=list)


class Turn(BaseModel):
    """Another turn of a found session (`detail: "full"`)."""

    id: str
    kind: str = ""
    asked: str = ""
    text: str = ""


class Found(BaseModel):
    """One search result: a session shown by the turn that answers (the prompt asked and
    the passage of the reply that holds the query's words), or a single entry, plan,
    memory file or typed prompt."""

    id: str = Field(
        description="context(id) / get_entries([id]); a plan's id opens "
        "with get_plan, a memory file's with get_memory_file."
    )
    kind: str = ""
    session: str = ""
    title: str = ""
    project: str = ""
    date: str = ""
    asked: str = ""
    text: str = ""
    tool: str = ""
    more: list[Turn] = Field(default_factory=list)


class SearchResult(BaseModel):
    results: list[Found] = Field(default_factory=list)
    total: int = Field(description="Entries matched in all.")
    next_cursor: str | None = None
    excluded_sessions: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Entry(BaseModel):
    """One unit of a transcript: a prompt, a reply, a tool call or result, a summary."""

    id: str
    kind: str
    role: str = ""
    session_id: str = ""
    agent_id: str = ""
    timestamp: datetime | None = None
    text: str = ""
    text_len: int = Field(0, description="Length of the whole text.")
    truncated: bool = False
    next_char: int | None = Field(
        None,
        description=(
            "Pass as `char_offset` to read on (a character of the archived text; a page never "
            "ends inside a redacted credential)."
        ),
    )
    tool: str = ""
    tool_use_id: str = ""
    subagent_id: str = Field("", description="For an Agent/Task call: the subagent it ran.")
    files: list[str] = Field(default_factory=list)
    model: str = ""
    flags: list[str] = Field(default_factory=list)
    project: str = ""


class ContextResult(BaseModel):
    target: Entry
    before: list[Entry] = Field(default_factory=list)
    after: list[Entry] = Field(default_factory=list)


class EntriesResult(BaseModel):
    entries: list[Entry] = Field(default_factory=list)
    budget_exhausted: bool = Field(
        default=False,
        description="The call's character budget ran out: some texts were cut "
        "shorter than max_chars (see each entry's next_char).",
    )


class Subagent(BaseModel):
    agent_id: str
    agent_type: str = ""
    description: str = ""
    tool_use_id: str = ""
    entries: int = 0


class SessionPage(BaseModel):
    """A page of a session's transcript."""

    session_id: str
    agent_id: str = ""
    title: str = ""
    project: str = ""
    total: int = Field(description="Entries in the whole transcript.")
    start: int = Field(0, description="Index of the first entry of this page.")
    entries: list[Entry] = Field(default_factory=list)
    next_cursor: str | None = Field(None, description="Pass back as `cursor` for more.")
    subagents: list[Subagent] = Field(default_factory=list)


class Project(BaseModel):
    path: str
    sessions: int = 0
    messages: int = 0
    tokens: int = 0
    first_activity: datetime | None = None
    last_activity: datetime | None = None


class ProjectList(BaseModel):
    projects: list[Project] = Field(default_factory=list)
    total: int
    truncated: bool = Field(
        False,
        description="The call's budget cut the list (the least "
        "recently active projects are left out).",
    )


class Session(BaseModel):
    session_id: str
    title: str = ""
    first_prompt: str = ""
    project: str = ""
    branches: list[str] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)
    plans: list[str] = Field(default_factory=list, description="Plan codenames it used.")
    messages: int = 0
    prompts: int = 0
    tool_calls: int = 0
    tokens: int = 0
    first_activity: datetime | None = None
    last_activity: datetime | None = None
    subagents: int = 0
    on_disk: bool = True


class SessionList(BaseModel):
    sessions: list[Session] = Field(default_factory=list)
    total: int
    next_cursor: str | None = Field(None, description="Pass back as `cursor` for more.")


class Day(BaseModel):
    day: str
    sessions: int = 0
    prompts: int = 0
    messages: int = 0
    tokens: int = 0


class Timeline(BaseModel):
    since: datetime
    until: datetime
    bucket: str = Field("day", description="day, week or month: what one row counts.")
    project: str | None = None
    days: list[Day] = Field(
        default_factory=list,
        description=(
            "Days (or weeks, months) with activity only; `day` is the first day of the row."
        ),
    )


class Plan(BaseModel):
    codename: str
    title: str = ""
    agent_id: str = Field("", description="Set for an agent subplan.")
    project: str = ""
    modified: datetime | None = None
    size: int = 0
    sessions: list[str] = Field(default_factory=list, description="Sessions that used it.")


class PlanList(BaseModel):
    plans: list[Plan] = Field(default_factory=list)
    total: int
    next_offset: int | None = Field(None, description="Pass as `offset` for more.")


class PlanDetail(BaseModel):
    plan: Plan
    text: str = ""
    truncated: bool = False
    subplans: list[PlanDetail] = Field(default_factory=list)
    sessions: list[Session] = Field(default_factory=list)


class MemoryFileInfo(BaseModel):
    project: str
    filename: str
    title: str = ""
    size: int = 0
    modified: datetime | None = None
    session_id: str = Field("", description="Set for a session-memory summary.")


class MemoryFileList(BaseModel):
    files: list[MemoryFileInfo] = Field(default_factory=list)
    total: int
    truncated: bool = Field(
        False, description="The call's budget cut the list; narrow it with `project`."
    )


class MemoryFile(BaseModel):
    info: MemoryFileInfo
    text: str = ""
    truncated: bool = False


class HistoryItem(BaseModel):
    id: str
    text: str
    project: str = ""
    session_id: str = ""
    timestamp: datetime | None = None


class HistoryPage(BaseModel):
    items: list[HistoryItem] = Field(default_factory=list)
    total: int
    next_offset: int | None = Field(None, description="Pass as `offset` for more.")
    warnings: list[str] = Field(default_factory=list)


class Status(BaseModel):
    archive: str
    role: str = Field("", description="writer (this server indexes) | read-only (follows).")
    projects: int
    sessions: int
    documents: int
    documents_by_kind: dict[str, int] = Field(default_factory=dict)
    sessions_gone: int = Field(0, description="Sessions whose files left the archive.")
    files: int
    skipped_by_reason: dict[str, int] = Field(
        default_factory=dict, description="Lines not indexed, by why."
    )
    repaired_by_reason: dict[str, int] = Field(default_factory=dict)
    unreadable_by_reason: dict[str, int] = Field(
        default_factory=dict,
        description="Files not read (a link, not a regular file, replaced while read).",
    )
    refused_reads_by_reason: dict[str, int] = Field(
        default_factory=dict, description="Reads back this server refused, by why."
    )
    index_bytes: int = 0
    archive_bytes: int = 0
    last_update: datetime | None = None
    redaction: bool = True
    message: str | None = None
    semantic: str = Field(
        "", description="Semantic search: its encoder, vectors and progress, or off and why."
    )
    indexing: str | None = Field(
        default=None,
        description="While the index is first built: how far it got (results are partial).",
    )


# ---- from the service's models --------------------------------------------------------
PROMPT_CHARS = 200
"""How much of a turn's prompt a session result carries."""


DETAIL = {"brief": (320, 150, 80), "full": (800, 300, TITLE_CHARS)}
"""Per `detail` of a search: characters of the passage, of the prompt asked, of a title."""


def found(h: M.Hit, detail: str, session: str, project: str, title: str | None = None) -> Found:
    """A result row from a service hit: the passage of the answering entry (its snippet
    when it has none), the prompt of its turn, the session by its short id."""
    text_chars, asked_chars, title_chars = DETAIL[detail]
    return Found(
        id=h.id,
        kind=h.kind,
        session=session,
        title=clip(h.title if title is None else title, title_chars),
        project=project,
        date=h.timestamp.date().isoformat() if h.timestamp else "",
        asked="" if h.kind == "prompt" else clip(h.prompt, asked_chars),
        text=clip(h.passage or h.snippet, text_chars + 2),
        tool=h.tool,
    )


def turn(h: M.Hit, detail: str) -> Turn:
    text_chars, asked_chars, _t = DETAIL[detail]
    return Turn(
        id=h.id,
        kind=h.kind,
        asked="" if h.kind == "prompt" else clip(h.prompt, asked_chars),
        text=clip(h.passage or h.snippet, text_chars + 2),
    )


def hit(h: M.Hit, snippet_chars: int = 180) -> Hit:
    # +1: the service may end a cut snippet with "…" after the limit.
    snippet = h.snippet if len(h.snippet) <= snippet_chars + 1 else clip(h.snippet, snippet_chars)
    return Hit(
        id=h.id,
        kind=h.kind,
        role=h.role,
        session_id=h.session_id,
        agent_id=h.agent_id,
        project=h.project,
        timestamp=h.timestamp,
        title=clip(h.title, TITLE_CHARS),
        snippet=snippet,
        tool=h.tool,
        prompt="" if h.kind == "prompt" else clip(h.prompt, PROMPT_CHARS),
        turn_id=h.turn_id if h.turn_id != h.id else "",
    )


def entry(e: M.Entry) -> Entry:
    return Entry(
        id=e.id,
        kind=e.kind,
        role=e.role,
        session_id=e.session_id,
        agent_id=e.agent_id,
        timestamp=e.timestamp,
        text=e.text,
        text_len=e.text_len,
        truncated=e.truncated,
        next_char=e.next_char,
        tool=e.tool,
        tool_use_id=e.tool_use_id,
        subagent_id=e.subagent_id,
        files=e.files[:20],
        model=e.model,
        flags=e.flags,
        project=e.project,
    )


def session(s: M.SessionInfo) -> Session:
    return Session(
        session_id=s.session_id,
        title=clip(s.title, TITLE_CHARS),
        first_prompt=clip(s.first_prompt, TITLE_CHARS),
        project=s.project,
        branches=s.branches[:10],
        models=s.models,
        plans=s.slugs,
        messages=s.messages,
        prompts=s.prompts,
        tool_calls=s.tool_calls,
        tokens=s.tokens.total,
        first_activity=s.first_activity,
        last_activity=s.last_activity,
        subagents=s.subagent_count,
        on_disk=s.on_disk,
    )


def subagent(a: M.SubagentInfo) -> Subagent:
    return Subagent(
        agent_id=a.agent_id,
        agent_type=a.agent_type,
        description=clip(a.description, TITLE_CHARS),
        tool_use_id=a.tool_use_id,
        entries=a.entries,
    )


def plan(p: M.PlanInfo) -> Plan:
    return Plan(
        codename=p.codename,
        title=clip(p.title, TITLE_CHARS),
        agent_id=p.agent_id,
        project=p.project,
        modified=p.modified,
        size=p.size,
        sessions=p.sessions,
    )


def plan_detail(t: M.PlanTree) -> PlanDetail:
    return PlanDetail(
        plan=plan(t.plan),
        text=t.text,
        truncated=t.truncated,
        subplans=[plan_detail(s) for s in t.subplans],
        sessions=[session(s) for s in t.sessions],
    )


def memory_info(m: M.MemoryFileInfo) -> MemoryFileInfo:
    return MemoryFileInfo(
        project=m.project,
        filename=m.filename,
        title=clip(m.title, TITLE_CHARS),
        size=m.size,
        modified=m.modified,
        session_id=m.session_id,
    )


def project(p: M.ProjectInfo) -> Project:
    return Project(
        path=p.path,
        sessions=p.sessions,
        messages=p.messages,
        tokens=p.tokens,
        first_activity=p.first_activity,
        last_activity=p.last_activity,
    )
