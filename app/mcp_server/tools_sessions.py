"""The MCP tools that list: `list_projects`, `list_sessions`, `timeline` (activity per day)."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ccarchive.mcp_server import models as O
from ccarchive.mcp_server.toolkit import READ_ONLY, ToolContext, json_size, within_budget


def register(mcp: MCPServer, tools: ToolContext) -> None:
    """Register list_projects, list_sessions and timeline, in that order."""
    service, call_budget = tools.service, tools.call_budget
    result = tools.result

    # ---- 5-7. projects, sessions, timeline -----------------------------------------
    @mcp.tool(title="List projects", annotations=READ_ONLY)
    def list_projects() -> Annotated[CallToolResult, O.ProjectList]:
        """Projects (working directories) with figures, most recently active first."""
        with tools.call():
            rows = [O.project(p) for p in service.projects()]
            kept = within_budget(rows, call_budget)
            return result(
                O.ProjectList(projects=kept, total=len(rows), truncated=len(kept) < len(rows))
            )

    @mcp.tool(title="List sessions", annotations=READ_ONLY)
    def list_sessions(
        project: Annotated[str | None, Field(description="Path contains this")] = None,
        since: Annotated[str | None, Field(description="2026-02-01, 7d, yesterday")] = None,
        until: str | None = None,
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
        cursor: str | None = None,
    ) -> Annotated[CallToolResult, O.SessionList]:
        """Sessions, most recently active first, with titles and figures."""
        with tools.call():
            page = service.sessions(
                project=project, since=since, until=until, limit=limit, cursor=cursor
            )
            return result(
                O.SessionList(
                    sessions=[O.session(s) for s in page.sessions],
                    total=page.total,
                    next_cursor=page.next_cursor,
                )
            )

    @mcp.tool(title="Activity per day", annotations=READ_ONLY)
    def timeline(
        days: Annotated[int, Field(ge=1, le=3660, description="How many days back.")] = 30,
        project: Annotated[str | None, Field(description="Path contains this")] = None,
        bucket: Annotated[
            Literal["day", "week", "month"] | None,
            Field(description="Default day, coarser if too many"),
        ] = None,
    ) -> Annotated[CallToolResult, O.Timeline]:
        """Sessions, prompts, messages, tokens per day (active days only)."""
        with tools.call():
            for b in [bucket] if bucket else ["day", "week", "month"]:
                t = service.timeline(days=days, project=project, bucket=b)
                rows = [
                    O.Day(
                        day=d.day,
                        sessions=d.sessions,
                        prompts=d.prompts,
                        messages=d.messages,
                        tokens=d.tokens,
                    )
                    for d in t.days
                    if d.sessions or d.prompts or d.messages
                ]
                if sum(map(json_size, rows)) <= call_budget:
                    break
            return result(
                O.Timeline(
                    since=t.since,
                    until=t.until,
                    bucket=t.bucket,
                    project=t.project,
                    days=within_budget(rows, call_budget),
                )
            )
