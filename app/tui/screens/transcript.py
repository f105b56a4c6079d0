"""Transcript replay: read a session back as a conversation, step through it or play it.

The screen is thin: `TranscriptView` draws (virtualised), this screen fetches pages of
entries in thread workers, runs the replay clock, and keeps a stack of open
transcripts so that a subagent opens on top of its session and Escape goes back.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from ccarchive.service.models import Entry, SessionInfo, TranscriptPage
from ccarchive.service.service import ServiceError
from ccarchive.tui.messages import IndexUpdated
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.widgets.ask_dialog import AskDialog
from ccarchive.tui.widgets.entry_render import entry_markdown
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.result_list import project_name
from ccarchive.tui.widgets.status_header import ArchiveHeader, short_path
from ccarchive.tui.widgets.transcript_view import PAGE, TranscriptView

SPEEDS: tuple[tuple[str, float | None], ...] = (
    ("1x", 1.0), ("10x", 10.0), ("100x", 100.0), ("steps", None))
"""Replay speeds: the recorded pace times a factor, or fixed steps."""
STEP_DELAY = 0.6
"""Seconds between entries at fixed steps."""
IDLE_CAP = 30.0
"""A recorded pause longer than this (lunch, a night) plays as this long (then scaled)."""
MIN_DELAY = 0.03


def replay_delay(prev: datetime | None, nxt: datetime | None, speed: float | None) -> float:
    """How long to wait before showing the next entry.

    Args:
        prev: time of the current entry.
        nxt: time of the next one.
        speed: factor on the recorded pace, or None for fixed steps.

    Returns:
        Seconds: the recorded gap (idle pauses capped at `IDLE_CAP`) over the speed.
    """
    if speed is None:
        return STEP_DELAY
    if prev is None or nxt is None:
        return MIN_DELAY
    gap = min(max(0.0, (nxt - prev).total_seconds()), IDLE_CAP)
    return max(MIN_DELAY, gap / speed)


def parse_when(text: str, base: datetime | None, start: datetime | None) -> datetime:
    """A time to jump to: `14:05`, `14:05:30`, `2026-11-14 14:05`, or `+10m` from the start.

    Clock times are local, on the day of `base` (the current entry).
    """
    text = text.strip()
    m = re.fullmatch(r"\+(\d+(?:\.\d+)?)\s*([smh]?)", text)
    if m:
        if start is None:
            raise ValueError("the session has no start time")
        n = float(m.group(1))
        unit = {"s": 1, "m": 60, "h": 3600, "": 60}[m.group(2)]
        return start + timedelta(seconds=n * unit)
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", text)
    if m:
        local = (base or datetime.now(UTC)).astimezone()
        return local.replace(hour=int(m.group(1)), minute=int(m.group(2)),
                             second=int(m.group(3) or 0), microsecond=0)
    try:
        dt = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"{text!r} is not a time: try 14:05, +10m or 2026-11-14 14:05") \
            from exc
    return dt if dt.tzinfo else dt.astimezone()


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


class TranscriptScreen(PaneScreen):
    """Replay one session (or one of its subagents)."""

    BINDINGS = [
        Binding("space", "play", "Play/pause", tooltip="Play the session at the chosen speed."),
        Binding("s", "speed", "Speed", tooltip="Cycle the speed: 1x, 10x, 100x, fixed steps."),
        Binding("right,l", "turn(1)", "Next turn", tooltip="Jump to the next prompt."),
        Binding("left,h", "turn(-1)", "Prev turn", show=False,
                tooltip="Jump to the previous prompt."),
        Binding("n", "hit(1)", "Next hit", tooltip="Next entry matching the search."),
        Binding("N", "hit(-1)", "Prev hit", show=False,
                tooltip="Previous entry matching the search."),
        Binding("t", "jump_time", "Time", tooltip="Jump to a time (14:05, +10m, a date)."),
        Binding("o", "open_subagent", "Subagent", tooltip="Open the subagent this call ran."),
        Binding("escape,backspace", "back", "Back",
                tooltip="Back to the session (from a subagent) or to the search."),
        Binding("c", "copy_resume", "Copy resume",
                tooltip="Copy `claude --resume <id>` to the clipboard."),
        Binding("R", "run_resume", "Resume", show=False,
                tooltip="Run `claude --resume <id>` in the project's directory."),
        Binding("e", "export", "Export", tooltip="Export this transcript as Markdown."),
    ]

    AUTO_FOCUS = "#transcript"
    """Focus on mount without a second footer build (focus() after mount rebuilt it)."""

    @dataclass
    class Opened(Message):
        key: int
        info: SessionInfo | None
        page: TranscriptPage | None
        index: int
        error: str | None = None

    @dataclass
    class PageLoaded(Message):
        key: int
        page_no: int
        page: TranscriptPage

    @dataclass
    class HitsFound(Message):
        key: int
        hits: list[int]

    @dataclass
    class IndexFound(Message):
        key: int
        index: int
        what: str

    def __init__(self, name: str | None = None, id: str | None = None,  # noqa: A002
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.stack: list[Place] = []
        """Open transcripts: the session, then any subagent opened from it."""
        self.speed_index = 0
        self.playing = False
        self.pending_delay: float | None = None
        """The wait before the next replay step (tests read it instead of sleeping)."""
        self._timer: Timer | None = None
        self._key = 0

    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Replay")
        yield Static(id="tx-title")
        yield TranscriptView(id="transcript")
        yield Static(id="tx-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        if not self.stack:
            self._open_latest()

    @property
    def view(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    @property
    def place(self) -> Place | None:
        return self.stack[-1] if self.stack else None

    # ---- opening -------------------------------------------------------------------
    def open_session(self, session_id: str, *, entry_id: str | None = None,
                     agent_id: str | None = None, query: str | None = None) -> None:
        """Open a session (at an entry, in a subagent) as the only transcript."""
        self._stop_playing()
        self.stack = []
        self._push(Place(session_id=session_id, agent_id=agent_id or "", query=query),
                   entry_id=entry_id)

    def _push(self, place: Place, *, entry_id: str | None = None, index: int = 0) -> None:
        self._key += 1
        place.key = self._key
        self.stack.append(place)
        self.view.reset(0)
        self._render_title()
        self._render_status()
        self.workers.cancel_group(self, "transcript-pages")
        self._run_open(place.key, place.session_id, place.agent_id, entry_id, index)

    @work(thread=True, exclusive=True, group="transcript-open", exit_on_error=False,
          description="Opening the transcript")
    def _run_open(self, key: int, session_id: str, agent_id: str, entry_id: str | None,
                  index: int) -> None:
        service = self.app.service  # type: ignore[attr-defined]
        try:
            if entry_id:
                sid, agent, index = service.entry_position(entry_id)
                session_id, agent_id = sid or session_id, agent or agent_id
            info = service.session(session_id)
            start = (index // PAGE) * PAGE
            page = service.transcript(info.session_id, agent_id=agent_id or None, start=start,
                                      limit=PAGE)
        except ServiceError as exc:
            self.post_message(self.Opened(key, None, None, 0, str(exc)))
            return
        self.post_message(self.Opened(key, info, page, index))

    @work(thread=True, exclusive=True, group="transcript-open", exit_on_error=False,
          description="Finding the latest session")
    def _open_latest(self) -> None:
        sessions = self.app.service.sessions(limit=1).sessions  # type: ignore[attr-defined]
        if sessions:
            self.app.call_from_thread(self._open_if_empty, sessions[0].session_id)

    def _open_if_empty(self, session_id: str) -> None:
        if not self.stack:
            self.open_session(session_id)

    @on(Opened)
    def _opened(self, message: Opened) -> None:
        message.stop()
        place = self.place
        if place is None or message.key != place.key:
            return
        if message.page is None or message.info is None:
            self.query_one("#tx-title", Static).update(Text(f"⚠ {message.error}", "bold red"))
            return
        place.info = message.info
        place.session_id = message.info.session_id
        page = message.page
        view = self.view
        view.reset(page.total)
        view.add_page(page.start // PAGE, page.entries)
        if place.agent_id:
            sub = next((s for s in message.info.subagents if s.agent_id == place.agent_id), None)
            place.title = (sub.description or sub.agent_type) if sub else place.agent_id
            if len(self.stack) == 1:  # a hit inside a subagent: Escape leads to its session
                self.stack.insert(0, Place(session_id=place.session_id, info=message.info,
                                           query=place.query))
        if place.cursor or place.top:  # coming back from a subagent: where we were
            view.cursor, view.top, view.top_line = place.cursor, place.top, place.top_line
            view.refresh()
        else:
            self.call_after_refresh(view.move_cursor, message.index)
        self._render_title()
        self._render_status()
        if place.query and place.query.strip():
            self._find_hits(place.key, place.session_id, place.agent_id, place.query)

    @on(TranscriptView.PagesWanted)
    def _pages_wanted(self, message: TranscriptView.PagesWanted) -> None:
        message.stop()
        place = self.place
        if place is None or place.info is None:
            return
        for page_no in message.pages:
            self._load_page(place.key, place.session_id, place.agent_id, page_no)

    @work(thread=True, group="transcript-pages", exit_on_error=False,
          description="Reading transcript entries")
    def _load_page(self, key: int, session_id: str, agent_id: str, page_no: int) -> None:
        page = self.app.service.transcript(  # type: ignore[attr-defined]
            session_id, agent_id=agent_id or None, start=page_no * PAGE, limit=PAGE)
        self.post_message(self.PageLoaded(key, page_no, page))

    @on(PageLoaded)
    def _page_loaded(self, message: PageLoaded) -> None:
        message.stop()
        place = self.place
        if place is None or message.key != place.key:
            return  # a page of a transcript no longer shown
        self.view.set_total(message.page.total)
        self.view.add_page(message.page_no, message.page.entries)
        self._render_status()

    # ---- search hits ---------------------------------------------------------------
    @work(thread=True, exclusive=True, group="transcript-hits", exit_on_error=False,
          description="Finding the search hits in this session")
    def _find_hits(self, key: int, session_id: str, agent_id: str, query: str) -> None:
        service = self.app.service  # type: ignore[attr-defined]
        page = service.search(query, session_id=session_id, limit=200,
                              include_tool_results=True, include_thinking=True)
        positions = []
        for hit in page.hits:
            if (hit.agent_id or "") != agent_id and not (hit.agent_id == "sidechain"
                                                         and not agent_id):
                continue
            try:
                positions.append(service.entry_position(hit.id)[2])
            except ServiceError:
                continue
        self.post_message(self.HitsFound(key, sorted(set(positions))))

    @on(HitsFound)
    def _hits_found(self, message: HitsFound) -> None:
        message.stop()
        place = self.place
        if place is None or message.key != place.key:
            return
        place.hits = message.hits
        view = self.view
        view.terms = tuple(w.strip('"').lower() for w in (place.query or "").split()
                           if ":" not in w and w.upper() not in ("AND", "OR", "NOT"))
        view.set_hits(message.hits)
        self._render_status()

    def action_hit(self, direction: int) -> None:
        hits = self.view.hits
        if not hits:
            self.notify("No search hits in this transcript.", severity="warning")
            return
        cur = self.view.cursor
        if direction > 0:
            nxt = next((h for h in hits if h > cur), hits[0])
        else:
            nxt = next((h for h in reversed(hits) if h < cur), hits[-1])
        self.view.move_cursor(nxt)

    # ---- stepping and playing ------------------------------------------------------
    def action_turn(self, direction: int) -> None:
        """Jump to the next (previous) prompt; reads ahead page by page if needed."""
        view = self.view
        i = view.cursor + direction
        while 0 <= i < view.total:
            e = view.entry(i)
            if e is None:  # its page is being fetched: go there, the next press goes on
                view.move_cursor(i, context=1)
                return
            if e.kind == "prompt":
                view.move_cursor(i, context=1)
                return
            i += direction
        view.move_cursor(max(0, min(view.total - 1, i)), context=1)

    def action_play(self) -> None:
        if self.playing:
            self._stop_playing()
        else:
            if self.view.cursor >= self.view.total - 1:
                self.view.move_cursor(0, context=0)
            self.playing = True
            self._schedule_next()
        self._render_status()

    def action_speed(self) -> None:
        self.speed_index = (self.speed_index + 1) % len(SPEEDS)
        if self.playing:
            self._schedule_next()
        self._render_status()

    def _schedule_next(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        view = self.view
        cur, nxt = view.entry(view.cursor), view.entry(view.cursor + 1)
        delay = replay_delay(cur.timestamp if cur else None, nxt.timestamp if nxt else None,
                             SPEEDS[self.speed_index][1])
        self.pending_delay = delay
        self._timer = self.set_timer(delay, self.replay_tick)

    def replay_tick(self) -> None:
        """One replay step: the next entry becomes current (the timer calls it)."""
        view = self.view
        if not self.playing:
            return
        if view.cursor >= view.total - 1:
            self._stop_playing()
            self.notify("End of the transcript.")
        else:
            view.move_cursor(view.cursor + 1, context=2)
            self._schedule_next()
        self._render_status()

    def _stop_playing(self) -> None:
        self.playing = False
        self.pending_delay = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @on(TranscriptView.CursorMoved)
    def _cursor_moved(self, message: TranscriptView.CursorMoved) -> None:
        message.stop()
        self._render_status()

    # ---- jump to a time ------------------------------------------------------------
    def action_jump_time(self) -> None:
        self.app.push_screen(AskDialog(
            "Jump to a time", placeholder="14:05   +10m   2026-11-14 14:05",
            help="A clock time (local, on the current entry's day), minutes from the "
                 "start, or a date and time."), self._jump_answered)

    def _jump_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        cur = self.view.entry(self.view.cursor)
        try:
            when = parse_when(answer, cur.timestamp if cur else None, place.info.first_activity)
        except ValueError as exc:
            self.notify(str(exc), severity="warning")
            return
        self._find_time(place.key, place.session_id, place.agent_id, self.view.total, when)

    @work(thread=True, exclusive=True, group="transcript-jump", exit_on_error=False,
          description="Finding the time in the transcript")
    def _find_time(self, key: int, session_id: str, agent_id: str, total: int,
                   when: datetime) -> None:
        """Binary search on entry times, one single-entry read per step (~17 for 100k)."""
        service = self.app.service  # type: ignore[attr-defined]
        lo, hi = 0, max(0, total - 1)
        while lo < hi:
            mid = (lo + hi) // 2
            page = service.transcript(session_id, agent_id=agent_id or None, start=mid,
                                      limit=1, max_chars=1)
            ts = page.entries[0].timestamp if page.entries else None
            if ts is not None and ts < when:
                lo = mid + 1
            else:
                hi = mid
        self.post_message(self.IndexFound(key, lo, when.astimezone().strftime("%H:%M:%S")))

    @on(IndexFound)
    def _index_found(self, message: IndexFound) -> None:
        message.stop()
        place = self.place
        if place is not None and message.key == place.key:
            self.view.move_cursor(message.index)
            self.notify(f"Jumped to {message.what}.", timeout=2)

    # ---- subagents -----------------------------------------------------------------
    def action_open_subagent(self) -> None:
        place = self.place
        view = self.view
        entry = view.entry(view.cursor)
        agent = entry.subagent_id if entry else ""
        if entry is not None and not agent and entry.tool_use_id and place and place.info:
            agent = next((s.agent_id for s in place.info.subagents
                          if s.tool_use_id == entry.tool_use_id), "")
        if not agent or place is None:
            self.notify("Not a subagent call: put the cursor on a ◈ Agent/Task line.",
                        severity="warning")
            return
        self._stop_playing()
        place.cursor, place.top, place.top_line = view.cursor, view.top, view.top_line
        self._push(Place(session_id=place.session_id, agent_id=agent, query=place.query))

    def action_back(self) -> None:
        self._stop_playing()
        if len(self.stack) > 1:
            self.stack.pop()
            place = self.stack.pop()
            self._push(place, index=place.cursor)
        else:
            self.app.switch_mode("search")

    # ---- resume, export ------------------------------------------------------------
    def _resume_command(self) -> str | None:
        place = self.place
        return f"claude --resume {place.session_id}" if place else None

    def action_copy_resume(self) -> None:
        cmd = self._resume_command()
        if cmd is None:
            return
        self.app.copy_to_clipboard(cmd)
        where = self.place.info.project if self.place and self.place.info else ""
        self.notify(f"Copied: {cmd}" + (f"\nRun it in {short_path(where)} (R does)."
                                        if where else ""), title="Resume", timeout=6)

    def action_run_resume(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        claude = shutil.which("claude")
        if claude is None:
            self.notify("`claude` is not on PATH; c copies the command instead.",
                        severity="error")
            return
        cwd = place.info.project if place.info.project and Path(place.info.project).is_dir() \
            else None
        with self.app.suspend():
            subprocess.run([claude, "--resume", place.session_id], cwd=cwd, check=False)

    def action_export(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        slug = re.sub(r"[^a-z0-9]+", "-", (place.info.title or "session").lower()).strip("-")
        name = f"{slug[:40]}-{place.session_id[:8]}"
        if place.agent_id:
            name += f"-{place.agent_id[:12]}"
        default = str(Path.cwd() / f"{name}.md")
        self.app.push_screen(AskDialog(
            "Export as Markdown to", value=default,
            help="The whole transcript, full texts (read back from the archive)."),
            self._export_answered)

    def _export_answered(self, answer: str | None) -> None:
        place = self.place
        if answer and place is not None and place.info is not None:
            self._run_export(Path(answer).expanduser(), place.info, place.agent_id,
                             place.title)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False,
          description="Exporting the transcript")
    def _run_export(self, path: Path, info: SessionInfo, agent_id: str, title: str) -> None:
        n = export_markdown(self.app.service, info, agent_id, title, path)  # type: ignore
        self.app.call_from_thread(self.notify, f"{n:,} entries written to {path}",
                                  title="Exported")

    # ---- drawing -------------------------------------------------------------------
    def _render_title(self) -> None:
        place = self.place
        title = self.query_one("#tx-title", Static)
        if place is None:
            title.update(Text("No session open: pick a hit in Search (F1).", "italic"))
            return
        info = place.info
        out = Text()
        out.append(info.title if info and info.title else place.session_id, "bold")
        for sub in self.stack[1:]:
            out.append("  ›  ", "dim")
            out.append(f"◈ subagent: {sub.title or sub.agent_id}", "bold magenta")
        if info is not None:
            meta = [project_name(info.project) or "—"]
            if info.branches:
                meta.append(f"branch {info.branches[0]}")
            if info.first_activity:
                meta.append(info.first_activity.astimezone().strftime("%Y-%m-%d %H:%M"))
            if info.duration_s:
                meta.append(_duration(info.duration_s))
            if info.models:
                meta.append(", ".join(m.replace("claude-", "") for m in info.models[:2]))
            meta.append(f"{info.tokens.total:,} tokens")
            if info.subagent_count:
                meta.append(f"{info.subagent_count} subagent"
                            f"{'s' if info.subagent_count != 1 else ''}")
            meta.append(place.session_id[:8])
            out.append("\n" + " · ".join(meta), "dim")
        title.update(out)

    def _render_status(self) -> None:
        view = self.view
        out = Text()
        name, _ = SPEEDS[self.speed_index]
        if self.playing:
            out.append(f" ▶ playing {name} ", "bold reverse green")
        else:
            out.append(f" ❚❚ paused · {name} ", "bold reverse")
        if view.total:
            out.append(f"  entry {view.cursor + 1:,} of {view.total:,}")
            entry = view.entry(view.cursor)
            if entry is not None and entry.timestamp:
                out.append("  ·  " + entry.timestamp.astimezone().strftime(
                    "%Y-%m-%d %H:%M:%S"), "dim")
        place = self.place
        if place is not None and view.hits:
            before = sum(1 for h in view.hits if h <= view.cursor)
            label = f"hit {before}/{len(view.hits)}" if before else f"{len(view.hits)} hits"
            out.append(f"  ·  {label} ", "bold yellow")
            out.append(f"for “{place.query}” (n/N)", "dim")
        self.query_one("#tx-status", Static).update(out)

    # ---- live ----------------------------------------------------------------------
    @on(IndexUpdated)
    def _index_updated(self, message: IndexUpdated) -> None:
        """The session may have grown: re-read what is on screen, keep the place."""
        message.stop()
        place = self.place
        if place is None or place.info is None:
            return
        info = message.info
        sessions = getattr(info, "sessions", frozenset())
        if sessions and place.session_id not in sessions:
            return
        self.view.forget_pages()


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes // 60}h {minutes % 60:02d}m" if minutes >= 60 else f"{minutes}m"


def export_markdown(service: object, info: SessionInfo, agent_id: str, title: str,
                    path: Path) -> int:
    """Write a transcript as Markdown, full texts included; returns the entries written."""
    svc = service  # ArchiveService; typed loosely to keep this callable from tests
    lines = [f"# {info.title or info.session_id}" + (f" › subagent: {title}" if agent_id
                                                        else ""), ""]
    lines.append(f"- session: `{info.session_id}`" + (f", agent `{agent_id}`" if agent_id
                                                       else ""))
    lines.append(f"- project: `{info.project}`")
    if info.branches:
        lines.append(f"- branch: `{', '.join(info.branches)}`")
    if info.first_activity:
        lines.append(f"- started: {info.first_activity.isoformat(timespec='seconds')}")
    lines.append(f"- resume: `claude --resume {info.session_id}`")
    lines += ["", "---", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("\n".join(lines))
        start = 0
        while True:
            page = svc.transcript(info.session_id, agent_id=agent_id or None,  # type: ignore
                                  start=start, limit=500, max_chars=200_000)
            entries: list[Entry] = page.entries
            full_ids = [e.id for e in entries if e.truncated]
            full = {}
            for i in range(0, len(full_ids), 100):
                for e in svc.entries(full_ids[i:i + 100], max_chars=200_000):  # type: ignore
                    full[e.id] = e
            for e in entries:
                out.write(entry_markdown(full.get(e.id, e)) + "\n")
                n += 1
            start += len(entries)
            if not entries or start >= page.total:
                break
    return n
