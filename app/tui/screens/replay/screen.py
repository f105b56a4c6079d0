"""Replay: read a session back as a conversation, step through it or play it.

The screen is thin: `TranscriptView` draws (virtualised), this screen fetches pages of
entries (with the structured inputs of their tool calls) in thread workers, runs the
replay clock, and keeps a stack of open transcripts so that a subagent opens on top of
its session and Escape goes back. It also jumps to a time, resumes the session in
Claude Code and exports it as Markdown; the title and status lines are drawn by `place`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.markup import escape
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Static

from ccarchive.service.arguments import ServiceError
from ccarchive.service.models import Entry, SessionInfo, TranscriptPage
from ccarchive.service.tool_calls import SUBAGENT_TOOLS
from ccarchive.tui.messages import IndexUpdated
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.screens.replay.place import Place, status_text, title_text
from ccarchive.tui.screens.replay.reading import FULL, TurnOutline
from ccarchive.tui.screens.replay.time_jump import (
    SPEEDS,
    JumpOutcome,
    When,
    jump_outcome,
    parse_jump,
    replay_delay,
)
from ccarchive.tui.transcript_export import (
    ExportRefused,
    default_export_dir,
    export_markdown,
    export_name,
    export_target,
)
from ccarchive.tui.widgets.ask_dialog import AskDialog
from ccarchive.tui.widgets.entry_render import entry_markdown
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.status_header import ArchiveHeader, short_path
from ccarchive.tui.widgets.transcript_view import PAGE, TranscriptView


class ReplayScreen(PaneScreen):
    """Replay one session (or one of its subagents).

    Its way back out of the first transcript is the pane that opened it
    (`ArchiveApp.go_back`); out of a subagent, the session it ran in.
    """

    BINDINGS = [
        Binding("space", "play", "Play/pause", tooltip="Play the session at the chosen speed."),
        Binding("s", "speed", "Speed", tooltip="Cycle the speed: 1x, 10x, 100x, fixed steps."),
        Binding("right,l", "turn(1)", "Next turn", tooltip="Jump to the next prompt."),
        Binding(
            "left,h", "turn(-1)", "Prev turn", show=False, tooltip="Jump to the previous prompt."
        ),
        Binding("n", "hit(1)", "Next hit", tooltip="Next entry matching the search."),
        Binding(
            "N", "hit(-1)", "Prev hit", show=False, tooltip="Previous entry matching the search."
        ),
        Binding(
            "slash",
            "find",
            "Find",
            tooltip="Find in this session (its matches become the hits of n/N).",
        ),
        Binding("u", "outline", "Turns", tooltip="The prompts of this session: jump to one."),
        Binding("t", "jump_time", "Time", tooltip="Jump to a time (14:05, +10m, a date)."),
        Binding("o", "open_subagent", "Subagent", tooltip="Open the subagent this call ran."),
        Binding(
            "escape,backspace",
            "back",
            "Back",
            tooltip="Back to the session (from a subagent) or to the pane that opened this one.",
        ),
        Binding(
            "c",
            "copy_resume",
            "Copy resume",
            tooltip="Copy `claude --resume <id>` to the clipboard.",
        ),
        Binding(
            "R",
            "run_resume",
            "Resume",
            show=False,
            tooltip="Run `claude --resume <id>` in the project's directory.",
        ),
        Binding("e", "export", "Export", tooltip="Export this transcript as Markdown."),
        Binding(
            "x",
            "export_turn",
            "Export turn",
            show=False,
            tooltip="Export the turn under the cursor (its prompt and what answered "
            "it) as Markdown.",
        ),
        Binding(
            "y",
            "copy_entry",
            "Copy entry",
            show=False,
            tooltip="Copy the text of the entry under the cursor, whole.",
        ),
        Binding(
            "Y",
            "copy_id",
            "Copy id",
            show=False,
            tooltip="Copy the id of the entry under the cursor (ccarchive show <id>).",
        ),
        Binding(
            "v",
            "pager",
            "Pager",
            show=False,
            tooltip="Read the entry under the cursor in $PAGER (less).",
        ),
        Binding(
            "E",
            "editor",
            "Editor",
            show=False,
            tooltip="Open the entry under the cursor in $VISUAL / $EDITOR.",
        ),
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

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
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
    def open_session(
        self,
        session_id: str,
        *,
        entry_id: str | None = None,
        agent_id: str | None = None,
        query: str | None = None,
    ) -> None:
        """Open a session (at an entry, in a subagent) as the only transcript."""
        self._stop_playing()
        self.stack = []
        self._push(
            Place(session_id=session_id, agent_id=agent_id or "", query=query), entry_id=entry_id
        )

    def _push(self, place: Place, *, entry_id: str | None = None, index: int = 0) -> None:
        self._key += 1
        place.key = self._key
        self.stack.append(place)
        self.view.reset(0)
        self._render_title()
        self._render_status()
        self.workers.cancel_group(self, "transcript-pages")
        self._run_open(place.key, place.session_id, place.agent_id, entry_id, index)

    @work(
        thread=True,
        exclusive=True,
        group="transcript-open",
        exit_on_error=False,
        description="Opening the transcript",
    )
    def _run_open(
        self, key: int, session_id: str, agent_id: str, entry_id: str | None, index: int
    ) -> None:
        service = self.app.service
        try:
            if entry_id:
                sid, agent, index = service.entry_position(entry_id)
                session_id, agent_id = sid or session_id, agent or agent_id
            info = service.session(session_id)
            start = (index // PAGE) * PAGE
            page = service.transcript(
                info.session_id, agent_id=agent_id or None, start=start, limit=PAGE
            )
        except ServiceError as exc:
            self.post_message(self.Opened(key, None, None, 0, str(exc)))
            return
        inputs = service.tool_inputs(page.entries)
        self.post_message(self.Opened(key, info, page, index, inputs=inputs))

    @work(
        thread=True,
        exclusive=True,
        group="transcript-open",
        exit_on_error=False,
        description="Finding the latest session",
    )
    def _open_latest(self) -> None:
        sessions = self.app.service.sessions(limit=1).sessions
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
                self.stack.insert(
                    0, Place(session_id=place.session_id, info=message.info, query=place.query)
                )
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

    @work(
        thread=True,
        group="transcript-pages",
        exit_on_error=False,
        description="Reading transcript entries",
    )
    def _load_page(self, key: int, session_id: str, agent_id: str, page_no: int) -> None:
        service = self.app.service
        page = service.transcript(
            session_id, agent_id=agent_id or None, start=page_no * PAGE, limit=PAGE
        )
        self.post_message(self.PageLoaded(key, page_no, page, service.tool_inputs(page.entries)))

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
    @work(
        thread=True,
        exclusive=True,
        group="transcript-hits",
        exit_on_error=False,
        description="Finding the search hits in this session",
    )
    def _find_hits(self, key: int, session_id: str, agent_id: str, query: str) -> None:
        service = self.app.service
        page = service.search(
            query,
            session_id=session_id,
            limit=200,
            include_tool_results=True,
            include_thinking=True,
        )
        positions = []
        for hit in page.hits:
            if (hit.agent_id or "") != agent_id and not (
                hit.agent_id == "sidechain" and not agent_id
            ):
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
        view.terms = tuple(
            w.strip('"').lower()
            for w in (place.query or "").split()
            if ":" not in w and w.upper() not in ("AND", "OR", "NOT")
        )
        view.set_hits(message.hits)
        if place.find_pending:  # `/`: to the first match after the cursor
            place.find_pending = False
            if message.hits:
                self.action_hit(1)
            else:
                self.notify(
                    f"Nothing in this transcript matches “{place.query}”.",
                    severity="warning",
                    markup=False,
                )
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
        delay = replay_delay(
            cur.timestamp if cur else None,
            nxt.timestamp if nxt else None,
            SPEEDS[self.speed_index][1],
        )
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
            agent = next(
                (s.agent_id for s in place.info.subagents if s.tool_use_id == entry.tool_use_id), ""
            )
        if not agent or place is None:
            if entry is not None and entry.kind == "tool_call" and entry.tool in SUBAGENT_TOOLS:
                self.notify(
                    f"This {entry.tool} call's subagent transcript is not in the "
                    "archive (Claude Code did not keep it, or it was deleted).",
                    severity="warning",
                )
            else:
                self.notify(
                    "Not a subagent call: put the cursor on a ◈ Agent/Task line.",
                    severity="warning",
                )
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
            self.app.go_back()

    # ---- drawing -------------------------------------------------------------------
    def _render_title(self) -> None:
        self.query_one("#tx-title", Static).update(title_text(self.stack))

    def _render_status(self) -> None:
        self.query_one("#tx-status", Static).update(
            status_text(
                self.view, self.place, playing=self.playing, speed=SPEEDS[self.speed_index][0]
            )
        )

    # ---- live ----------------------------------------------------------------------
    @on(IndexUpdated)
    def _index_updated(self, message: IndexUpdated) -> None:
        """The session may have grown: re-read what is on screen, keep the place."""
        message.stop()
        place = self.place
        if place is None or place.info is None:
            return
        info = message.info
        sessions: frozenset[str] = getattr(info, "sessions", frozenset())
        if sessions and place.session_id not in sessions:
            return
        self.view.forget_pages()

    # ---- jumping to a time (`t`): the parsing and the wording are in `time_jump` -----
    def action_jump_time(self) -> None:
        self.app.push_screen(
            AskDialog(
                "Jump to a time",
                placeholder="14:05   +10m   2026-11-14 14:05",
                help="A clock time (local, on the current entry's day), a time after the "
                "start (+10m, +1h30m), or a date and time.",
            ),
            self._jump_answered,
        )

    def _jump_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        cur = self.view.entry(self.view.cursor)
        first = self.view.entry(0)
        start = (
            first.timestamp if first and first.timestamp else None
        ) or place.info.first_activity
        try:
            when = parse_jump(answer, cur.timestamp if cur else None, start)
        except ValueError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self._find_time(place.key, place.session_id, place.agent_id, self.view.total, when)

    @work(
        thread=True,
        exclusive=True,
        group="transcript-jump",
        exit_on_error=False,
        description="Finding the time in the transcript",
    )
    def _find_time(self, key: int, session_id: str, agent_id: str, total: int, when: When) -> None:
        """Binary search on entry times, one single-entry read per step (~17 for 100k),
        and the first and last times, so that a time outside the transcript says so."""
        service = self.app.service

        def stamps(start: int, limit: int) -> list[datetime]:
            page = service.transcript(
                session_id,
                agent_id=agent_id or None,
                start=max(0, start),
                limit=max(1, limit),
                max_chars=1,
            )
            return [e.timestamp for e in page.entries if e.timestamp is not None]

        lo, hi = 0, max(0, total - 1)
        while lo < hi:
            mid = (lo + hi) // 2
            ts = stamps(mid, 1)
            if ts and ts[0] < when.at:
                lo = mid + 1
            else:
                hi = mid
        head, tail, found = stamps(0, 20), stamps(total - 20, 20), stamps(lo, 1)
        outcome = jump_outcome(
            when,
            lo,
            found[0] if found else None,
            total,
            head[0] if head else None,
            tail[-1] if tail else None,
        )
        self.app.call_from_thread(self._time_found, key, outcome)

    def _time_found(self, key: int, outcome: JumpOutcome) -> None:
        place = self.place
        if place is not None and key == place.key:  # still the transcript it was asked in
            self.view.move_cursor(outcome.index)
            self.notify(
                outcome.message,
                severity="warning" if outcome.moved_to_end else "information",
                timeout=6 if outcome.moved_to_end else 3,
                markup=False,
            )

    # ---- resuming in Claude Code (`c`, `R`) and exporting as Markdown (`e`) ---------
    # An export path is checked before anything is written (`export_target`): one inside
    # the archive is refused with the reason, and the dialog comes back with the default
    # place outside it.
    def _resume_command(self) -> str | None:
        place = self.place
        return f"claude --resume {place.session_id}" if place else None

    def action_copy_resume(self) -> None:
        cmd = self._resume_command()
        if cmd is None:
            return
        self.app.copy_to_clipboard(cmd)
        where = self.place.info.project if self.place and self.place.info else ""
        self.notify(
            f"Copied: {cmd}" + (f"\nRun it in {short_path(where)} (R does)." if where else ""),
            title="Resume",
            timeout=6,
            markup=False,
        )

    def action_run_resume(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        claude = shutil.which("claude")
        if claude is None:
            self.notify("`claude` is not on PATH; c copies the command instead.", severity="error")
            return
        cwd = (
            place.info.project if place.info.project and Path(place.info.project).is_dir() else None
        )
        with self.app.suspend():
            subprocess.run([claude, "--resume", place.session_id], cwd=cwd, check=False)

    def _archive_root(self) -> Path:
        return Path(self.app.service.root)

    def action_export(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        self._ask_export(
            str(default_export_dir(self._archive_root()) / export_name(place.info, place.agent_id))
        )

    def _ask_export(self, value: str, refused: str = "") -> None:
        help_text = (
            "The whole transcript, full texts (read back from the archive). "
            "Never inside the archive."
        )
        self.app.push_screen(
            AskDialog(
                "Export as Markdown to",
                value=value,
                help=f"⚠ {escape(refused)}\nHere instead?" if refused else help_text,
            ),
            self._export_answered,
        )

    def _export_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        root = self._archive_root()
        name = export_name(place.info, place.agent_id)
        try:
            path = export_target(answer, root, name)
        except ExportRefused as exc:  # say why, and offer the default place
            self.notify(str(exc), title="Not exported", severity="error", timeout=8, markup=False)
            self._ask_export(str(default_export_dir(root) / name), refused=str(exc))
            return
        self._run_export(path, place.info, place.agent_id, place.title)

    @work(
        thread=True,
        exclusive=True,
        group="export",
        exit_on_error=False,
        description="Exporting the transcript",
    )
    def _run_export(self, path: Path, info: SessionInfo, agent_id: str, title: str) -> None:
        try:
            n = export_markdown(
                self.app.service, info, agent_id, title, path, archive_root=self._archive_root()
            )
        except (ExportRefused, OSError) as exc:
            self.app.call_from_thread(
                self.notify, str(exc), title="Not exported", severity="error", markup=False
            )
            return
        self.app.call_from_thread(
            self.notify, f"{n:,} entries written to {path}", title="Exported", markup=False
        )

    # ---- find ------------------------------------------------------------------------
    def action_find(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        self.app.push_screen(
            AskDialog(
                "Find in this session",
                value=place.query or "",
                placeholder='words, "a phrase", kind:tool_call …',
                help="Its matching entries are marked ◆; n/N step through them.",
            ),
            self._find_answered,
        )

    def _find_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None:
            return
        place.query = answer
        place.find_pending = True  # the cursor goes to the first match after it
        self._find_hits(place.key, place.session_id, place.agent_id, answer)

    # ---- outline -----------------------------------------------------------------------
    def action_outline(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        self._load_turns(place.key, place.session_id, place.agent_id)

    @work(
        thread=True,
        exclusive=True,
        group="transcript-outline",
        exit_on_error=False,
        description="Reading the turns",
    )
    def _load_turns(self, key: int, session_id: str, agent_id: str) -> None:
        turns = self.app.service.turns(session_id, agent_id=agent_id or None)
        self.app.call_from_thread(self._show_outline, key, turns)

    def _show_outline(self, key: int, turns: list[tuple[int, Entry]]) -> None:
        place = self.place
        if place is None or place.key != key:
            return
        if not turns:
            self.notify("This transcript has no prompt to jump to.", severity="warning")
            return
        self.app.push_screen(TurnOutline(turns, self.view.cursor), self._turn_chosen)

    def _turn_chosen(self, index: int | None) -> None:
        if index is not None:
            self.view.move_cursor(index, context=1)

    # ---- the entry under the cursor ----------------------------------------------------
    def _entry_whole(self) -> Entry | None:
        entry = self.view.entry(self.view.cursor)
        if entry is None:
            return None
        if entry.truncated:
            full = self.app.service.entries([entry.id], max_chars=FULL)
            return full[0] if full else entry
        return entry

    def action_copy_entry(self) -> None:
        entry = self._entry_whole()
        if entry is None:
            return
        self.app.copy_to_clipboard(entry.text)
        self.notify(
            f"Copied the {entry.kind.replace('_', ' ')} ({len(entry.text):,} characters)",
            title="Copy",
            markup=False,
        )

    def action_copy_id(self) -> None:
        entry = self.view.entry(self.view.cursor)
        if entry is None:
            return
        self.app.copy_to_clipboard(entry.id)
        self.notify(f"Copied: {entry.id}", title="Copy", markup=False)

    def action_pager(self) -> None:
        self._open_outside("PAGER", "less")

    def action_editor(self) -> None:
        self._open_outside("VISUAL", "EDITOR", "vi")

    def _open_outside(self, *names: str) -> None:
        """The entry as Markdown in a temporary file, opened by the program the first of
        the environment variables `names` names (the last name: the default program)."""
        entry = self._entry_whole()
        if entry is None:
            return
        *env, default = names
        command = next((os.environ[v] for v in env if os.environ.get(v)), default)
        argv = shlex.split(command)
        if not argv or shutil.which(argv[0]) is None:
            self.notify(
                f"`{argv[0] if argv else command}` is not on PATH (set ${env[0]}).",
                severity="error",
                markup=False,
            )
            return
        fd, name = tempfile.mkstemp(prefix="ccarchive-", suffix=".md")
        path = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(entry_markdown(entry) + "\n")
            try:
                with self.app.suspend():
                    subprocess.run([*argv, str(path)], check=False)
            except SuspendNotSupported:  # no terminal to hand over (a headless app)
                subprocess.run([*argv, str(path)], check=False, stdin=subprocess.DEVNULL)
        finally:
            path.unlink(missing_ok=True)

    # ---- the turn under the cursor -----------------------------------------------------
    def _turn_span(self) -> tuple[int, int]:
        """[its prompt, the next prompt) around the cursor, from the entries loaded (a
        page not loaded yet ends the turn there)."""
        view = self.view
        first = view.cursor
        while first > 0:
            e = view.entry(first)
            if e is None or e.kind == "prompt":
                break
            first -= 1
        stop = view.cursor + 1
        while stop < view.total:
            e = view.entry(stop)
            if e is None or e.kind == "prompt":
                break
            stop += 1
        return first, stop

    def action_export_turn(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        first, stop = self._turn_span()
        root = Path(self.app.service.root)
        name = export_name(place.info, place.agent_id).removesuffix(".md") + f"-turn-{first + 1}.md"
        self.app.push_screen(
            AskDialog(
                "Export this turn as Markdown to",
                value=str(default_export_dir(root) / name),
                help=f"Entries {first + 1}–{stop} (its prompt and what answered it). Never "
                "inside the archive.",
            ),
            lambda answer: self._export_turn(answer, name, (first, stop)),
        )

    def _export_turn(self, answer: str | None, name: str, span: tuple[int, int]) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        root = Path(self.app.service.root)
        try:
            path = export_target(answer, root, name)
            n = export_markdown(
                self.app.service,
                place.info,
                place.agent_id,
                place.title,
                path,
                archive_root=root,
                span=span,
            )
        except (ExportRefused, OSError) as exc:
            self.notify(str(exc), title="Not exported", severity="error", timeout=8, markup=False)
            return
        self.notify(f"{n:,} entries written to {path}", title="Exported", markup=False)
