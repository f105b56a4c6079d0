"""Live pane: the sessions active in the last minutes, and the selected one's new entries
as they are written (rendered as in replay), following the end unless the reader scrolls
up. New sessions join the list on their own at the next index commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import OptionList, Static

from ccarchive.service.models import Entry, SessionInfo
from ccarchive.tui.format import ago, human_count, now, short_project
from ccarchive.tui.messages import IndexUpdated, OpenSession
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.status_header import ArchiveHeader
from ccarchive.tui.widgets.tail_sessions import ActiveSessions
from ccarchive.tui.widgets.tail_view import TailView

WINDOWS = (5, 15, 60, 240, 1440)
"""Minutes of "recently active" to choose from (+/-)."""
START_ENTRIES = 150
"""Entries shown when a session is picked (its end); replay has the rest."""
REFRESH_SECONDS = 10.0
"""Ages and the active window are re-read this often even without commits."""


class LiveScreen(PaneScreen):
    """Follow what Claude Code is writing now."""

    AUTO_FOCUS = "#live-tail"
    """Focused on first show."""

    first_frame_complete = True

    BINDINGS = [
        Binding("end", "follow", "Follow end", tooltip="Jump to the end and follow"),
        Binding(
            "plus,equals_sign",
            "window(1)",
            "Longer window",
            tooltip="Widen the 'active in the last N minutes' window",
        ),
        Binding("minus", "window(-1)", "Shorter", tooltip="Narrow the window"),
        Binding(
            "o",
            "open_session",
            "Open in replay",
            tooltip="Open the followed session in transcript replay",
        ),
        Binding("tab", "app.focus_next", "Switch", show=False),
    ]

    @dataclass
    class ActiveLoaded(Message):
        request: int
        sessions: list[SessionInfo]
        error: str | None = None
        first_tail: LiveScreen.TailLoaded | None = None
        """The first session's tail, read with the list when none is followed yet:
        applied at once (no second query and frame)."""

    @dataclass
    class TailLoaded(Message):
        session_id: str
        entries: list[Entry]
        last_seq: int
        reset: bool
        error: str | None = None

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.window_index = 1
        self.session_id: str | None = None
        self.last_seq = -1
        self._request = 0
        self._generation = -1
        self._loaded = False

    @property
    def minutes(self) -> int:
        return WINDOWS[self.window_index]

    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Live")
        with Horizontal(id="live-body"):
            with Vertical(id="live-left"):
                yield Static("", id="live-caption")
                yield ActiveSessions(id="live-sessions")
            with Vertical(id="live-right"):
                yield Static("", id="live-meta")
                yield TailView(id="live-tail")
                yield Static("", id="live-pending")
        yield KeyFooter()

    def on_mount(self) -> None:
        # The first list (and the tail of the session it follows) is read here, before
        # the first frame, rather than in a worker: ~10 ms on the 1 GB archive, next to
        # drawing the pane once empty and again with its data. Later reloads stay in
        # workers.
        self._request += 1
        self._active_loaded(self._fetch_active(self._request, self.minutes, True))
        self.set_interval(REFRESH_SECONDS, self.reload)

    # ---- active sessions -----------------------------------------------------------
    def reload(self) -> None:
        self._request += 1
        self._load_active(self._request, self.minutes, self.session_id is None)
        if self.session_id is not None:
            self._load_tail(self.session_id, self.last_seq, False)

    @work(thread=True, group="live-active", exclusive=True, exit_on_error=False)
    def _load_active(self, request: int, minutes: int, first_too: bool = False) -> None:
        self.post_message(self._fetch_active(request, minutes, first_too))

    def _fetch_active(self, request: int, minutes: int, first_too: bool = False) -> ActiveLoaded:
        """The active sessions (and with `first_too` the first one's tail), as a message."""
        svc = self.service
        gen = svc.generation
        try:
            since = now() - timedelta(minutes=minutes)
            sessions = svc.sessions(since=since, limit=50).sessions
        except Exception as exc:
            return self.ActiveLoaded(request, [], str(exc))
        first = None
        if first_too and sessions:  # the session about to be followed
            sid = sessions[0].session_id
            try:
                entries, last = svc.tail_last(sid, count=START_ENTRIES)
                first = self.TailLoaded(sid, entries, last, True)
            except Exception:
                first = None  # its own query will say what went wrong
        self._generation = gen
        return self.ActiveLoaded(request, sessions, first_tail=first)

    @on(ActiveLoaded)
    def _active_loaded(self, msg: ActiveLoaded) -> None:
        if msg.request != self._request:
            return
        self._loaded = True
        caption = self.query_one("#live-caption", Static)
        if msg.error:
            caption.update(f"[b]Error:[/] {msg.error}")
            return
        n = len(msg.sessions)
        caption.update(
            f"[b]Active[/] [dim]last {self._window_label()} · {n} session{'s' * (n != 1)}  (+/-)[/]"
        )
        lst = self.query_one(ActiveSessions)
        lst.show(msg.sessions, self.session_id)
        if self.session_id is None and msg.sessions:
            self._follow_session(msg.sessions[0].session_id, msg.first_tail)
        self._show_meta()

    def _window_label(self) -> str:
        m = self.minutes
        return f"{m} min" if m < 60 else f"{m // 60} h"

    def _follow_session(self, sid: str, tail: TailLoaded | None = None) -> None:
        if sid == self.session_id:
            return
        self.session_id = sid
        self.last_seq = -1
        self._show_meta()
        if tail is not None and tail.session_id == sid:
            self._tail_loaded(tail)  # read with the list
        else:
            self._load_tail(sid, -1, True)

    # ---- the tail ------------------------------------------------------------------
    @work(thread=True, group="live-tail", exclusive=False, exit_on_error=False)
    def _load_tail(self, sid: str, after_seq: int, reset: bool) -> None:
        try:
            if reset:
                entries, last = self.service.tail_last(sid, count=START_ENTRIES)
            else:
                entries, last = self.service.tail(sid, after_seq=after_seq, limit=500)
        except Exception as exc:
            self.post_message(self.TailLoaded(sid, [], after_seq, reset, str(exc)))
            return
        self.post_message(self.TailLoaded(sid, entries, last, reset))

    @on(TailLoaded)
    def _tail_loaded(self, msg: TailLoaded) -> None:
        if msg.session_id != self.session_id:
            return  # the reader moved on to another session
        if msg.error:
            self.query_one("#live-meta", Static).update(f"[b]Error:[/] {msg.error}")
            return
        view = self.query_one(TailView)
        if msg.reset:
            view.reset(msg.entries)
        else:
            view.add(msg.entries)
        self.last_seq = max(self.last_seq, msg.last_seq)

    def _show_meta(self) -> None:
        meta = self.query_one("#live-meta", Static)
        lst = self.query_one(ActiveSessions)
        info = next((s for s in lst.sessions if s.session_id == self.session_id), None)
        if info is None:
            meta.update(
                "[dim]no session followed: pick an active one (+ widens the window)[/]"
                if self.session_id is None
                else f"[b]{self.session_id[:8]}[/]"
            )
            return
        branch = ", ".join(info.branches) or "–"
        meta.update(
            f"[b]{info.title or info.session_id[:8]}[/]\n"
            f"{short_project(info.project)} · {branch} · last write "
            f"{ago(info.last_activity)} · {info.messages} msgs · "
            f"{human_count(info.tokens.total)} tokens · [dim]{info.session_id}[/]"
        )

    @on(TailView.Pending)
    def _pending(self, msg: TailView.Pending) -> None:
        bar = self.query_one("#live-pending", Static)
        bar.set_class(not msg.follow, "-paused")
        bar.set_class(msg.count > 0, "-new")
        if msg.count:
            bar.update(f"▼ +{msg.count} new  ·  End to follow")
        elif msg.follow:
            bar.update("● following")
        else:
            bar.update("‖ paused  ·  End to follow")

    @on(OptionList.OptionHighlighted, "#live-sessions")
    def _picked(self, event: OptionList.OptionHighlighted) -> None:
        sid = event.option.id
        if sid and sid != "-":
            self._follow_session(sid)

    @on(OptionList.OptionSelected, "#live-sessions")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.query_one(TailView).focus()

    # ---- commits and actions -----------------------------------------------------------
    def on_index_updated(self, _msg: IndexUpdated) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        if self._loaded and self.service.generation != self._generation:
            self.reload()

    def action_follow(self) -> None:
        self.query_one(TailView).action_follow()

    def action_window(self, step: int) -> None:
        self.window_index = max(0, min(len(WINDOWS) - 1, self.window_index + step))
        self.reload()

    def action_open_session(self) -> None:
        if self.session_id:
            self.post_message(OpenSession(self.session_id))
