"""Time in replay: the pace of playing, and jumping to a time a person types.

A jump says what happened, honestly: a time before the transcript's first entry or after
its last goes to that end and says so, an offset past the end says how long the
transcript lasts, and a date is part of the time (it is shown whenever the day is not
obvious). Nothing here touches a widget; the screen reads the transcript's first and
last times and the entry found, and `jump_outcome` words the result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

SPEEDS: tuple[tuple[str, float | None], ...] = (
    ("1x", 1.0),
    ("10x", 10.0),
    ("100x", 100.0),
    ("steps", None),
)
"""Replay speeds: the recorded pace times a factor, or fixed steps."""
STEP_DELAY = 0.6
"""Seconds between entries at fixed steps."""
IDLE_CAP = 30.0
"""A recorded pause longer than this (lunch, a night) plays as this long (then scaled)."""
MIN_DELAY = 0.03

_OFFSET = re.compile(r"\+\s*((?:\d+(?:\.\d+)?\s*[dhms]?\s*)+)")
_OFFSET_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([dhms]?)")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
_MONTH_DAY = re.compile(r"(\d{1,2})-(\d{1,2})(?:[ T](.+))?")
UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1, "": 60}
HELP = "try 14:05, +10m, +1h30m, 2026-11-14 or 2026-11-14 14:05"


def replay_delay(prev: datetime | None, nxt: datetime | None, speed: float | None) -> float:
    """How long to wait before showing the next entry.

    Args:
        prev: time of the current entry.
        nxt: time of the next one.
        speed: factor on the recorded pace, or None for fixed steps.

    Returns:
        Seconds: the recorded gap (idle pauses capped at `IDLE_CAP`) over the speed.
    """
    if speed is None:
        return STEP_DELAY
    if prev is None or nxt is None:
        return MIN_DELAY
    gap = min(max(0.0, (nxt - prev).total_seconds()), IDLE_CAP)
    return max(MIN_DELAY, gap / speed)


@dataclass(frozen=True)
class When:
    """A time to jump to, and how the person wrote it."""

    at: datetime
    text: str
    offset: timedelta | None = None
    """Set for `+10m`: the time is this long after the start."""
    dated: bool = False
    """The person gave a date (it is then always shown back)."""


def parse_when(text: str, base: datetime | None, start: datetime | None) -> datetime:
    """A time to jump to (see `parse_jump`), as a datetime."""
    return parse_jump(text, base, start).at


def parse_jump(text: str, base: datetime | None, start: datetime | None) -> When:
    """A time to jump to: `14:05`, `14:05:30`, `+10m` / `+1h30m` / `+90s` / `+2d` from
    the start, `2026-11-14` (its first minute), `2026-11-14 14:05` or `11-14 14:05`.

    Clock times are local, on the day of `base` (the current entry). Raises ValueError
    with a hint when the text is none of these.
    """
    text = " ".join(text.split())
    m = _OFFSET.fullmatch(text)
    if m:
        if start is None:
            raise ValueError("this transcript has no start time to count from")
        seconds = sum(float(n) * UNIT_SECONDS[u] for n, u in _OFFSET_PART.findall(m.group(1)))
        try:
            return When(start + timedelta(seconds=seconds), text, timedelta(seconds=seconds))
        except OverflowError as exc:
            raise ValueError(f"{text} is too far: {HELP}") from exc
    local = (base or datetime.now(UTC)).astimezone()
    m = _CLOCK.fullmatch(text)
    if m:
        try:
            at = local.replace(
                hour=int(m.group(1)),
                minute=int(m.group(2)),
                second=int(m.group(3) or 0),
                microsecond=0,
            )
        except ValueError as exc:
            raise ValueError(f"{text!r} is not a clock time: {HELP}") from exc
        return When(at, text)
    m = _MONTH_DAY.fullmatch(text)
    if m:  # a month and day of the current entry's year
        text_full = f"{local.year}-{int(m.group(1)):02d}-{int(m.group(2)):02d}" + (
            f" {m.group(3)}" if m.group(3) else ""
        )
        return When(_iso(text_full, text), text, dated=True)
    return When(_iso(text, text), text, dated=True)


def _iso(text: str, shown: str) -> datetime:
    try:
        dt = datetime.fromisoformat(text.replace("/", "-"))
    except ValueError as exc:
        raise ValueError(f"{shown!r} is not a time: {HELP}") from exc
    return dt if dt.tzinfo else dt.astimezone()


def _span(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    minutes = seconds // 60
    if minutes == 0:
        return f"{seconds} s"
    if minutes < 60:
        return f"{minutes} min"
    if minutes < 24 * 60:
        return f"{minutes // 60}h {minutes % 60:02d}m"
    return f"{minutes // 1440}d {minutes % 1440 // 60}h"


def show_time(dt: datetime, *, dated: bool) -> str:
    """Local `14:05:12`, with its date in front when `dated`."""
    return dt.astimezone().strftime("%Y-%m-%d %H:%M:%S" if dated else "%H:%M:%S")


@dataclass(frozen=True)
class JumpOutcome:
    """Where a jump lands and what to tell the person."""

    index: int
    message: str
    moved_to_end: bool = False
    """The time was outside the transcript: it went to the first or last entry."""


def jump_outcome(
    when: When,
    found: int,
    found_at: datetime | None,
    total: int,
    first: datetime | None,
    last: datetime | None,
) -> JumpOutcome:
    """Word a jump: `found` is the first entry at or after `when.at` (total if none).

    Args:
        when: what was asked.
        found: the index a search on entry times gave.
        found_at: that entry's time.
        total: entries in the transcript.
        first: the first entry's time; last: the last one's.
    """
    local_days = {d.astimezone().date() for d in (when.at, first, last) if d is not None}
    dated = when.dated or len(local_days) > 1
    asked = show_time(when.at, dated=dated)
    if when.offset is not None:
        asked = f"{when.text} ({asked})"
    if first is not None and when.at < first:
        return JumpOutcome(
            0,
            f"{asked} is before this transcript starts "
            f"({show_time(first, dated=dated)}): at the first entry.",
            True,
        )
    if last is not None and when.at > last:
        end = max(0, total - 1)
        if when.offset is not None and first is not None:
            return JumpOutcome(
                end,
                f"{when.text} is past the end: this transcript lasts "
                f"{_span(last - first)}. At the last entry "
                f"({show_time(last, dated=dated)}).",
                True,
            )
        return JumpOutcome(
            end,
            f"{asked} is after this transcript ends "
            f"({show_time(last, dated=dated)}): at the last entry.",
            True,
        )
    index = min(found, max(0, total - 1))
    at = f" ({show_time(found_at, dated=dated)})" if found_at is not None else ""
    return JumpOutcome(index, f"Jumped to entry {index + 1:,}{at}, the first at or after {asked}.")
