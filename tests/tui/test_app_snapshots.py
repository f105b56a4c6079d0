"""Snapshots of the search pane and of replay (pytest --snapshot-update to accept changes).

Deterministic: the demo archive (fixed DEMO_NOW), UTC, a fixed archive path in the
header, the header's index state set by hand, no cursor blink, workers awaited.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input

from ccarchive.tui.messages import OpenSession
from tests.tui.support import FOLLOWUP_SESSION, SIZE, pasted, settle


async def still(app, pilot) -> None:
    for inp in app.screen.query(Input):
        inp.cursor_blink = False
    await settle(app, pilot)


@pytest.fixture(autouse=True)
def no_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccarchive.tui.screens.search import SearchScreen

    monkeypatch.setattr(SearchScreen, "SHOW_TIMING", False)
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)  # no timers to wait for
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)


def prepare(app):
    app.live.state.role = "writer"  # the header says "live", as a running app would
    return app


def test_search_pane(app, snap_compare) -> None:
    async def run_before(pilot) -> None:
        await still(pilot.app, pilot)
        await pasted(pilot.app, pilot, "walker")
        await still(pilot.app, pilot)

    assert snap_compare(prepare(app), run_before=run_before, terminal_size=SIZE)


def test_transcript_at_a_hit(app, snap_compare) -> None:
    async def run_before(pilot) -> None:
        await still(pilot.app, pilot)
        page = pilot.app.service.search("gitignore kind:assistant", session_id=FOLLOWUP_SESSION)
        pilot.app.post_message(
            OpenSession(
                FOLLOWUP_SESSION,
                entry_id=next(h.id for h in page.hits if not h.agent_id),
                query="gitignore",
            )
        )
        await still(pilot.app, pilot)

    assert snap_compare(prepare(app), run_before=run_before, terminal_size=SIZE)


def test_transcript_tool_call_expanded(app, snap_compare) -> None:
    async def run_before(pilot) -> None:
        await still(pilot.app, pilot)
        pilot.app.post_message(OpenSession(FOLLOWUP_SESSION))
        await still(pilot.app, pilot)
        view = pilot.app.screen.view
        call = next(
            i
            for i in range(view.total)
            if view.entry(i).kind == "tool_call" and view.entry(i).tool == "Bash"
        )
        view.move_cursor(call, context=3)
        await pilot.press("enter")
        await still(pilot.app, pilot)

    assert snap_compare(prepare(app), run_before=run_before, terminal_size=SIZE)


def test_subagent_transcript(app, snap_compare) -> None:
    async def run_before(pilot) -> None:
        await still(pilot.app, pilot)
        pilot.app.post_message(OpenSession(FOLLOWUP_SESSION))
        await still(pilot.app, pilot)
        view = pilot.app.screen.view
        view.move_cursor(next(i for i in range(view.total) if view.entry(i).subagent_id))
        await pilot.press("o")
        await still(pilot.app, pilot)

    assert snap_compare(prepare(app), run_before=run_before, terminal_size=SIZE)
