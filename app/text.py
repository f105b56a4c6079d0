"""Text cut to a width, its end marked with an ellipsis: one rule for every front end.

Titles, tool lines, snippets of a prompt, warnings quoting a query, error details: each
is shown in a bounded space, and a reader must see when something was left out. The cut
never leaves a space before the ellipsis.
"""

from __future__ import annotations

ELLIPSIS = "…"


def clip(text: str, width: int) -> str:
    """`text` in at most `width` characters: as it is if it fits, else its start and `…`."""
    if len(text) <= width:
        return text
    return text[: max(0, width - 1)].rstrip() + ELLIPSIS
