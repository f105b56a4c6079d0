"""Regenerate screenshots/search.svg, transcript*.svg and subagent.svg from the demo archive.

Run with `pytest -m screenshots tests/tui/test_screenshots_search_and_replay.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from ccarchive.tui.messages import OpenSession
from tests.tui.support import FOLLOWUP_SESSION, searched, settle

SHOTS = Path(__file__).resolve().parents[2] / "screenshots"
SIZE = (140, 42)


async def still(app, pilot) -> None:
    for inp in app.screen.query(Input):
        inp.cursor_blink = False
    await settle(app, pilot)
    await pilot.pause(0.6)  # the header's poll
    await settle(app, pilot)


@pytest.mark.screenshots
async def test_search_and_replay_screenshots(app) -> None:
    SHOTS.mkdir(exist_ok=True)
    app.live.state.role = "writer"
    async with app.run_test(size=SIZE) as pilot:
        await still(app, pilot)
        await pilot.press(*"gitignore walk")
        await pilot.press("ctrl+g")  # single hits show the kinds side by side
        await searched(app, pilot, "gitignore walk")
        await still(app, pilot)
        app.save_screenshot("search.svg", str(SHOTS))

        page = app.service.search("gitignore kind:assistant", session_id=FOLLOWUP_SESSION)
        app.post_message(
            OpenSession(
                FOLLOWUP_SESSION,
                entry_id=next(h.id for h in page.hits if not h.agent_id),
                query="gitignore",
            )
        )
        await still(app, pilot)
        app.save_screenshot("transcript.svg", str(SHOTS))

        view = app.screen.view  # an Edit unfolds into its diff, with its result under it
        call = next(
            i
            for i in range(view.total)
            if view.entry(i).kind == "tool_call" and view.entry(i).tool == "Edit"
        )
        view.move_cursor(call, context=4)
        await pilot.press("enter")
        await still(app, pilot)
        app.save_screenshot("transcript-tool.svg", str(SHOTS))

        view.move_cursor(next(i for i in range(view.total) if view.entry(i).subagent_id))
        await pilot.press("o")
        await still(app, pilot)
        app.save_screenshot("subagent.svg", str(SHOTS))
    for name in ("search", "transcript", "transcript-tool", "subagent"):
        assert (SHOTS / f"{name}.svg").stat().st_size > 10_000
