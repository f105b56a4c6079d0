"""Plans pane (placeholder; being built out)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static


class PlansScreen(Screen[None]):
    """Plans pane."""

    def compose(self) -> ComposeResult:
        yield Static("Plans", id="plans-placeholder")
        yield Footer()
