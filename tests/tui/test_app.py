"""The app frame: modes and their keys, the header, commands, app-wide messages, errors."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from ccarchive.index.run_reports import CommitInfo
from ccarchive.live.live_archive import LiveArchive
from ccarchive.tui.messages import IndexUpdated, OpenSession
from ccarchive.tui.widgets import status_header
from tests.tui.support import FOLLOWUP_SESSION, SIZE, first_frames, settle


async def test_every_pane_has_a_function_key_and_digits_switch_only_when_not_typing(
    app,
) -> None:
    """F1-F7 switch to the seven panes, from the results too; a digit is a character in
    the query box and in the results (typed after what is there), and switches panes
    where nothing is typed (Live)."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert app.current_mode == "search"
        await pilot.press("3")  # the query box has focus: it is a character
        await pilot.pause()
        assert app.current_mode == "search"
        assert app.screen.query_one("#query", Input).value == "3"
        app.screen.query_one("#results").focus()
        await pilot.press("3")  # in the results too: typed after what is there
        await pilot.pause()
        assert app.current_mode == "search"
        assert app.screen.query_one("#query", Input).value == "33"
        app.screen.query_one("#results").focus()
        await settle(app, pilot)
        for n, mode in enumerate(
            ["search", "replay", "timeline", "plans", "projects", "prompts", "live"], start=1
        ):
            await pilot.press(f"f{n}")  # F2 with the results focused
            await pilot.pause()
            assert app.current_mode == mode
        await settle(app, pilot)
        await pilot.press("3")  # Live has no text box: digits switch
        await pilot.pause()
        assert app.current_mode == "timeline"
        await settle(app, pilot)


async def test_header_shows_archive_state_and_documents(app) -> None:
    """The header says "starting" until the writer lock was tried (never read-only
    before), then the role, the archive, the documents and the indexing progress."""
    app.role_known = False  # as when the writer lock has not been tried yet
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        header = app.screen.query_one(status_header.ArchiveHeader)
        assert "starting" in header.render().plain
        assert "read-only" not in header.render().plain
        app.role_known = True
        app.live.state.role = "read-only"  # what it says once known, if so
        assert "read-only (another ccarchive indexes)" in header.render().plain
        app.live.state.role = "writer"
        text = header.render().plain
        assert "~/.claude" in text and "● live" in text
        assert f"{app.service.document_count():,} documents" in text
        app.live.state.indexing, app.live.state.progress = True, 0.42
        assert "indexing 42%" in header.render().plain


