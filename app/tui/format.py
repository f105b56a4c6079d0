"""Short human figures for the panes (tokens, durations, ages, projects, models).

Also the panes' clock: relative times and "active in the last minutes" read `now()`,
which tests pin to the demo archive's fixed "now" so snapshots never depend on the day.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from textual import active_app

from ccarchive.service.naming import last_part
from ccarchive.text import clip

CLOCK: Callable[[], datetime] = lambda: datetime.now(UTC)  # noqa: E731
"""Where the panes read the time; tests replace it with a fixed clock."""


def now() -> datetime:
    """The panes' current time (UTC, aware)."""
    return CLOCK()


def human_count(n: int) -> str:
    """1234 -> '1.2k', 2_600_000 -> '2.6M'."""
    if n < 1000:
        return str(n)
    for div, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1000, "k")):
        if n >= div:
            v = n / div
            return f"{v:.1f}{unit}" if v < 10 else f"{v:.0f}{unit}"
    return str(n)  # pragma: no cover


def human_bytes(n: int) -> str:
    """Bytes as B / KB / MB / GB (powers of 1024)."""
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" or size >= 10 else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def human_duration(seconds: float) -> str:
    """92 -> '1m 32s', 1752 -> '29m', 63236 -> '17h 34m'."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 600:
        return f"{s // 60}m {s % 60:02d}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    return f"{s // 86400}d {s % 86400 // 3600}h"


def ago(when: datetime | None, ref: datetime | None = None) -> str:
    """'12s ago', '5m ago', '3h ago', '2d ago', else the date."""
    if when is None:
        return "–"
    delta = ((ref or now()) - when).total_seconds()
    if delta < 0:
        delta = 0
    if delta < 60:
        return f"{int(delta)}s ago"
    if delta < 3600:
        return f"{int(delta // 60)}m ago"
    if delta < 86400:
        return f"{int(delta // 3600)}h ago"
    if delta < 86400 * 30:
        return f"{int(delta // 86400)}d ago"
    return when.strftime("%d %b %Y")


def local(when: datetime | None, fmt: str = "%d %b %H:%M") -> str:
    """A timestamp in the reader's zone (UTC in tests)."""
    if when is None:
        return "–"
    return when.astimezone().strftime(fmt) if _LOCAL else when.strftime(fmt)


_LOCAL = True
"""Show local times; tests turn this off for stable snapshots."""


def short_project(path: str) -> str:
    """A project's name as the service gives it (`ArchiveService.project_name`): the
    shortest suffix of its path that no other project of the archive shares ('tally',
    'work/cli', 'cli/.worktrees/3'); '–' for none.

    The service is the running app's: panes and widgets call this while they draw,
    where Textual knows the active app. Outside an app (or one with no service) the
    last folder of the path stands in.
    """
    if not path:
        return "–"
    try:
        service = active_app.get().service  # type: ignore[attr-defined]
    except (LookupError, AttributeError):
        service = None
    if service is not None:
        try:
            return service.project_name(path) or path
        except Exception:  # an index being created has no searcher yet
            pass
    return last_part(path)


def fit_name(name: str, width: int) -> str:
    """A project's short name cut to `width` cells from the side that keeps it distinct.

    The service's short names are the shortest suffix no other project shares, so their
    last folder tells them apart (`cli/.worktrees/3` from `…/4`) and their first says
    where they are: the middle goes first (`cli/…/3`, `Work/…/cli`), then the front of
    the last folder (`…text-output-flag`). A name that fits is left as it is.
    """
    if width <= 0:
        return ""
    if len(name) <= width:
        return name
    head, sep, tail = name.partition("/")
    if sep and "/" in tail:
        last = tail.rsplit("/", 1)[1]
        keep = width - len(last) - 2  # the `…` and the `/` before the last folder
        if keep >= 1:
            return f"{name[:keep]}…/{last}"
    return "…" + name[-(width - 1) :] if width > 1 else "…"


def name_width(names: list[str], cap: int, floor: int = 7) -> int:
    """The width of a column of project names: the longest name, within [floor, cap]."""
    longest = max((len(n) for n in names), default=floor)
    return max(floor, min(cap, longest))


_MODEL = re.compile(r"^claude-(?:(\d+)-(\d+)-)?([a-z]+)(?:-(\d+))?(?:-(\d+))?(?:-\d{8})?$")


def short_model(model: str) -> str:
    """'claude-opus-4-7' -> 'opus 4.7', 'claude-sonnet-4-5-20250929' -> 'sonnet 4.5'."""
    m = _MODEL.match(model)
    if not m:
        return model
    old_major, old_minor, family, major, minor = m.groups()
    if old_major:  # claude-3-5-sonnet-...
        return f"{family} {old_major}.{old_minor}"
    if major and minor:
        return f"{family} {major}.{minor}"
    return f"{family} {major}" if major else family


def one_line(text: str, width: int = 0) -> str:
    """Whitespace folded to single spaces, cut with an ellipsis at `width`."""
    flat = " ".join(text.split())
    if width and len(flat) > width:
        return clip(flat, width)
    return flat
