"""The sessions of one timeline bucket: a table that keeps its selection across reloads."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from app.service.models import SessionInfo
from app.tui.widgets.timeline_format import (
    human_count,
    human_duration,
    local,
    one_line,
    short_model,
    short_project,
)


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


class DaySessions(DataTable[str | Text]):
    """Title, project, branch, models, duration, tokens and subagents of each session."""

    @dataclass
    class Opened(Message):
        """The reader asked to open a session (Enter or double click)."""

        session_id: str

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, cursor_type="row", zebra_stripes=True)
        self.sessions: list[SessionInfo] = []
        self._title_width = 40

    def on_mount(self) -> None:
        for label, key, width in COLUMNS:
            self.add_column(label, key=key, width=width)
        self._fit_columns()
        self.show([])

    def on_resize(self) -> None:
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Give the title whatever width the fixed columns leave."""
        fixed = sum(w for _, k, w in COLUMNS if k != "title")
        padding = 2 * self.cell_padding * len(COLUMNS)
        width = max(20, self.scrollable_content_region.width - fixed - padding - 1)
        col = self.columns.get(ColumnKey("title"))
        if col is not None and col.width != width:
            col.width = width
            self._title_width = width
            self._require_update_dimensions = True
            self.refresh()

    def show(self, sessions: list[SessionInfo]) -> None:
        """Replace the rows, keeping the cursor on the same session if it is still there."""
        keep = self.selected_id
        self.sessions = sessions
        self.clear()
        if not sessions:
            self.add_row(Text("no sessions in this period", style="dim italic"), "", "", "",
                         "", "", "", "", key="-")
            return
        for s in sessions:
            models = ", ".join(dict.fromkeys(short_model(m) for m in s.models)) or "–"
            agents = Text(str(s.subagent_count) if s.subagent_count else "·", justify="right")
            self.add_row(
                local(s.first_activity, "%a %H:%M") if s.first_activity else "–",
                one_line(s.title or s.first_prompt or s.session_id, self._title_width),
                short_project(s.project),
                one_line(", ".join(s.branches) or "–", 18),
                one_line(models, 14),
                Text(human_duration(s.duration_s), justify="right"),
                Text(human_count(s.tokens.total + s.tokens.subagents), justify="right"),
                agents,
                key=s.session_id,
            )
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    @property
    def selected_id(self) -> str | None:
        """The session under the cursor."""
        if not self.sessions or self.row_count == 0:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:
            return None
        return key if key != "-" else None

    def open_selected(self) -> None:
        sid = self.selected_id
        if sid:
            self.post_message(self.Opened(sid))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.open_selected()
