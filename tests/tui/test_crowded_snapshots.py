"""Snapshots of every pane on the crowded archive at 80×24 and 120×40 (see crowded.py):
the sizes at which a list with many rows pushed a preview off screen or cut a column.

The suite draws every pane at 80×24 here; 120×40 runs in the slow tier. A wide terminal
(the `-wide` and `-tall` layouts, which 120×40 and 130×40 share) stays in the suite in
each pane's snapshot on the demo archive at 130×40 (`test_app_snapshots`, and
`test_snapshot` in test_plans, test_projects, test_prompts, test_timeline and
test_live_pane) and in test_crowded's assertions at 120×40 (the plan's rows, every
project's figures, worktrees told apart, the sessions' titles, sessions gone from disk)."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from tests.tui.support import pasted, settle

PANES = {
    "search": ("search", ()),
    "replay": ("search", ("enter",)),
    "timeline": ("timeline", ()),
    "plans": ("plans", ("down", "down")),
    "projects": ("projects", ()),
    "project-sessions": ("projects", ("down", "down", "down", "down", "down", "enter")),
    "prompts": ("prompts", ()),
    "live": ("live", ()),
}


@pytest.fixture(autouse=True)
def no_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccarchive.tui.screens.search import SearchScreen

    monkeypatch.setattr(SearchScreen, "SHOW_TIMING", False)
    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)


@pytest.mark.parametrize(
    "size",
    [
        pytest.param((80, 24), id="80x24"),
        pytest.param((120, 40), id="120x40", marks=pytest.mark.slow),
    ],
)
@pytest.mark.parametrize("pane", list(PANES))
def test_crowded_pane(crowded_app, snap_compare, pane: str, size) -> None:
    mode, keys = PANES[pane]

    async def run_before(pilot) -> None:
        app = pilot.app
        app.live.state.role = "writer"
        await settle(app, pilot)
        if mode == "search":
            await pasted(app, pilot, "lint failing")
        else:
            await app.switch_mode(mode)
        await settle(app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(app, pilot)
        for inp in app.screen.query(Input):
            inp.cursor_blink = False
        await settle(app, pilot)

    assert snap_compare(crowded_app, run_before=run_before, terminal_size=size)
