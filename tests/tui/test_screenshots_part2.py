"""Regenerate screenshots/{timeline,plans,memory,prompts,live}.svg from the demo archive.

Run with `pytest -m screenshots tests/tui/test_screenshots_part2.py`.
"""

from __future__ import annotations

import pytest

from app.live.runtime import LiveArchive

from app.tui.widgets import status_header
from app.tui.widgets import timeline_format as tf
from tests.conftest import DEMO_NOW

SIZE = (130, 40)


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo archive's "now", UTC times and a fixed archive path in the header."""
    monkeypatch.setattr(tf, "CLOCK", lambda: DEMO_NOW)
    monkeypatch.setattr(tf, "_LOCAL", False)
    monkeypatch.setattr(status_header, "short_path", lambda _p: "~/.claude")


@pytest.fixture
def live(demo_settings, fixed_clock):  # noqa: ANN001, ANN201
    """The demo archive copy, indexed by a LiveArchive we drive by hand (no watcher)."""
    live = LiveArchive(demo_settings, watch=False).start()
    for t in live._threads:
        t.join(60)
    yield live
    live.stop()


@pytest.fixture
def app(live, demo_settings):  # noqa: ANN001, ANN201
    from app.tui.app import make_app

    return make_app(demo_settings, live=live, start_live=False)


async def settle(app, pilot) -> None:  # noqa: ANN001
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()
from pathlib import Path  # noqa: E402

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
async def test_screenshot(app, name: str) -> None:  # noqa: ANN001
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
