"""The app on an archive shaped like a real one (tests/support/shapes_archive): projects
named apart in every pane, plan sessions by their heading, the full path in detail headers,
recent activity one row per session, and a timeline that opens where the activity is."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ccarchive.tui.messages import OpenSession
from ccarchive.tui.widgets.facet_list import FacetList
from ccarchive.tui.widgets.project_list import ProjectTable
from ccarchive.tui.widgets.result_list import ResultList
from ccarchive.tui.widgets.timeline_chart import ActivityChart
from ccarchive.tui.widgets.timeline_sessions import DaySessions
from tests.support import shapes_archive as A
from tests.tui.conftest import indexed_once
from tests.tui.support import SIZE, settle


@pytest.fixture(scope="session")
def shapes_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return A.write_shapes_archive(tmp_path_factory.mktemp("shapes") / "claude")


@pytest.fixture(scope="session")
def shapes_indexed(shapes_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_once(shapes_root, tmp_path_factory.mktemp("shapes-indexed"))


@pytest.fixture
def app(shapes_root: Path, shapes_indexed: Path, index_copy, live_app):
    """The app over the shapes archive (the clock says 2026-11-20: three months on)."""
    return live_app(index_copy(shapes_root, shapes_indexed))


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_recent_activity_lists_every_recent_session(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        results = app.screen.query_one(ResultList)
        assert [c.group.session_id for c in results._cards] == [
            A.BIG_SESSION,
            A.TREE4_SESSION,
            A.TREE3_SESSION,
            A.OSS_SESSION,
            A.PLAN_SESSION,
            A.OLD_SESSION,
        ]
        assert results._cards[4].group.title == "Retry backoff for fetch"
        lines = [
            str(t)
            for c in range(len(results._cards))
            for t in results._card_lines(results._cards[c], 100)
        ]
        for name in A.PROJECTS.values():
            assert any(ln.startswith(f"{name} · ") for ln in lines), name
        facets = app.screen.query_one(FacetList)
        labels = [
            str(facets.get_option_at_index(i).prompt).strip() for i in range(facets.option_count)
        ]
        assert {"work/cli", "oss/cli", "cli/.worktrees/3"} <= {
            label.rsplit(" ", 1)[0] for label in labels
        }
        assert facets.styles.text_wrap == "nowrap" and facets.styles.text_overflow == "ellipsis"


async def test_replay_header_has_the_title_and_the_full_path(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(OpenSession(A.PLAN_SESSION))
        await settle(app, pilot)
        head = text(app.screen, "#tx-title")
        assert head.startswith("Retry backoff for fetch\n")
        # the short name first (an 80-column line keeps it), the full path at the end
        assert head.split("\n")[1].startswith(f"{A.PROJECTS['/home/u/work/cli']} · ")
        assert head.rstrip().endswith("/home/u/work/cli")


async def test_projects_are_named_apart_and_the_detail_has_the_path(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("projects")
        await settle(app, pilot)
        table = app.screen.query_one(ProjectTable)
        names = {
            p.path: str(row[0]).rstrip(" ◆")
            for p, row in zip(table.projects, table._rows, strict=True)
        }
        assert names == A.PROJECTS
        caption = text(app.screen, "#memory-caption")
        assert f"Memory {table.selected} · " in caption  # the selected project's full path


async def test_timeline_opens_where_the_activity_is_and_keeps_the_picked_day(app) -> None:
    """The Timeline opens on the last active day (not the empty weeks before "now"), and
    a day picked with the keys stays picked across day, week and month; a week or month
    picked as such selects its last active day when the days come back."""
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        screen = app.screen
        chart = screen.query_one(ActivityChart)
        assert chart.buckets[-1].day == A.LAST_DAY  # not the empty month before "now"
        assert chart.buckets[chart.selected].day == A.LAST_DAY
        assert text(screen, "#timeline-range").startswith("22 Jul – 20 Aug 2026")
        day = text(screen, "#timeline-day")
        assert "1 session · 130 prompts" in day and "1 sessions" not in day
        assert [s.session_id for s in screen.query_one(DaySessions).sessions] == [A.BIG_SESSION]
        await pilot.press("m")
        await settle(app, pilot)
        assert text(screen, "#timeline-range").startswith("Sep 2025 – Aug 2026")
        assert chart.buckets[chart.selected].day == "2026-08-01"

        # changing the granularity keeps the day picked (back to days: 20 Aug again)
        await pilot.press("d")
        await settle(app, pilot)
        assert chart.buckets[chart.selected].day == A.LAST_DAY
        chart.focus()
        await pilot.press(*["left"] * 7)  # 20 Aug -> Thu 13 Aug: nobody worked that day
        await settle(app, pilot)
        assert chart.buckets[chart.selected].day == "2026-08-13"
        table = screen.query_one(DaySessions)
        assert table.sessions == []
        assert "no sessions in this period" in str(table._rows[0][1])  # the title column
        await pilot.press("left", "left", "left")  # Mon 10 Aug: the plan's session
        await settle(app, pilot)
        assert [s.session_id for s in table.sessions] == [A.PLAN_SESSION]
        await pilot.press("w")
        await settle(app, pilot)
        assert chart.buckets[chart.selected].day == "2026-08-10"  # its week, not the last
        assert {s.session_id for s in table.sessions} == {
            A.PLAN_SESSION,
            A.OSS_SESSION,
            A.TREE3_SESSION,
            A.TREE4_SESSION,
        }
        for key in ("m", "w", "d"):
            await pilot.press(key)
            await settle(app, pilot)
        assert chart.buckets[chart.selected].day == "2026-08-10"  # back on the day picked
        # a week picked as such: going to days selects its last active day
        for key in ("w", "right"):
            await pilot.press(key)
            await settle(app, pilot)
        assert chart.buckets[chart.selected].day == "2026-08-17"
        await pilot.press("d")
        await settle(app, pilot)
        assert chart.buckets[chart.selected].day == "2026-08-20"
        # a month out of the days' range: the range moves to show its last active day
        for key in ("m", "left", "left", "d"):
            await pilot.press(key)
            await settle(app, pilot)
        assert chart.buckets[chart.selected].day == "2026-06-01"
        assert [s.session_id for s in table.sessions] == [A.OLD_SESSION]
