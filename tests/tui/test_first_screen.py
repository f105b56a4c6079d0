"""The app's first screen: the search pane's first results come with their facet counts and
the first hit's preview in one frame, a cursor moved later is previewed as before, and an
app at rest draws nothing (the header redraws when its state changes, not on a timer)."""

from __future__ import annotations

from ccarchive.tui.screens.search import SearchScreen
from ccarchive.tui.textual_tuning import frames_drawn
from ccarchive.tui.widgets.facet_list import FacetList
from ccarchive.tui.widgets.hit_preview import HitPreview
from ccarchive.tui.widgets.result_list import ResultList
from tests.tui.support import SIZE, pasted, settle


def _state(screen) -> tuple[int, int, str | None, str | None]:
    """What a frame of the search pane holds: results, facet rows, the previewed hit and
    the hit under the cursor."""
    results = screen.query_one(ResultList)
    preview = screen.query_one(HitPreview).shown
    under = results.hits[results.highlighted].id if results.highlighted is not None else None
    return (
        results.option_count,
        screen.query_one(FacetList).option_count,
        preview.id if preview else None,
        under,
    )


async def _rested(app, pilot) -> None:
    """Past the delays the pane waits for typing to rest (preview, facets)."""
    await settle(app, pilot)
    await pilot.pause(max(SearchScreen.PREVIEW_DELAY, SearchScreen.FACETS_DELAY) + 0.1)
    await settle(app, pilot)


async def test_the_first_results_are_drawn_with_their_facets_and_preview(app) -> None:
    """With the pane's own delays: no frame shows results without their facet counts or
    without the preview of the hit under the cursor."""
    frames: list[tuple[int, int, str | None, str | None]] = []

    def drawn(screen, held: bool) -> None:
        if isinstance(screen, SearchScreen) and not held:
            frames.append(_state(screen))

    with frames_drawn(app, drawn):
        async with app.run_test(size=SIZE) as pilot:
            await _rested(app, pilot)
    with_results = [f for f in frames if f[0]]
    assert with_results, frames
    for _results, facets, previewed, under in with_results:
        assert facets > 0 and previewed is not None and previewed == under, frames


async def test_the_first_preview_is_the_first_card_and_the_cursor_still_previews(
    app,
) -> None:
    """The preview that came with the results is the first card's; moving the cursor
    previews the hit it lands on, and moving back previews the first again; a new
    query then brings its own preview and facet counts."""
    async with app.run_test(size=SIZE) as pilot:
        await _rested(app, pilot)
        screen = app.screen
        results = screen.query_one(ResultList)
        first, second = results.hits[0].id, results.hits[1].id
        assert screen.query_one(HitPreview).shown.id == first
        results.focus()
        await pilot.press("down")
        await _rested(app, pilot)
        assert screen.query_one(HitPreview).shown.id == second
        await pilot.press("up")
        await _rested(app, pilot)
        assert screen.query_one(HitPreview).shown.id == first

        # a new query's preview and counts are its own (the delays apply again: they
        # come once typing rests)
        before = _state(screen)
        screen.query_one("#query").focus()
        await pilot.pause()
        await pasted(app, pilot, "walker")
        await _rested(app, pilot)
        results, facets, previewed, under = _state(screen)
        assert results and facets and previewed == under
        assert under == screen.query_one(ResultList).hits[0].id
        assert (results, facets, previewed) != before[:3]
        assert screen.query_one(FacetList).option_count == facets


async def test_at_once_every_search_brings_its_counts_and_preview_in_one_message(
    app, monkeypatch
) -> None:
    """With no delays (as the snapshots run), a search's facet counts (kinds left out:
    their own query) and its first hit's preview come in its results' message: no
    worker of their own, no frame of their own."""
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)
    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(app, pilot)
        seen.clear()
        await pasted(app, pilot, "release")
        ready = [m for m in seen if isinstance(m, SearchScreen.ResultsReady)]
        assert ready and ready[-1].page is not None and ready[-1].page.query == "release"
        assert ready[-1].facets is not None and ready[-1].preview is not None
        assert not [
            m for m in seen if isinstance(m, (SearchScreen.FacetsReady, SearchScreen.PreviewReady))
        ]
        screen = app.screen
        assert _state(screen)[2] == screen.query_one(ResultList).hits[0].id


async def test_an_app_at_rest_draws_no_frame(app, monkeypatch) -> None:
    """Once the first screen is drawn and nothing changes, the header's poll (twice a
    second, the first half a second after it is mounted) finds nothing new to draw.
    The focus is on the results (the query line's cursor blinks, a frame each time)."""
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)
    frames: list[bool] = []
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one(ResultList).focus()
        await settle(app, pilot)
        await pilot.pause(0.1)
        with frames_drawn(app, lambda _screen, held: frames.append(held)):
            await pilot.pause(1.1)
    assert frames == []
