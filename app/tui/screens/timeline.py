"""Timeline pane (placeholder; being built out)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static


class TimelineScreen(Screen[None]):
    """Timeline pane."""

    def compose(self) -> ComposeResult:
        yield Static("Timeline", id="timeline-placeholder")
        yield Footer()
