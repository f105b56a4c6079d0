"""Helpers shared by the app tests (fixtures are in conftest.py)."""

from __future__ import annotations

SIZE = (130, 40)
"""The terminal size of Pilot tests and snapshots."""
FOLLOWUP_SESSION = "f26dbc60-c2ae-4dc0-9c85-506dc31423a4"
"""Demo session "Parallelize tally directory walk" (it has a subagent)."""


async def settle(app, pilot) -> None:  # noqa: ANN001
    """Let workers finish and their messages land (three rounds: work begets work)."""
    for _ in range(3):
        await pilot.pause()
        await app.workers.wait_for_complete()
    await pilot.pause()
