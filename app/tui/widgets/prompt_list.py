"""The prompt history as a table: newest first, growing at the top without moving the
reader (the cursor stays on its prompt and the view on its rows when new ones arrive)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message

from ccarchive.service.models import HistoryItem
from ccarchive.tui.format import fit_name, local, name_width, one_line, short_project
from ccarchive.tui.widgets.line_table import Cell, Column, LineTable

FIXED = (("when", 12, 0), ("project", 12, 0), ("session", 8, 1))
"""(label, width, drop): the session id is left out first on a narrow terminal."""
PROJECT_CAP = 24
"""The project column's widest (a name longer than that is cut from its middle)."""
MAX_TEXT = 400
"""Characters of a prompt kept in its cell (wider than any column it gets)."""


class PromptTable(LineTable):
    """When, project, session and the prompt's first line."""

    FLEX_WANTED = 48

    @dataclass
    class Opened(Message):
        item: HistoryItem

    @dataclass
    class NearEnd(Message):
        """The cursor is close to the last loaded row: load the next page."""

    def __init__(self, *, id: str | None = None) -> None:
        # the prompt takes the rest of the width: the cells cut themselves to it
        super().__init__(
            [
                *(
                    Column(label, width, drop=drop, cut=fit_name if label == "project" else None)
                    for label, width, drop in FIXED
                ),
                Column("prompt", 60, flexible=True),
            ],
            id=id,
        )
        self.items: list[HistoryItem] = []

    def _row(self, it: HistoryItem) -> tuple[Cell, ...]:
        text = it.text.strip()
        style = "italic" if text.startswith("/") else ""
        return (
            local(it.timestamp, "%d %b %H:%M"),
            short_project(it.project),
            Text(it.session_id[:8], style="dim"),
            Text(one_line(text, MAX_TEXT), style=style, no_wrap=True, overflow="ellipsis"),
        )

    def show(self, items: list[HistoryItem]) -> int:
        """Replace the rows; returns how many rows are new above the cursor's prompt."""
        keep = self.selected
        old_ids = [i.id for i in self.items]
        old_index = old_ids.index(keep.id) if keep is not None and keep.id in old_ids else None
        scroll = self.scroll_y
        self.items = items
        if not items:
            self.set_rows([(Text("no prompts", style="dim italic"), "", "", "")])
            return 0
        # the project column as wide as the longest name (up to PROJECT_CAP), cut from
        # the side that keeps it distinct; the prompt takes the rest
        width = self.size.width or self.app.size.width
        self.columns[1].width = name_width(
            [short_project(it.project) for it in items], min(PROJECT_CAP, max(12, width // 5))
        )
        self.set_rows([self._row(it) for it in items])
        self.fit_columns()
        if keep is None or old_index is None:
            return 0
        ids = [i.id for i in items]
        if keep.id not in ids:
            return 0
        new_index = ids.index(keep.id)
        shift = new_index - old_index
        if new_index != 0 or old_index != 0:
            self.move_cursor(row=new_index, animate=False, scroll=False)
            self.call_after_refresh(self.scroll_to, y=scroll + shift, animate=False)
        return max(0, shift)

    def append(self, items: list[HistoryItem]) -> None:
        """More (older) prompts at the end."""
        known = {i.id for i in self.items}
        new = [it for it in items if it.id not in known]
        self.items.extend(new)
        self.append_rows([self._row(it) for it in new])

    @property
    def selected(self) -> HistoryItem | None:
        row = self.cursor_row
        if not self.items or not 0 <= row < len(self.items):
            return None
        return self.items[row]

    @on(LineTable.RowHighlighted)
    def _highlighted(self, event: LineTable.RowHighlighted) -> None:
        if self.items and event.cursor_row >= len(self.items) - 20:
            self.post_message(self.NearEnd())

    @on(LineTable.RowSelected)
    def _selected(self, event: LineTable.RowSelected) -> None:
        event.stop()
        if self.selected is not None:
            self.post_message(self.Opened(self.selected))
