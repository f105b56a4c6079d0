"""Prompts pane (placeholder; being built out)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static


class PromptsScreen(Screen[None]):
    """Prompts pane."""

    def compose(self) -> ComposeResult:
        yield Static("Prompts", id="prompts-placeholder")
        yield Footer()
