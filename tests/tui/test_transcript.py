"""Transcript replay: stepping, turns, playing, hits, time, subagents, expand, export, resume."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from ccarchive.service.models import Entry
from ccarchive.tui.messages import OpenSession
from ccarchive.tui.screens.replay import time_jump as tx
from ccarchive.tui.screens.replay.screen import ReplayScreen
from ccarchive.tui.screens.replay.time_jump import parse_when, replay_delay
from ccarchive.tui.widgets.transcript_view import PAGE, TranscriptView
from tests.tui.support import FOLLOWUP_SESSION, SIZE, settle


async def open_followup(app, pilot, **kw) -> ReplayScreen:
    app.post_message(OpenSession(FOLLOWUP_SESSION, **kw))
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


async def test_stepping_by_entry_and_by_turn_and_unfolding_a_call(app) -> None:
    """j/k and the arrows step by entry, left/right by turn, Home/End to the ends;
    Enter unfolds a tool call with its result."""
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_followup(app, pilot)
        view = screen.view
        assert view.cursor == 0 and view.total > 20
        await pilot.press("j", "j", "down")
        assert view.cursor == 3
        await pilot.press("k")
        assert view.cursor == 2
        await pilot.press("right")  # the next prompt
        assert view.entry(view.cursor).kind == "prompt" and view.cursor > 2
        first_turn = view.cursor
        await pilot.press("left")
        assert view.cursor < first_turn
        await pilot.press("end")
        assert view.cursor == view.total - 1
        assert view.total - 1 in view.visible_entries()
        await pilot.press("home")
        assert view.cursor == 0 and view.top == 0
        await settle(app, pilot)

        # Enter unfolds a tool call with its result, and folds it again
        call = next(
            i
            for i in range(view.total)
            if view.entry(i).kind == "tool_call"
            and view.entry(i + 1).tool_use_id == view.entry(i).tool_use_id
        )
        view.move_cursor(call)
        folded = view._height(call)
        await pilot.press("enter")
        assert {call, call + 1} <= view.expanded
        assert view._height(call) > folded
        await pilot.press("enter")
        assert not view.expanded


async def test_playing_follows_the_recorded_pace(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_followup(app, pilot)
        view = screen.view
        screen._stop_playing()
        e0, e1 = view.entry(0), view.entry(1)
        await pilot.press("s")  # 10x
        await pilot.press("space")
        assert screen.playing
        assert screen.pending_delay == pytest.approx(replay_delay(e0.timestamp, e1.timestamp, 10.0))
        screen._timer.stop()  # drive the clock by hand: one tick per step
        screen.replay_tick()
        assert view.cursor == 1
        screen._timer.stop()
        screen.replay_tick()
        assert view.cursor == 2
        await pilot.press("space")
        assert not screen.playing and screen.pending_delay is None
        assert "paused · 10x" in str(screen.query_one("#tx-status").render())


def test_replay_delay_scales_and_caps_idle_time() -> None:
    t = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
    assert replay_delay(t, t + timedelta(seconds=8), 1.0) == 8.0
    assert replay_delay(t, t + timedelta(seconds=8), 10.0) == pytest.approx(0.8)
    assert replay_delay(t, t + timedelta(hours=9), 1.0) == tx.IDLE_CAP
    assert replay_delay(t, t + timedelta(hours=9), 100.0) == pytest.approx(tx.IDLE_CAP / 100)
    assert replay_delay(t, t, 1.0) == tx.MIN_DELAY
    assert replay_delay(t, t + timedelta(hours=1), None) == tx.STEP_DELAY


async def test_open_a_subagent_and_come_back(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_followup(app, pilot)
        view = screen.view
        call = next(i for i in range(view.total) if view.entry(i).subagent_id)
        agent = view.entry(call).subagent_id
        view.move_cursor(call)
        await pilot.press("o")
        await settle(app, pilot)
        assert len(screen.stack) == 2 and screen.place.agent_id == agent
        assert view.entry(0).agent_id == agent and view.entry(0).kind == "prompt"
        assert "subagent" in str(screen.query_one("#tx-title").render())
        await pilot.press("escape")
        await settle(app, pilot)
        assert len(screen.stack) == 1 and view.cursor == call
        assert view.entry(call).subagent_id == agent
        await pilot.press("escape")  # at the session: back to the search
        await pilot.pause()
        assert app.current_mode == "search"


async def test_next_and_previous_search_hit(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_followup(app, pilot, query="walker")
        view = screen.view
        assert len(view.hits) >= 2
        view.move_cursor(0)
        await pilot.press("n")
        assert view.cursor == view.hits[0]
        await pilot.press("n")
        assert view.cursor == view.hits[1]
        await pilot.press("N")
        assert view.cursor == view.hits[0]
        assert "hit 1/" in str(screen.query_one("#tx-status").render())


@pytest.mark.slow
async def test_jump_to_a_time(app) -> None:
    """In the slow tier: test_replay_tools's test_time_jumps_say_where_they_landed keeps
    the promise in the suite (a time typed into the dialog moves the cursor to the first
    entry at or after it, a result shown at its call), over every form of a time."""
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_followup(app, pilot)
        view = screen.view
        target = view.entry(15)
        await pilot.press("t")
        await pilot.pause()
        await pilot.press(*target.timestamp.astimezone().strftime("%H:%M:%S"), "enter")
        await settle(app, pilot)
        found = next(
            i
            for i in range(view.total)
            if view.entry(i).timestamp >= target.timestamp.replace(microsecond=0)
        )
        assert found <= 15
        assert view.cursor == view.pairs.shown(found)  # a result is shown at its call


def test_parse_when() -> None:
    base = datetime(2026, 11, 15, 10, 12, tzinfo=UTC)
    assert parse_when("+10m", base, base) == base + timedelta(minutes=10)
    assert parse_when("+1h", base, base) == base + timedelta(hours=1)
    assert parse_when("2026-11-15T11:00:00+00:00", None, base) == base.replace(hour=11, minute=0)
    assert parse_when("10:30", base, base).astimezone(UTC).minute == 30
    with pytest.raises(ValueError):
        parse_when("tea time", base, base)


async def test_copy_resume_and_export(app, tmp_path: Path) -> None:
    copied: list[str] = []
    app.copy_to_clipboard = copied.append
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_followup(app, pilot)
        await pilot.press("c")
        assert copied == [f"claude --resume {FOLLOWUP_SESSION}"]
        assert list(app._notifications)  # "copied" is on screen, bottom right
        await pilot.press("e")
        await pilot.pause()
        # ... and gone under the dialog, whose path field it would cover at 80x24
        assert not list(app._notifications)
        dialog_input = app.screen.query_one("#ask-input")
        dialog_input.value = str(tmp_path / "out.md")
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is screen
    text = (tmp_path / "out.md").read_text()
    assert text.startswith("# Parallelize tally directory walk")
    assert f"claude --resume {FOLLOWUP_SESSION}" in text
    assert "### 🧑 User" in text and "**Tool: Bash**" in text


class BigTranscript(App[None]):
    """A TranscriptView alone, fed synthetic pages of a 100,000-entry session."""

    TOTAL = 100_000

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[int] = []

    def compose(self) -> ComposeResult:
        yield TranscriptView(id="transcript")

    def on_mount(self) -> None:
        self.query_one(TranscriptView).reset(self.TOTAL)

    def on_transcript_view_pages_wanted(self, message: TranscriptView.PagesWanted) -> None:
        view = self.query_one(TranscriptView)
        t0 = datetime(2026, 1, 1, tzinfo=UTC)
        for p in message.pages:
            self.asked.append(p)
            view.add_page(
                p,
                [
                    Entry(
                        id=f"e{i}",
                        kind="assistant" if i % 2 else "prompt",
                        text=f"entry number {i}\n\nwith `code`",
                        timestamp=t0 + timedelta(seconds=i),
                    )
                    for i in range(p * PAGE, min(self.TOTAL, (p + 1) * PAGE))
                ],
            )


async def test_a_100k_entry_transcript_only_reads_what_is_on_screen() -> None:
    app = BigTranscript()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        view = app.query_one(TranscriptView)
        view.move_cursor(73_456)
        await pilot.pause()
        await pilot.pause()
        assert 73_456 in view.visible_entries()
        assert len(set(app.asked)) <= 4  # the first page, and the pages around the cursor
        assert view.entry(73_456).text.startswith("entry number 73456")
        await pilot.press("end")
        await pilot.pause()
        assert view.visible_entries()[-1] == app.TOTAL - 1
        assert len(view._pages) <= 8
