"""Timeline pane: the chart, the sessions of the selected bucket, filters, opening one."""

from __future__ import annotations

from ccarchive.tui.messages import OpenSession
from ccarchive.tui.widgets.timeline_chart import ActivityChart
from ccarchive.tui.widgets.timeline_sessions import DaySessions
from tests.tui.support import SIZE, settle


async def test_chart_selects_latest_active_day_and_lists_its_sessions(app) -> None:
    """The chart opens on the latest active day with its sessions listed; a day picked
    with the keys stays picked when the index is updated."""
    from ccarchive.index.run_reports import CommitInfo
    from ccarchive.tui.messages import IndexUpdated

    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        chart = app.screen.query_one(ActivityChart)
        assert len(chart.buckets) == 30
        assert chart.buckets[chart.selected].day == "2026-11-20"
        table = app.screen.query_one(DaySessions)
        assert [s.title for s in table.sessions] == [
            "Rate-limit login attempts",
            "Prepare tally v0.4.0 release",
        ]
        # step back a day with the chart focused: the 19th has one session
        await pilot.press("left")
        await settle(app, pilot)
        assert [s.title for s in table.sessions] == ["Fix tmux true colour in Alacritty"]
        # three days more back, then a refresh: the picked day and its sessions stay
        await pilot.press("left", "left", "left")
        await settle(app, pilot)
        day = chart.buckets[chart.selected].day
        app.post_message(IndexUpdated(CommitInfo(1, 0, frozenset(), frozenset(), frozenset())))
        await settle(app, pilot)
        assert chart.buckets[chart.selected].day == day == "2026-11-16"
        assert [s.title for s in table.sessions] == ["Fix flaky test_expiring_soon"]


async def test_week_and_month_buckets(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        await pilot.press("w")
        await settle(app, pilot)
        chart = app.screen.query_one(ActivityChart)
        assert chart.bucket_kind == "week" and len(chart.buckets) == 26
        assert chart.buckets[chart.selected].sessions == 5
        assert len(app.screen.query_one(DaySessions).sessions) == 5
        await pilot.press("m")
        await settle(app, pilot)
        assert chart.bucket_kind == "month"
        assert sum(b.sessions for b in chart.buckets) == 14


async def test_project_filter_and_open_in_replay(app) -> None:
    opened: list[OpenSession] = []
    async with app.run_test(
        size=SIZE, message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        screen = app.screen
        screen.project = "/home/demo/src/tally"
        screen.reload()
        await settle(app, pilot)
        chart = screen.query_one(ActivityChart)
        assert sum(b.sessions for b in chart.buckets) == 4
        table = screen.query_one(DaySessions)
        assert [s.title for s in table.sessions] == ["Prepare tally v0.4.0 release"]
        table.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert opened and opened[0].session_id.startswith("7966b882")


def test_snapshot(snap_compare, app) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.switch_mode("timeline")
        await settle(pilot.app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
