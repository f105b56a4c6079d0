"""The MCP tools over the archive's other collections and the index itself.

`list_plans`/`get_plan`, `list_memory_files`/`get_memory_file`, `search_history` (typed
prompts) and `status`.
"""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ccarchive.mcp_server import models as O
from ccarchive.mcp_server.toolkit import READ_ONLY, ToolContext, within_budget
from ccarchive.text import clip


def register(mcp: MCPServer, tools: ToolContext) -> None:
    """Register the plan, memory, history and status tools, in that order."""
    service, call_budget = tools.service, tools.call_budget
    result = tools.result

    # ---- 8-9. plans ----------------------------------------------------------------
    @mcp.tool(title="List plans", annotations=READ_ONLY)
    def list_plans(
        project: Annotated[str | None, Field(description="Path contains this")] = None,
        codename: Annotated[str | None, Field(description="Codename contains this")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 30,
        offset: Annotated[int, Field(ge=0)] = 0,
        include_agent_plans: Annotated[
            bool, Field(description="Also list subagents' plans.")
        ] = False,
    ) -> Annotated[CallToolResult, O.PlanList]:
        """Plans (plan mode), newest first, with their sessions."""
        with tools.call():
            pl = service.plans(
                project=project,
                codename=codename,
                limit=limit,
                offset=offset,
                include_agent_plans=include_agent_plans,
            )
            nxt = offset + limit if offset + limit < pl.total else None
            return result(
                O.PlanList(plans=[O.plan(p) for p in pl.plans], total=pl.total, next_offset=nxt)
            )

    @mcp.tool(title="Read a plan", annotations=READ_ONLY)
    def get_plan(
        codename: Annotated[
            str, Field(min_length=1, description=("Codename, or a plan id from search"))
        ],
        include_agent_plans: Annotated[
            bool, Field(description="Include its agent subplans.")
        ] = True,
        max_chars: Annotated[
            int, Field(ge=100, le=100_000, description="Characters of each plan's text.")
        ] = 12_000,
    ) -> Annotated[CallToolResult, O.PlanDetail]:
        """A plan's text, its agent subplans and its sessions."""
        with tools.call():
            t = service.plan(
                codename,
                include_agent_plans=include_agent_plans,
                max_chars=min(max_chars, max(call_budget, 1000)),
            )
            out = O.plan_detail(t)
            left = max(call_budget, max_chars) - len(out.text)
            for sub in out.subplans:
                if len(sub.text) > max(left, 200):
                    sub.text, sub.truncated = clip(sub.text, max(left, 200)), True
                left -= len(sub.text)
            return result(out)

    # ---- 10-11. memory -------------------------------------------------------------
    @mcp.tool(title="List memory files", annotations=READ_ONLY)
    def list_memory_files(
        project: Annotated[str | None, Field(description="Path contains this")] = None,
    ) -> Annotated[CallToolResult, O.MemoryFileList]:
        """Memory files and session-memory summaries."""
        with tools.call():
            rows = [O.memory_info(m) for m in service.memory_files(project=project)]
            kept = within_budget(rows, call_budget)
            return result(
                O.MemoryFileList(files=kept, total=len(rows), truncated=len(kept) < len(rows))
            )

    @mcp.tool(title="Read a memory file", annotations=READ_ONLY)
    def get_memory_file(
        project: Annotated[
            str, Field(min_length=1, description=("Path part, or a memory id from search"))
        ],
        filename: Annotated[str | None, Field(description="Default MEMORY.md.")] = None,
        max_chars: Annotated[int, Field(ge=100, le=100_000)] = 12_000,
    ) -> Annotated[CallToolResult, O.MemoryFile]:
        """A memory file (MEMORY.md by default)."""
        with tools.call():
            m = service.memory_file(project, filename, max_chars=max_chars)
            return result(
                O.MemoryFile(info=O.memory_info(m.info), text=m.text, truncated=m.truncated)
            )

    # ---- 12. history ---------------------------------------------------------------
    @mcp.tool(title="Search typed-prompt history", annotations=READ_ONLY)
    def search_history(
        query: Annotated[
            str | None, Field(description="Words; none: newest first", max_length=4000)
        ] = None,
        project: Annotated[str | None, Field(description="Path contains this")] = None,
        session_id: Annotated[str | None, Field(description="Id or prefix")] = None,
        since: Annotated[str | None, Field(description="From this date.")] = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 10,
        offset: Annotated[int, Field(ge=0)] = 0,
    ) -> Annotated[CallToolResult, O.HistoryPage]:
        """Prompts the user typed (history.jsonl), ranked by query or newest first."""
        with tools.call():
            page = service.history(
                query=query,
                project=project,
                session_id=session_id,
                since=since,
                limit=limit,
                offset=offset,
            )
            per = max(200, min(400, call_budget // max(1, len(page.items))))
            nxt = offset + limit if offset + limit < page.total else None
            return result(
                O.HistoryPage(
                    items=[
                        O.HistoryItem(
                            id=h.id,
                            text=clip(h.text, per),
                            project=h.project,
                            session_id=h.session_id,
                            timestamp=h.timestamp,
                        )
                        for h in page.items
                    ],
                    total=page.total,
                    next_offset=nxt,
                    warnings=page.warnings,
                )
            )

    # ---- 13. status ----------------------------------------------------------------
    @mcp.tool(title="Archive and index status", annotations=READ_ONLY)
    def status() -> Annotated[CallToolResult, O.Status]:
        """What is indexed (by kind) or still indexing, what was skipped or refused and
        why, who indexes."""
        with tools.call():
            st = service.status()
            return result(
                O.Status(
                    archive=st.archive,
                    role=st.role,
                    projects=st.projects,
                    sessions=st.sessions,
                    documents=st.documents,
                    documents_by_kind=st.documents_by_kind,
                    sessions_gone=st.sessions_gone,
                    files=st.files,
                    skipped_by_reason=st.skipped_by_reason,
                    repaired_by_reason=st.repaired_by_reason,
                    unreadable_by_reason=st.unreadable_by_reason,
                    refused_reads_by_reason=st.refused_reads_by_reason,
                    index_bytes=st.index_bytes,
                    archive_bytes=st.archive_bytes,
                    last_update=st.last_update,
                    redaction=service.redact_secrets,
                    message=st.message,
                    semantic=st.semantic,
                )
            )
