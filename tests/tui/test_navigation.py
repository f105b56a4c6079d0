"""Navigation that lands where it says: hits open their item (not the pane's first), Replay
goes back to the pane it came from, typed prompts open at that prompt, keys typed in a
list reach the query, and every key docs/app.md lists for Prompts and Timeline works."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select

from ccarchive.tui.messages import OpenSession
from ccarchive.tui.screens.plans import PlansScreen
from ccarchive.tui.screens.projects import ProjectsScreen
from ccarchive.tui.screens.replay.screen import ReplayScreen
from ccarchive.tui.screens.search import SearchScreen
from ccarchive.tui.widgets.hit_preview import HitPreview
from ccarchive.tui.widgets.plan_tree import NodeKey, PlanTree
from ccarchive.tui.widgets.project_list import MemoryList, ProjectTable
from ccarchive.tui.widgets.prompt_list import PromptTable
from ccarchive.tui.widgets.result_list import ResultList
from ccarchive.tui.widgets.timeline_chart import ActivityChart
from ccarchive.tui.widgets.timeline_sessions import DaySessions
from tests.tui.support import FOLLOWUP_SESSION, SIZE, searched, settle

RELEASE_SESSION = "7966b882"
"""Demo session "Prepare tally v0.4.0 release": three prompts typed."""


@pytest.fixture(autouse=True)
def no_rest_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)


async def search_for(app, pilot, text: str) -> ResultList:
    """Single hits (not grouped) for `text`, the cursor on the first."""
    screen = app.screen
    if screen.grouped:
        await pilot.press("ctrl+g")
    query = screen.query_one("#query", Input)
    query.focus()
    query.value = text
    await searched(app, pilot, text)
    return screen.query_one(ResultList)


async def open_hit(app, pilot, results: ResultList, kind: str, path_part: str = "") -> object:
    index = next(i for i, h in enumerate(results.hits) if h.kind == kind and path_part in h.path)
    results.focus()
    results.highlighted = index
    await pilot.press("enter")
    await settle(app, pilot)
    return results.hits[index]


# ---- hits open their item ------------------------------------------------------------
async def test_a_subplan_hit_opens_plans_at_that_subplan_and_a_plan_hit_clears_its_search(
    app,
) -> None:
    """A subplan's hit opens Plans at that subplan, its plan unfolded and in view; a plan's
    hit then clears a search in Plans that hid it and lands on the plan itself."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        results = await search_for(app, pilot, "gitignore kind:plan")
        hit = await open_hit(app, pilot, results, "plan", "-agent-")
        screen = app.screen
        assert isinstance(screen, PlansScreen)
        tree = screen.query_one(PlanTree)
        node = tree.cursor_node
        assert node is not None and node.data == NodeKey(
            "plan", "tidy-racing-lamport", "a0c2c61f241c7e86f", hit.project
        )
        assert node.parent is not None and node.parent.is_expanded  # its plan unfolded
        assert tree.has_focus
        top = tree.scroll_offset.y
        assert top <= tree.cursor_line < top + tree.scrollable_content_region.height
        await settle(app, pilot)
        assert (
            "Subplan" in screen.query_one("#plan-meta").render().plain
            or "agent subplan" in screen.query_one("#plan-meta").render().plain
        )

        # a plan hit clears a search in Plans that hides it
        app.screen.query_one("#plans-search", Input).value = "incremental"  # hides tally's
        await settle(app, pilot)
        await app.switch_mode("search")
        await settle(app, pilot)
        results = await search_for(app, pilot, "tally fast kind:plan")
        await open_hit(app, pilot, results, "plan", "tidy-racing-lamport.md")
        await settle(app, pilot)
        tree = app.screen.query_one(PlanTree)
        assert app.screen.query_one("#plans-search", Input).value == ""
        assert tree.cursor_node is not None
        assert tree.cursor_node.data.ident == "tidy-racing-lamport"
        assert not tree.cursor_node.data.agent


