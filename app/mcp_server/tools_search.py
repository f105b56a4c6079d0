"""The MCP tools that find and read: `search`, `context`, `get_entries`, `get_session`.

The three steps an agent takes (a compact index of hits, the entries around one, the
chosen entries in full), and a whole transcript in pages; each cut to the call's budget
with a cursor or offset to read on.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from ccarchive.mcp_server import models as O
from ccarchive.mcp_server.toolkit import (
    READ_ONLY,
    ToolContext,
    advance_cursor,
    json_size,
    tool_errors,
)
from ccarchive.service import models as M
from ccarchive.service.arguments import encode_cursor
from ccarchive.service.search import narrows_to_entries
from ccarchive.text import clip


def register(mcp: MCPServer, tools: ToolContext) -> None:
    """Register search, context, get_entries and get_session, in that order."""
    service, active, call_budget = tools.service, tools.active, tools.call_budget
    result = tools.result

    # ---- 1. search -----------------------------------------------------------------
    @mcp.tool(title="Search past sessions", annotations=READ_ONLY)
    def search(
        query: Annotated[str, Field(
            description="Words to find, in the search language: \"exact phrase\", OR, "
                        "-word, prefix*, and filters project: kind: role: tool: file: "
                        "model: branch: session: after: before: (e.g. 'retry backoff "
                        "tool:Bash after:30d'). Empty lists the most recent entries.",
            max_length=4000)],
        project: Annotated[str | None, Field(description="Only projects whose path "
                                                         "contains this.")] = None,
        kind: Annotated[O.Kind | list[O.Kind] | None, Field(
            description="Only these kinds. Default: all but tool_result and thinking.")
        ] = None,
        since: Annotated[str | None, Field(description="From this date: 2026-02-01, "
                                                       "7d, 2w, yesterday.")] = None,
        until: Annotated[str | None, Field(description="Before this date.")] = None,
        limit: Annotated[int, Field(ge=1, le=50, description="Hits per page.")] = 10,
        cursor: Annotated[str | None, Field(description="next_cursor of the previous "
                                                        "page.")] = None,
        group_by_session: Annotated[bool | None, Field(
            description="Sessions ranked by their evidence, each with its best turns (the "
                        "prompt and a snippet of the answer): the default. False: single "
                        "entries, the default when `kind` or a kind:/tool:/file: filter "
                        "narrows to entries.")] = None,
        include_tool_results: Annotated[bool, Field(
            description="Also search raw tool output (noisy).")] = False,
        include_thinking: Annotated[bool, Field(
            description="Also search the assistant's thinking.")] = False,
        include_active: Annotated[bool, Field(
            description="Keep the caller's own current session in the results.")] = False,
        snippet_chars: Annotated[int, Field(ge=40, le=1000,
                                            description="Snippet length per hit.")] = 180,
    ) -> Annotated[CallToolResult, O.SearchResult]:
        """Search every past session, plan, memory file and typed prompt: the first step.

        Plain words (a question, half-remembered words, identifiers) rank by any of
        them; "quotes" and +word are required. Returns sessions ranked by their evidence,
        each with its best turns (the prompt asked, a snippet of the answer, entry ids),
        or single entries (`group_by_session=false`). Follow up with `context(id)` or
        `get_entries([ids])`.
        """
        with tool_errors():
            if group_by_session is None:
                group_by_session = not narrows_to_entries(query, kind)
            excluded = [] if include_active else active.current()
            page = service.search(
                query, project=project, kind=kind, since=since, until=until, limit=limit,
                cursor=cursor, group_by_session=group_by_session,
                include_tool_results=include_tool_results, include_thinking=include_thinking,
                exclude_sessions=excluded, snippet_chars=snippet_chars, hits_per_group=2)
            out = O.SearchResult(query=query, total=page.total, next_cursor=page.next_cursor,
                                 excluded_sessions=excluded, warnings=page.warnings)
            rows = page.groups if page.groups is not None else page.hits
            used, kept = 0, 0
            for row in rows:
                if isinstance(row, M.SessionGroup):
                    item: BaseModel = O.SessionHits(
                        session_id=row.session_id, title=clip(row.title, O.TITLE_CHARS),
                        project=row.project, timestamp=row.timestamp,
                        hit_count=row.hit_count, relevance=row.relevance,
                        hits=[O.hit(h, snippet_chars) for h in row.hits])
                else:
                    item = O.hit(row, snippet_chars)
                used += json_size(item)
                if kept and used > call_budget:
                    break
                kept += 1
                if isinstance(item, O.SessionHits):
                    out.groups = [*(out.groups or []), item]
                else:
                    out.hits.append(item)
            if page.groups is not None:
                out.groups = out.groups or []
            if kept < len(rows):
                out.next_cursor = advance_cursor(cursor, page.next_cursor, kept)
                out.warnings.append(f"budget: {kept} of {len(rows)} rows returned; "
                                    "next_cursor continues")
            return result(out)

    # ---- 2. context ----------------------------------------------------------------
    @mcp.tool(title="Entries around a hit", annotations=READ_ONLY)
    def context(
        id: Annotated[str, Field(description="An entry id from search.", min_length=1)],
        before: Annotated[int, Field(ge=0, le=50, description="Entries before it.")] = 3,
        after: Annotated[int, Field(ge=0, le=50, description="Entries after it.")] = 3,
        max_chars: Annotated[int, Field(ge=100, le=20_000, description=(
            "Characters per neighbouring entry (the hit itself gets 4x)."))] = 800,
    ) -> Annotated[CallToolResult, O.ContextResult]:
        """The entries around one entry, in conversation order: the second step."""
        with tool_errors():
            n = before + after + 4
            per = max(100, min(max_chars, call_budget // n))
            ctx = service.context(id, before=before, after=after, max_chars=per)
            return result(O.ContextResult(target=O.entry(ctx.target),
                                          before=[O.entry(e) for e in ctx.before],
                                          after=[O.entry(e) for e in ctx.after]))

    # ---- 3. get_entries ------------------------------------------------------------
    @mcp.tool(title="Read entries in full", annotations=READ_ONLY)
    def get_entries(
        ids: Annotated[list[str], Field(min_length=1, max_length=20,
                                        description="Entry ids from search or context.")],
        max_chars: Annotated[int, Field(ge=100, le=100_000,
                                        description="Characters per entry.")] = 8_000,
        char_offset: Annotated[int, Field(ge=0, description=(
            "Start reading at this character of the archived text (an entry's "
            "next_char), to read on."))] = 0,
    ) -> Annotated[CallToolResult, O.EntriesResult]:
        """Full details of chosen entries, read back from the archive: the third step.

        Each text is capped at max_chars and the whole call at a budget; a cut entry
        has `truncated` and `next_char` (pass it as char_offset to read on). Offsets count
        characters of the text as archived; credentials are redacted in the whole text
        before a page is cut, and a page that would cut one widens to take it in whole.
        """
        with tool_errors():
            out = O.EntriesResult()
            left = max(call_budget, max_chars) if len(ids) == 1 else call_budget
            for i in ids:
                want = max(100, min(max_chars, left))
                e = service.entries([i], max_chars=want, char_offset=char_offset)[0]
                if want < max_chars and e.truncated:
                    out.budget_exhausted = True
                out.entries.append(O.entry(e))
                left -= len(e.text)
            return result(out)

    # ---- 4. get_session ------------------------------------------------------------
    @mcp.tool(title="Read a session transcript", annotations=READ_ONLY)
    def get_session(
        session_id: Annotated[str, Field(min_length=1, description=(
            "A session id (or a unique prefix of at least 4 characters)."))],
        cursor: Annotated[str | None, Field(description="next_cursor of the previous "
                                                        "page.")] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="Entries per page.")] = 30,
        max_chars: Annotated[int, Field(ge=100, le=20_000,
                                        description="Characters per entry.")] = 1_500,
        agent_id: Annotated[str | None, Field(
            description="Read this subagent's transcript instead of the main one.")] = None,
    ) -> Annotated[CallToolResult, O.SessionPage]:
        """A session's transcript in conversation order, in pages."""
        with tool_errors():
            page = service.transcript(session_id, agent_id=agent_id, cursor=cursor,
                                      limit=limit, max_chars=max_chars)
            # the service echoes a prefix as given; the entries carry the full id
            sid = next((e.session_id for e in page.entries if e.session_id), page.session_id)
            out = O.SessionPage(session_id=sid, agent_id=page.agent_id,
                                title=page.title, project=page.project, total=page.total,
                                start=page.start, next_cursor=page.next_cursor,
                                subagents=[O.subagent(a) for a in page.subagents])
            used = 0
            for e in page.entries:
                item = O.entry(e)
                used += json_size(item)
                if out.entries and used > call_budget:
                    break
                out.entries.append(item)
            if len(out.entries) < len(page.entries):
                out.next_cursor = encode_cursor({"o": page.start + len(out.entries)})
            return result(out)

