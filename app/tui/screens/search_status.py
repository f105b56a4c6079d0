"""The search pane's status line, and which kinds its results leave out.

The line says, in this order, what never may be cut: how many entries match (and in how
many sessions), the facet filters in force, each warning about what the query ignored,
then the ctrl+t hint, shortened when the line would not fit. It wraps rather than hide a
warning at 80 columns.
"""

from __future__ import annotations

from rich.text import Text

from ccarchive.service.models import SearchPage, SessionGroup
from ccarchive.tui.widgets.facet_list import Filters

LEFT_OUT_KINDS = ("thinking", "tool_result")
"""Kinds the results leave out unless ctrl+t (or a kind filter) asks for them."""


def left_out_kinds(query: str, kinds: list[str], all_kinds: bool) -> tuple[str, ...]:
    """The kinds the results leave out: none when the query (`kind:`) or a facet names
    kinds, or ctrl+t asked for everything."""
    if all_kinds or kinds or "kind:" in query:
        return ()
    return LEFT_OUT_KINDS


def status_text(
    page: SearchPage,
    groups: list[SessionGroup] | None,
    filters: Filters,
    *,
    timing: bool,
    left_out: bool,
    width: int,
) -> Text:
    """Count first (it never wraps away), filters, warnings, then the ctrl+t hint."""
    out = Text()
    # a query of nothing but ignored words matched everything: what is listed is the
    # recent activity, and the count of "matches" would be the whole archive
    what = (
        "recent activity" if not page.query.strip() or page.ignored else f"{page.total:,} matching"
    )
    if page.ignored:
        what = "nothing to search for: recent activity"
    out.append(what, "dim")
    if groups is not None:
        out.append(f" · {len(groups)} session{'s' if len(groups) != 1 else ''}", "dim")
    if timing:
        out.append(f" · {page.elapsed_ms:.0f} ms", "dim")
    if filters.active():
        out.append("   filters: ", "dim")
        out.append(" ".join(filters.describe()), "bold")
    for w in page.warnings:
        out.append("   ")
        out.append(f"⚠ {w if len(w) <= 200 else w[:199] + '…'}", "bold yellow")
    if left_out:
        hint = " · tool output and thinking left out (ctrl+t)"
        if out.cell_len + len(hint) > width:
            hint = " · ctrl+t: tool output too"
        out.append(hint, "dim")
    return out
