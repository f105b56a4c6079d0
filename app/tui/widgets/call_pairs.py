"""Which tool result belongs under which tool call, in the pages of a transcript on hand.

A transcript lists entries in the order Claude Code wrote them. Parallel calls are
written as all the calls, then all the results: read that way, a result sits apart from
the call it answers, under another one. Replay draws each result under its call instead
(matched by `tool_use_id`) and draws nothing where the result was written. The entry
numbers do not change: a hidden result keeps its index (the cursor, search hits and
time jumps that land on it are shown at its call).

Only pages that are loaded can be paired; a result whose call is not on hand (yet) is
drawn where it is, as before.
"""

from __future__ import annotations

from collections.abc import Mapping

from ccarchive.service.models import Entry

PAIR_WINDOW = 100
"""A result is drawn under its call only if it comes at most this many entries later
(both are then nearly always on hand together: the view reads half a page around)."""


class CallPairs:
    """Call index <-> result index, rebuilt whenever the view's pages change."""

    def __init__(self) -> None:
        self.result_of: dict[int, int] = {}
        """Call index -> the index of its result (drawn under the call)."""
        self.call_of: dict[int, int] = {}
        """Result index -> the index of its call (the result draws nothing of its own)."""

    def clear(self) -> None:
        self.result_of.clear()
        self.call_of.clear()

    def rebuild(self, pages: Mapping[int, list[Entry]], page_size: int) -> None:
        """Pair every loaded result with the loaded call of the same `tool_use_id`."""
        self.clear()
        calls: dict[str, int] = {}
        for page_no in sorted(pages):
            base = page_no * page_size
            for i, e in enumerate(pages[page_no]):
                tid = e.tool_use_id
                if not tid:
                    continue
                if e.kind == "tool_call":
                    calls[tid] = base + i
                elif e.kind == "tool_result":
                    call = calls.pop(tid, None)
                    if call is not None and 0 < base + i - call <= PAIR_WINDOW:
                        self.result_of[call] = base + i
                        self.call_of[base + i] = call

    def hidden(self, index: int) -> bool:
        """A result drawn under its call (nothing is drawn at its own place)."""
        return index in self.call_of

    def shown(self, index: int) -> int:
        """Where an entry is seen: a hidden result at its call, anything else in place."""
        return self.call_of.get(index, index)
