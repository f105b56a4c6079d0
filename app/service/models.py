"""Typed results of the query service: what the TUI shows, the CLI prints and MCP serves.

One set of models for all three front ends, so they cannot drift apart; MCP turns them
into output schemas as they are. Every text that can be huge carries `truncated` and a
way to read on (`next_char` / a cursor), because outputs are bounded.

They are plain dataclasses, not pydantic models: building ~25 pydantic classes costs
~200 ms at import, which alone would break the 100 ms budget of `ccarchive search
--json`; orjson serialises dataclasses and datetimes natively, and the MCP server
(where pydantic is loaded anyway) derives its output schemas from them.

Only the search results are defined here. The models of the other calls (sessions,
transcripts, plans, memory files, history, timeline, status) live in
`ccarchive.service.browse_models` and are imported from here as usual (`from
app.service.models import Entry`, `M.SessionInfo`): that module is loaded on first use.
Creating a dataclass costs ~0.5 ms on CPython 3.11 (each generated method is compiled
from source), so the 18 models that `ccarchive search` never builds would add ~9 ms to
its start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from ccarchive.service.browse_models import (
        ContextResult,
        DayActivity,
        Entry,
        HistoryItem,
        HistoryPage,
        MemoryFile,
        MemoryFileInfo,
        PlanInfo,
        PlanList,
        PlanTree,
        ProjectInfo,
        SessionInfo,
        SessionPage,
        Status,
        SubagentInfo,
        Timeline,
        TokenTotals,
        TranscriptPage,
    )

__all__ = [
    "to_jsonable", "Hit", "SessionGroup", "FacetCount", "Facets", "SearchPage",
    # in app.service.browse_models, loaded on first use:
    "TokenTotals", "ProjectInfo", "SubagentInfo", "SessionInfo", "SessionPage",
    "DayActivity", "Timeline", "Entry", "TranscriptPage", "ContextResult", "PlanInfo",
    "PlanList", "PlanTree", "MemoryFileInfo", "MemoryFile", "HistoryItem", "HistoryPage",
    "Status",
]


def __getattr__(name: str) -> Any:
    """The models of `ccarchive.service.browse_models`, loaded on first use (PEP 562); once
    loaded they are attributes of this module like the others."""
    if name in _BROWSE_MODELS:
        from ccarchive.service import browse_models

        globals().update({n: getattr(browse_models, n) for n in _BROWSE_MODELS})
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_BROWSE_MODELS})


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


_BROWSE_MODELS = frozenset(n for n in __all__ if n not in globals())
"""What `__getattr__` finds in `ccarchive.service.browse_models`."""
