"""Helpers shared by the app tests (fixtures are in conftest.py)."""

from __future__ import annotations

SIZE = (130, 40)
"""The terminal size of Pilot tests and snapshots."""
FOLLOWUP_SESSION = "f26dbc60-c2ae-4dc0-9c85-506dc31423a4"
"""Demo session "Parallelize tally directory walk" (it has a subagent)."""


async def settle(app, pilot) -> None:
    """Let workers finish and their messages land (three rounds: work begets work)."""
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()


async def first_frames(app, pilot, mode: str, probe) -> list:
    """Switch to `mode` as its key does; for every frame then drawn of that pane:
    (1 for a frame drawn while Textual holds a mode switch back, then thrown away, else 0;
    `probe(screen)`)."""
    from ccarchive.tui.textual_tuning import frames_drawn

    seen: list = []
    await settle(app, pilot)

    def drawn(screen, held: bool) -> None:
        if screen is app.screen and app.current_mode == mode:
            seen.append((int(held), probe(screen)))

    with frames_drawn(app, drawn):
        await app.run_action(f"switch_mode({mode!r})")
        await settle(app, pilot)
    return seen


async def pasted(app, pilot, query: str) -> None:
    """Paste `query` into the search pane's focused, empty query box (a terminal's paste: one
    event, one search) and wait until its results are shown.

    Typing it with `pilot.press(*query)` ran a search for every prefix, each waited for
    (~75 ms of CPU a key on the demo archive, most of an app test's CPU where the query
    was only the way in). The keys' own way into the query is what test_search's
    typing tests, test_navigation's keys typed in a list and test_crowded's search
    keys check, and they still type it."""
    from textual import events
    from textual.widgets import Input

    box = app.focused
    assert isinstance(box, Input) and box.id == "query", f"the query box has no focus: {box}"
    assert not box.value, f"the query box holds {box.value!r} already"
    app.post_message(events.Paste(query))
    await searched(app, pilot, query)


async def searched(app, pilot, query: str, timeout: float = 15.0) -> None:
    """Wait until the search pane shows the results of `query` and nothing is pending
    (on a loaded machine keystrokes collapse into follow-up searches that land later)."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        screen = app.screen
        page = getattr(screen, "page", None)
        if (
            page is not None
            and page.query == query
            and screen._in_flight is None
            and not screen._pending
        ):
            break
        assert time.monotonic() < deadline, f"the search for {query!r} did not land"
        await pilot.pause(0.05)
    await settle(app, pilot)
