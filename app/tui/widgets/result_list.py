"""Search results: single hits or hits grouped by session, each a card of a few lines.

The list is virtualised (toolong's Line API): a card has a fixed height known from its
data (two lines of title and meta, then snippet lines), so a new result set costs no
layout and no drawing until a line is on screen; only visible cards are cut into
strips, once per width and state (LRU). Replacing the results of a keystroke is a list
assignment and a repaint of the lines on screen.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ccarchive.service.models import Hit, SearchPage, SessionGroup
from ccarchive.tui.format import short_project

KIND_LABELS = {
    "prompt": "you",
    "assistant": "claude",
    "thinking": "thinking",
    "tool_call": "tool",
    "tool_result": "output",
    "summary": "summary",
    "event": "event",
    "plan": "plan",
    "memory": "memory",
    "history": "history",
}
"""Short names for the kind badge of a hit."""

SNIPPETS_PER_GROUP = 2
"""Hits of a session shown under its title (the rest are counted)."""


def project_name(path: str) -> str:
    """A project's short name, unique in the archive (`short_project`); '' for none."""
    return short_project(path) if path else ""


def when(ts: datetime | None) -> str:
    return ts.astimezone().strftime("%Y-%m-%d %H:%M") if ts else "—"


def group_hits(hits: list[Hit], per_group: int = 3) -> list[SessionGroup]:
    """Hits (ranked) grouped by session, in the order of each session's best hit."""
    groups: dict[str, SessionGroup] = {}
    for h in hits:
        key = h.session_id or h.id
        g = groups.get(key)
        if g is None:
            g = groups[key] = SessionGroup(
                session_id=h.session_id,
                title=h.title,
                project=h.project,
                timestamp=h.timestamp,
                score=h.score,
            )
        g.hit_count += 1
        if len(g.hits) < per_group:
            g.hits.append(h)
        if h.timestamp and (g.timestamp is None or h.timestamp > g.timestamp):
            g.timestamp = h.timestamp
    return list(groups.values())


