"""The app at 80x24 (the size most terminals open at): the main list gets the width, the
footer keeps the pane's keys, `?` lists every key, the header and the status line say
everything they hold."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from ccarchive.tui.screens.plans import PlansScreen
from ccarchive.tui.screens.search import SearchScreen
from ccarchive.tui.widgets.facet_list import FacetList
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.key_help import KeyHelp
from ccarchive.tui.widgets.plan_tree import PlanTree
from ccarchive.tui.widgets.result_list import ResultList
from ccarchive.tui.widgets.status_header import ArchiveHeader
from ccarchive.tui.widgets.timeline_chart import ActivityChart
from ccarchive.tui.widgets.timeline_sessions import DaySessions
from tests.tui.support import FOLLOWUP_SESSION, SIZE, pasted, settle

SMALL = (80, 24)


@pytest.fixture(autouse=True)
def no_rest_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)


async def test_search_at_80_columns_gives_the_results_the_width(app) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.has_class("-narrow") and screen.has_class("-short")
        facets, results = screen.query_one(FacetList), screen.query_one(ResultList)
        preview = screen.query_one("#preview")
        assert not facets.display  # out of the way until asked for
        assert not preview.display  # the results take the width
        assert results.size.width >= 70
        await pilot.press("ctrl+o")  # the preview beside them, on asking
        await pilot.pause()
        assert preview.display and results.size.width > preview.size.width >= 24
        await pilot.press("ctrl+f")  # the facets come in, where the preview was
        await pilot.pause()
        assert facets.display and facets.has_focus and facets.size.width >= 26
        assert not preview.display
        await pilot.press("escape")  # back to the query: the facets go again
        await pilot.pause()
        assert not facets.display and preview.display
        assert screen.query_one("#query", Input).has_focus

        # a new pane has its breakpoint classes before it is styled (set by its first
        # Resize instead, they would restyle the whole pane once more)
        plans = PlansScreen()
        assert plans.has_class("-narrow") and plans.has_class("-short")
        assert not plans.has_class("-wide")


async def test_search_at_130_columns_shows_facets_beside_the_results(app) -> None:
    """Wide, the facets and the preview are beside the results; ctrl+o hides the
    preview there too."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.has_class("-wide") and screen.has_class("-tall")
        preview = screen.query_one("#preview")
        assert screen.query_one(FacetList).display and preview.display
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert not preview.display


async def test_the_status_line_wraps_rather_than_hide_a_warning_or_the_count(app) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        query = "walker project: kind:bogus"  # two things ignored, two warnings
        await pasted(app, pilot, query)
        status = app.screen.query_one("#search-status", Static)
        text = status.render().plain
        assert "matching" in text and text.count("⚠") == 2
        assert "kind:bogus" in text and "project:" in text
        assert status.size.height >= 2  # wrapped, not cut


async def test_plans_and_projects_stack_list_over_preview_at_80_columns(app) -> None:
    async with app.run_test(size=SMALL) as pilot:
        for mode, left, right in (
            ("plans", "#plans-left", "#plans-right"),
            ("projects", "#projects-left", "#projects-right"),
        ):
            await app.switch_mode(mode)
            await settle(app, pilot)
            top, bottom = app.screen.query_one(left), app.screen.query_one(right)
            assert top.region.width == bottom.region.width == SMALL[0]
            assert top.region.bottom <= bottom.region.y
            if mode == "plans":
                tree = app.screen.query_one(PlanTree)
                assert tree.size.height >= 5 and tree.size.width >= 70


