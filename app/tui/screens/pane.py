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

    Its first frame waits for its first `Resize`: Textual lays a new screen out, draws
    it, then handles the two `ScreenResume`s (each repaints the whole screen) and the
    `Resize` that first layout sent the screen (another layout), and draws it all again:
    two full frames of the same screen (~15-20 ms each on the 1 GB benchmark). Held
    until that `Resize`, the first layout's frame is drawn once, with the second.
    """

    FIRST_FRAME_HOLD = 0.25
    """Seconds at most the first frame waits for the screen's first Resize."""

    first_frame_complete = False
    """The pane reads its data before its first frame (in `on_mount`, not in a worker):
    the app then shows that frame at once rather than hiding the pane while it builds."""

    def __init__(self, name: str | None = None, id: str | None = None,  # noqa: A002
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._been_away = False
        """Suspended at least once (another pane was shown since this one mounted)."""
        self._holding = True
        """No frame drawn yet: the screen's first Resize has not come."""
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

    def _on_mount(self) -> None:
        self.set_timer(self.FIRST_FRAME_HOLD, self._release)  # should a Resize not come

    def _on_resize(self) -> None:
        self._holding = False  # Screen's handler, after this one, lays out and draws

    def _release(self) -> None:
        if self._holding:
            self._holding = False
            self.refresh()

    def _compositor_refresh(self) -> None:
        if not self._holding:  # the dirty regions wait in the compositor meanwhile
            super()._compositor_refresh()

    def _on_screen_suspend(self) -> None:
        self._been_away = True  # Screen's own handler runs after this one

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._been_away:  # runs before Screen's handler, which reads this
            event.refresh_styles = False
