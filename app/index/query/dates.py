"""Dates of the search language: `after:`/`before:` values, absolute or relative.

Absolute dates are read in the time zone of `now` (local time by default); the index
stores UTC. Tantivy dates are i64 nanoseconds, so bounds are clamped to what it holds.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

# Tantivy dates are i64 nanoseconds: roughly 1677-09-21 .. 2262-04-11.
MIN_TS = datetime(1678, 1, 1, tzinfo=UTC)
MAX_TS = datetime(2262, 1, 1, tzinfo=UTC)

# ---- dates -------------------------------------------------------------------------
# Patterns, not compiled regexes: `re.fullmatch` compiles them on the first date read
# (and caches them), not at import on the path of every search (~0.5 ms).
_RELATIVE = r"(\d{1,6})\s*(h|hours?|d|days?|w|weeks?|m|months?|y|years?)"
_ABSOLUTE = (
    r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})"
    r"(?:[t ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(z|[+-]\d{2}:?\d{2})?)?)?)?"
)
DATE_FORMS = "2026-02-01, 2026-02, 2026, 2026-02-01T10:00, 12h, 7d, 2w, 3m, 1y, today, yesterday"


def parse_date_bound(value: str, *, now: datetime) -> datetime:
    """Read a date bound: the instant it starts, in the time zone of `now`.

    Absolute: `2026`, `2026-02`, `2026-02-01`, `2026-02-01T10:00[:ss][Z|+hh:mm]` (a space
    instead of `T` works too). Relative to `now`: `12h` (hours, exact), `7d`, `2w`, `3m`
    (months), `1y` (start of that day), `today`, `yesterday`, `now`. A date without a time
    means the start of that day (or month, or year), so `after:` includes it and `before:`
    excludes it. A naive `now` is taken as UTC. Raises ValueError with a message fit to
    show a user.
    """
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    v = value.strip().lower()
    if not v:
        raise ValueError(f"no date given; use one of {DATE_FORMS}")
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        if v == "now":
            return now
        if v == "today":
            return today
        if v == "yesterday":
            return today - timedelta(days=1)
        m = re.fullmatch(_RELATIVE, v)
        if m:
            n, unit = int(m.group(1)), m.group(2)[0]
            if unit == "h":
                return now - timedelta(hours=n)
            if unit == "d":
                return today - timedelta(days=n)
            if unit == "w":
                return today - timedelta(weeks=n)
            return _add_months(today, -n if unit == "m" else -12 * n)
    except (OverflowError, ValueError):
        raise ValueError(f"{value.strip()!r} reaches too far back") from None
    m = re.fullmatch(_ABSOLUTE, v)
    if not m:
        raise ValueError(f"{value.strip()!r} is not a date; use one of {DATE_FORMS}")
    year, month, day, hour, minute, second, offset = m.groups()
    tz = now.tzinfo
    if offset:
        tz = UTC if offset == "z" else _parse_offset(offset)
    try:
        return datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=tz,
        )
    except ValueError as e:
        raise ValueError(f"{value.strip()!r} is not a valid date ({e})") from None


def _parse_offset(text: str) -> timezone:
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise ValueError(f"{text!r} is not a valid UTC offset")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _add_months(dt: datetime, months: int) -> datetime:
    import calendar  # here: ~0.7 ms to import, and only `3m`/`1y` dates need it

    total = dt.year * 12 + (dt.month - 1) + months
    year, month0 = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise ValueError("year out of range")
    day = min(dt.day, calendar.monthrange(year, month0 + 1)[1])
    return dt.replace(year=year, month=month0 + 1, day=day)
