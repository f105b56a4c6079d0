"""The open transcripts of replay (`Place`) and the two lines that describe them: the
title (session, subagent path, project, branch, start, length, models, tokens) and the
status (playing or paused, speed, entry, time, search hits)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text

from ccarchive.service.models import SessionInfo
from ccarchive.service.naming import home_path
from ccarchive.tui.format import short_project
from ccarchive.tui.widgets.transcript_view import TranscriptView


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
    find_pending: bool = False
    """A find (`/`) was asked: its first match after the cursor is gone to when found."""


def duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h {minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def title_text(stack: list[Place]) -> Text:
    """The session's title, the subagents opened from it, and its figures: two lines at
    most, each cut to the width (a long first prompt took three and pushed the project
    and branch off an 80x24 screen); the project by its short name, then the branch."""
    if not stack:
        return Text("No session open: pick a hit in Search (F1).", "italic")
    place = stack[-1]
    info = place.info
    out = Text(no_wrap=True, overflow="ellipsis")
    for sub in stack[1:]:
        out.append(f"◈ subagent: {sub.title or sub.agent_id}", "bold magenta")
        out.append("  ‹  ", "dim")
    out.append(" ".join((info.title if info and info.title else place.session_id).split()), "bold")
    if info is not None:
        meta = []
        if not info.on_disk:
            meta.append("gone from disk")
        meta.append(short_project(info.project) if info.project else "—")
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
            meta.append(f"{info.subagent_count} subagent{'s' if info.subagent_count != 1 else ''}")
        meta.append(place.session_id[:8])
        if info.project:  # the full path last: a wide terminal shows it, a narrow one cuts it
            meta.append(home_path(info.project))
        out.append("\n")
        if not info.on_disk:
            out.append(meta.pop(0), "bold red")
            out.append(" · ", "dim")
        out.append(" · ".join(meta), "dim")
    return out


def status_text(view: TranscriptView, place: Place | None, *, playing: bool, speed: str) -> Text:
    """`❚❚ paused · 1x  entry 12 of 240 · hit 2/5 for “walker” (n/N) · 2026-11-20 14:05:12`:
    the time last, so that an 80-column line cuts the time, not the hit counter."""
    out = Text(no_wrap=True, overflow="ellipsis")
    if playing:
        out.append(f" ▶ playing {speed} ", "bold reverse green")
    else:
        out.append(f" ❚❚ paused · {speed} ", "bold reverse")
    if view.total:
        out.append(f"  entry {view.cursor + 1:,} of {view.total:,}")
    if place is not None and view.hits:
        # the matching entries as the index found them: a total that does not change
        # as pages load (a result drawn under its call is counted at the call)
        hits = view.hits
        before = sum(1 for h in hits if view.pairs.shown(h) <= view.cursor)
        label = f"hit {before}/{len(hits)}" if before else f"{len(hits)} hits"
        out.append(f"  ·  {label} ", "bold yellow")
        out.append(f"for “{place.query}” (n/N)", "dim")
    if view.total:
        entry = view.entry(view.cursor)
        if entry is not None and entry.timestamp:
            out.append("  ·  " + entry.timestamp.astimezone().strftime("%Y-%m-%d %H:%M:%S"), "dim")
    return out
