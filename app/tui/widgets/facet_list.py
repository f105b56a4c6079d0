"""The facet sidebar: projects, kinds and a date range, each a toggle that filters.

Kinds the results leave out (tool output and thinking, unless asked for) are not counted
among the others, which add up to the results' count: they are named on a line of their
own with the key that brings them in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ccarchive.service.models import Facets
from ccarchive.tui.widgets.result_list import KIND_LABELS, project_name

DATE_CHOICES: tuple[tuple[str, str], ...] = (
    ("today", "today"),
    ("7d", "last 7 days"),
    ("30d", "last 30 days"),
    ("1y", "last year"),
)
"""(since value for the service, label)."""


@dataclass
class Filters:
    """What the facets filter on (the search screen owns one and passes it down)."""

    project: str | None = None
    kinds: set[str] = field(default_factory=set)
    since: str | None = None

    def active(self) -> bool:
        return bool(self.project or self.kinds or self.since)

    def describe(self) -> list[str]:
        out = []
        if self.project:
            out.append(f"project:{project_name(self.project)}")
        out.extend(f"kind:{k}" for k in sorted(self.kinds))
        if self.since:
            out.append(f"after:{self.since}")
        return out


class FacetList(OptionList):
    """Counts for the current query; Enter or a click toggles a filter."""

    COMPONENT_CLASSES = {
        "facet-list--heading",
        "facet-list--on",
        "facet-list--count",
        "facet-list--range",
    }
    """Styled from styles/search.tcss."""

    DEFAULT_CSS = """
    FacetList {
        /* a long project name ends in … on its one line; wrapped, it took three */
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    @dataclass
    class Toggled(Message):
        """A facet was chosen: `facet` is project | kind | since."""

        facet: str
        value: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._actions: dict[str, tuple[str, str]] = {}

    def show(self, facets: Facets | None, filters: Filters, left_out: tuple[str, ...] = ()) -> None:
        """Redraw for new counts and filters, keeping the cursor where it was; `left_out`:
        the kinds the results leave out (named apart, never counted)."""
        keep = self.highlighted
        self.clear_options()
        self._actions = {}
        heading = self.get_component_rich_style("facet-list--heading", partial=True)
        on = self.get_component_rich_style("facet-list--on", partial=True)
        count = self.get_component_rich_style("facet-list--count", partial=True)
        options: list[Option | None] = []

        def item(facet: str, value: str, label: str, n: int | None, active: bool) -> None:
            key = f"{facet}:{value}"
            self._actions[key] = (facet, value)
            text = Text.assemble(("● " if active else "  ", on))
            text.append(label, on if active else "")
            if n is not None:
                text.append(f" {n:,}", count)
            options.append(Option(text, id=key))

        options.append(Option(Text("PROJECTS", heading), disabled=True))
        projects = list(facets.projects if facets else [])
        if filters.project and all(p.value != filters.project for p in projects):
            item("project", filters.project, project_name(filters.project), None, True)
        for p in projects[:12]:
            item("project", p.value, project_name(p.value), p.count, p.value == filters.project)
        options.append(None)
        options.append(Option(Text("KINDS", heading), disabled=True))
        for k in facets.kinds if facets else []:
            if k.value in left_out:
                continue
            item(
                "kind",
                k.value,
                KIND_LABELS.get(k.value, k.value),
                k.count,
                k.value in filters.kinds,
            )
        if left_out:
            dim = self.get_component_rich_style("facet-list--range", partial=True)
            names = ", ".join(KIND_LABELS.get(k, k) for k in left_out)
            options.append(Option(Text("  left out (ctrl+t):", dim), disabled=True))
            options.append(Option(Text(f"  {names}", dim), disabled=True))
        options.append(None)
        options.append(Option(Text("DATES", heading), disabled=True))
        if facets and facets.first and facets.last:
            first, last = facets.first.astimezone(), facets.last.astimezone()
            span = (
                f"  {first:%d %b %Y}"
                if first.date() == last.date()
                else f"  {first:%d %b} – {last:%d %b %Y}"
            )
            options.append(
                Option(
                    Text(span, self.get_component_rich_style("facet-list--range", partial=True)),
                    disabled=True,
                )
            )
        for value, label in DATE_CHOICES:
            item("since", value, label, None, filters.since == value)
        self.add_options(options)
        if keep is not None and keep < self.option_count:
            self.highlighted = keep

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        action = self._actions.get(event.option.id or "")
        if action:
            self.post_message(self.Toggled(*action))
