"""Moving through a virtualised transcript: the anchor, the cursor and what keeps them.

`TranscriptView` never knows the height of the whole transcript (entries nobody looked
at are never drawn), so the screen position is an anchor: the entry at the top and the
line of it shown first. Scrolling walks that anchor entry by entry, asking each entry's
height on the way; an entry of no height (a tool result drawn under its call, see
`call_pairs`) is stepped over without using up a line.

This mixin holds that arithmetic; the view supplies the entries' heights (`_height`),
its layout (`_build_layout`, `_layout`) and its state (`total`, `cursor`, `top`,
`top_line`, `pairs`, `_pin`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.geometry import Size
    from textual.message import Message

    from ccarchive.tui.widgets.call_pairs import CallPairs


class AnchorScrolling:
    """Scrolling, cursor moves and the keys that make them (mixed into the view)."""

    if TYPE_CHECKING:
        total: int
        cursor: int
        top: int
        top_line: int
        pairs: CallPairs
        size: Size
        _pin: int | None
        _layout: list[tuple[int, int]]
        CursorMoved: Callable[[int], Message]

        def _height(self, index: int) -> int: ...
        def _build_layout(self) -> None: ...
        def visible_entries(self) -> list[int]: ...
        def refresh(self) -> object: ...
        def post_message(self, message: Message) -> bool: ...

    def _repin(self) -> None:
        """Keep a jumped-to entry on screen now that more entries have their height."""
        if self._pin == -1:
            self.top, self.top_line = self._bottom_anchor()
            return
        self._build_layout()
        shown = self.visible_entries()
        if self.cursor not in shown or (shown and shown[-1] == self.cursor
                                        and self._layout[-1][1] < self._height(self.cursor) - 1):
            pin = self._pin or 0
            self.top, self.top_line = self.cursor, 0
            self.scroll_lines(-pin)

    def scroll_lines(self, n: int) -> None:
        """Move the screen by n lines (negative: up), never past either end."""
        if n > 0:
            while n > 0:
                h = self._height(self.top)
                if h == 0 and self.top < self.total - 1:  # a result drawn under its call
                    self.top, self.top_line = self.top + 1, 0
                elif self.top_line < h - 1:
                    d = min(n, h - 1 - self.top_line)
                    self.top_line += d
                    n -= d
                elif self.top >= self.total - 1:
                    break
                else:
                    self.top, self.top_line, n = self.top + 1, 0, n - 1
            bottom = self._bottom_anchor()
            if (self.top, self.top_line) > bottom:
                self.top, self.top_line = bottom
        else:
            n = -n
            while n > 0:
                if self.top_line > 0:
                    d = min(n, self.top_line)
                    self.top_line -= d
                    n -= d
                elif self.top == 0:
                    break
                else:
                    self.top -= 1
                    h = self._height(self.top)
                    self.top_line = max(0, h - 1)
                    n -= 1 if h else 0
        self.refresh()

    def _bottom_anchor(self) -> tuple[int, int]:
        """The anchor that puts the last line of the last entry at the bottom."""
        if self.total == 0:
            return (0, 0)
        left = max(1, self.size.height)
        i = self.total - 1
        while i >= 0:
            h = self._height(i)
            if h >= left:
                return (i, h - left)
            left -= h
            i -= 1
        return (0, 0)

    def ensure_visible(self, index: int, *, context: int = 0) -> None:
        """Scroll so the entry is on screen (with `context` lines above it if it moves)."""
        index = self.pairs.shown(index)
        height = max(1, self.size.height)
        if index < self.top or (index == self.top and self.top_line > 0):
            self.top, self.top_line = index, 0
            if context:
                self.scroll_lines(-context)
            self.refresh()
            return
        lines = -self.top_line
        i = self.top
        while i < index and lines < height:
            lines += self._height(i)
            i += 1
        if lines >= height:  # far below: put it `context` lines from the top
            self.top, self.top_line = index, 0
            self.scroll_lines(-context)
            return
        end = lines + self._height(index)
        if end > height:
            self.scroll_lines(min(end - height, lines))
        self.refresh()

    def move_cursor(self, index: int, *, context: int | None = None) -> None:
        """Make `index` the current entry and bring it on screen."""
        if self.total == 0:
            return
        index = self.pairs.shown(max(0, min(self.total - 1, index)))
        self.cursor = index
        context = self.size.height // 3 if context is None else context
        self._pin = context
        self.ensure_visible(index, context=context)
        self.post_message(self.CursorMoved(index))

    def next_shown(self, index: int, delta: int) -> int:
        """The entry `delta` steps from `index`, stepping over results drawn under their
        calls (they are not entries of their own on screen)."""
        i = index + delta
        while self.pairs.hidden(i) and 0 <= i + delta < self.total:
            i += delta
        return i

    def action_step(self, delta: int) -> None:
        self.move_cursor(self.next_shown(self.cursor, delta), context=2)

    def action_page(self, direction: int) -> None:
        self._pin = None
        height = max(1, self.size.height - 2)
        self.scroll_lines(direction * height)
        rows = self._layout or [(self.top, 0)]
        self._build_layout()
        rows = self._layout or rows
        self.cursor = rows[0][0]
        self.post_message(self.CursorMoved(self.cursor))
        self.refresh()

    def action_first(self) -> None:
        self.move_cursor(0, context=0)

    def action_last(self) -> None:
        if self.total:
            self.cursor = self.pairs.shown(self.total - 1)
            self._pin = -1  # stay at the bottom while the last pages arrive
            self.top, self.top_line = self._bottom_anchor()
            self.post_message(self.CursorMoved(self.cursor))
            self.refresh()
