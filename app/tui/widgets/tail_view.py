"""The live tail: a session's newest entries, drawn as replay draws them, following the end.

toolong's tail UX: while the view is at the end it follows new entries; scrolling up stops
following and new entries raise a "+N new" count instead (`Pending`); End (or scrolling
back to the bottom) resumes. Drawn with the Line API: each entry is cut into strips once
per width, and a frame only touches the strips on screen. Entries are cut from the end
backwards, only as far as the reader can see (two screens on opening a session, more as
they scroll up): cutting all 150 entries of a fresh tail took ~0.2 s of the first screen.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ccarchive.service.models import Entry
from ccarchive.tui.widgets.entry_render import render_entry
from ccarchive.tui.widgets.entry_theme import EntryTheme

MAX_ENTRIES = 2000
"""Entries kept; older ones scroll away (replay has the whole session)."""
MAX_WIDTH = 120
AHEAD = 2
"""Screens of lines kept cut above the top of the view (more are cut on scrolling up)."""


class TailView(ScrollView, can_focus=True):
    """A growing list of entries that sticks to the bottom unless the reader scrolls up."""

    BINDINGS = [
        Binding("end,G", "follow", "Follow", tooltip="Jump to the end and follow new entries"),
        Binding("home,g", "top", "Top", show=False),
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
    ]

    COMPONENT_CLASSES = {
        "tail-view--prompt",
        "tail-view--assistant",
        "tail-view--tool",
        "tail-view--tool-arg",
        "tail-view--dim",
        "tail-view--thinking",
        "tail-view--error",
        "tail-view--flag",
        "tail-view--summary",
        "tail-view--subagent",
        "tail-view--match",
        "tail-view--new",
    }

    follow: reactive[bool] = reactive(True)
    """Stick to the end as entries arrive."""
    pending: reactive[int] = reactive(0)
    """Entries that arrived while not following."""

    @dataclass
    class Pending(Message):
        """The "+N new" count or the follow state changed."""

        count: int
        follow: bool

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TailView.Pending)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = []
        self._ids: set[str] = set()
        self._strips: list[list[Strip]] = []
        """The cut lines of `entries[self._cut_from:]`, one list per entry."""
        self._cut_from = 0
        """Entries before this one are not cut yet (they are above the view)."""
        self._starts: list[int] = []
        self._width = 0
        self._base = Style()
        """`rich_style`, read once per layout and per frame rather than once per line."""
        self._theme: EntryTheme | None = None
        self._programmatic = False

    # ---- data ------------------------------------------------------------------------
    def reset(self, entries: list[Entry]) -> None:
        """A new session: show these and follow the end."""
        unique = list({e.id: e for e in entries}.values())[-MAX_ENTRIES:]
        self.entries, self._ids = unique, {e.id for e in unique}
        self._strips, self._starts, self._cut_from = [], [], len(unique)  # cut from the end
        self.set_reactive(TailView.pending, 0)
        self.follow = True
        self._layout()
        self._to_end()

    def add(self, entries: list[Entry]) -> int:
        """Append new entries (duplicates ignored); returns how many were new."""
        new = [e for e in entries if e.id not in self._ids]
        if not new:
            return 0
        self.entries.extend(new)
        self._ids.update(e.id for e in new)
        if len(self.entries) > MAX_ENTRIES:
            drop = len(self.entries) - MAX_ENTRIES
            self.entries = self.entries[drop:]
            self._ids = {e.id for e in self.entries}
            self._strips, self._cut_from = [], len(self.entries)  # re-cut below
        self._layout()
        if self.follow:
            self._to_end()
        else:
            self.pending += len(new)
        return len(new)

    # ---- drawing -----------------------------------------------------------------------
    def _entry_theme(self) -> EntryTheme:
        if self._theme is None:

            def s(name: str) -> Style:
                return self.get_component_rich_style(f"tail-view--{name}", partial=True)

            self._theme = EntryTheme(
                prompt=s("prompt"),
                prompt_mark=s("prompt"),
                assistant_mark=s("assistant"),
                tool=s("tool"),
                tool_arg=s("tool-arg"),
                dim=s("dim"),
                thinking=s("thinking"),
                error=s("error"),
                flag=s("flag"),
                summary=s("summary"),
                subagent=s("subagent"),
                match=s("match"),
            )
        return self._theme

    def _cut(self, entry: Entry, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        renderable = render_entry(entry, theme=self._entry_theme(), width=width)
        lines = console.render_lines(renderable, options, pad=True)
        base = self._base
        strips = [Strip(line, width).apply_style(base) for line in lines] or [
            Strip.blank(width, base)
        ]
        if entry.kind != "tool_call":
            strips.append(Strip.blank(width, base))
        return strips

    def _text_width(self) -> int:
        """The width entries are cut to: the same with or without a vertical scrollbar
        (the bar appearing must not re-cut everything)."""
        if not self.size.width:
            return 80
        room = self.size.width - self.styles.gutter.width - 4  # margin 2, gap, scrollbar
        return max(10, min(room, MAX_WIDTH))

    def _layout(self) -> None:
        self._base = self.rich_style
        width = self._text_width()
        if width != self._width:
            self._width = width
            self._strips, self._cut_from = [], len(self.entries)
        cut_end = self._cut_from + len(self._strips)
        for e in self.entries[cut_end:]:
            self._strips.append(self._cut(e, width))
        self._cut_above(self._want_above())

    def _want_above(self) -> int:
        """Lines still to cut so that AHEAD screens exist above the top of the view."""
        height = max(1, self.scrollable_content_region.height or self.size.height or 24)
        if self.follow:
            top = sum(map(len, self._strips)) - height
        else:
            top = int(self.scroll_y)
        return max(0, height * AHEAD - top)

    def _cut_above(self, lines: int) -> None:
        """Cut earlier entries until `lines` more lines exist above the cut part (or no
        entry is left), keeping the view on the lines it shows; then lay out."""
        added: list[list[Strip]] = []
        total = 0
        i = self._cut_from
        while i > 0 and total < lines:
            i -= 1
            added.append(self._cut(self.entries[i], self._width))
            total += len(added[-1])
        if added:
            added.reverse()
            self._strips[:0] = added
            self._cut_from = i
        self._reindex()
        if total and not self.follow:
            # from where a running scroll animation is going (scroll_to stops it there)
            animating = self.app.animator.is_being_animated(self, "scroll_y")
            y = self.scroll_target_y if animating else self.scroll_y
            self._programmatic = True
            self.scroll_to(y=y + total, animate=False, immediate=True)
            self.call_after_refresh(self._done_programmatic)
        elif total:
            self._to_end()

    def _reindex(self) -> None:
        starts, total = [], 0
        for s in self._strips:
            starts.append(total)
            total += len(s)
        self._starts = starts
        self.virtual_size = Size(self._width + 2, total)
        self.refresh()

    def on_resize(self) -> None:
        at_end = self.follow
        self._layout()
        if at_end:
            self._to_end()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._theme = None
        self._strips, self._cut_from = [], len(self.entries)
        if self.is_mounted:
            self._layout()

    def render_lines(self, crop):
        self._base = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        line = scroll_y + y
        width = self.size.width
        base = self._base
        if not self._starts or line >= self.virtual_size.height:
            return Strip.blank(width, base)
        i = bisect_right(self._starts, line) - 1
        strip = self._strips[i][line - self._starts[i]]
        strip = Strip.join([Strip.blank(2, base), strip])
        return strip.crop(scroll_x, scroll_x + width).extend_cell_length(width, base)

    # ---- following -------------------------------------------------------------------
    def _to_end(self) -> None:
        self._programmatic = True
        self.scroll_end(animate=False, immediate=False, x_axis=False)
        self.call_after_refresh(self._done_programmatic)

    def _done_programmatic(self) -> None:
        self._programmatic = False

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if self._cut_from and new < old and not self._programmatic:
            height = max(1, self.scrollable_content_region.height)
            if new < height * AHEAD:  # near the top of what is cut: cut more above
                self.call_later(self._cut_above, height * (AHEAD + 1))
        if new >= self.max_scroll_y:
            if not self.follow or self.pending:
                self.follow = True
                self.pending = 0
        elif new < old and not self._programmatic:
            self.follow = False

    def watch_follow(self) -> None:
        self.post_message(self.Pending(self.pending, self.follow))

    def watch_pending(self) -> None:
        self.post_message(self.Pending(self.pending, self.follow))

    def action_follow(self) -> None:
        self.pending = 0
        self.follow = True
        self._to_end()

    def action_top(self) -> None:
        self.follow = False
        if self._cut_from:  # the first entry's lines are needed now
            self._cut_above(10**9)
        self.scroll_home(animate=False)
