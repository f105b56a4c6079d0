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
    """Call index <-> result index, kept as the view's pages come and go."""

    def __init__(self) -> None:
        self.result_of: dict[int, int] = {}
        """Call index -> the index of its result (drawn under the call)."""
        self.call_of: dict[int, int] = {}
        """Result index -> the index of its call (the result draws nothing of its own)."""

    def clear(self) -> None:
        self.result_of.clear()
        self.call_of.clear()

    def page_added(self, pages: Mapping[int, list[Entry]], page_no: int, page_size: int) -> None:
        """Pair the results and calls of a page just loaded (or loaded again) with each
        other and with the pages beside it: a pair spans at most `PAIR_WINDOW` entries,
        less than a page, so no other pair can change (a few hundred entries are read,
        not every page on hand)."""
        self.page_dropped(page_no, page_size)
        lo, hi = page_no * page_size, (page_no + 1) * page_size
        calls: dict[str, int] = {}
        for near in (page_no - 1, page_no, page_no + 1):
            base = near * page_size
            for i, e in enumerate(pages.get(near, ())):
                tid = e.tool_use_id
                if not tid:
                    continue
                if e.kind == "tool_call":
                    calls[tid] = base + i
                elif e.kind == "tool_result":
                    call = calls.pop(tid, None)
                    res = base + i
                    if (
                        call is None
                        or not 0 < res - call <= PAIR_WINDOW
                        or not (lo <= call < hi or lo <= res < hi)
                        or call in self.result_of
                        or res in self.call_of
                    ):
                        continue
                    self.result_of[call] = res
                    self.call_of[res] = call

    def page_dropped(self, page_no: int, page_size: int) -> None:
        """Forget the pairs with an end in a page that is no longer on hand."""
        for i in range(page_no * page_size, (page_no + 1) * page_size):
            call = self.call_of.pop(i, None)
            if call is not None:
                self.result_of.pop(call, None)
            res = self.result_of.pop(i, None)
            if res is not None:
                self.call_of.pop(res, None)

    def hidden(self, index: int) -> bool:
        """A result drawn under its call (nothing is drawn at its own place)."""
        return index in self.call_of

    def shown(self, index: int) -> int:
        """Where an entry is seen: a hidden result at its call, anything else in place."""
        return self.call_of.get(index, index)