async def test_a_memory_hit_opens_projects_at_that_file_and_a_prompt_hit_its_session(
    app,
) -> None:
    """A memory file's hit opens Projects at that file, focused; a typed prompt's hit
    (history.jsonl) opens its session at that prompt, not at the session's first."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        results = await search_for(app, pilot, "quirks kind:memory")
        hit = await open_hit(app, pilot, results, "memory", "data-quirks")
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        assert screen.query_one(ProjectTable).selected == hit.project
        memory = screen.query_one(MemoryList)
        assert memory.selected_file is not None and memory.selected_file.path == hit.path
        assert memory.has_focus
        assert "quirks" in screen.query_one("#memory-markdown").source.lower()

        # a typed prompt's hit opens its session at that prompt
        await app.switch_mode("search")
        await settle(app, pilot)
        results = await search_for(app, pilot, "tag kind:history")
        hit = await open_hit(app, pilot, results, "history")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert hit.session_id.startswith(RELEASE_SESSION)
        entry = screen.view.entry(screen.view.cursor)
        assert screen.view.cursor > 0  # not the session's first entry: its second prompt
        assert entry.kind == "prompt" and entry.text.startswith("also tag it")


async def test_enter_in_prompts_opens_the_session_at_that_prompt(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        table = app.screen.query_one(PromptTable)
        row = next(i for i, it in enumerate(table.items) if it.text.startswith("also tag it"))
        table.focus()
        table.move_cursor(row=row)
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        entry = screen.view.entry(screen.view.cursor)
        assert entry.kind == "prompt" and entry.text.startswith("also tag it")


# ---- the way back ----------------------------------------------------------------------
async def test_escape_in_replay_returns_to_the_pane_it_came_from(app) -> None:
    """Esc or Backspace in Replay goes back to the pane that opened the session (Prompts,
    Timeline, Plans), from a subagent first to its session."""
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        app.screen.query_one(PromptTable).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.current_mode == "replay"
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.current_mode == "prompts"

        await app.switch_mode("timeline")
        await settle(app, pilot)
        await pilot.press("enter")  # on the chart: the selected day's first session
        await settle(app, pilot)
        assert app.current_mode == "replay"
        await pilot.press("backspace")
        await settle(app, pilot)
        assert app.current_mode == "timeline"

        # from a subagent: back to its session first, then to the pane
        await app.switch_mode("plans")
        await settle(app, pilot)
        app.post_message(OpenSession(FOLLOWUP_SESSION))
        await settle(app, pilot)
        view = app.screen.view
        view.move_cursor(next(i for i in range(view.total) if view.entry(i).subagent_id))
        await pilot.press("o")
        await settle(app, pilot)
        assert len(app.screen.stack) == 2
        await pilot.press("escape")  # the subagent -> its session
        await settle(app, pilot)
        assert app.current_mode == "replay" and len(app.screen.stack) == 1
        await pilot.press("escape")  # the session -> Plans, where it was opened
        await settle(app, pilot)
        assert app.current_mode == "plans"


async def test_replay_opened_by_its_key_goes_back_to_search(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("live")
        await settle(app, pilot)
        await pilot.press("f2")  # not opened from a pane: back is Search
        await settle(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.current_mode == "search"


# ---- keys typed in a list go to the query ---------------------------------------------
async def test_letters_typed_in_the_results_go_to_the_query(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        results = await search_for(app, pilot, "walk kind:prompt")
        results.focus()
        await pilot.press("enter")  # open, come back with F1: the cursor is in the results
        await settle(app, pilot)
        await pilot.press("f1")
        await settle(app, pilot)
        assert results.has_focus
        await pilot.press(*"er")
        await searched(app, pilot, "walk kind:prompter")
        query = app.screen.query_one("#query", Input)
        assert query.value == "walk kind:prompter" and query.has_focus


@pytest.mark.slow
async def test_digits_in_the_results_are_typed_and_f_keys_switch_panes(app) -> None:
    """In the slow tier: test_app's
    test_every_pane_has_a_function_key_and_digits_switch_only_when_not_typing keeps both
    promises in the suite (a digit typed in the results goes to the query, an F key from
    the results switches panes)."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.screen.query_one(ResultList).focus()
        await pilot.press("3")  # typing a query from the results: `3d`, `v2`
        await pilot.pause()
        assert app.current_mode == "search"
        assert app.screen.query_one("#query", Input).value == "3"
        app.screen.query_one(ResultList).focus()
        await pilot.press("f3")
        await pilot.pause()
        assert app.current_mode == "timeline"
        await settle(app, pilot)


