"""What the part-2 panes (timeline, plans, projects, prompts, live) share as screens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.screen import Screen

if TYPE_CHECKING:
    from app.service import ArchiveService


class PaneScreen(Screen[None]):
    """A pane's screen: starts out styled with the app's current CSS, and is not
    restyled on being shown for the first time.

    Textual gives a new screen a CSS generation of -1, so the first `switch_mode` to a
    mode re-parses the whole stylesheet and restyles every node of every screen opened
    so far, twice (once in `_init_mode`, once in `switch_mode`): 0.1–0.45 s of CPU per
    first visit in a cProfile of the 1 GB benchmark, growing with each pane opened. The
    panes bring no CSS of their own (it is all in the app's `CSS_PATH`) and a screen is
    styled as it mounts, so a new pane is current with the app's CSS by construction;
    after a theme change the app's generation moves on and the refresh happens as usual.

    Likewise a first `switch_mode` sends the new screen two `ScreenResume` events, and
    each restyles every node of the screen that was styled as it mounted a moment ago:
    until the pane has been away once, nothing can have changed its styles.
    """

    def __init__(self, name: str | None = None, id: str | None = None,  # noqa: A002
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._been_away = False
        """Suspended at least once (another pane was shown since this one mounted)."""
        try:
            generation = self.app._css_update_count
        except Exception:  # no running app (a screen built outside one): nothing to skip
            return
        if not (self.CSS or self.CSS_PATH):
            self._css_update_count = generation

    @property
    def service(self) -> ArchiveService:
        """The app's query service: the only way a pane asks the archive anything."""
        return self.app.service  # type: ignore[attr-defined]

    def _on_screen_suspend(self) -> None:
        self._been_away = True  # Screen's own handler runs after this one

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._been_away:  # runs before Screen's handler, which reads this
            event.refresh_styles = False
