"""Projects and memory pane (placeholder; being built out)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static


class ProjectsScreen(Screen[None]):
    """Projects and memory pane."""

    def compose(self) -> ComposeResult:
        yield Static("Projects and memory", id="projects-placeholder")
        yield Footer()