async def test_command_palette_offers_panes_and_pane_actions(app) -> None:
    """The palette lists the panes and the pane's own actions, each command once, and
    none of the widgets' internals (the keys of the focused text box)."""
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Go to Replay (F2 or 2)" in titles and "Go to Live (F7 or 7)" in titles
        assert "Group/hits" in titles and "Facets" in titles
        assert {"Theme", "Quit", "Keys (?)", "Go to Plans (F4 or 4)"} <= set(titles)
        assert len(titles) == len(set(titles))
        assert "Copy selected text" not in titles and "Delete character left" not in titles
        assert "Focus Next" not in titles  # Textual's Screen binds it, not this app
        await app.switch_mode("replay")
        await settle(app, pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Play/pause", "Export", "Copy resume", "Subagent", "Time"} <= set(titles)


async def test_index_updates_reach_every_opened_pane(app) -> None:
    from ccarchive.tui.screens.replay.screen import ReplayScreen
    from ccarchive.tui.screens.search import SearchScreen

    seen: list[object] = []
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await settle(app, pilot)
        await app.switch_mode("replay")
        await settle(app, pilot)
        seen.clear()
        forgot: list[bool] = []
        view = app.screen.view
        view.forget_pages = lambda: forgot.append(True)  # the replay re-reads its pages
        info = CommitInfo(
            opstamp=1, docs=1, sessions=frozenset(), kinds=frozenset(), files=frozenset()
        )
        app._committed(info)  # what the indexer thread calls
        await settle(app, pilot)
        assert any(isinstance(m, IndexUpdated) for m in seen)
        assert any(isinstance(m, SearchScreen.ResultsReady) for m in seen)  # search re-ran
        assert forgot  # and the replay, in the background of it, too
        assert isinstance(app.screen, ReplayScreen)


@pytest.mark.slow
async def test_open_session_switches_to_replay_at_the_entry(app) -> None:
    """In the slow tier: test_search's test_enter_opens_the_hit_in_replay_at_its_entry
    keeps the promise in the suite (Replay opens at the entry, scrolled to it), through
    the key that sends this message."""
    from ccarchive.tui.screens.replay.screen import ReplayScreen

    page = app.service.transcript(FOLLOWUP_SESSION, limit=30)
    target = page.entries[12]
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.post_message(OpenSession(FOLLOWUP_SESSION, entry_id=target.id))
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.view.cursor == 12
        assert screen.view.entry(12).id == target.id
        assert 12 in screen.view.visible_entries()


async def test_a_failing_worker_notifies_instead_of_crashing(app) -> None:
    def boom() -> None:
        raise RuntimeError("the index went away")

    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(app, pilot)
        app.screen.run_worker(boom, thread=True, exit_on_error=False, description="Boom")
        await settle(app, pilot)
        notes = list(app._notifications)
        assert any("the index went away" in n.message and n.severity == "error" for n in notes)
        assert app.is_running


async def test_a_starting_app_indexes_as_the_writer_and_quitting_stops_it(
    demo_settings, fixed_clock
) -> None:
    """The app that starts indexing never says another process indexes (the header,
    from its first frame until the role is known); on exit it stops indexing: threads
    end, the lock is freed."""
    from ccarchive.tui.app import make_app

    app = make_app(demo_settings)  # starts indexing: the first writer, no one else
    seen: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        header = app.screen.query_one(status_header.ArchiveHeader)
        for _ in range(40):
            seen.append(header.render().plain)
            if app.role_known:
                break
            await pilot.pause(0.01)
        await app.workers.wait_for_complete()
        seen.append(header.render().plain)
        assert not any("read-only" in s for s in seen)
        assert "● live" in seen[-1] or "indexing" in seen[-1]
        await pilot.pause()
        assert app.live.is_writer
        await pilot.press("ctrl+q")
    assert app.live.stopping.is_set()
    assert all(not t.is_alive() for t in app.live._threads)
    again = LiveArchive(demo_settings, watch=False)
    try:
        assert again._try_become_writer()  # the writer lock was released
    finally:
        again.stop()


def _timeline_data(screen) -> bool:
    from ccarchive.tui.widgets.timeline_chart import ActivityChart
    from ccarchive.tui.widgets.timeline_sessions import DaySessions

    return bool(screen.query_one(ActivityChart).buckets) and bool(
        screen.query_one(DaySessions).sessions
    )


def _live_data(screen) -> bool:
    from ccarchive.tui.widgets.tail_sessions import ActiveSessions
    from ccarchive.tui.widgets.tail_view import TailView

    return bool(screen.query_one(ActiveSessions).sessions) and bool(
        screen.query_one(TailView).entries
    )


def _prompts_data(screen) -> bool:
    from ccarchive.tui.widgets.prompt_list import PromptTable

    return bool(screen.query_one(PromptTable).items)


@pytest.mark.parametrize(
    ("mode", "has_data"),
    [("timeline", _timeline_data), ("live", _live_data), ("prompts", _prompts_data)],
)
async def test_first_frame_of_a_pane_holds_its_data(app, mode, has_data) -> None:
    """The pane reads its data before its first frame, and that frame is shown (not
    drawn while Textual holds a mode switch back, then thrown away)."""
    async with app.run_test(size=SIZE) as pilot:
        seen = await first_frames(app, pilot, mode, has_data)
    assert seen and seen[0] == (0, True)
