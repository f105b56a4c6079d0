"""The prompt history as a table: newest first, growing at the top without moving the
reader (the cursor stays on its prompt and the view on its rows when new ones arrive)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from app.service.models import HistoryItem
from app.tui.widgets.timeline_format import local, one_line, short_project

FIXED = (("when", "when", 12), ("project", "project", 12), ("session", "session", 8))
MAX_TEXT = 400
"""Characters of a prompt kept in its cell (wider than any column it gets)."""


class PromptTable(DataTable[str | Text]):
    """When, project, session and the prompt's first line."""

    @dataclass
    class Opened(Message):
        item: HistoryItem

    @dataclass
    class NearEnd(Message):
        """The cursor is close to the last loaded row: load the next page."""

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.items: list[HistoryItem] = []
        self._text_width = 60

    def on_mount(self) -> None:
        for label, key, width in FIXED:
            self.add_column(label, key=key, width=width)
        self.add_column("prompt", key="prompt", width=self._text_width)
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        fixed = sum(w for *_, w in FIXED) + 2 * self.cell_padding * (len(FIXED) + 1)
        width = max(20, self.scrollable_content_region.width - fixed - 1)
        col = self.columns.get(ColumnKey("prompt"))
        if col is not None and col.width != width:
            # the cells cut themselves to the column (no_wrap, ellipsis): no rebuild of
            # every row when the width changes (as it does when the scrollbar appears)
            col.width = width
            self._text_width = width
            self._require_update_dimensions = True
            self.refresh()

    def _row(self, it: HistoryItem) -> tuple[str | Text, ...]:
        text = it.text.strip()
        style = "italic" if text.startswith("/") else ""
        return (local(it.timestamp, "%d %b %H:%M"), one_line(short_project(it.project), 12),
                Text(it.session_id[:8], style="dim"),
                Text(one_line(text, MAX_TEXT), style=style, no_wrap=True, overflow="ellipsis"))

    def show(self, items: list[HistoryItem]) -> int:
        """Replace the rows; returns how many rows are new above the cursor's prompt."""
        keep = self.selected
        old_ids = [i.id for i in self.items]
        old_index = old_ids.index(keep.id) if keep is not None and keep.id in old_ids else None
        scroll = self.scroll_y
        self.items = items
        self.clear()
        for it in items:
            self.add_row(*self._row(it), key=it.id)
        if not items:
            self.add_row(Text("no prompts", style="dim italic"), "", "", "", key="-")
            return 0
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
        for it in items:
            if it.id not in known:
                self.items.append(it)
                self.add_row(*self._row(it), key=it.id)

    @property
    def selected(self) -> HistoryItem | None:
        row = self.cursor_row
        if not self.items or not 0 <= row < len(self.items):
            return None
        return self.items[row]

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.items and event.cursor_row >= len(self.items) - 20:
            self.post_message(self.NearEnd())

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if self.selected is not None:
            self.post_message(self.Opened(self.selected))
