"""Projects with their figures, and a project's memory files: two lists that keep their
selection across index commits (rows are matched by key, not by position)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events, on
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ccarchive.service.models import MemoryFileInfo, ProjectInfo
from ccarchive.tui.format import (
    ago,
    fit_name,
    human_bytes,
    human_count,
    one_line,
    short_project,
)
from ccarchive.tui.widgets.line_table import Column, LineTable


class ProjectTable(LineTable):
    """Project, sessions, last used, size and tokens; the cursor picks the project."""

    BINDINGS = [
        Binding(
            "enter",
            "select_cursor",
            "Sessions",
            tooltip="The selected project's sessions, newest first (Enter opens one)",
        ),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        # the name takes the room the figures leave, cut so that it stays distinct; the
        # last use is a date with its year once it is a month old (`16 Feb 2026`)
        super().__init__(
            [
                Column("project", 20, flexible=True, cut=fit_name),
                Column("", 1),
                Column(Text("sessions", justify="right"), 8),
                Column("last used", 11),
                Column(Text("size", justify="right"), 7),
                Column(Text("tokens", justify="right"), 6),
            ],
            id=id,
        )
        self.projects: list[ProjectInfo] = []

    def show(self, projects: list[ProjectInfo], memory_counts: dict[str, int]) -> None:
        keep = self.selected
        self.projects = projects
        rows = []
        for p in projects:
            mark = Text("◆", style="bold") if memory_counts.get(p.path) else ""
            rows.append(
                (
                    short_project(p.path),
                    mark,
                    Text(str(p.sessions), justify="right"),
                    ago(p.last_activity),
                    Text(human_bytes(p.archive_bytes), justify="right"),
                    Text(human_count(p.tokens), justify="right"),
                )
            )
        self.set_rows(rows)
        paths = [p.path for p in projects]
        if keep is not None and keep in paths:
            self.move_cursor(row=paths.index(keep), animate=False)

    @property
    def selected(self) -> str | None:
        if not self.projects or not 0 <= self.cursor_row < len(self.projects):
            return None
        return self.projects[self.cursor_row].path


class MemoryList(OptionList):
    """A project's memory files (MEMORY.md first), then its session-memory summaries."""

    BINDINGS = [
        Binding(
            "enter",
            "select",
            "Open",
            show=False,
            tooltip="On a session-memory summary: open its session (or o)",
        ),
    ]

    @dataclass
    class OpenSummarySession(Message):
        session_id: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.files: list[MemoryFileInfo] = []
        self._drawn_width = -1
        """The width the options were last drawn at (OptionList's caches are by width)."""

    def render_lines(self, crop: Region) -> list[Strip]:
        self._drawn_width = self.scrollable_content_region.width
        return super().render_lines(crop)

    # Textual calls the handler of each class in turn, each with the event if it takes it:
    # OptionList's own (which takes none) still runs after this one.
    def _on_resize(self, event: events.Resize) -> None:  # type: ignore[override]
        # OptionList drops its drawn options on every Resize, though they only depend
        # on the width (a taller or shorter pane, or the Resize that shows the list
        # after a frame drew it, would draw them all again)
        if self.scrollable_content_region.width == self._drawn_width:
            event.prevent_default()

    def show(self, files: list[MemoryFileInfo], titles: dict[str, str]) -> None:
        keep = self.selected_file
        self.files = files
        self.clear_options()
        options: list[Option] = []
        for f in files:
            if f.session_id:
                label = Text.assemble(
                    ("◇ ", "bold"),
                    one_line(titles.get(f.session_id) or f.session_id[:8], 34),
                    ("  session memory", "dim"),
                )
            else:
                title = f.title.split(": ", 1)[-1] if ": " in f.title else f.title
                label = Text.assemble(
                    ("◆ ", "bold"), f.filename, (f"  {one_line(title, 28)}", "dim")
                )
            options.append(Option(label, id=f.path))
        if not options:
            options.append(
                Option(Text("no memory files", style="dim italic"), id="-", disabled=True)
            )
        self.add_options(options)
        # one line an option (the labels are cut to fit): known now, the first layout
        # makes room for the scrollbar the list needs, rather than a second one after
        # OptionList measured its lines while drawing
        self.virtual_size = Size(self.virtual_size.width, len(options))
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
