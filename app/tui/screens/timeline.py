"""Timeline pane: activity per day, week or month, and the sessions of the selected bucket.

The screen only wires things: the chart (`ActivityChart`) and the session table
(`DaySessions`) own their drawing; queries run in thread workers and come back as
messages, tagged with a request number so that an older answer never overwrites a
newer one.

The range opens on the window that ends at the archive's last activity (an archive last
used months ago shows its activity, not a month of empty days); changing between days,
weeks and months keeps the bucket that holds the day picked last.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Select, Static

from ccarchive.service.browse import bucket_start, bucket_window, next_bucket
from ccarchive.service.models import DayActivity, ProjectInfo, SessionInfo, Timeline
from ccarchive.service.naming import plural
from ccarchive.tui.format import fit_name, human_count, now, short_project
from ccarchive.tui.messages import IndexUpdated, OpenSession
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.status_header import ArchiveHeader
from ccarchive.tui.widgets.timeline_chart import ActivityChart
from ccarchive.tui.widgets.timeline_sessions import DaySessions

WINDOWS = {"day": 30, "week": 26, "month": 12}
"""Buckets shown per bucket kind: a month of days, half a year of weeks, a year of months."""


def _day(d: str) -> datetime:
    return datetime.combine(date.fromisoformat(d), time(), tzinfo=UTC)


def _selected(
    days: list[DayActivity], key: str | None, within: tuple[str, str] | None = None
) -> int:
    """The bucket to select: the kept one, else the last with activity (in `within`, the
    [first, end) days of a coarser bucket, when given), else the last."""
    keys = [b.day for b in days]
    if key in keys and within is None:
        return keys.index(key)
    inside = [i for i, b in enumerate(days) if within is None or within[0] <= b.day < within[1]]
    active = [i for i in inside if days[i].sessions or days[i].prompts]
    if active:
        return active[-1]
    if key in keys:
        return keys.index(key)
    return inside[0] if inside else len(keys) - 1


def last_active_day(projects: list[ProjectInfo], project: str | None) -> date | None:
    """The (UTC) day of the last activity of the archive, or of one project."""
    last = [
        p.last_activity for p in projects if p.last_activity and (not project or p.path == project)
    ]
    return max(last).astimezone(UTC).date() if last else None


def range_label(tl: Timeline) -> str:
    """`03 Nov – 02 Dec 2026` by day or week, `Dec 2025 – Nov 2026` by month."""
    first, last = tl.since, tl.until - timedelta(days=1)
    if tl.bucket == "month":
        return f"{first:%b %Y} – {last:%b %Y}"
    head = f"{first:%d %b %Y}" if first.year != last.year else f"{first:%d %b}"
    return f"{head} – {last:%d %b %Y}"


def _bucket_range(day: str, kind: str, tl: Timeline | None) -> tuple[datetime, datetime]:
    """[start, end) of the bucket starting on `day`, clipped to the timeline's range."""
    start = _day(day)
    end = next_bucket(start, kind)
    if tl is not None:
        start, end = max(start, tl.since), min(end, tl.until)
    return start, end


def _count(n: int, word: str) -> str:
    return plural(n, word, shown=f"[b]{human_count(n)}[/]")


SELECT_NAME = 16
"""A project's name in the project drop-down at most (it is 22 cells wide at 80
columns)."""


