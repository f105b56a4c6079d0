"""What the part-2 panes (timeline, plans, projects, prompts, live) share as screens."""

from __future__ import annotations

import gc
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

    A new pane also moves the heap built so far (the panes opened before it, which live
    as long as the app) out of the collector's way, as the app does after its first
    paint: otherwise the objects of the panes opened since then added up until a full
    pass (50-70 ms over all of them) fell into the third or fourth pane's first screen.
    Only the young generations are collected first (about a millisecond); cyclic garbage
    already in the old one is kept, once per pane, and is small.
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
        gc.collect(1)
        gc.freeze()
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
