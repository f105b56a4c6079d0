"""Replay: read a session back as a conversation, step through it or play it.

The screen is thin: `TranscriptView` draws (virtualised), this screen fetches pages of
entries (with the structured inputs of their tool calls) in thread workers, runs the
replay clock, and keeps a stack of open transcripts so that a subagent opens on top of
its session and Escape goes back. Jumping to a time (`jump`), resuming and
exporting (`resume_export`) are mixed in from their own modules; the title
and status lines are drawn by `place`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from ccarchive.service.arguments import ServiceError
from ccarchive.service.models import SessionInfo, TranscriptPage
from ccarchive.service.tool_calls import SUBAGENT_TOOLS
from ccarchive.tui.messages import IndexUpdated
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.screens.replay.jump import TimeJump
from ccarchive.tui.screens.replay.place import Place, status_text, title_text
from ccarchive.tui.screens.replay.resume_export import ResumeAndExport
from ccarchive.tui.screens.replay.time_jump import SPEEDS, replay_delay
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.status_header import ArchiveHeader
from ccarchive.tui.widgets.transcript_view import PAGE, TranscriptView


class ReplayScreen(TimeJump, ResumeAndExport, PaneScreen):
    """Replay one session (or one of its subagents).

    Its way back out of the first transcript is the pane that opened it
    (`ArchiveApp.go_back`); out of a subagent, the session it ran in.
    """

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
                tooltip="Back to the session (from a subagent) or to the pane that opened "
                        "this one."),
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
        inputs: dict[str, dict] = field(default_factory=dict)

    @dataclass
    class PageLoaded(Message):
        key: int
        page_no: int
        page: TranscriptPage
        inputs: dict[str, dict] = field(default_factory=dict)

    @dataclass
    class HitsFound(Message):
        key: int
        hits: list[int]

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
        inputs = service.tool_inputs(page.entries)
        self.post_message(self.Opened(key, info, page, index, inputs=inputs))

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
        view.add_page(page.start // PAGE, page.entries, message.inputs)
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
        service = self.app.service  # type: ignore[attr-defined]
        page = service.transcript(session_id, agent_id=agent_id or None, start=page_no * PAGE,
                                  limit=PAGE)
        self.post_message(self.PageLoaded(key, page_no, page,
                                          service.tool_inputs(page.entries)))

    @on(PageLoaded)
    def _page_loaded(self, message: PageLoaded) -> None:
        message.stop()
        place = self.place
        if place is None or message.key != place.key:
            return  # a page of a transcript no longer shown
        self.view.set_total(message.page.total)
        self.view.add_page(message.page_no, message.page.entries, message.inputs)
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
        view = self.view
        hits = sorted({view.pairs.shown(h) for h in view.hits})  # a result: at its call
        if not hits:
            self.notify("No search hits in this transcript.", severity="warning")
            return
        cur = view.cursor
        if direction > 0:
            nxt = next((h for h in hits if h > cur), hits[0])
        else:
            nxt = next((h for h in reversed(hits) if h < cur), hits[-1])
        view.move_cursor(nxt)

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
            if self._at_end():
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
        cur, nxt = view.entry(view.cursor), view.entry(view.next_shown(view.cursor, 1))
        delay = replay_delay(cur.timestamp if cur else None, nxt.timestamp if nxt else None,
                             SPEEDS[self.speed_index][1])
        self.pending_delay = delay
        self._timer = self.set_timer(delay, self.replay_tick)

    def replay_tick(self) -> None:
        """One replay step: the next entry becomes current (the timer calls it)."""
        view = self.view
        if not self.playing:
            return
        if self._at_end():
            self._stop_playing()
            self.notify("End of the transcript.")
        else:
            view.move_cursor(view.next_shown(view.cursor, 1), context=2)
            self._schedule_next()
        self._render_status()

    def _at_end(self) -> bool:
        """Nothing comes after the current entry (results drawn under it do not count)."""
        view = self.view
        nxt = view.next_shown(view.cursor, 1)
        return nxt >= view.total or view.pairs.shown(nxt) == view.cursor

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
            if entry is not None and entry.kind == "tool_call" and entry.tool in SUBAGENT_TOOLS:
                self.notify(f"This {entry.tool} call's subagent transcript is not in the "
                            "archive (Claude Code did not keep it, or it was deleted).",
                            severity="warning")
            else:
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
            self.app.go_back()  # type: ignore[attr-defined]

    # ---- drawing -------------------------------------------------------------------
    def _render_title(self) -> None:
        self.query_one("#tx-title", Static).update(title_text(self.stack))

    def _render_status(self) -> None:
        self.query_one("#tx-status", Static).update(status_text(
            self.view, self.place, playing=self.playing, speed=SPEEDS[self.speed_index][0]))

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
