"""A project's sessions as a list over the Projects pane (Projects → Enter).

The list is the service's `sessions(project=…)`, newest first, in the Timeline's table
(title, branch, models, duration, tokens); Enter opens the session in replay, Esc goes
back to the projects with the same project selected.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ccarchive.service.models import SessionInfo
from ccarchive.service.naming import home_path, plural
from ccarchive.tui.messages import OpenSession
from ccarchive.tui.widgets.timeline_sessions import DaySessions

LIMIT = 500
"""Sessions listed at most (the service's page cap for a list)."""


class ProjectSessionList(DaySessions):
    """The Timeline's session table with the day in its first column."""

    WHEN_FORMAT = "%d %b %Y"
    WHEN_WIDTH = 11
    KEYS = ("started", "title", "branch", "models", "duration", "tokens", "agents")


class ProjectSessions(ModalScreen[None]):
    """The sessions of one project; Enter opens one, Esc closes the list."""

    BINDINGS = [
        Binding("escape,q", "close", "Back", tooltip="Back to the projects"),
        Binding("o", "open", "Open", tooltip="Open the selected session in replay"),
    ]

    def __init__(self, project: str, name: str) -> None:
        super().__init__()
        self.project = project
        self.project_name = name

    def compose(self) -> ComposeResult:
        with Vertical(id="project-sessions-box"):
            yield Static(
                f"[b]{self.project_name}[/]  [dim]{home_path(self.project)}[/]",
                id="project-sessions-title",
            )
            yield ProjectSessionList(id="project-sessions-table")
            yield Static("[dim]Enter open · Esc back[/]", id="project-sessions-help")

    def on_mount(self) -> None:
        self.query_one(ProjectSessionList).focus()
        self._load()

    @work(thread=True, group="project-sessions", exclusive=True, exit_on_error=False)
    def _load(self) -> None:
        page = self.app.service.sessions(  # type: ignore[attr-defined]
            project=self.project,
            limit=LIMIT,
        )
        self.app.call_from_thread(self._show, page.sessions, page.total)

    def _show(self, sessions: list[SessionInfo], total: int) -> None:
        self.query_one(ProjectSessionList).show(sessions)
        more = f" · the newest {len(sessions)}" if total > len(sessions) else ""
        self.query_one("#project-sessions-title", Static).update(
            f"[b]{self.project_name}[/]  [dim]{plural(total, 'session')}{more} · "
            f"{home_path(self.project)}[/]"
        )

    @on(DaySessions.Opened)
    def _opened(self, msg: DaySessions.Opened) -> None:
        msg.stop()
        self._open(msg.session_id)

    def action_open(self) -> None:
        sid = self.query_one(ProjectSessionList).selected_id
        if sid:
            self._open(sid)

    def _open(self, session_id: str) -> None:
        app = self.app
        self.dismiss(None)
        app.post_message(OpenSession(session_id))

    def action_close(self) -> None:
        self.dismiss(None)
