"""A row-cursor table drawn with the Line API, looking like Textual's `DataTable`.

The panes' tables (prompts, the timeline's day sessions, projects) only need fixed
columns, one row per line, zebra stripes and a row cursor. `DataTable` renders each
cell through Rich (`Padding` and `Styled` in a console render, 0.3-0.5 ms a cell) and,
when idle, measures every cell of every new row; a 200-row page cost 60-110 ms before
and after its first paint. Here a row is cut into segments only when it is on screen
(cells cropped to their column, no measuring, as `result_list.py` does), kept per row
and state. The flexible column is sized for the vertical scrollbar the rows will need
before the scrollbar shows, so its arrival (a frame later) redraws nothing: the rows'
segments do not depend on the widget's width. The looks are DataTable's: the same component
classes (`datatable--header`, `--cursor`, `--hover`, `--even-row`, `--odd-row`), the
same CSS and the same order in which they are combined, so a pane looks the same.

On a narrow terminal, columns marked `drop` are left out (the highest first) until the
flexible one has `FLEX_WANTED` cells: at 80 columns a session's title says more than its
branch and models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size, Spacing
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

Cell = str | Text
"""A cell: a string (read as Rich markup, as DataTable does) or a Text."""

PADDING = 1
"""Blank cells each side of a column's content (DataTable's `cell_padding`)."""


MIN_FLEXIBLE = 20
"""The flexible column's narrowest width."""
FLEX_WANTED = 30
"""Columns marked `drop` are left out while the flexible column is narrower than this."""


@dataclass
class Column:
    """A column: its label and its width in cells (without the padding)."""

    label: Cell
    width: int
    flexible: bool = False
    """Takes the width the other columns leave (at least MIN_FLEXIBLE)."""
    drop: int = 0
    """Left out when the table is narrow, the highest first (0: always shown)."""
    hidden: bool = False
    """Left out now (set by `fit_columns`)."""
    cut: Callable[[str, int], str] | None = None
    """How a plain-text cell is cut to the column's width (default: its end goes, with
    an ellipsis); a project name keeps the end that tells it apart (`fit_name`)."""


