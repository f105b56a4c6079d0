"""Live pane: active sessions, the followed tail, "+N new" when scrolled up, End."""

from __future__ import annotations

from ccarchive.tui.widgets.prompt_list import PromptTable
from ccarchive.tui.widgets.tail_sessions import ActiveSessions
from ccarchive.tui.widgets.tail_view import TailView
from tests.support.live_turns import NEW_SESSION, SESSION, append_turn, start_new_session
from tests.tui.support import SIZE, settle


async def test_appended_lines_appear_in_tail_and_prompts_until_scrolled_up(
    app, live, demo_archive
) -> None:
    """Lines appended to the followed session appear at the tail (and a new session in
    the list, a new prompt in Prompts); scrolled up, the tail holds still and counts the
    new lines, End follows again. One app over one freshly indexed copy of the demo
    archive: each test that appends pays for indexing its own copy."""
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        await app.switch_mode("live")
        await settle(app, pilot)
        screen = app.screen
        sessions = screen.query_one(ActiveSessions)
        assert [s.session_id for s in sessions.sessions] == [SESSION]
        view = screen.query_one(TailView)
        assert view.follow and view.entries
        before = len(view.entries)

        live.run_once(only=append_turn(demo_archive, 1))
        await settle(app, pilot)
        texts = [e.text for e in view.entries]
        assert len(view.entries) == before + 2
        assert "follow-up number 1" in texts[-2] and "blocked attempt number 1" in texts[-1]
        assert view.follow and view.scroll_y == view.max_scroll_y

        # a new session shows up on its own
        live.run_once(only=start_new_session(demo_archive))
        await settle(app, pilot)
        assert NEW_SESSION in [s.session_id for s in sessions.sessions]
        assert screen.session_id == SESSION  # the followed session stays

        # ...and the prompt list grew at the top
        await app.switch_mode("prompts")
        await settle(app, pilot)
        table = app.screen.query_one(PromptTable)
        assert table.items[0].text.startswith("follow-up number 1")

        # scrolled up, the tail pauses and counts what came; End follows again
        await app.switch_mode("live")
        await settle(app, pilot)
        view.focus()
        assert view.max_scroll_y > 5
        await pilot.press("up", "up", "up")
        await settle(app, pilot)
        assert not view.follow
        y = view.scroll_y
        live.run_once(only=append_turn(demo_archive, 2))
        await settle(app, pilot)
        assert view.pending == 2 and view.scroll_y == y
        marker = screen.query_one("#live-pending")
        assert "+2 new" in str(marker.render())
        await pilot.press("end")
        await settle(app, pilot)
        assert view.follow and view.pending == 0 and view.scroll_y == view.max_scroll_y
        assert "following" in str(marker.render())


def test_snapshot(snap_compare, app) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.switch_mode("live")
        await settle(pilot.app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