class TimelineScreen(PaneScreen):
    """When things happened: an activity chart and the sessions of the selected bucket."""

    AUTO_FOCUS = "#timeline-chart"
    """Focused on first show."""

    first_frame_complete = True

    BINDINGS = [
        Binding("d", "bucket('day')", "Days", tooltip="One bar per day (30 days)"),
        Binding("w", "bucket('week')", "Weeks", tooltip="One bar per week (26 weeks)"),
        Binding("m", "bucket('month')", "Months", tooltip="One bar per month (12 months)"),
        Binding(
            "left_square_bracket", "shift(-1)", "Earlier", tooltip="Move the range one window back"
        ),
        Binding(
            "right_square_bracket", "shift(1)", "Later", tooltip="Move the range one window forward"
        ),
        Binding("t", "today", "Today", show=False, tooltip="Range ending today"),
        Binding("f", "focus_project", "Project", tooltip="Filter by project"),
        Binding("o", "open_session", "Open", tooltip="Open the selected session in replay"),
        Binding(
            "enter",
            "open_session",
            "Open",
            show=False,
            tooltip="Open the selected session in replay (from the chart too)",
        ),
        Binding(
            "left",
            "step(-1)",
            "Earlier bucket",
            show=False,
            tooltip="The bucket before (from anywhere in the pane)",
        ),
        Binding(
            "right",
            "step(1)",
            "Later bucket",
            show=False,
            tooltip="The bucket after (from anywhere in the pane)",
        ),
        Binding(
            "escape",
            "focus_chart",
            "Chart",
            show=False,
            tooltip="Back to the chart (from the project filter or the sessions)",
        ),
    ]

    @dataclass
    class TimelineLoaded(Message):
        """A timeline query came back."""

        request: int
        timeline: Timeline | None
        projects: list[str]
        error: str | None = None
        latest: date | None = None
        """The day of the last activity (of the project filtered on): where the range
        ends unless the reader moved it."""
        sessions: tuple[str, list[SessionInfo], int] | None = None
        """The selected bucket's sessions (its first day, sessions, total), read with
        the timeline: shown at once, with no second query and frame."""

    @dataclass
    class SessionsLoaded(Message):
        """The sessions of one bucket came back."""

        request: int
        sessions: list[SessionInfo]
        total: int
        error: str | None = None

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.bucket_kind = "day"
        self.end: date | None = None
        """Last day of the range; None: the day of the last activity (follows it)."""
        self.project: str | None = None
        self.selected_key: str | None = None
        """The selected bucket's first day: kept across reloads."""
        self.picked: tuple[str, bool] | None = None
        """The day picked last, and whether it was picked as a day (not as the first
        day of a week or month): the bucket kept when the bucket kind changes."""
        self._within: tuple[str, str] | None = None
        """After a change to finer buckets: the coarser bucket to select a day within."""
        self._latest: date | None = None
        self._tl_request = 0
        self._ss_request = 0
        self._timeline: Timeline | None = None
        self._generation = -1
        self._projects_known: list[str] = []

    # ---- layout -------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Timeline")
        with Horizontal(id="timeline-bar"):
            yield Static("Timeline", id="timeline-title")
            yield Static("", id="timeline-range")
            yield Select[str]([], prompt="All projects", id="timeline-project", allow_blank=True)
        yield ActivityChart(id="timeline-chart")
        yield Static("", id="timeline-day")
        yield DaySessions(id="timeline-sessions")
        yield KeyFooter()

    def on_mount(self) -> None:
        # The first timeline is read here, before the first frame, rather than in a
        # worker: its queries are cheap (~5 ms on the 1 GB archive) next to drawing the
        # pane once empty and again with its data. Later reloads stay in a worker.
        self.reload(inline=True)

    # ---- queries -------------------------------------------------------------------
    def reload(self, *, inline: bool = False) -> None:
        """Re-run the timeline query (keeps the selected bucket and session); `inline`:
        in this call rather than in a worker."""
        self._tl_request += 1
        args = (
            self._tl_request,
            self.end,
            self.bucket_kind,
            self.project,
            self.selected_key,
            self._within,
        )
        if inline:
            self._timeline_loaded(self._fetch_timeline(*args))
        else:
            self._load_timeline(*args)

    @work(thread=True, group="timeline", exclusive=True, exit_on_error=False)
    def _load_timeline(
        self,
        request: int,
        end: date | None,
        kind: str,
        project: str | None,
        selected_key: str | None = None,
        within: tuple[str, str] | None = None,
    ) -> None:
        self.post_message(self._fetch_timeline(request, end, kind, project, selected_key, within))

    def _fetch_timeline(
        self,
        request: int,
        end: date | None,
        kind: str,
        project: str | None,
        selected_key: str | None = None,
        within: tuple[str, str] | None = None,
    ) -> TimelineLoaded:
        """The timeline, the projects and the selected bucket's sessions, as a message;
        `end` None: the range ends on the day of the last activity."""
        svc = self.service
        gen = svc.generation
        try:
            infos = svc.projects()
            latest = last_active_day(infos, project) or now().date()
            tl = svc.timeline(
                ending=end or latest, buckets=WINDOWS[kind], bucket=kind, project=project
            )
            projects = [p.path for p in infos]
        except Exception as exc:  # shown in place, never a crash
            return self.TimelineLoaded(request, None, [], str(exc))
        sessions = None
        sel = _selected(tl.days, selected_key, within)
        if 0 <= sel < len(tl.days):
            day = tl.days[sel].day
            start, end = _bucket_range(day, kind, tl)
            try:
                page = svc.sessions_started(since=start, until=end, project=project, limit=500)
                sessions = (day, page.sessions, page.total)
            except Exception:
                sessions = None  # the bucket's own query will say what went wrong
        self._generation = gen
        return self.TimelineLoaded(request, tl, projects, sessions=sessions, latest=latest)

    @on(TimelineLoaded)
    def _timeline_loaded(self, msg: TimelineLoaded) -> None:
        if msg.request != self._tl_request:
            return  # a newer query is on its way
        if msg.timeline is None:
            self.query_one("#timeline-day", Static).update(f"[b]Error:[/] {msg.error}")
            return
        tl = self._timeline = msg.timeline
        self._latest = msg.latest
        self._update_projects(msg.projects)
        sel = _selected(tl.days, self.selected_key, self._within)
        self._within = None
        chart = self.query_one(ActivityChart)
        chart.set_data(tl.days, tl.bucket, sel)
        self._show_range(tl)
        if 0 <= sel < len(tl.days):
            self._select_bucket(tl.days[sel], msg.sessions)

    def _update_projects(self, projects: list[str]) -> None:
        if projects == self._projects_known:
            return
        self._projects_known = projects
        select = self.query_one("#timeline-project", Select)
        with self.prevent(Select.Changed):
            # one line each, cut from the middle (a wrapped `Work/entire/deve` / `nv/cli`
            # read as two projects)
            select.set_options([(fit_name(short_project(p), SELECT_NAME), p) for p in projects])
            if self.project in projects:
                select.value = self.project

    def _show_range(self, tl: Timeline) -> None:
        sessions = sum(b.sessions for b in tl.days)
        messages = sum(b.messages for b in tl.days)
        tokens = sum(b.tokens for b in tl.days)
        self.query_one("#timeline-range", Static).update(
            f"{range_label(tl)}  [dim]by {tl.bucket}[/]\n"  # two lines: fits 80 columns
            f"{_count(sessions, 'session')}  {_count(messages, 'message')}  "
            f"{_count(tokens, 'token')}"
        )

    def _select_bucket(
        self, b: DayActivity, read: tuple[str, list[SessionInfo], int] | None = None
    ) -> None:
        self.selected_key = b.day
        start, end = _bucket_range(b.day, self.bucket_kind, self._timeline)
        first, stop = _day(b.day).date(), next_bucket(_day(b.day), self.bucket_kind).date()
        if self.picked is None or not first <= date.fromisoformat(self.picked[0]) < stop:
            self.picked = (b.day, self.bucket_kind == "day")
        label = {
            "day": start.strftime("%a %d %b %Y"),
            "week": f"Week of {start.strftime('%d %b %Y')}",
            "month": start.strftime("%B %Y"),
        }[self.bucket_kind]
        self.query_one("#timeline-day", Static).update(
            f"[b]{label}[/]   {plural(b.sessions, 'session')} · {plural(b.prompts, 'prompt')}"
            f" · {plural(b.messages, 'message', shown=human_count(b.messages))}"
            f" · {plural(b.tokens, 'token', shown=human_count(b.tokens))}"
        )
        self._ss_request += 1
        if read is not None and read[0] == b.day:  # read with the timeline
            self.query_one(DaySessions).show(read[1])
            return
        self._load_sessions(self._ss_request, start, end, self.project)

    @work(thread=True, group="timeline-sessions", exclusive=True, exit_on_error=False)
    def _load_sessions(
        self, request: int, since: datetime, until: datetime, project: str | None
    ) -> None:
        try:
            page = self.service.sessions_started(
                since=since, until=until, project=project, limit=500
            )
        except Exception as exc:
            self.post_message(self.SessionsLoaded(request, [], 0, str(exc)))
            return
        self.post_message(self.SessionsLoaded(request, page.sessions, page.total))

    @on(SessionsLoaded)
    def _sessions_loaded(self, msg: SessionsLoaded) -> None:
        if msg.request != self._ss_request:
            return
        self.query_one(DaySessions).show(msg.sessions)

    # ---- events ----------------------------------------------------------------------
    @on(ActivityChart.Selected)
    def _bucket_selected(self, msg: ActivityChart.Selected) -> None:
        self._select_bucket(msg.bucket)

    @on(Select.Changed, "#timeline-project")
    def _project_changed(self, event: Select.Changed) -> None:
        value = event.value
        self.project = value if isinstance(value, str) else None
        self.reload()
        self.action_focus_chart()  # Enter would open the filter again

    @on(DaySessions.Opened)
    def _opened(self, msg: DaySessions.Opened) -> None:
        self.post_message(OpenSession(msg.session_id))

    def on_index_updated(self, _msg: IndexUpdated) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        if self._timeline is not None and self.service.generation != self._generation:
            self.reload()

    # ---- actions ---------------------------------------------------------------------
    def action_bucket(self, kind: str) -> None:
        """Show days, weeks or months, selecting the bucket that holds the day picked
        last (going finer from a week or month picked as such: its last active day)."""
        old = self.bucket_kind
        if kind == old:
            return
        self.bucket_kind = kind
        self.selected_key = None
        self._within = None
        if self.picked is not None:
            day, exact = date.fromisoformat(self.picked[0]), self.picked[1]
            self.selected_key = bucket_start(day, kind).isoformat()
            order = ("day", "week", "month")
            if order.index(kind) < order.index(old):  # finer: the window must hold it
                coarse = _day(bucket_start(day, old).isoformat())
                stop = next_bucket(coarse, old).date()
                first = day if exact else coarse.date()
                if not exact:
                    self._within = (coarse.date().isoformat(), stop.isoformat())
                latest = self._latest or now().date()
                end = self.end or latest
                since, until = bucket_window(end, kind, WINDOWS[kind])
                last = day if exact else stop - timedelta(days=1)
                if not since.date() <= first <= last < until.date():  # not all in view
                    end = min(latest, stop - timedelta(days=1))  # the coarse bucket's end
                    if day < bucket_window(end, kind, WINDOWS[kind])[0].date():
                        end = day
                    self.end = None if end >= latest else end
        self.reload()

    def action_shift(self, step: int) -> None:
        kind = self.bucket_kind
        latest = self._latest or now().date()
        end = self.end or latest
        days = {"day": WINDOWS["day"], "week": WINDOWS["week"] * 7, "month": 365}[kind]
        new_end = end + timedelta(days=step * days)
        self.end = None if new_end >= latest else new_end
        self.selected_key = None
        self.reload()

    def action_today(self) -> None:
        """The range ending today (where the last activity is older than today)."""
        today = now().date()
        self.end = None if (self._latest or today) >= today else today
        self.selected_key = None
        self.reload()

    def action_focus_project(self) -> None:
        self.query_one("#timeline-project", Select).focus()

    def action_focus_chart(self) -> None:
        self.query_one(ActivityChart).focus()

    def action_step(self, step: int) -> None:
        """←/→ pick a bucket wherever the focus is (the filter's list, open, keeps them)."""
        chart = self.query_one(ActivityChart)
        focused = self.focused
        if focused is not None and any(isinstance(a, Select) for a in focused.ancestors):
            return  # the filter's list is open: ←/→ are not for the chart now
        if isinstance(focused, Select):
            chart.focus()
        chart.action_move(step)

    def action_open_session(self) -> None:
        self.query_one(DaySessions).open_selected()
