"""Regenerate screenshots/*-80x24.svg: Search, Replay, Timeline, Plans, Projects and
Prompts at the size most terminals open at (the main list gets the width, charts fold,
the list sits over the plan, Replay's header keeps two lines).

Run with `pytest -m screenshots tests/tui/test_screenshots_small.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.support import searched, settle

SHOTS = Path(__file__).resolve().parents[2] / "screenshots"
SIZE = (80, 24)


@pytest.mark.screenshots
@pytest.mark.parametrize(
    ("name", "mode", "keys"),
    [
        ("search", "search", ()),
        ("timeline", "timeline", ()),
        ("plans", "plans", ("down", "down", "enter")),
        ("transcript", "search", ("down", "down", "enter")),  # a session (the first: a plan)
        ("projects", "projects", ("down",)),
        ("prompts", "prompts", ()),
    ],
)
async def test_small_screenshot(app, name: str, mode: str, keys: tuple[str, ...]) -> None:
    SHOTS.mkdir(exist_ok=True)
    app.live.state.role = "writer"
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        if mode == "search":
            await pilot.press(*"gitignore walk")
            await searched(app, pilot, "gitignore walk")
        else:
            await app.switch_mode(mode)
            await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        for inp in app.screen.query(Input):
            inp.cursor_blink = False
        await pilot.pause(0.6)  # the header's poll
        await settle(app, pilot)
        path = app.save_screenshot(filename=f"{name}-80x24.svg", path=str(SHOTS))
    assert Path(path).stat().st_size > 10_000
