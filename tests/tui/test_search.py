"""Search pane: typing, stale results, facets, grouping, bad queries, opening a hit."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from ccarchive.tui.screens.replay.screen import ReplayScreen
from ccarchive.tui.screens.search import SearchScreen
from ccarchive.tui.widgets.facet_list import FacetList
from ccarchive.tui.widgets.result_list import ResultList, fit_snippet
from tests.tui.support import SIZE, pasted, searched, settle


@pytest.fixture(autouse=True)
def no_rest_delays(monkeypatch: pytest.MonkeyPatch) -> None:
    """Preview and facet counts at once (the app waits for typing to rest)."""
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)


async def type_query(app, pilot, text: str) -> None:
    app.screen.query_one("#query", Input).focus()
    await pilot.press(*text)
    await searched(app, pilot, text)


async def test_typing_a_query_shows_highlighted_hits(app) -> None:
    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(app, pilot)
        await type_query(app, pilot, "gitignore")
        ready = [m for m in seen if isinstance(m, SearchScreen.ResultsReady)]
        assert ready  # one search in flight; keys typed meanwhile collapse into the next
        screen = app.screen
        results = screen.query_one(ResultList)
        assert results.hits and screen.page.query == "gitignore"
        assert all(h.highlights or "gitignore" not in h.snippet.lower() for h in results.hits)
        assert "matching" in str(screen.query_one("#search-status", Static).render())


async def test_stale_results_never_overwrite_fresh_ones(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "walker")
        screen = app.screen
        fresh = screen.page
        old = app.service.search("release", facets=True)
        screen.post_message(SearchScreen.ResultsReady(screen._token - 1, old, None))
        await settle(app, pilot)
        assert screen.page is fresh


async def test_facets_filter_by_project_click_and_by_kind_and_toggle_off(app) -> None:
    """A click on a project's facet filters to that project; Enter on a kind's facet to
    that kind; ctrl+x clears the filters and the hits are those of before."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        facets = screen.query_one(FacetList)
        project = next(v for f, v in facets._actions.values() if f == "project")
        index = facets.get_option_index(f"project:{project}")
        await pilot.click(FacetList, offset=(3, index - facets.scroll_offset.y + 1))
        await settle(app, pilot)
        assert screen.filters.project == project
        assert all(h.project == project for h in screen.query_one(ResultList).hits)
        await pilot.press("ctrl+x")
        await settle(app, pilot)
        assert not screen.filters.active()
        screen.query_one("#query", Input).focus()
        await pilot.pause()

        await pasted(app, pilot, "walk")
        await pilot.press("ctrl+g")  # single hits, to see each kind
        await settle(app, pilot)
        before = {h.kind for h in screen.query_one(ResultList).hits}
        assert len(before) > 1
        facets = screen.query_one(FacetList)
        facets.focus()
        key = next(k for k, (f, v) in facets._actions.items() if f == "kind" and v == "prompt")
        facets.highlighted = facets.get_option_index(key)
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.filters.kinds == {"prompt"}
        assert {h.kind for h in screen.query_one(ResultList).hits} == {"prompt"}
        await pilot.press("ctrl+x")
        await settle(app, pilot)
        assert not screen.filters.active()
        assert {h.kind for h in screen.query_one(ResultList).hits} == before


async def test_grouped_and_single_hits(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "tally")
        screen = app.screen
        grouped = list(screen.query_one(ResultList).hits)
        sids = [h.session_id for h in grouped if h.session_id]  # memory files stand alone
        assert sids and len(set(sids)) == len(sids)
        await pilot.press("ctrl+g")
        await settle(app, pilot)
        single = screen.query_one(ResultList).hits
        assert len(single) > len(grouped)


async def test_a_bad_query_says_what_was_ignored_in_place(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "walker AND (kind:bogus")
        screen = app.screen
        assert app.screen is screen and isinstance(screen, SearchScreen)  # no dialog
        status = str(screen.query_one("#search-status", Static).render())
        assert "kind:bogus" in status and "⚠" in status
        assert screen.query_one(ResultList).hits  # what could be understood still ran


async def test_enter_opens_the_hit_in_replay_at_its_entry(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "walk kind:prompt")
        hit = app.screen.query_one(ResultList).hits[0]
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        _sid, _agent, index = app.service.entry_position(hit.id)
        assert screen.view.cursor == index
        assert screen.view.entry(index).id == hit.id
        assert index in screen.view.visible_entries()  # scrolled to it
        assert screen.place.query == "walk kind:prompt"


def test_fit_snippet_keeps_the_first_match_in_view() -> None:
    text = "x" * 200 + " needle " + "y" * 200
    start = text.index("needle")
    cut, spans = fit_snippet(text, [(start, start + 6)], 60)
    assert len(cut) == 60 + 1 and cut.startswith("…") and cut.endswith("…")
    a, b = spans[0]
    assert cut[a:b] == "needle"


async def test_keys_typed_during_a_search_collapse_into_one(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        screen._in_flight = -1  # as if a search were running
        for ch in "walker":
            screen.query_one("#query", Input).insert_text_at_cursor(ch)
            await pilot.pause()
        assert screen._pending and screen.page.query == ""  # nothing sent meanwhile
        screen.post_message(SearchScreen.ResultsReady(-1, None, None, "stale"))
        await settle(app, pilot)
        assert screen.page.query == "walker" and screen._in_flight is None


async def test_facet_counts_follow_the_query_after_regrouping(app, monkeypatch) -> None:
    """With the facet redraw delayed (as in use), re-searching with the same counts
    (ctrl+g) must not drop the pending redraw: the facets end up those of the query.

    The query is pasted (one search) and the delay is long enough that the redraw is
    surely still pending when ctrl+g comes, however loaded the machine: typing it ran a
    search a key for what is only the way in."""
    delay = 1.0
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", delay)
    shown: list[object] = []
    original = FacetList.show

    def record(self, facets, filters, left_out=()):
        shown.append(facets)
        return original(self, facets, filters, left_out)

    monkeypatch.setattr(FacetList, "show", record)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert len(shown) == 1  # the first facets are drawn at once, the next wait `delay`
        await pasted(app, pilot, "gitignore walker")
        assert len(shown) == 1  # the query's are not drawn yet: the redraw is pending
        await pilot.press("ctrl+g")  # regroup before the redraw
        await settle(app, pilot)
        await pilot.pause(delay + 0.2)
        await settle(app, pilot)
        # the counts of what the results hold: tool output and thinking left out
        want = app.service.search(
            "gitignore walker -kind:thinking -kind:tool_result", facets=True
        ).facets
        assert shown and shown[-1] == want
