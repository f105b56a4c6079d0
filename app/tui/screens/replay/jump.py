"""Replay's `t`: ask for a time, find the entry, say honestly where it landed.

The parsing and the wording are in `time_jump`; this mixin asks (an `AskDialog`),
searches the entry times in a worker (a binary search, one single-entry read per step)
and moves the cursor. Mixed into `ReplayScreen`, which supplies `place` and `view`.
"""

from __future__ import annotations

from datetime import datetime

from textual import work

from ccarchive.tui.screens.replay.place import ReplayPart
from ccarchive.tui.screens.replay.time_jump import JumpOutcome, When, jump_outcome, parse_jump
from ccarchive.tui.widgets.ask_dialog import AskDialog


class TimeJump(ReplayPart):
    """The jump-to-a-time action of replay."""

    def action_jump_time(self) -> None:
        self.app.push_screen(AskDialog(
            "Jump to a time", placeholder="14:05   +10m   2026-11-14 14:05",
            help="A clock time (local, on the current entry's day), a time after the "
                 "start (+10m, +1h30m), or a date and time."), self._jump_answered)

    def _jump_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        cur = self.view.entry(self.view.cursor)
        first = self.view.entry(0)
        start = (first.timestamp if first and first.timestamp else None) \
            or place.info.first_activity
        try:
            when = parse_jump(answer, cur.timestamp if cur else None, start)
        except ValueError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self._find_time(place.key, place.session_id, place.agent_id, self.view.total, when)

    @work(thread=True, exclusive=True, group="transcript-jump", exit_on_error=False,
          description="Finding the time in the transcript")
    def _find_time(self, key: int, session_id: str, agent_id: str, total: int,
                   when: When) -> None:
        """Binary search on entry times, one single-entry read per step (~17 for 100k),
        and the first and last times, so that a time outside the transcript says so."""
        service = self.app.service  # type: ignore[attr-defined]

        def stamps(start: int, limit: int) -> list[datetime]:
            page = service.transcript(session_id, agent_id=agent_id or None,
                                      start=max(0, start), limit=max(1, limit), max_chars=1)
            return [e.timestamp for e in page.entries if e.timestamp is not None]

        lo, hi = 0, max(0, total - 1)
        while lo < hi:
            mid = (lo + hi) // 2
            ts = stamps(mid, 1)
            if ts and ts[0] < when.at:
                lo = mid + 1
            else:
                hi = mid
        head, tail, found = stamps(0, 20), stamps(total - 20, 20), stamps(lo, 1)
        outcome = jump_outcome(when, lo, found[0] if found else None, total,
                               head[0] if head else None, tail[-1] if tail else None)
        self.app.call_from_thread(self._time_found, key, outcome)

    def _time_found(self, key: int, outcome: JumpOutcome) -> None:
        place = self.place
        if place is not None and key == place.key:  # still the transcript it was asked in
            self.view.move_cursor(outcome.index)
            self.notify(outcome.message, severity="warning" if outcome.moved_to_end
                        else "information", timeout=6 if outcome.moved_to_end else 3,
                        markup=False)
