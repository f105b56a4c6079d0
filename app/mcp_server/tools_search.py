"""The MCP tools that find and read: `search`, `context`, `get_entries`, `get_session`.

The three steps an agent takes (a compact index of hits, the entries around one, the
chosen entries in full), and a whole transcript in pages; each cut to the call's budget
with a cursor or offset to read on.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ccarchive.mcp_server import models as O
from ccarchive.mcp_server.toolkit import READ_ONLY, ToolContext, advance_cursor, json_size
from ccarchive.service import models as M
from ccarchive.service.arguments import encode_cursor, short_entry_id
from ccarchive.service.search import narrows_to_entries

BRIEF_RESULTS = 4
"""Results of a brief search (the default): the answer is in the first on most questions,
and each more costs ~150 tokens."""


def register(mcp: MCPServer, tools: ToolContext) -> None:
    """Register search, context, get_entries and get_session, in that order."""
    service, active, call_budget = tools.service, tools.active, tools.call_budget
    result = tools.result

    def entries(rows: list[M.Entry]) -> list[O.Entry]:
        """Entries as agents see them: ids in the short form search gives."""
        short = service.short_session_ids(e.session_id for e in rows)
        out = []
        for e in rows:
            item = O.entry(e)
            item.id = short_entry_id(e.id, short.get(e.session_id, ""), e.agent_id)
            out.append(item)
        return out

    # ---- 1. search -----------------------------------------------------------------
    @mcp.tool(title="Search past sessions", annotations=READ_ONLY)
    def search(
        query: Annotated[
            str,
            Field(
                max_length=4000,
                description=(
                    'Words (any may match), +required, "phrase", -not, prefix*, filters '
                    "project: kind: role: tool: file: branch: session: after: before:"
                ),
            ),
        ],
        detail: Annotated[
            Literal["brief", "full"],
            Field(description=("brief: the best few, a passage each; full: 10, longer, 2 turns")),
        ] = "brief",
        project: Annotated[str | None, Field(description="Path contains this")] = None,
        kind: Annotated[O.Kind | list[str] | None, Field(description=("Only these kinds"))] = None,
        since: Annotated[str | None, Field(description="2026-02-01, 7d, yesterday")] = None,
        until: str | None = None,
        limit: Annotated[int | None, Field(ge=1, le=50)] = None,
        cursor: str | None = None,
        group_by_session: Annotated[
            bool | None, Field(description=("false: single entries"))
        ] = None,
        include_tool_results: bool = False,
        include_thinking: bool = False,
        include_active: Annotated[bool, Field(description=("Keep your own session"))] = False,
    ) -> Annotated[CallToolResult, O.SearchResult]:
        """Search past sessions, plans, memory and typed prompts: each result shows the
        prompt asked and the passage that answers. context(id) reads around it."""
        with tools.call():
            if group_by_session is None:
                group_by_session = not narrows_to_entries(query, kind)
            brief = detail == "brief"
            text_chars = O.DETAIL[detail][0]
            excluded = [] if include_active else active.current()
            page = service.search(
                query,
                project=project,
                kind=kind,
                since=since,
                until=until,
                limit=limit or (BRIEF_RESULTS if brief else 10),
                cursor=cursor,
                group_by_session=group_by_session,
                include_tool_results=include_tool_results,
                include_thinking=include_thinking,
                exclude_sessions=excluded,
                hits_per_group=1 if brief else 2,
                passage_chars=text_chars,
            )
            out = O.SearchResult(
                total=page.total,
                next_cursor=page.next_cursor,
                excluded_sessions=excluded,
                warnings=page.warnings,
            )
            groups = (
                page.groups
                if page.groups is not None
                else [
                    M.SessionGroup(session_id=h.session_id, hits=[h], title=h.title)
                    for h in page.hits
                ]
            )
            short = service.short_session_ids(g.session_id for g in groups)
            used, kept = 0, 0
            for g in groups:
                if not g.hits:
                    continue
                first = g.hits[0]
                item = O.found(
                    first,
                    detail,
                    short.get(g.session_id, ""),
                    service.project_name(first.project),
                    title=g.title or first.title,
                )
                item.id = short_entry_id(first.id, item.session, first.agent_id)
                item.more = [O.turn(h, detail) for h in g.hits[1:]]
                for t, h in zip(item.more, g.hits[1:], strict=True):
                    t.id = short_entry_id(h.id, item.session, h.agent_id)
                used += json_size(item)
                if kept and used > call_budget:
                    break
                kept += 1
                out.results.append(item)
            if kept < len(groups):
                out.next_cursor = advance_cursor(cursor, page.next_cursor, kept)
                out.warnings.append(
                    f"budget: {kept} of {len(groups)} results returned; next_cursor continues"
                )
            elif page.groups is not None and not cursor and not kind:
                # plans and memory files that answer, in slots of their own
                for h in service.answering_documents(
                    query,
                    groups[:kept],
                    project=project,
                    since=since,
                    until=until,
                    exclude_sessions=excluded,
                    passage_chars=text_chars,
                ):
                    item = O.found(h, detail, "", service.project_name(h.project))
                    used += json_size(item)
                    if used > call_budget:
                        break
                    out.results.append(item)
            return result(out)

    # ---- 2. context ----------------------------------------------------------------
    @mcp.tool(title="Entries around a hit", annotations=READ_ONLY)
    def context(
        id: Annotated[str, Field(description="From search", min_length=1)],
        before: Annotated[int, Field(ge=0, le=50, description="Entries before it.")] = 3,
        after: Annotated[int, Field(ge=0, le=50, description="Entries after it.")] = 3,
        max_chars: Annotated[
            int, Field(ge=100, le=20_000, description=("Characters per entry (the target's 4x)"))
        ] = 800,
    ) -> Annotated[CallToolResult, O.ContextResult]:
        """The entries around an entry, in conversation order."""
        with tools.call():
            n = before + after + 4
            per = max(100, min(max_chars, call_budget // n))
            ctx = service.context(id, before=before, after=after, max_chars=per)
            rows = entries([*ctx.before, ctx.target, *ctx.after])
            n = len(ctx.before)
            return result(O.ContextResult(target=rows[n], before=rows[:n], after=rows[n + 1 :]))

    # ---- 3. get_entries ------------------------------------------------------------
    @mcp.tool(title="Read entries in full", annotations=READ_ONLY)
    def get_entries(
        ids: Annotated[
            list[str], Field(min_length=1, max_length=20, description="From search or context")
        ],
        max_chars: Annotated[
            int, Field(ge=100, le=100_000, description="Characters per entry.")
        ] = 8_000,
        char_offset: Annotated[
            int, Field(ge=0, description=("An entry's next_char, to read on"))
        ] = 0,
    ) -> Annotated[CallToolResult, O.EntriesResult]:
        """Entries in full. A cut one has `next_char`: pass it as char_offset to read on."""
        # Offsets count characters of the text as archived; credentials are redacted in
        # the whole text before a page is cut, and a page that would cut one widens to
        # take it in whole.
        with tools.call():
            out = O.EntriesResult()
            left = max(call_budget, max_chars) if len(ids) == 1 else call_budget
            for i in ids:
                want = max(100, min(max_chars, left))
                e = service.entries([i], max_chars=want, char_offset=char_offset)[0]
                if want < max_chars and e.truncated:
                    out.budget_exhausted = True
                out.entries.extend(entries([e]))
                left -= len(e.text)
            return result(out)

    # ---- 4. get_session ------------------------------------------------------------
    @mcp.tool(title="Read a session transcript", annotations=READ_ONLY)
    def get_session(
        session_id: Annotated[str, Field(min_length=1, description=("Id or unique prefix"))],
        cursor: str | None = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 30,
        max_chars: Annotated[
            int, Field(ge=100, le=20_000, description="Characters per entry.")
        ] = 1_500,
        agent_id: Annotated[
            str | None, Field(description="A subagent's transcript instead")
        ] = None,
    ) -> Annotated[CallToolResult, O.SessionPage]:
        """A session's transcript in conversation order, in pages."""
        with tools.call():
            page = service.transcript(
                session_id, agent_id=agent_id, cursor=cursor, limit=limit, max_chars=max_chars
            )
            # the service echoes a prefix as given; the entries carry the full id
            sid = next((e.session_id for e in page.entries if e.session_id), page.session_id)
            out = O.SessionPage(
                session_id=sid,
                agent_id=page.agent_id,
                title=page.title,
                project=page.project,
                total=page.total,
                start=page.start,
                next_cursor=page.next_cursor,
                subagents=[O.subagent(a) for a in page.subagents],
            )
            used = 0
            for item in entries(page.entries):
                used += json_size(item)
                if out.entries and used > call_budget:
                    break
                out.entries.append(item)
            if len(out.entries) < len(page.entries):
                out.next_cursor = encode_cursor({"o": page.start + len(out.entries)})
            return result(out)
