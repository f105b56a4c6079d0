"""What every pane shares as a screen: the app's query service, and a first visit drawn
as one frame (`TunedScreen`, in the module that holds all of Textual's private API)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ccarchive.tui.textual_tuning import TunedScreen

if TYPE_CHECKING:
    from textual import getters
    from textual.app import App

    from ccarchive.service import ArchiveService


class PaneHost(Protocol):
    """What the panes use of the app beyond Textual's `App`. `ArchiveApp` is it (app.py
    says so to the type checker); the panes cannot import it: it imports them."""

    @property
    def service(self) -> ArchiveService: ...

    def go_back(self) -> None: ...


if TYPE_CHECKING:

    class PaneApp(App[None], PaneHost):
        """The app as the panes see it (for the type checker only)."""


class PaneScreen(TunedScreen):
    """A pane's screen: it asks the archive through `service`."""

    if TYPE_CHECKING:
        app = getters.app(PaneApp)

    first_frame_complete = False
    """The pane reads its data before its first frame (in `on_mount`, not in a worker):
    the app then shows that frame at once rather than hiding the pane while it builds."""

    @property
    def service(self) -> ArchiveService:
        """The app's query service: the only way a pane asks the archive anything."""
        return self.app.service