async def test_plans_side_by_side_when_wide(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("plans")
        await settle(app, pilot)
        left, right = app.screen.query_one("#plans-left"), app.screen.query_one("#plans-right")
        assert left.region.y == right.region.y and left.region.right <= right.region.x
        assert right.size.width >= 60  # the plan gets the larger part


async def test_timeline_at_80x24_folds_its_charts_and_lists_the_sessions(app) -> None:
    async with app.run_test(size=SMALL) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        chart, table = app.screen.query_one(ActivityChart), app.screen.query_one(DaySessions)
        assert chart.band_rows == 1
        assert table.sessions  # the selected day has sessions, and every row shows
        assert table.scrollable_content_region.height >= len(table.sessions) + 1
        titles = [c for c in table.columns if c.flexible][0]
        assert titles.width >= 28  # branch and models made room for the titles
        assert [c.label for c in table.columns if c.hidden]
        header = [c for c in table.columns if not c.hidden]
        line = "".join(s.text for s in table.render_line(1))
        assert table.sessions[0].title[:20] in line and len(header) >= 3


async def test_timeline_charts_are_three_rows_a_metric_when_there_is_room(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        assert app.screen.query_one(ActivityChart).band_rows == 3
        assert not any(c.hidden for c in app.screen.query_one(DaySessions).columns)


def _footer(app) -> str:
    footer = app.screen.query_one(KeyFooter)
    return footer.render().plain


async def test_footer_puts_the_pane_keys_first(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one(ResultList).focus()
        await pilot.pause()
        wide = _footer(app)
        assert wide.index("Group/hits") < wide.index("f1 Search")  # the pane's own first
        assert "? Keys" in wide and "Commands" in wide


async def test_footer_drops_the_f_keys_when_narrow(app) -> None:
    """At 80 columns the footer keeps the pane's own keys and names the F keys once
    (`F1-7 Panes`), on every pane that has keys of its own."""
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        app.screen.query_one(ResultList).focus()
        await pilot.pause()
        narrow = _footer(app)
        assert "f1" not in narrow and "Search" not in narrow.split("▏")[0]
        assert "Group/hits" in narrow and "Facets" in narrow and "? Keys" in narrow
        for mode in ("search", "timeline", "plans", "projects", "prompts"):
            await app.switch_mode(mode)
            await settle(app, pilot)
            footer = _footer(app)
            assert "F1-7 Panes" in footer and "? Keys" in footer, (mode, footer)


async def test_question_mark_lists_every_key_of_replay(app) -> None:
    """`?` opens the keys from the first screen (its query empty), where it names every
    pane; in a query with text it is a character. The footer at 80 columns has room for a
    few of Replay's keys; `?` there has them all, read from the bindings."""
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        query = app.screen.query_one("#query", Input)
        assert app.focused is query and not query.value
        await pilot.press("question_mark")
        await settle(app, pilot)
        assert isinstance(app.screen, KeyHelp)
        assert query.value == ""
        shown = " ".join(str(r) for rows in app.screen.rows for r in rows)
        for pane in ("Search", "Replay", "Timeline", "Plans", "Projects", "Prompts", "Live"):
            assert pane in shown
        await pilot.press("escape")
        await pilot.press(*"why", "question_mark")  # in a query with text: a character
        assert query.value == "why?" and not isinstance(app.screen, KeyHelp)

        await app.switch_mode("replay")
        app.screen.open_session(FOLLOWUP_SESSION)
        await settle(app, pilot)
        await pilot.press("question_mark")
        await settle(app, pilot)
        sheet = app.screen
        assert isinstance(sheet, KeyHelp)
        pane, everywhere = sheet.rows
        keys = {row.keys: row.name for row in pane}
        for key, name in (
            ("t", "Time"),
            ("o", "Subagent"),
            ("e", "Export"),
            ("c", "Copy resume"),
            ("R", "Resume"),
            ("esc ⌫", "Back"),
        ):
            shown = next((k for k in keys if k.split()[0] == key.split()[0]), None)
            assert shown is not None and keys[shown] == name, (key, keys)
        assert any(r.keys.startswith("f1") for r in everywhere)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, KeyHelp) and app.current_mode == "replay"


async def test_header_fits_80_columns_with_state_and_count(app) -> None:
    app.live.state.role = "writer"
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one(ArchiveHeader)
        text = header.render().plain
        assert header.size.height == 1 and len(text) <= SMALL[0]
        assert "Search" in text and "● live" in text
        assert text.rstrip().endswith(f"{app.service.document_count():,} docs")
        # the documents `ccarchive status` counts, not the index's own (it counts more)
        assert app.service.document_count() == app.service.status().documents
        assert app.service.document_count() < app.service.store.searcher().num_docs