# ---- Prompts and Timeline keys -----------------------------------------------------------
async def test_prompts_a_focuses_the_since_box_and_digits_there_are_text(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        await pilot.press("a")
        since = app.screen.query_one("#prompts-since", Input)
        assert since.has_focus
        await pilot.press("3", "d")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert app.current_mode == "prompts" and since.value == "3d"
        assert app.screen.filter.since == "3d"
        await pilot.press("escape", "slash", "4")  # the search box: a digit is text too
        await pilot.pause()
        assert app.current_mode == "prompts"
        assert app.screen.query_one("#prompts-search", Input).value == "4"
        await settle(app, pilot)


async def test_timeline_enter_opens_the_session_and_the_filter_lets_go_of_the_keys(
    app,
) -> None:
    """Enter on the chart opens the selected session; the project filter (`f`) gives the
    keys back to the chart once left, picked or escaped."""
    opened: list[OpenSession] = []
    async with app.run_test(
        size=SIZE, message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("timeline")
        await settle(app, pilot)
        assert app.screen.query_one(ActivityChart).has_focus
        first = app.screen.query_one(DaySessions).selected_id
        await pilot.press("enter")
        await settle(app, pilot)
        assert opened and opened[-1].session_id == first
        assert app.current_mode == "replay"
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.current_mode == "timeline"

        screen = app.screen
        chart, select = screen.query_one(ActivityChart), screen.query_one(Select)
        day = chart.selected
        await pilot.press("f")
        assert select.has_focus
        await pilot.press("left")  # a bucket earlier, and the chart has the keys again
        await settle(app, pilot)
        assert chart.selected == day - 1 and chart.has_focus
        await pilot.press("f", "escape")
        assert chart.has_focus
        await pilot.press("f", "enter", "down", "enter")  # pick the first project
        await settle(app, pilot)
        assert screen.project is not None
        assert chart.has_focus  # Enter does not open the filter again
        await pilot.press("right")
        await settle(app, pilot)
        assert chart.selected == day


# ---- counts and previews agree with themselves ---------------------------------------------
async def test_facet_counts_add_up_to_the_match_count_and_clearing_previews_the_first(
    app,
) -> None:
    """The facet counts of a query add up to its matches; clearing the query then previews
    the first of the new results (the cursor was further down)."""
    from ccarchive.tui.widgets.facet_list import FacetList

    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await search_for(app, pilot, "walker")
        screen = app.screen
        await settle(app, pilot)
        total = screen.page.total
        facets = screen.query_one(FacetList)
        counts = {}
        for key, (facet, _value) in facets._actions.items():
            label = facets.get_option(key).prompt.plain
            n = label.rsplit(" ", 1)[-1].replace(",", "")
            if n.isdigit():
                counts.setdefault(facet, 0)
                counts[facet] += int(n)
        assert counts["kind"] == total and counts["project"] == total
        assert not any(
            v in ("thinking", "tool_result") for f, v in facets._actions.values() if f == "kind"
        )  # left out: named, not counted
        assert "ctrl+t" in " ".join(
            facets.get_option_at_index(i).prompt.plain for i in range(facets.option_count)
        )

        # clearing the query previews the first of the new results, not the old cursor's
        results = screen.query_one(ResultList)
        results.focus()
        await pilot.press("down", "down")
        await settle(app, pilot)
        assert results.highlighted == 2
        query = app.screen.query_one("#query", Input)
        query.value = ""
        await searched(app, pilot, "")
        assert results.highlighted == 0
        preview = app.screen.query_one(HitPreview)
        assert preview.shown is not None and preview.shown.id == results.hits[0].id
