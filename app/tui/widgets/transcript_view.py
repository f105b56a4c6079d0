"""A virtualised transcript: only the entries on screen are fetched and drawn.

The view never holds a whole session. It knows the number of entries, keeps pages of
them (`PAGE` entries each, fetched by the screen from `ArchiveService.transcript`, most
recently used first) and draws through the Line API: the screen position is an anchor
(the entry at the top and a line inside it), and each frame walks forward from the
anchor only as far as the screen is tall. Entries are cut into strips once per width and
state and kept in an LRU cache. A 100,000-entry session costs what a 100-entry one does.

The scrollbar on the right is drawn here too (entry position over entry count), because
the height of entries nobody has looked at is unknown and should stay so.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from ccarchive.service.models import Entry
from ccarchive.tui.widgets.call_pairs import CallPairs
from ccarchive.tui.widgets.entry_render import render_entry
from ccarchive.tui.widgets.entry_theme import EntryTheme

PAGE = 200
"""Entries per fetch: one query, a few screens of reading."""
MAX_PAGES = 64
"""Pages kept (12,800 entries); older ones are dropped and fetched again if needed."""
MAX_CONTENT_WIDTH = 120
"""Prose wider than this is hard to read; wide terminals get margins instead."""
NO_GAP_AFTER = frozenset({"tool_call"})
"""Kinds drawn without a blank line after them (a call sits on top of its result)."""


def highlight_strip(strip: Strip, terms: tuple[str, ...], style: Style) -> Strip:
    """Mark the search words in a drawn line (works on Markdown, code, anything drawn)."""
    text = strip.text.lower()
    spans: list[tuple[int, int]] = []
    for term in terms:
        if len(term) < 2:
            continue
        start = text.find(term)
        while start != -1:
            spans.append((start, start + len(term)))
            start = text.find(term, start + len(term))
    if not spans:
        return strip
    cuts = sorted({c for span in spans for c in span} | {len(text)})
    pieces = Segment.divide(list(strip), cuts)
    out: list[Segment] = []
    pos = 0
    for piece in pieces:
        length = sum(len(seg.text) for seg in piece)
        inside = any(a <= pos < b for a, b in spans)
        out.extend(
            Segment(seg.text, (seg.style or Style()) + style, seg.control) if inside else seg
            for seg in piece
        )
        pos += length
    return Strip(out, strip.cell_length)


class TranscriptView(Widget, can_focus=True):
    """Entries of one transcript; a cursor marks the current one (the replay position)."""

    BINDINGS = [
        Binding("down,j", "step(1)", "Next", show=False, tooltip="Next entry."),
        Binding("up,k", "step(-1)", "Previous", show=False, tooltip="Previous entry."),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("home,g", "first", "First", show=False, tooltip="First entry."),
        Binding("end,G", "last", "Last", show=False, tooltip="Last entry."),
        Binding(
            "enter",
            "toggle_expand",
            "Expand",
            tooltip="Unfold a tool call, result or thinking (and fold it again).",
        ),
    ]

    COMPONENT_CLASSES = {
        "transcript-view--cursor",
        "transcript-view--cursor-bar",
        "transcript-view--hit-mark",
        "transcript-view--loading",
        "transcript-view--scrollbar",
        "transcript-view--scrollbar-thumb",
        "transcript-view--prompt",
        "transcript-view--assistant",
        "transcript-view--tool",
        "transcript-view--tool-arg",
        "transcript-view--dim",
        "transcript-view--thinking",
        "transcript-view--error",
        "transcript-view--flag",
        "transcript-view--summary",
        "transcript-view--subagent",
        "transcript-view--match",
        "transcript-view--diff-add",
        "transcript-view--diff-remove",
    }
    """Styled from styles/replay.tcss."""

    @dataclass
    class PagesWanted(Message):
        """Pages of entries the view needs (the screen fetches them)."""

        pages: list[int]

    @dataclass
    class CursorMoved(Message):
        """The current entry changed (by key, click or replay)."""

        index: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.total = 0
        """Entries in the transcript."""
        self.cursor = 0
        """The current entry."""
        self.top = 0
        """The entry at the top of the screen…"""
        self.top_line = 0
        """…and the line of it that is the first one shown."""
        self.expanded: set[int] = set()
        self.hits: list[int] = []
        """Entries that match the search that led here (sorted)."""
        self.terms: tuple[str, ...] = ()
        """Words to highlight."""
        self._hit_set: set[int] = set()
        self._pages: OrderedDict[int, list[Entry]] = OrderedDict()
        self._inputs: dict[int, dict[str, dict]] = {}
        """Per page: entry id -> a tool call's structured input (see `tool_input`)."""
        self.pairs = CallPairs()
        """Results drawn under their calls (see `call_pairs`)."""
        self._wanted: set[int] = set()
        self._strips: LRUCache[tuple[int, int, bool, int], list[Strip]] = LRUCache(2000)
        self._layout: list[tuple[int, int]] = []
        self._theme: EntryTheme | None = None
        self._generation = 0
        self._pin: int | None = None
        """After a jump: lines of context above the cursor, kept while its pages arrive
        (unread entries count one line each until read); any manual scroll lets go."""

    # ---- data (set by the screen) --------------------------------------------------
    def reset(self, total: int) -> None:
        """A new transcript: forget everything."""
        self.total = total
        self.cursor = self.top = self.top_line = 0
        self.expanded.clear()
        self.set_hits([])
        self._pages.clear()
        self._inputs.clear()
        self.pairs.clear()
        self._wanted.clear()
        self._strips.clear()
        self._generation += 1
        self.refresh()

    def set_total(self, total: int) -> None:
        """The transcript grew (or a page told us its size)."""
        if total != self.total:
            self.total = total
            self.refresh()

    def add_page(
        self, page_no: int, entries: list[Entry], inputs: dict[str, dict] | None = None
    ) -> None:
        """A page of entries (and the structured inputs of its tool calls, if read)."""
        self._wanted.discard(page_no)
        self._pages[page_no] = entries
        self._inputs[page_no] = inputs or {}
        self._pages.move_to_end(page_no)
        while len(self._pages) > MAX_PAGES:
            old, _ = self._pages.popitem(last=False)
            self._inputs.pop(old, None)
            self.pairs.page_dropped(old, PAGE)
        self.pairs.page_added(self._pages, page_no, PAGE)
        self.cursor = self.pairs.shown(self.cursor)
        self._generation += 1
        if self._pin is not None:
            self._repin()
        self.refresh()

    def forget_pages(self) -> None:
        """The index changed: read the entries on screen again (keeps the place)."""
        self._pages.clear()
        self._inputs.clear()
        self.pairs.clear()
        self._wanted.clear()
        self._generation += 1
        self.refresh()

    def has_page(self, page_no: int) -> bool:
        return page_no in self._pages

    def set_hits(self, hits: list[int]) -> None:
        self.hits = sorted(hits)
        self._hit_set = set(hits)
        self._strips.clear()
        self.refresh()

    def entry(self, index: int) -> Entry | None:
        """The entry at `index` if its page is here (else asks for the page)."""
        if not 0 <= index < self.total:
            return None
        page_no, i = divmod(index, PAGE)
        page = self._pages.get(page_no)
        if page is None:
            self._want([page_no])
            return None
        self._pages.move_to_end(page_no)
        return page[i] if i < len(page) else None

    def _want(self, pages: list[int]) -> None:
        new = [
            p
            for p in pages
            if p not in self._pages and p not in self._wanted and 0 <= p * PAGE < max(self.total, 1)
        ]
        if new:
            self._wanted.update(new)
            self.post_message(self.PagesWanted(new))

    # ---- drawing -------------------------------------------------------------------
    def on_resize(self) -> None:
        self._strips.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._theme = None
        self._strips.clear()

    def _entry_theme(self) -> EntryTheme:
        if self._theme is None:

            def s(name: str) -> Style:
                return self.get_component_rich_style(f"transcript-view--{name}", partial=True)

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
                match=self.get_component_rich_style("transcript-view--match"),
                diff_add=self.get_component_rich_style("transcript-view--diff-add"),
                diff_remove=self.get_component_rich_style("transcript-view--diff-remove"),
            )
        return self._theme

    @property
    def content_width(self) -> int:
        return max(10, min(self.size.width - 4, MAX_CONTENT_WIDTH))

    def tool_input(self, index: int) -> dict | None:
        """The structured input of the tool call at `index`, if it was read back."""
        entry = self.entry(index)
        if entry is None:
            return None
        return self._inputs.get(index // PAGE, {}).get(entry.id)

    def _render_entry(self, index: int, entry: Entry, expanded: bool, width: int) -> list[Strip]:
        renderable = render_entry(
            entry,
            expanded=expanded,
            theme=self._entry_theme(),
            width=width,
            tool_input=self.tool_input(index),
            terms=self.terms if index in self._hit_set else (),
        )
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        lines = console.render_lines(renderable, options, pad=True)
        strips = [Strip(line, width) for line in lines] or [Strip.blank(width)]
        if self.terms and index in self._hit_set:
            match = self._entry_theme().match
            strips = [highlight_strip(s, self.terms, match) for s in strips]
        return strips

    def _entry_strips(self, index: int) -> list[Strip]:
        """The lines of an entry: a call with its result under it, nothing for a result
        drawn under its call."""
        if self.pairs.hidden(index):
            return []
        entry = self.entry(index)
        width = self.content_width
        if entry is None:
            return [
                Strip(
                    [
                        Segment(
                            "  …",
                            self.get_component_rich_style("transcript-view--loading", partial=True),
                        )
                    ],
                    3,
                ).extend_cell_length(width)
            ]
        expanded = index in self.expanded
        key = (index, width, expanded, self._generation)
        cached = self._strips.get(key)
        if cached is not None:
            return cached
        strips = self._render_entry(index, entry, expanded, width)
        result = self.pairs.result_of.get(index)
        result_entry = self.entry(result) if result is not None else None
        if result is not None and result_entry is not None:
            strips += self._render_entry(result, result_entry, expanded, width)
            entry = result_entry
        if entry.kind not in NO_GAP_AFTER and not (
            entry.kind == "event" and "compact" not in entry.flags
        ):
            strips.append(Strip.blank(width))
        self._strips[key] = strips
        return strips

    def _height(self, index: int) -> int:
        return len(self._entry_strips(index))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._build_layout()
        return super().render_lines(crop)

    def _build_layout(self) -> None:
        height = self.size.height
        rows: list[tuple[int, int]] = []
        i, ln = self.top, self.top_line
        while len(rows) < height and i < self.total:
            h = self._height(i)
            while ln < h and len(rows) < height:
                rows.append((i, ln))
                ln += 1
            i, ln = i + 1, 0
        self._layout = rows
        last = rows[-1][0] if rows else self.top
        # Read ahead: the page after the last entry shown, and the one before the top.
        self._want(sorted({(max(0, self.top - PAGE // 2)) // PAGE, (last + PAGE // 2) // PAGE}))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        bar = self._scrollbar(y)
        if y >= len(self._layout):
            return Strip.join([Strip.blank(width - 1), bar])
        index, ln = self._layout[y]
        strip = self._entry_strips(index)[ln]
        is_cursor = index == self.cursor
        gutter_style = self.get_component_rich_style(
            "transcript-view--cursor-bar" if is_cursor else "transcript-view--dim", partial=True
        )
        if is_cursor:
            mark = Segment("▌ ", gutter_style)
            bg = self.get_component_rich_style("transcript-view--cursor").bgcolor
            strip = strip.apply_style(Style(bgcolor=bg))
        elif ln == 0 and (
            index in self._hit_set or self.pairs.result_of.get(index) in self._hit_set
        ):
            mark = Segment(
                "◆ ", self.get_component_rich_style("transcript-view--hit-mark", partial=True)
            )
        else:
            mark = Segment("  ")
        used = 2 + strip.cell_length + 1
        pad = Strip.blank(max(0, width - used))
        return Strip.join([Strip([mark], 2), strip, pad, bar]).crop(0, width)

    def _scrollbar(self, y: int) -> Strip:
        height = max(1, self.size.height)
        track = self.get_component_rich_style("transcript-view--scrollbar")
        thumb = self.get_component_rich_style("transcript-view--scrollbar-thumb")
        if self.total <= 1:
            return Strip([Segment(" ", track)], 1)
        shown = len({i for i, _ in self._layout}) or 1
        size = max(1, round(height * min(1.0, shown / self.total)))
        pos = round((height - size) * (self.top / max(1, self.total - shown)))
        pos = min(max(0, pos), height - size)
        return Strip([Segment(" ", thumb if pos <= y < pos + size else track)], 1)

    # ---- folding -------------------------------------------------------------------
    def toggle_expand(self, index: int) -> None:
        """Fold or unfold an entry; a tool call takes its result along."""
        index = self.pairs.shown(index)
        targets = {index}
        if index in self.pairs.result_of:
            targets.add(self.pairs.result_of[index])
        if index in self.expanded:
            self.expanded -= targets
        else:
            self.expanded |= targets
        self.ensure_visible(index)
        self.refresh()

    def action_toggle_expand(self) -> None:
        self.toggle_expand(self.cursor)

    # ---- mouse ---------------------------------------------------------------------
    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._pin = None
        self.scroll_lines(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._pin = None
        self.scroll_lines(-3)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if 0 <= event.y < len(self._layout):
            index = self._layout[event.y][0]
            if index == self.cursor:
                self.toggle_expand(index)
            else:
                self.cursor = index
                self.post_message(self.CursorMoved(index))
                self.refresh()

    def visible_entries(self) -> list[int]:
        """The entries on screen (for tests and the status line)."""
        return sorted({i for i, _ in self._layout})

    # ---- moving through the transcript ---------------------------------------------
    # The view never knows the height of the whole transcript (entries nobody looked at
    # are never drawn), so the screen position is an anchor: the entry at the top and the
    # line of it shown first. Scrolling walks that anchor entry by entry, asking each
    # entry's height on the way; an entry of no height (a tool result drawn under its
    # call, see `call_pairs`) is stepped over without using up a line.

    def _repin(self) -> None:
        """Keep a jumped-to entry on screen now that more entries have their height."""
        if self._pin == -1:
            self.top, self.top_line = self._bottom_anchor()
            return
        self._build_layout()
        shown = self.visible_entries()
        if self.cursor not in shown or (
            shown
            and shown[-1] == self.cursor
            and self._layout[-1][1] < self._height(self.cursor) - 1
        ):
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
