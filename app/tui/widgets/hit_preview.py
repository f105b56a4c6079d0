"""The preview beside the results: the selected hit among its neighbouring entries."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from app.service.models import ContextResult, Hit
from app.tui.widgets.entry_render import EntryTheme, render_entry
from app.tui.widgets.result_list import project_name, when

TRANSCRIPT_KINDS = frozenset({"prompt", "assistant", "thinking", "tool_call", "tool_result",
                              "summary", "event"})
"""Kinds that live in a transcript (a hit of these opens in replay)."""


class HitPreview(Static):
    """A hit with two entries before it and three after, the hit itself unfolded."""

    COMPONENT_CLASSES = {
        "hit-preview--title",
        "hit-preview--meta",
        "hit-preview--target",
        "hit-preview--hint",
        "hit-preview--match",
    }
    """Styled from styles/search.tcss."""

    def show(self, hit: Hit, ctx: ContextResult | None, terms: tuple[str, ...]) -> None:
        self.update(self._render_hit(hit, ctx, terms))

    def _render_hit(self, hit: Hit, ctx: ContextResult | None,
                    terms: tuple[str, ...]) -> RenderableType:
        def st(name: str):  # noqa: ANN202
            return self.get_component_rich_style(f"hit-preview--{name}", partial=True)

        width = max(20, self.size.width - 2)
        theme = EntryTheme(match=self.get_component_rich_style("hit-preview--match"))
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
        target = render_entry(ctx.target, width=width - 2, terms=terms, expanded=True,
                              show_time=False, theme=theme)
        bg = self.get_component_rich_style("hit-preview--target").bgcolor
        parts += [Padding(target, (0, 1, 0, 1), style=Style(bgcolor=bg)), Text("")]
        for e in ctx.after:
            parts += [render_entry(e, width=width, show_time=False, theme=theme), Text("")]
        if hit.kind in TRANSCRIPT_KINDS:
            parts.append(Text("Enter opens the session at this entry", st("hint")))
        return Group(*parts)
