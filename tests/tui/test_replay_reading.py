"""Replay's reading tools on the demo archive: find (`/`, n/N), the outline of turns
(`u`), copy (`y`, `Y`), the pager (`v`), a turn's export (`x`), a header of two lines
that keeps the project and branch at 80×24, and a hit counter that does not change its
total while the reader moves."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from ccarchive.tui.format import short_project
from ccarchive.tui.messages import OpenSession
from ccarchive.tui.screens.replay.reading import TurnOutline
from ccarchive.tui.screens.replay.screen import ReplayScreen
from ccarchive.tui.widgets.ask_dialog import AskDialog
from tests.tui.support import FOLLOWUP_SESSION, settle


async def opened(app, pilot, size=(120, 40), query: str | None = None) -> ReplayScreen:
    await settle(app, pilot)
    app.post_message(OpenSession(FOLLOWUP_SESSION, query=query))
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReplayScreen) and screen.view.total > 0
    return screen


def status(screen: ReplayScreen) -> str:
    return str(screen.query_one("#tx-status").render())


async def test_find_marks_the_matches_and_n_steps_through_them(app) -> None:
    """A find of nothing says so and leaves the cursor; a find of something marks its
    matches, goes to the first, and n/N step through them under an unchanging total."""
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(app, pilot)
        assert not screen.view.hits
        before = screen.view.cursor
        await pilot.press("slash", *"zzqqxxnothing", "enter")
        await settle(app, pilot)
        assert screen.view.cursor == before and not screen.view.hits
        assert any("Nothing in this transcript" in str(n.message) for n in app._notifications)

        await pilot.press("slash")
        await settle(app, pilot)
        assert isinstance(app.screen, AskDialog)
        await pilot.press(*"gitignore", "enter")
        await settle(app, pilot)
        view = screen.view
        expected = app.service.search(
            "gitignore",
            session_id=FOLLOWUP_SESSION,
            limit=200,
            include_tool_results=True,
            include_thinking=True,
        )
        assert view.hits and len(view.hits) <= len(expected.hits)
        assert view.cursor in {view.pairs.shown(h) for h in view.hits}
        totals = set()
        seen = [view.cursor]
        for _ in range(len(view.hits) + 1):
            totals.add(status(screen).split("hit ", 1)[1].split("/")[1].split()[0])
            await pilot.press("n")
            await settle(app, pilot)
            seen.append(view.cursor)
        assert len(totals) == 1  # the total never changes while moving
        assert len(set(seen)) >= min(2, len({view.pairs.shown(h) for h in view.hits}))
        await pilot.press("N")
        await settle(app, pilot)
        assert view.cursor == seen[-2]


async def test_outline_lists_the_turns_and_jumps_and_y_copies_the_entry(app) -> None:
    """`u` lists the turns and Enter jumps to one; there `y` copies the whole entry and
    `Y` its id."""
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(app, pilot)
        turns = app.service.turns(FOLLOWUP_SESSION)
        assert len(turns) >= 2 and all(e.kind == "prompt" for _i, e in turns)
        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, TurnOutline)
        assert [i for i, _e in app.screen.turns] == [i for i, _e in turns]
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert app.screen is screen
        index = turns[1][0]
        assert screen.view.cursor == index
        assert screen.view.entry(index).kind == "prompt"

        entry = screen.view.entry(screen.view.cursor)
        await pilot.press("y")
        whole = app.service.entries([entry.id], max_chars=200_000)[0].text
        assert app.clipboard == whole
        await pilot.press("Y")
        assert app.clipboard == entry.id


async def test_the_pager_gets_the_whole_entry(app, tmp_path, monkeypatch) -> None:
    out = tmp_path / "paged.md"
    script = f"import shutil, sys; shutil.copy(sys.argv[1], {str(out)!r})"
    monkeypatch.setenv("PAGER", f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(app, pilot)
        entry = screen.view.entry(screen.view.cursor)
        await pilot.press("v")
        await settle(app, pilot)
        assert entry.text.strip()[:40] in out.read_text()
    assert not list(Path(out.parent).glob("ccarchive-*.md"))


async def test_export_the_turn_under_the_cursor(app, tmp_path) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(app, pilot)
        turns = app.service.turns(FOLLOWUP_SESSION)
        await pilot.press("u", "down", "enter")
        await settle(app, pilot)
        await pilot.press("j")  # inside the turn, not on its prompt
        await pilot.press("x")
        await settle(app, pilot)
        assert isinstance(app.screen, AskDialog)
        target = tmp_path / "turn.md"
        field = app.screen.query_one("#ask-input")
        field.value = str(target)
        await pilot.press("enter")
        await settle(app, pilot)
        text = target.read_text()
        assert turns[1][1].text.strip()[:40] in text
        assert turns[0][1].text.strip()[:40] not in text
        if len(turns) > 2:
            assert turns[2][1].text.strip()[:40] not in text


async def test_header_is_two_lines_with_project_and_branch_at_80x24(app) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(app, pilot, size=(80, 24))
        title = screen.query_one("#tx-title")
        assert title.region.height <= 2
        info = screen.place.info
        lines = title.render_lines(title.region.reset_offset)
        second = "".join(s.text for s in lines[1])
        assert second.strip().startswith(short_project(info.project)), second
        if info.branches:
            assert f"branch {info.branches[0]}"[:12] in second
