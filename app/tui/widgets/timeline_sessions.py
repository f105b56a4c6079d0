"""The sessions of one timeline bucket: a table that keeps its selection across reloads."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message

from ccarchive.service.models import SessionInfo
from ccarchive.tui.format import (
    fit_name,
    human_count,
    human_duration,
    local,
    name_width,
    one_line,
    short_model,
    short_project,
)
from ccarchive.tui.widgets.line_table import Column, LineTable

COLUMNS = (
    ("started", "started", 9),
    ("title", "title", 40),
    ("project", "project", 12),
    ("branch", "branch", 18),
    ("models", "models", 14),
    (Text("duration", justify="right"), "duration", 8),
    (Text("tokens", justify="right"), "tokens", 6),
    (Text("agents", justify="right"), "agents", 6),
)


DROP = {"branch": 4, "models": 3, "agents": 2, "duration": 1}
"""Columns left out on a narrow terminal, the first first, so the title keeps its room."""


PROJECT_CAP = 28
"""The project column's widest: as wide as the longest name shown, up to this."""


class DaySessions(LineTable):
    """Title, project, branch, models, duration, tokens and subagents of each session."""

    WHEN_FORMAT = "%a %H:%M"
    """How the first column shows when a session started (a day's list: the time)."""
    WHEN_WIDTH = 9
    KEYS = tuple(key for _label, key, _width in COLUMNS)
    """The columns shown (a project's own list leaves out the project)."""

    @dataclass
    class Opened(Message):
        """The reader asked to open a session (Enter or double click)."""

        session_id: str

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        # the title takes whatever width the other columns leave
        super().__init__(
            [
                Column(
                    label,
                    self.WHEN_WIDTH if key == "started" else width,
                    flexible=key == "title",
                    drop=DROP.get(key, 0),
                    cut=fit_name if key == "project" else None,
                )
                for label, key, width in COLUMNS
                if key in self.KEYS
            ],
            id=id,
            classes=classes,
        )
        self.sessions: list[SessionInfo] = []
        self._keys: list[str] = []
        self._title_width = -1
        """The title column's width the rows' titles were cut to."""
        self._showing = False

    def on_mount(self) -> None:
        self.show([])

    def show(self, sessions: list[SessionInfo]) -> None:
        """Replace the rows, keeping the cursor on the same session if it is still there."""
        self._showing = True
        try:
            self._show(sessions)
        finally:
            self._showing = False

    def _show(self, sessions: list[SessionInfo]) -> None:
        keep = self.selected_id
        self.sessions = sessions
        names = [short_project(s.project) for s in sessions]
        project = next((c for c in self.columns if c.cut is fit_name), None)
        width = self.size.width or self.app.size.width
        if project is not None:
            project.width = name_width(names, min(PROJECT_CAP, max(12, width // 5)))
        self.fit_columns(len(sessions) or 1)
        title_width = self._title_width = next(c.width for c in self.columns if c.flexible)
        if not sessions:
            self._keys = ["-"]
            # in the title column: the first one (9 cells) read `no sessio`
            self.set_rows(
                [
                    self._shown_cells(
                        (
                            "",
                            Text("no sessions in this period", style="dim italic"),
                            "",
                            "",
                            "",
                            "",
                            "",
                            "",
                        )
                    )
                ]
            )
            return
        rows = []
        for s, name in zip(sessions, names, strict=True):
            models = ", ".join(dict.fromkeys(short_model(m) for m in s.models)) or "–"
            agents = Text(str(s.subagent_count) if s.subagent_count else "·", justify="right")
            title = s.title or s.first_prompt or s.session_id
            if not s.on_disk:  # the index keeps what the file held; the file went
                title_cell = Text.assemble(
                    ("gone ", "bold red"), one_line(title, max(1, title_width - 5))
                )
            else:
                title_cell = Text(one_line(title, title_width))
            rows.append(
                self._shown_cells(
                    (
                        local(s.first_activity, self.WHEN_FORMAT) if s.first_activity else "–",
                        title_cell,
                        name,
                        one_line(", ".join(s.branches) or "–", 18),
                        one_line(models, 14),
                        Text(human_duration(s.duration_s), justify="right"),
                        Text(human_count(s.tokens.total + s.tokens.subagents), justify="right"),
                        agents,
                    )
                )
            )
        self._keys = [s.session_id for s in sessions]
        self.set_rows(rows)
        if keep is not None and keep in self._keys:
            self.move_cursor(row=self._keys.index(keep), animate=False)

    def _shown_cells(self, row: tuple[str | Text, ...]) -> tuple[str | Text, ...]:
        """A row's cells for the columns shown (`KEYS`), from all of them."""
        return tuple(c for (_l, key, _w), c in zip(COLUMNS, row, strict=True) if key in self.KEYS)

    def fit_columns(self, rows: int | None = None) -> None:
        super().fit_columns(rows)
        # rows shown before the table had its width (the pane's first list is read
        # before its first layout) have their titles cut again to the width it has now
        width = next(c.width for c in self.columns if c.flexible)
        if self.sessions and not self._showing and 0 <= self._title_width != width:
            self.show(self.sessions)

    @property
    def selected_id(self) -> str | None:
        """The session under the cursor."""
        if not self.sessions or not 0 <= self.cursor_row < len(self._keys):
            return None
        key = self._keys[self.cursor_row]
        return key if key != "-" else None

    def open_selected(self) -> None:
        sid = self.selected_id
        if sid:
            self.post_message(self.Opened(sid))

    @on(LineTable.RowSelected)
    def _row_selected(self, event: LineTable.RowSelected) -> None:
        event.stop()
        self.open_selected()
