"""The preview beside the results: the selected hit among its neighbouring entries.

Drawn through the Line API: a preview is cut into strips once when it arrives (and on a
resize), then scrolling only picks lines. A `Static` in a scroll container drew it
twice per layout (once to measure its height, once to paint) and again on every
repaint of the screen.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ccarchive.service.models import ContextResult, Hit
from ccarchive.tui.widgets.entry_render import render_entry
from ccarchive.tui.widgets.entry_theme import EntryTheme
from ccarchive.tui.widgets.result_list import project_name, when

TRANSCRIPT_KINDS = frozenset(
    {"prompt", "assistant", "thinking", "tool_call", "tool_result", "summary", "event"}
)
"""Kinds that live in a transcript (a hit of these opens in replay)."""


ENTRY_PARTS = (
    "prompt",
    "assistant",
    "tool",
    "tool-arg",
    "dim",
    "thinking",
    "error",
    "flag",
    "summary",
    "subagent",
    "diff-add",
    "diff-remove",
)
"""The parts of an entry the preview colours from the theme (Replay's)."""


class HitPreview(ScrollView, can_focus=False):
    """A hit with two entries before it and three after, the hit itself unfolded."""

    COMPONENT_CLASSES = {
        "hit-preview--title",
        "hit-preview--meta",
        "hit-preview--target",
        "hit-preview--hint",
        "hit-preview--match",
        *(f"hit-preview--{name}" for name in ENTRY_PARTS),
    }
    """Styled from styles/search.tcss: the entries in the theme's colours, as in Replay
    (the renderer's own defaults are for a dark terminal: near-white on a light one)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._source: tuple[Hit, ContextResult | None, tuple[str, ...]] | Text | None = None
        self._lines: list[Strip] = []
        self._width = 0

    @property
    def shown(self) -> Hit | None:
        """The hit on show (None for a message or nothing)."""
        return self._source[0] if isinstance(self._source, tuple) else None

    def show(self, hit: Hit, ctx: ContextResult | None, terms: tuple[str, ...]) -> None:
        self._source = (hit, ctx, terms)
        self._draw()

    def show_message(self, text: Text) -> None:
        self._source = text
        self._draw()

    def clear(self) -> None:
        self._source = None
        self._draw()

    # ---- drawing -------------------------------------------------------------------
    def on_resize(self) -> None:
        if self._source is not None and self.content_region.width != self._width:
            self._draw()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self._source is not None and self.is_mounted:
            self._draw(home=False)

    def _draw(self, *, home: bool = True) -> None:
        full = self.content_region.width
        self._width = full
        lines = self._strips(full)
        if len(lines) > self.content_region.height and self._bar:
            lines = self._strips(full - self._bar)
        width = full if len(lines) <= self.content_region.height else full - self._bar
        style = self.rich_style  # final strips: a repaint only picks lines
        self._lines = [
            line.apply_style(style).extend_cell_length(width, style).crop(0, width)
            for line in lines
        ]
        self.virtual_size = Size(width, len(lines))
        if home:
            self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    @property
    def _bar(self) -> int:
        return self.styles.scrollbar_size_vertical

    def _strips(self, width: int) -> list[Strip]:
        if self._source is None or width <= 0:
            return []
        if isinstance(self._source, Text):
            renderable: RenderableType = self._source
        else:
            renderable = self._render_hit(*self._source, width=width)
        console = self.app.console
        options = console.options.update_width(width).update(highlight=False)
        return [Strip(line, width) for line in console.render_lines(renderable, options, pad=True)]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = self.scroll_offset.y + y
        if line >= len(self._lines):
            return Strip.blank(width, self.rich_style)
        return self._lines[line]

    def _render_hit(
        self, hit: Hit, ctx: ContextResult | None, terms: tuple[str, ...], *, width: int
    ) -> RenderableType:
        def st(name: str):
            return self.get_component_rich_style(f"hit-preview--{name}", partial=True)

        width = max(20, width - 2)
        theme = EntryTheme(
            prompt=st("prompt"),
            prompt_mark=st("prompt"),
            assistant_mark=st("assistant"),
            tool=st("tool"),
            tool_arg=st("tool-arg"),
            dim=st("dim"),
            thinking=st("thinking"),
            error=st("error"),
            flag=st("flag"),
            summary=st("summary"),
            subagent=st("subagent"),
            match=self.get_component_rich_style("hit-preview--match"),
            diff_add=self.get_component_rich_style("hit-preview--diff-add"),
            diff_remove=self.get_component_rich_style("hit-preview--diff-remove"),
        )
        head = Text.assemble((hit.title or "(untitled)", st("title")))
        meta = f"\n{project_name(hit.project) or '—'} · {when(hit.timestamp)}"
        if hit.branch:
            meta += f" · branch {hit.branch}"
        head.append(meta, st("meta"))
        parts: list[RenderableType] = [head, Text("")]
        if ctx is None:
            snippet = Text(hit.snippet)
            for start, end in hit.highlights:
                snippet.stylize(st("match"), start, end)
            parts.append(snippet)
            return Group(*parts)
        for e in ctx.before:
            parts += [render_entry(e, width=width, show_time=False, theme=theme), Text("")]
        target = render_entry(
            ctx.target, width=width - 2, terms=terms, expanded=True, show_time=False, theme=theme
        )
        bg = self.get_component_rich_style("hit-preview--target").bgcolor
        parts += [Padding(target, (0, 1, 0, 1), style=Style(bgcolor=bg)), Text("")]
        for e in ctx.after:
            parts += [render_entry(e, width=width, show_time=False, theme=theme), Text("")]
        if hit.kind in TRANSCRIPT_KINDS:
            parts.append(Text("Enter opens the session at this entry", st("hint")))
        return Group(*parts)
