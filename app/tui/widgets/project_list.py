"""Projects with their figures, and a project's memory files: two lists that keep their
selection across index commits (rows are matched by key, not by position)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable, OptionList
from textual.widgets.option_list import Option

from app.service.models import MemoryFileInfo, ProjectInfo
from app.tui.widgets.timeline_format import ago, human_bytes, human_count, one_line, short_project


class ProjectTable(DataTable[str | Text]):
    """Project, sessions, last used, size and tokens; the cursor picks the project."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.projects: list[ProjectInfo] = []

    def on_mount(self) -> None:
        self.add_column("project", key="project", width=18)
        self.add_column(Text("sessions", justify="right"), key="sessions", width=8)
        self.add_column("last used", key="last", width=9)
        self.add_column(Text("size", justify="right"), key="size", width=7)
        self.add_column(Text("tokens", justify="right"), key="tokens", width=6)

    def show(self, projects: list[ProjectInfo], memory_counts: dict[str, int]) -> None:
        keep = self.selected
        self.projects = projects
        self.clear()
        for p in projects:
            name = Text(one_line(short_project(p.path), 16))
            if memory_counts.get(p.path):
                name.append(" ◆", style="bold")
            self.add_row(name, Text(str(p.sessions), justify="right"), ago(p.last_activity),
                         Text(human_bytes(p.archive_bytes), justify="right"),
                         Text(human_count(p.tokens), justify="right"), key=p.path)
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep), animate=False)

    @property
    def selected(self) -> str | None:
        if not self.projects or self.row_count == 0:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:
            return None


class MemoryList(OptionList):
    """A project's memory files (MEMORY.md first), then its session-memory summaries."""

    @dataclass
    class OpenSummarySession(Message):
        session_id: str

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.files: list[MemoryFileInfo] = []

    def show(self, files: list[MemoryFileInfo], titles: dict[str, str]) -> None:
        keep = self.selected_file
        self.files = files
        self.clear_options()
        options: list[Option] = []
        for f in files:
            if f.session_id:
                label = Text.assemble(("◇ ", "bold"), one_line(titles.get(f.session_id)
                                                              or f.session_id[:8], 34),
                                      ("  session memory", "dim"))
            else:
                title = f.title.split(": ", 1)[-1] if ": " in f.title else f.title
                label = Text.assemble(("◆ ", "bold"), f.filename,
                                      (f"  {one_line(title, 28)}", "dim"))
            options.append(Option(label, id=f.path))
        if not options:
            options.append(Option(Text("no memory files", style="dim italic"), id="-",
                                  disabled=True))
        self.add_options(options)
        paths = [f.path for f in files]
        if keep is not None and keep.path in paths:
            self.highlighted = paths.index(keep.path)
        elif files:
            self.highlighted = 0

    @property
    def selected_file(self) -> MemoryFileInfo | None:
        i = self.highlighted
        if i is None or not 0 <= i < len(self.files):
            return None
        return self.files[i]

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        f = self.selected_file
        if f is not None and f.session_id:
            self.post_message(self.OpenSummarySession(f.session_id))
