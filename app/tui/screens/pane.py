"""What every pane (search, replay, timeline, plans, projects, prompts, live) shares as a screen."""

from __future__ import annotations

import gc
import sys
from types import CodeType
from typing import TYPE_CHECKING, Self

from textual import events, messages
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import AwaitMount

if TYPE_CHECKING:
    from ccarchive.service import ArchiveService


def _await_mount_caller() -> str | None:
    """The name of the function in which Textual's `AwaitMount` asks the screen for a
    layout once it is mounted (None if this Textual does it otherwise: nothing waits)."""
    for const in AwaitMount.__await__.__code__.co_consts:
        if isinstance(const, CodeType) and "refresh" in const.co_names:
            return const.co_name
    return None


MOUNT_LAYOUT_CALLER = _await_mount_caller()


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

    Its first frame waits for its first `Resize` and for the layout Textual asks for
    once it is mounted. Textual lays a new screen out and draws it, then handles the
    two `ScreenResume`s (each repaints the whole screen), the `Resize` that first layout
    sent the screen (another layout) and the `AwaitMount` of `switch_mode` (another
    layout and a repaint of the whole screen), drawing each time: three or four frames
    of the same screen (~5-20 ms each on the 1 GB benchmark). Held until both have come,
    the screen is drawn once (a layout more, ~1.5 ms).
    """

    FIRST_FRAME_HOLD = 0.25
    """Seconds at most the first frame waits (should the Resize or the layout not come)."""

    _holding = True
    _drawn = False
    _after_first_frame = False
    _resized = False
    _mount_layout = MOUNT_LAYOUT_CALLER is not None

    first_frame_complete = False
    """The pane reads its data before its first frame (in `on_mount`, not in a worker):
    the app then shows that frame at once rather than hiding the pane while it builds."""

    def __init__(self, name: str | None = None, id: str | None = None,  # noqa: A002
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._been_away = False
        """Suspended at least once (another pane was shown since this one mounted)."""
        self._holding = True
        """No frame drawn yet: the first Resize or the mounted screen's layout is to come."""
        self._resized = False
        """The screen's first Resize has come."""
        self._mount_layout = MOUNT_LAYOUT_CALLER is not None
        """The layout asked for once the screen is mounted has not come yet."""
        try:
            generation = self.app._css_update_count
        except Exception:  # no running app (a screen built outside one): nothing to skip
            return
        gc.collect(1)
        gc.freeze()
        if not (self.CSS or self.CSS_PATH):
            self._css_update_count = generation
        self._breakpoints_now()

    def _breakpoints_now(self) -> None:
        """The breakpoint classes (`-narrow`, `-tall`…) for the terminal's size, set
        before the screen is styled: set by its first Resize instead, they restyled every
        node of a pane that had just been styled without them."""
        app = self.app
        width, height = app.size
        for size, points in ((width, self.HORIZONTAL_BREAKPOINTS
                              if self.HORIZONTAL_BREAKPOINTS is not None
                              else app.HORIZONTAL_BREAKPOINTS),
                             (height, self.VERTICAL_BREAKPOINTS
                              if self.VERTICAL_BREAKPOINTS is not None
                              else app.VERTICAL_BREAKPOINTS)):
            classes = self._get_breakpoint_classes(size, points or [])
            if classes:
                self.add_class(*classes, update=False)

    @property
    def service(self) -> ArchiveService:
        """The app's query service: the only way a pane asks the archive anything."""
        return self.app.service  # type: ignore[attr-defined]

    def _on_mount(self) -> None:
        self.set_timer(self.FIRST_FRAME_HOLD, self._release)

    def _on_resize(self) -> None:
        self._resized = True  # Screen's handler, after this one, lays out (and draws)
        self._holding = self._mount_layout

    def _release(self) -> None:
        if self._holding:
            self._holding = False
            self.refresh()

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        if self._mount_layout and layout and not regions and self._is_mounted \
                and sys._getframe(1).f_code.co_name == MOUNT_LAYOUT_CALLER:
            self._mount_layout = False
            if self._holding:
                self._holding = not self._resized  # the layout it asks for draws
            else:  # the hold timed out, a first frame was drawn: what moved is redrawn
                repaint = False
        return super().refresh(*regions, repaint=repaint, layout=layout,
                               recompose=recompose)

    def _compositor_refresh(self) -> None:
        if self._holding:  # the dirty regions wait in the compositor meanwhile
            return
        compositor = self._compositor
        if not self._drawn and compositor.size.region in compositor._dirty_regions:
            # The first frame draws the whole screen, with whatever its widgets asked
            # to repaint meanwhile (a scrollbar set by the layout, the screen itself
            # after a resume): each such request is an Update message sent at the
            # widget's next idle, and each drew a frame more of what this one draws.
            self._drawn = True
            self._repaint_required = False
            for widget in compositor.full_map:  # the widgets and their scrollbars
                widget._repaint_required = False
            self._after_first_frame = True
            self.set_timer(self.FIRST_FRAME_HOLD, self._first_frame_settled)
        super()._compositor_refresh()

    def _on_update(self, message: messages.Update) -> None:
        # An Update a widget sent before the first frame (as the held layouts set its
        # scrollbars) comes after it, though that frame drew the widget as it is: its
        # lines are cached and none is dirty. Shortly after the first frame, such an
        # Update is dropped rather than drawn again in a frame of its own.
        if self._after_first_frame:
            cache = message.widget._styles_cache
            if cache._cache and not cache._dirty_lines:
                message.stop()
                message.prevent_default()  # not Screen's handler, which marks it dirty

    def _first_frame_settled(self) -> None:
        self._after_first_frame = False

    def _on_screen_suspend(self) -> None:
        self._been_away = True  # Screen's own handler runs after this one

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._been_away:  # runs before Screen's handler, which reads this
            event.refresh_styles = False
