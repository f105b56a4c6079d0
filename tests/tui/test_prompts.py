"""Prompts pane: newest first, search, project/session/date filters, open, refresh."""

from __future__ import annotations

from ccarchive.tui.messages import OpenSession
from ccarchive.tui.widgets.prompt_list import PromptTable
from tests.support.live_turns import append_turn
from tests.tui.support import SIZE, settle


async def test_newest_first_search_and_filters(app) -> None:
    opened: list[OpenSession] = []
    async with app.run_test(
        size=SIZE, message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        screen = app.screen
        table = screen.query_one(PromptTable)
        assert len(table.items) == 33
        stamps = [i.timestamp for i in table.items]
        assert stamps == sorted(stamps, reverse=True)
        # this session only (s), then all again
        await pilot.press("down", "s")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert {i.session_id[:8] for i in table.items} == {"7966b882"} and len(table.items) == 3
        await pilot.press("s")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert len(table.items) == 33
        # a project, then a date
        screen._set_filter(project="/home/demo/src/dotfiles")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert table.items and {i.project for i in table.items} == {"/home/demo/src/dotfiles"}
        screen._set_filter(project=None, since="2026-11-19")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert [i.session_id[:8] for i in table.items] == ["097b4589"] + ["7966b882"] * 3 + [
            "a03ff1b3"
        ] * 2
        screen._set_filter(since="")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert len(table.items) == 33
        # search
        await pilot.press("slash", *"tmux")
        await pilot.pause(0.3)
        await settle(app, pilot)
        assert table.items and all("tmux" in i.text.lower() for i in table.items)
        await pilot.press("enter")  # back to the table
        await pilot.press("enter")  # open the session
        await settle(app, pilot)
        assert opened and opened[-1].session_id.startswith("a03ff1b3")


async def test_new_prompts_keep_the_readers_place(app, live, demo_archive) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        table = app.screen.query_one(PromptTable)
        await pilot.press("down", "down", "down")
        chosen = table.selected
        live.run_once(only=append_turn(demo_archive, 7))
        await settle(app, pilot)
        assert table.items[0].text.startswith("follow-up number 7")
        assert table.selected.id == chosen.id
        assert "1 new" in str(app.screen.query_one("#prompts-status").render())


def test_snapshot(snap_compare, app) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.switch_mode("prompts")
        await settle(pilot.app, pilot)
        await pilot.press("down", "down")
        await settle(pilot.app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
