"""Live tail pane (placeholder; being built out)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static


class LiveScreen(Screen[None]):
    """Live tail pane."""

    def compose(self) -> ComposeResult:
        yield Static("Live tail", id="live-placeholder")
        yield Footer()