class LineTable(ScrollView, can_focus=True):
    """Rows of cells under a header that stays put; a row cursor; Enter selects."""

    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        height: auto;
        max-height: 100%;
        &:focus {
            background-tint: $foreground 5%;
            & > .datatable--cursor {
                background: $block-cursor-background;
                color: $block-cursor-foreground;
                text-style: $block-cursor-text-style;
            }
            & > .datatable--header {
                background-tint: $foreground 5%;
            }
        }
        &:dark {
            & > .datatable--even-row {
                background: $surface-darken-1 40%;
            }
        }
        & > .datatable--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        &:ansi > .datatable--header {
            background: ansi_bright_blue;
            color: ansi_default;
        }
        & > .datatable--odd-row {
        }
        & > .datatable--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .datatable--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        & > .datatable--hover {
            background: $block-hover-background;
        }
    }
    """
    """DataTable's own CSS (the parts a row-cursor table without fixed rows uses)."""

    FLEX_WANTED = FLEX_WANTED
    """Columns marked `drop` are left out while the flexible one is narrower than this."""

    COMPONENT_CLASSES = {
        "datatable--header",
        "datatable--cursor",
        "datatable--hover",
        "datatable--even-row",
        "datatable--odd-row",
    }

    BINDINGS = [
        Binding("enter", "select_cursor", "Select", show=False),
        Binding("up", "cursor_up", "Cursor up", show=False),
        Binding("down", "cursor_down", "Cursor down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("ctrl+home,home", "scroll_top", "Top", show=False),
        Binding("ctrl+end,end", "scroll_bottom", "Bottom", show=False),
    ]

    @dataclass
    class RowHighlighted(Message):
        """The cursor moved to another row."""

        table: LineTable
        cursor_row: int

        @property
        def control(self) -> LineTable:
            return self.table

    @dataclass
    class RowSelected(Message):
        """Enter, or a click on the row under the cursor."""

        table: LineTable
        cursor_row: int

        @property
        def control(self) -> LineTable:
            return self.table

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        zebra_stripes: bool = True,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.columns = list(columns)
        self.zebra_stripes = zebra_stripes
        self._rows: list[tuple[Cell, ...]] = []
        self._cursor = 0
        self._hover: int | None = None
        self._show_hover = False
        """As DataTable: the hover row shows after the mouse moved, not after a key."""
        self._generation = 0
        self._cells: LRUCache[tuple[object, ...], list[Segment]] = LRUCache(256)
        """A row's cells as segments, by row and state (not by the widget's width)."""
        self._styles: dict[tuple[str, bool], Style] = {}

    # ---- data ----------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self._rows)

    def set_rows(self, rows: Sequence[tuple[Cell, ...]], cursor: int = 0) -> None:
        """Replace the rows, put the cursor on row `cursor` and scroll to the top, as
        DataTable's `clear` and `add_row` do (no message: the owner knows what it showed)."""
        self._rows = list(rows)
        self._cursor = max(0, min(cursor, len(rows) - 1))
        self._hover = None
        self._changed()
        self.scroll_to(x=0, y=0, animate=False, immediate=True)

    def append_rows(self, rows: list[tuple[Cell, ...]]) -> None:
        self._rows.extend(rows)
        self._changed()

    def _changed(self) -> None:
        self._generation += 1
        self._cells.clear()
        self.fit_columns()
        self.virtual_size = Size(self._table_width(), len(self._rows) + 1)
        self.refresh()

    def fit_columns(self, rows: int | None = None) -> None:
        """Give the flexible column what the others leave, less one cell, as the panes'
        DataTables had it; for `rows` rows (default: those shown), counting in the
        vertical scrollbar they need even before it shows."""
        flexible = [c for c in self.columns if c.flexible]
        if not flexible or not self.is_mounted:
            return
        rows = len(self._rows) if rows is None else rows
        region = self.content_region
        scrollbar = (
            self.styles.scrollbar_size_vertical
            if rows + 1 > region.height and self.styles.overflow_y != "hidden"
            else 0
        )
        hidden = tuple(c.hidden for c in self.columns)

        def room() -> int:
            shown = [c for c in self.columns if not c.hidden]
            others = sum(c.width for c in shown if not c.flexible)
            return region.width - scrollbar - others - 2 * PADDING * len(shown) - 1

        for c in self.columns:
            c.hidden = False
        for c in sorted((c for c in self.columns if c.drop), key=lambda c: -c.drop):
            if room() >= self.FLEX_WANTED:
                break
            c.hidden = True
        width = max(MIN_FLEXIBLE, room())
        column = flexible[0]
        if column.width != width or hidden != tuple(c.hidden for c in self.columns):
            column.width = width
            self._generation += 1
            self._cells.clear()
            self.virtual_size = Size(self._table_width(), len(self._rows) + 1)
            self.refresh()

    def _table_width(self) -> int:
        return sum(c.width + 2 * PADDING for c in self.columns if not c.hidden)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._rows) + 1  # `height: auto` fits the rows and the header

    # ---- the cursor ----------------------------------------------------------------
    @property
    def cursor_row(self) -> int:
        return self._cursor

    def move_cursor(self, *, row: int, animate: bool = False, scroll: bool = True) -> None:
        """Put the cursor on a row (clamped); a new row posts RowHighlighted."""
        if not self._rows:
            return
        row = max(0, min(row, len(self._rows) - 1))
        if scroll:
            self._scroll_to_row(row, animate)
        if row == self._cursor:
            return
        self._cursor = row
        self.refresh()
        self.post_message(self.RowHighlighted(self, row))

    def _scroll_to_row(self, row: int, animate: bool = False) -> None:
        # below the header, which stays put (DataTable's spacing)
        self.scroll_to_region(
            Region(int(self.scroll_x), row + 1, 1, 1),
            animate=animate,
            spacing=Spacing(1, 0, 0, 0),
            force=True,
            immediate=True,
        )

    # ---- drawing -------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._cells.clear()

    def on_resize(self) -> None:
        self.fit_columns()

    def _style(self, name: str, full: bool = False) -> Style:
        """A component's style as DataTable reads it: the row styles as they are in the
        CSS (`get_component_styles`), the cursor and hover ones resolved in full."""
        key = (name, self.has_focus)
        style = self._styles.get(key)
        if style is None:
            style = self._styles[key] = (
                self.get_component_rich_style(name)
                if full
                else self.get_component_styles(name).rich_style
            )
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        row = -1 if y == 0 else y - 1 + self.scroll_offset.y
        if row >= len(self._rows):
            return Strip.blank(width, base)
        cursor = row == self._cursor and row >= 0
        hover = self._show_hover and row == self._hover
        key = (row, cursor, hover, self.has_focus, self._generation)
        cells = self._cells.get(key)
        if cells is None:
            cells = self._cells[key] = self._render_cells(row, cursor, hover)
        # DataTable extends the row's look (not the cells') to the widget's edge
        table_width = self._table_width()
        extend = Segment(" " * max(0, width - table_width), self._extend_style(row, cursor, hover))
        strip = Strip([*cells, extend])
        x = self.scroll_offset.x
        if x:
            strip = strip.crop(x, x + width)
        return strip.adjust_cell_length(width, base).simplify()

    def _row_style(self, row: int) -> Style:
        if row == -1:
            return self._style("datatable--header")
        if self.zebra_stripes:
            return self._style("datatable--odd-row" if row % 2 else "datatable--even-row")
        return self.rich_style

    def _component(self, cursor: bool, hover: bool) -> Style:
        component = Style()
        if hover:
            component += self._style("datatable--hover", full=True)
        if cursor:
            component += self._style("datatable--cursor", full=True)
        return component

    def _extend_style(self, row: int, cursor: bool, hover: bool) -> Style:
        return self._row_style(row) + self._component(cursor, hover)

    def _render_cells(self, row: int, cursor: bool, hover: bool) -> list[Segment]:
        # the order DataTable combines them in: the row's style, then the hover and
        # cursor components, then (cursor colours win over the cells') their colours
        component = self._component(cursor, hover)
        post = Style.from_color(component.color) + Style.from_color(bgcolor=component.bgcolor)
        pre = self._row_style(row) + component
        cells = [c.label for c in self.columns] if row == -1 else self._rows[row]
        console = self.app.console
        segments: list[Segment] = []
        for column, cell in zip(self.columns, cells, strict=False):
            if column.hidden:
                continue
            if column.cut is not None and isinstance(cell, str) and row != -1:
                cell = Text(column.cut(cell, column.width), end="")
            segments.extend(
                Segment.apply_style(self._cell_segments(cell, column.width, console), pre, post)
            )
        return segments

    @staticmethod
    def _cell_segments(cell: Cell, width: int, console: object) -> list[Segment]:
        """A cell as DataTable draws a one-line cell: markup read, the first line, cut
        (or justified) to the column, one blank each side."""
        if isinstance(cell, str):
            text = Text.from_markup(cell, end="") if "[" in cell else Text(cell, end="")
        else:
            text = cell.copy()
        if "\n" in text.plain:
            text = text.split(allow_blank=True)[0]
        overflow = text.overflow or "fold"
        if text.justify == "right":
            text.rstrip()
            text.truncate(width, overflow=overflow)
            text.pad_left(width - text.cell_len)
        elif text.justify == "center":
            text.rstrip()
            text.truncate(width, overflow=overflow)
            text.pad_left((width - text.cell_len) // 2)
            text.pad_right(width - text.cell_len)
        else:
            text.truncate(width, overflow=overflow)
        if text.style:  # as Rich's render does (`Text.join`): under the spans
            text.spans = [Span(0, len(text), text.style), *text.spans]
            text.style = ""
        pad = " " * PADDING
        segments = [Segment(pad)]
        segments.extend(text.render(console, end=""))  # type: ignore[arg-type]
        fill = width - text.cell_len
        segments.append(Segment(" " * fill + pad if fill > 0 else pad))
        return segments

    # ---- keys and mouse ------------------------------------------------------------
    def action_cursor_up(self) -> None:
        self._show_hover = False
        self.move_cursor(row=self._cursor - 1)

    def action_cursor_down(self) -> None:
        self._show_hover = False
        self.move_cursor(row=self._cursor + 1)

    def action_page_down(self) -> None:
        self._show_hover = False
        page = max(1, self.scrollable_content_region.height - 1)
        self.scroll_relative(y=page, animate=False, force=True, immediate=True)
        self.move_cursor(row=self._cursor + page, scroll=False)

    def action_page_up(self) -> None:
        self._show_hover = False
        page = max(1, self.scrollable_content_region.height - 1)
        self.scroll_relative(y=-page, animate=False, immediate=True)
        self.move_cursor(row=self._cursor - page, scroll=False)

    def action_scroll_top(self) -> None:
        self._show_hover = False
        self.move_cursor(row=0)

    def action_scroll_bottom(self) -> None:
        self._show_hover = False
        self.move_cursor(row=len(self._rows) - 1)

    def action_select_cursor(self) -> None:
        self._show_hover = False
        if self._rows:
            self.post_message(self.RowSelected(self, self._cursor))

    def _row_under(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:  # the header
            return None
        row = offset.y - 1 + self.scroll_offset.y
        return row if 0 <= row < len(self._rows) else None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._show_hover = True
        hover = self._row_under(event)
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        row = self._row_under(event)
        if row is None:
            return
        event.stop()
        self._show_hover = True
        if row == self._cursor:
            self.post_message(self.RowSelected(self, row))
        else:
            self.move_cursor(row=row, animate=True)