def fit_snippet(
    snippet: str, spans: list[tuple[int, int]], chars: int
) -> tuple[str, list[tuple[int, int]]]:
    """Cut a snippet to `chars`, keeping the first highlighted word in view."""
    if len(snippet) <= chars:
        return snippet, spans
    first = spans[0][0] if spans else 0
    start = max(0, min(first - chars // 4, len(snippet) - chars))
    piece = snippet[start : start + chars - 1]
    if start:  # "…word", not "… word"
        stripped = piece.lstrip()
        start += len(piece) - len(stripped)
        piece = snippet[start : start + chars - 1]
    prefix = "…" if start else ""
    cut = [
        (a - start + len(prefix), min(b, start + len(piece)) - start + len(prefix))
        for a, b in spans
        if a >= start and a < start + len(piece)
    ]
    return prefix + piece + "…", cut


@dataclass
class Card:
    """One row of the list: a hit, or a session's group of hits."""

    hit: Hit
    """The hit a cursor on this card previews and Enter opens."""
    group: SessionGroup | None = None
    height: int = 4
    """Lines: title, meta, then the snippet (one or two lines) or the group's hits."""

    def measure(self, inner: int) -> int:
        """The height at a width: known from the data, without drawing anything."""
        if self.group is not None:
            self.height = 2 + min(SNIPPETS_PER_GROUP, len(self.group.hits))
        else:
            text, _ = fit_snippet(self.hit.snippet, self.hit.highlights, max(10, inner * 2 - 2))
            self.height = 3 if len(text) <= inner else 4
        return self.height


class ResultList(ScrollView, can_focus=True):
    """Hits of a search. Highlighting one previews it; selecting opens it."""

    BINDINGS = [
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding(
            "enter",
            "select",
            "Open",
            show=False,
            tooltip="Open the hit: replay at its entry, a plan or memory file in its pane",
        ),
    ]

    COMPONENT_CLASSES = {
        "result-list--option",
        "result-list--highlighted",
        "result-list--hover",
        "result-list--title",
        "result-list--meta",
        "result-list--match",
        "result-list--snippet",
        "result-list--badge-prompt",
        "result-list--badge-assistant",
        "result-list--badge-tool",
        "result-list--badge-other",
        "result-list--count",
    }
    """Styled from styles/search.tcss."""

    @dataclass
    class HitHighlighted(Message):
        """The cursor is on a hit: preview it."""

        hit: Hit

    @dataclass
    class HitChosen(Message):
        """Enter or a click on a hit: open it."""

        hit: Hit

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.hits: list[Hit] = []
        """The hit behind each card (the best hit of a group in grouped mode)."""
        self._cards: list[Card] = []
        self._starts: list[int] = []
        """First line of each card (sorted: a bisect finds the card of a line)."""
        self._highlighted: int | None = None
        self._hover: int | None = None
        self._generation = 0
        self._strips: LRUCache[tuple[int, int, int, str], list[Strip]] = LRUCache(256)
        self._styles: dict[str, Style] = {}

    # ---- data ----------------------------------------------------------------------
    def show(self, page: SearchPage, groups: list[SessionGroup] | None, keep: bool = True) -> None:
        """Replace the results, keeping the cursor on the same hit if it is still there
        (`keep`: the same search again, as after an index commit), else on the first."""
        old = (
            self.hits[self._highlighted]
            if keep and self._highlighted is not None and self._highlighted < len(self.hits)
            else None
        )
        if groups is not None:
            self._cards = [Card(g.hits[0], g) for g in groups if g.hits]
        else:
            self._cards = [Card(h) for h in page.hits]
        self.hits = [c.hit for c in self._cards]
        self._generation += 1
        self._hover = None
        self._measure()
        index = None
        if self.hits:
            index = next((i for i, h in enumerate(self.hits) if old and h.id == old.id), 0)
        self._highlighted = index
        if index is None or index == 0:
            self.scroll_to(y=0, animate=False, immediate=True)
        else:
            self._scroll_to_card(index)
        self.refresh()
        if index is not None and (old is None or self.hits[index] is not old):
            self.post_message(self.HitHighlighted(self.hits[index]))

    @property
    def highlighted(self) -> int | None:
        """The card under the cursor."""
        return self._highlighted

    @highlighted.setter
    def highlighted(self, index: int | None) -> None:
        if index is None or not self._cards:
            self._highlighted = None
            self.refresh()
            return
        index = max(0, min(len(self._cards) - 1, index))
        if index == self._highlighted:
            return
        self._highlighted = index
        self._scroll_to_card(index)
        self.refresh()
        self.post_message(self.HitHighlighted(self.hits[index]))

    @property
    def option_count(self) -> int:
        return len(self._cards)

    def _scroll_to_card(self, index: int) -> None:
        card = self._cards[index]
        self.scroll_to_region(
            Region(0, self._starts[index], 1, card.height),
            animate=False,
            immediate=True,
            force=True,
        )

    def _card_at(self, line: int) -> int | None:
        if not self._cards or line < 0:
            return None
        index = bisect_right(self._starts, line) - 1
        card = self._cards[index]
        return index if line < self._starts[index] + card.height else None

    # ---- drawing -------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def on_resize(self) -> None:
        self._strips.clear()
        self._measure()

    def _measure(self) -> None:
        """Card heights and where each starts, for the width (snippets wrap to it)."""
        inner = self._inner_width()
        starts, y = [], 0
        for card in self._cards:
            starts.append(y)
            y += card.measure(inner)
        self._starts = starts
        self.virtual_size = Size(self.scrollable_content_region.width, y)

    def _inner_width(self) -> int:
        # One cell of padding each side; the scrollbar is counted in from the start, so
        # heights do not change when it appears.
        return max(10, self.content_region.width - 2 - self.styles.scrollbar_size_vertical)

    def _style(self, name: str) -> Style:
        # Spans with a background of their own (badges, matches) are resolved in full,
        # so their translucent colours blend; the rest keep the card's background.
        style = self._styles.get(name)
        if style is None:
            solid = (
                name == "match"
                or name.startswith("badge")
                or name in ("option", "highlighted", "hover")
            )
            style = self._styles[name] = self.get_component_rich_style(
                f"result-list--{name}", partial=not solid
            )
        return style

    def _badge(self, kind: str) -> Text:
        label = KIND_LABELS.get(kind, kind)
        cls = {
            "prompt": "badge-prompt",
            "history": "badge-prompt",
            "assistant": "badge-assistant",
            "tool_call": "badge-tool",
            "tool_result": "badge-tool",
        }.get(kind, "badge-other")
        return Text.assemble((f" {label} ", self._style(cls)))

    def _snippet(self, hit: Hit, chars: int) -> Text:
        text, spans = fit_snippet(hit.snippet.replace("\n", " "), hit.highlights, max(10, chars))
        snippet = Text(text, self._style("snippet"))
        for start, end in spans:
            snippet.stylize(self._style("match"), start, end)
        return snippet

    def _card_lines(self, card: Card, width: int) -> list[Text]:
        """The lines of a card, each cut to `width` (no wrapping: heights are fixed)."""
        hit, group = card.hit, card.group
        lines: list[Text] = []
        if group is None:
            head = self._badge(hit.kind)
            head.append(" ")
            head.append(hit.title or "(untitled)", self._style("title"))
            lines.append(head)
            meta = f"{project_name(hit.project) or '—'} · {when(hit.timestamp)}"
            if hit.tool:
                meta += f" · {hit.tool}"
            if hit.agent_id:
                meta += " · subagent"
            lines.append(Text(meta, self._style("meta")))
            snippet = self._snippet(hit, width * 2 - 2)
            wrapped = snippet.wrap(self.app.console, width, overflow="ellipsis")
            body = list(wrapped)[:2]
            if len(wrapped) > 2 and body:
                body[-1] = body[-1].copy()
                body[-1].append("…")
            lines.extend(body)
            while len(lines) < card.height:
                lines.append(Text())
        else:
            # no hit count: the service counts matches per query word (and leaves tool
            # output out), Replay counts the session's matching entries of every kind,
            # so "11 hits" here read as a promise that Replay's "hit 1/19" broke
            head = Text(group.title or hit.title or "(untitled)", self._style("title"))
            if not group.on_disk:  # still searchable, its file swept away
                head = Text.assemble(("gone ", "bold red"), head)
            head.truncate(max(1, width), overflow="ellipsis")
            lines.append(head)
            lines.append(
                Text(
                    f"{project_name(group.project) or '—'} · {when(group.timestamp)}",
                    self._style("meta"),
                )
            )
            for h in group.hits[:SNIPPETS_PER_GROUP]:
                line = self._badge(h.kind)
                line.append(" ")
                if h.prompt and h.kind not in ("prompt", "history"):
                    # the turn's question beside what answered it
                    asked = Text(h.prompt, self._style("meta"))
                    asked.truncate(max(8, (width - line.cell_len) * 2 // 5), overflow="ellipsis")
                    line.append_text(asked)
                    line.append(" › ", self._style("meta"))
                line.append_text(self._snippet(h, width - line.cell_len))
                lines.append(line)
        return lines

    def _card_strips(self, index: int, variant: str) -> list[Strip]:
        width = self.scrollable_content_region.width
        key = (index, width, self._generation, variant)
        strips = self._strips.get(key)
        if strips is not None:
            return strips
        base = self._style(variant)
        console = self.app.console
        inner = min(self._inner_width(), max(1, width - 2))
        strips = []
        for line in self._card_lines(self._cards[index], inner):
            line.truncate(inner, overflow="ellipsis", pad=True)
            line.no_wrap = True
            line.end = ""
            segments = list(line.render(console))
            strip = Strip(segments, line.cell_len).apply_style(base)
            strips.append(
                Strip.join([Strip.blank(1, base), strip, Strip.blank(width - 1 - inner, base)])
            )
        self._strips[key] = strips
        return strips

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = self.scroll_offset.y + y
        index = self._card_at(line)
        if index is None:
            return Strip.blank(width, self._style("option"))
        variant = (
            "highlighted"
            if index == self._highlighted
            else "hover"
            if index == self._hover
            else "option"
        )
        strips = self._card_strips(index, variant)
        offset = line - self._starts[index]
        return strips[offset] if offset < len(strips) else Strip.blank(width, self._style(variant))

    # ---- keys and mouse ------------------------------------------------------------
    def action_cursor(self, delta: int) -> None:
        if self._cards:
            self.highlighted = 0 if self._highlighted is None else self._highlighted + delta

    def action_page(self, direction: int) -> None:
        if not self._cards:
            return
        cur = self._highlighted or 0
        target = self._starts[cur] + direction * max(1, self.scrollable_content_region.height)
        target = max(0, min(target, self._starts[-1]))
        index = self._card_at(target)
        self.highlighted = index if index is not None else cur

    def action_first(self) -> None:
        self.highlighted = 0

    def action_last(self) -> None:
        self.highlighted = len(self._cards) - 1

    def action_select(self) -> None:
        if self._highlighted is not None and self._highlighted < len(self.hits):
            self.post_message(self.HitChosen(self.hits[self._highlighted]))

    def _card_under(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        return None if offset is None else self._card_at(offset.y + self.scroll_offset.y)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._card_under(event)
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        index = self._card_under(event)
        if index is not None:
            self.highlighted = index
            self.action_select()
