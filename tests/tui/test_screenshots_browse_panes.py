"""Regenerate screenshots/{timeline,plans,memory,prompts,live}.svg from the demo archive.

Run with `pytest -m screenshots tests/tui/test_screenshots_browse_panes.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.support import SIZE, settle

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"

PANES = {
    # file: (mode, keys pressed once the pane has settled)
    "timeline": ("timeline", ()),
    "plans": ("plans", ("down", "down", "enter")),
    "memory": ("projects", ("down", "tab", "down")),
    "prompts": ("prompts", ("down", "down")),
    "live": ("live", ()),
}


@pytest.mark.screenshots
@pytest.mark.parametrize("name", list(PANES))
async def test_screenshot(app, name: str) -> None:
    mode, keys = PANES[name]
    SCREENSHOTS.mkdir(exist_ok=True)
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode(mode)
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        path = app.save_screenshot(filename=f"{name}.svg", path=str(SCREENSHOTS))
    assert Path(path).stat().st_size > 10_000
