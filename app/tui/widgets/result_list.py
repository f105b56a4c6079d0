"""Search results: single hits or hits grouped by session, each a few lines of text."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from app.service.models import Hit, SearchPage, SessionGroup

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


def project_name(path: str) -> str:
    """The last part of a project path (`/home/me/src/tally` -> `tally`)."""
    return path.rstrip("/").rsplit("/", 1)[-1] or path


def when(ts: datetime | None) -> str:
    return ts.astimezone().strftime("%Y-%m-%d %H:%M") if ts else "—"


def group_hits(hits: list[Hit], per_group: int = 3) -> list[SessionGroup]:
    """Hits (ranked) grouped by session, in the order of each session's best hit."""
    groups: dict[str, SessionGroup] = {}
    for h in hits:
        key = h.session_id or h.id
        g = groups.get(key)
        if g is None:
            g = groups[key] = SessionGroup(session_id=h.session_id, title=h.title,
                                           project=h.project, timestamp=h.timestamp,
                                           score=h.score)
        g.hit_count += 1
        if len(g.hits) < per_group:
            g.hits.append(h)
        if h.timestamp and (g.timestamp is None or h.timestamp > g.timestamp):
            g.timestamp = h.timestamp
    return list(groups.values())


def fit_snippet(snippet: str, spans: list[tuple[int, int]],
                chars: int) -> tuple[str, list[tuple[int, int]]]:
    """Cut a snippet to `chars`, keeping the first highlighted word in view."""
    if len(snippet) <= chars:
        return snippet, spans
    first = spans[0][0] if spans else 0
    start = max(0, min(first - chars // 4, len(snippet) - chars))
    piece = snippet[start:start + chars - 1]
    prefix = "…" if start else ""
    cut = [(a - start + len(prefix), min(b, start + len(piece)) - start + len(prefix))
           for a, b in spans if a >= start and a < start + len(piece)]
    return prefix + piece + "…", cut


class ResultList(OptionList):
    """Hits of a search. Highlighting one previews it; selecting opens it."""

    COMPONENT_CLASSES = {
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

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id)
        self.hits: list[Hit] = []
        """The hit behind each option (the best hit of a group in grouped mode)."""

    def show(self, page: SearchPage, groups: list[SessionGroup] | None) -> None:
        """Replace the results, keeping the cursor on the same hit if it is still there."""
        keep = self.hits[self.highlighted].id if self.hits and self.highlighted is not None \
            and self.highlighted < len(self.hits) else None
        self.clear_options()
        self.hits = []
        options: list[Option | None] = []
        if groups is not None:
            for g in groups:
                self.hits.append(g.hits[0])
                options.append(Option(self._group_prompt(g), id=str(len(self.hits) - 1)))
        else:
            for h in page.hits:
                self.hits.append(h)
                options.append(Option(self._hit_prompt(h), id=str(len(self.hits) - 1)))
        self.add_options(options)
        if self.hits:
            index = next((i for i, h in enumerate(self.hits) if h.id == keep), 0)
            self.highlighted = index

    # ---- drawing -------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        # Spans with a background of their own (badges, matches) are resolved in full,
        # so their translucent colours blend; the rest keep the option's background.
        solid = name == "match" or name.startswith("badge")
        return self.get_component_rich_style(f"result-list--{name}", partial=not solid)

    def _badge(self, kind: str) -> Text:
        label = KIND_LABELS.get(kind, kind)
        cls = {"prompt": "badge-prompt", "history": "badge-prompt", "assistant":
               "badge-assistant", "tool_call": "badge-tool", "tool_result": "badge-tool"}.get(
                   kind, "badge-other")
        return Text.assemble((f" {label} ", self._style(cls)))

    def _snippet(self, hit: Hit, lines: int) -> Text:
        width = self.scrollable_content_region.width - 3
        width = width if width > 10 else 60
        text, spans = fit_snippet(hit.snippet, hit.highlights,
                                  width * lines - (len(KIND_LABELS.get(hit.kind, hit.kind)) + 3
                                                   if lines == 1 else 2))
        snippet = Text.assemble((text, self._style("snippet")))
        for start, end in spans:
            snippet.stylize(self._style("match"), start, end)
        return snippet

    def _hit_prompt(self, hit: Hit) -> Text:
        out = self._badge(hit.kind)
        out.append(" ")
        out.append(hit.title or "(untitled)", self._style("title"))
        out.append("\n")
        meta = f"{project_name(hit.project) or '—'} · {when(hit.timestamp)}"
        if hit.tool:
            meta += f" · {hit.tool}"
        if hit.agent_id:
            meta += " · subagent"
        out.append(meta, self._style("meta"))
        out.append("\n")
        out.append_text(self._snippet(hit, 2))
        return out

    def _group_prompt(self, group: SessionGroup) -> Text:
        best = group.hits[0]
        out = Text.assemble((group.title or best.title or "(untitled)", self._style("title")))
        out.append(f"  {group.hit_count} hit{'s' if group.hit_count != 1 else ''}",
                   self._style("count"))
        out.append("\n")
        out.append(f"{project_name(group.project) or '—'} · {when(group.timestamp)}",
                   self._style("meta"))
        for h in group.hits[:2]:
            out.append("\n")
            out.append_text(self._badge(h.kind))
            out.append(" ")
            out.append_text(self._snippet(h, 1))
        return out

    # ---- events --------------------------------------------------------------------
    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index < len(self.hits):
            self.post_message(self.HitHighlighted(self.hits[event.option_index]))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.hits):
            self.post_message(self.HitChosen(self.hits[event.option_index]))
