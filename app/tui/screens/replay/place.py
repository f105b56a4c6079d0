"""The open transcripts of replay (`Place`) and the two lines that describe them: the
title (session, subagent path, project, branch, start, length, models, tokens) and the
status (playing or paused, speed, entry, time, search hits)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text

from ccarchive.service.models import SessionInfo
from ccarchive.service.naming import home_path
from ccarchive.tui.widgets.transcript_view import TranscriptView

if TYPE_CHECKING:
    from textual.app import App


@dataclass
class Place:
    """One open transcript (the stack of them is the way back from subagents)."""

    session_id: str
    agent_id: str = ""
    title: str = ""
    cursor: int = 0
    top: int = 0
    top_line: int = 0
    key: int = 0
    info: SessionInfo | None = None
    query: str | None = None
    hits: list[int] = field(default_factory=list)


def duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h {minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def title_text(stack: list[Place]) -> Text:
    """The session's title, the subagents opened from it, and its figures."""
    if not stack:
        return Text("No session open: pick a hit in Search (F1).", "italic")
    place = stack[-1]
    info = place.info
    out = Text()
    out.append(info.title if info and info.title else place.session_id, "bold")
    for sub in stack[1:]:
        out.append("  ›  ", "dim")
        out.append(f"◈ subagent: {sub.title or sub.agent_id}", "bold magenta")
    if info is not None:
        meta = [home_path(info.project) or "—"]  # the full path: lists show short names
        if info.branches:
            meta.append(f"branch {info.branches[0]}")
        if info.first_activity:
            meta.append(info.first_activity.astimezone().strftime("%Y-%m-%d %H:%M"))
        if info.duration_s:
            meta.append(duration(info.duration_s))
        if info.models:
            meta.append(", ".join(m.replace("claude-", "") for m in info.models[:2]))
        meta.append(f"{info.tokens.total:,} tokens")
        if info.subagent_count:
            meta.append(f"{info.subagent_count} subagent"
                        f"{'s' if info.subagent_count != 1 else ''}")
        meta.append(place.session_id[:8])
        out.append("\n" + " · ".join(meta), "dim")
    return out


def status_text(view: TranscriptView, place: Place | None, *, playing: bool,
                speed: str) -> Text:
    """`❚❚ paused · 1x  entry 12 of 240 · 2026-11-20 14:05:12 · hit 2/5 for “walker”`."""
    out = Text()
    if playing:
        out.append(f" ▶ playing {speed} ", "bold reverse green")
    else:
        out.append(f" ❚❚ paused · {speed} ", "bold reverse")
    if view.total:
        out.append(f"  entry {view.cursor + 1:,} of {view.total:,}")
        entry = view.entry(view.cursor)
        if entry is not None and entry.timestamp:
            out.append("  ·  " + entry.timestamp.astimezone().strftime(
                "%Y-%m-%d %H:%M:%S"), "dim")
    if place is not None and view.hits:
        hits = sorted({view.pairs.shown(h) for h in view.hits})  # a result: at its call
        before = sum(1 for h in hits if h <= view.cursor)
        label = f"hit {before}/{len(hits)}" if before else f"{len(hits)} hits"
        out.append(f"  ·  {label} ", "bold yellow")
        out.append(f"for “{place.query}” (n/N)", "dim")
    return out


class ReplayPart:
    """A part of the replay screen mixed into it (the time jump, resume and export): what
    it reads from the screen, declared once for type checkers."""

    if TYPE_CHECKING:
        stack: list[Place]
        app: App[None]

        @property
        def place(self) -> Place | None: ...
        @property
        def view(self) -> TranscriptView: ...
        def notify(self, message: str, *, title: str = "", severity: str = "information",
                   timeout: float | None = None, markup: bool = True) -> None: ...
