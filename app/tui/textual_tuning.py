"""Every use of Textual's private API, in one place, behind a version guard and a switch.

Textual draws a pane's first visit as three or four frames, restyles it twice and collects
the garbage of every pane opened before it; the measured costs are in `TunedScreen`'s
docstring. Nothing public lets an app avoid that, so `TunedScreen` (the base of every pane)
and the helpers below reach into Textual's internals: the bytecode of `AwaitMount`, the
calling frame, the compositor's dirty regions, the styles cache, the CSS generation, the
worker manager's done callback and the modes' screen stacks.

They are tied to the Textual they were measured on: `SUPPORTED` (pyproject.toml pins the
same range). On another version, or with `CCARCHIVE_PLAIN_TEXTUAL=1`, `ENABLED` is false
and the screens behave as plain Textual screens (a first visit is drawn more often, nothing
else changes). tests/tui/test_textual_tuning.py fails when a Textual upgrade removes
something used here (`missing_hooks`).

The functional hooks (every opened pane hears of a new commit; every worker's failure
reaches the one notice) use the same internals and are here too, but are not switched off:
without them the app would miss updates and errors rather than draw more.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import version
from types import CodeType
from typing import Any, Self

from rich.console import RenderableType
from textual import events, messages
from textual.app import App
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.worker import Worker

SUPPORTED = ((8, 2), (9, 0))
"""Textual versions the tuning was measured on: from 8.2 up to, not including, 9.0."""
OFF_ENV = "CCARCHIVE_PLAIN_TEXTUAL"
"""Set to 1 to run on plain Textual (no frame held, no restyle skipped)."""


def supported(textual_version: str) -> bool:
    """Whether `textual_version` ("8.2.8") is in `SUPPORTED`."""
    try:
        major_minor = tuple(int(p) for p in textual_version.split(".")[:2])
    except ValueError:
        return False
    low, high = SUPPORTED
    return low <= major_minor < high


ENABLED = supported(version("textual")) and os.environ.get(OFF_ENV, "") in ("", "0")
"""The tuning is on: a supported Textual and not switched off."""


def _await_mount_caller() -> str | None:
    """The name of the function in which Textual's `AwaitMount` asks the screen for a
    layout once it is mounted (None if this Textual does it otherwise: nothing waits)."""
    for const in AwaitMount.__await__.__code__.co_consts:
        if isinstance(const, CodeType) and "refresh" in const.co_names:
            return const.co_name
    return None


MOUNT_LAYOUT_CALLER = _await_mount_caller() if ENABLED else None


class TunedScreen(Screen[None]):
    """A screen that starts out styled with the app's current CSS, is not restyled on
    being shown for the first time, and draws its first visit as one frame.

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

    _holding = ENABLED
    _drawn = False
    _after_first_frame = False
    _resized = False
    _mount_layout = MOUNT_LAYOUT_CALLER is not None

    def __init__(
        self,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._been_away = False
        """Suspended at least once (another pane was shown since this one mounted)."""
        self._holding = ENABLED
        """No frame drawn yet: the first Resize or the mounted screen's layout is to come."""
        self._resized = False
        """The screen's first Resize has come."""
        self._mount_layout = MOUNT_LAYOUT_CALLER is not None
        """The layout asked for once the screen is mounted has not come yet."""
        self.released_by: str | None = None if ENABLED else "plain"
        """What let the first frame be drawn: "layout" (the first Resize and the layout
        Textual asks for once the screen is mounted both came), "timeout"
        (`FIRST_FRAME_HOLD` ran out first) or "plain" (the tuning is off); None while
        the frame is held."""
        try:
            app = self.app
        except Exception:  # no running app (a screen built outside one): nothing to skip
            return
        gc.collect(1)
        gc.freeze()
        if not ENABLED:
            return
        if not (self.CSS or self.CSS_PATH):
            self._css_update_count = app._css_update_count
        self._breakpoints_now()

    def _breakpoints_now(self) -> None:
        """The breakpoint classes (`-narrow`, `-tall`…) for the terminal's size, set
        before the screen is styled: set by its first Resize instead, they restyled every
        node of a pane that had just been styled without them."""
        app = self.app
        width, height = app.size
        for size, points in (
            (
                width,
                self.HORIZONTAL_BREAKPOINTS
                if self.HORIZONTAL_BREAKPOINTS is not None
                else app.HORIZONTAL_BREAKPOINTS,
            ),
            (
                height,
                self.VERTICAL_BREAKPOINTS
                if self.VERTICAL_BREAKPOINTS is not None
                else app.VERTICAL_BREAKPOINTS,
            ),
        ):
            classes = self._get_breakpoint_classes(size, points or [])
            if classes:
                self.add_class(*classes, update=False)

    def _on_mount(self, event: events.Mount) -> None:
        if ENABLED:
            self.set_timer(self.FIRST_FRAME_HOLD, self._release)

    async def _on_resize(self, event: events.Resize) -> None:
        self._resized = True  # Screen's handler, after this one, lays out (and draws)
        self._holding = self._mount_layout
        if not self._holding:
            self._released("layout")

    def _release(self) -> None:
        if self._holding:
            self._holding = False
            self._released("timeout")
            self.refresh()

    def _released(self, cause: str) -> None:
        if self.released_by is None:
            self.released_by = cause

    def refresh(
        self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False
    ) -> Self:
        if (
            self._mount_layout
            and layout
            and not regions
            and self._is_mounted
            and sys._getframe(1).f_code.co_name == MOUNT_LAYOUT_CALLER
        ):
            self._mount_layout = False
            if self._holding:
                self._holding = not self._resized  # the layout it asks for draws
                if not self._holding:
                    self._released("layout")
            else:  # the hold timed out, a first frame was drawn: what moved is redrawn
                repaint = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _compositor_refresh(self) -> None:
        if self._holding:  # the dirty regions wait in the compositor meanwhile
            return
        compositor = self._compositor
        if ENABLED and not self._drawn and compositor.size.region in compositor._dirty_regions:
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

    async def _on_update(self, message: messages.Update) -> None:
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
        if ENABLED and not self._been_away:  # runs before Screen's handler, which reads it
            event.refresh_styles = False


# ---- the app ----------------------------------------------------------------------

PARSED_CSS_KEPT = 256
"""Parsed stylesheets kept per process: each of the ~50 sources (our styles, every
widget's default CSS) once per theme seen, and room to spare."""
_PARSED_CSS: LRUCache[tuple[object, ...], list[RuleSet]] = LRUCache(PARSED_CSS_KEPT)


class SharedStylesheet(Stylesheet):
    """A stylesheet that parses each CSS source once per process, not once per app.

    Textual keeps what a stylesheet parsed in a cache of that stylesheet, so each app
    parses every source again: the app's styles and the default CSS of each widget class
    it mounts, ~50 sources and about a quarter of a start's CPU (a second app's start
    under Pilot, tests/benchmarks/bench_app_start.py: 211 -> 159 ms at 80x24). A parse
    reads the source, where it came from, and the CSS variables (the theme): keyed by
    all of them, the rule sets one app parsed are those another would parse, and
    Textual already hands the same rule sets to every screen and every parse of one app
    (it never changes them once parsed). A user's process starts one app; the app tests
    start about two hundred in a few processes.
    """

    _variables_key: tuple[dict[str, str], frozenset[tuple[str, str]]] | None = None

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        variables = self._variables
        if self._variables_key is None or self._variables_key[0] is not variables:
            # `set_variables` replaces the dict (a theme change): keyed anew
            self._variables_key = (variables, frozenset(variables.items()))
        key = (css, read_from, is_default_rules, tie_breaker, scope, self._variables_key[1])
        rules = _PARSED_CSS.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            _PARSED_CSS[key] = rules
        return rules


def share_parsed_css(app: App[Any]) -> None:
    """Give a new app (before it runs) a stylesheet that shares what it parses with the
    other apps of this process (`SharedStylesheet`); plain Textual when the tuning is off."""
    if ENABLED:
        app.stylesheet = SharedStylesheet(variables=app.stylesheet._variables)


def mode_opened(app: App[Any], mode: str) -> bool:
    """The mode's screen was built already (the pane has been shown before)."""
    return mode in app._screen_stacks


def mode_screens(app: App[Any]) -> Iterator[Screen[Any]]:
    """The screens of every mode opened so far (Textual keeps a stack per mode)."""
    for stack in getattr(app, "_screen_stacks", {}).values():
        yield from stack


def on_worker_removed(app: App[Any], callback: Callable[[Worker[Any]], None]) -> None:
    """Call `callback` with every worker of the app and its screens as it is removed
    (done): `Worker.StateChanged` does not bubble, so only the worker manager sees the
    workers of every pane."""
    manager = app.workers
    done = manager._remove_worker

    def removed(worker: Worker[Any]) -> None:
        callback(worker)
        done(worker)

    manager._remove_worker = removed  # type: ignore[method-assign]


# ---- what the tests watch ---------------------------------------------------------


def screen_text(screen: Screen[Any]) -> str:
    """The screen's lines as last drawn, as plain text."""
    return "\n".join(strip.text for strip in screen._compositor.render_strips())


@contextmanager
def frames_drawn(app: App[Any], on_frame: Callable[[Screen[Any], bool], None]) -> Iterator[None]:
    """Call `on_frame(screen, held)` for every frame the app draws while inside: `held`
    when Textual draws it while it holds a mode switch back (then throws it away)."""
    display = app._display

    def drawn(screen: Screen[Any], update: RenderableType | None) -> None:
        if update is not None:
            on_frame(screen, app._batch_count != 0)
        display(screen, update)

    app._display = drawn  # type: ignore[assignment]
    try:
        yield
    finally:
        app._display = display  # type: ignore[method-assign]


# ---- what an upgrade must keep ----------------------------------------------------


def missing_hooks() -> list[str]:
    """What this module uses that the installed Textual lacks (empty when all is there)."""
    from textual._styles_cache import StylesCache

    app: App[Any] = App()
    screen: Screen[Any] = Screen()
    wanted = {
        "AwaitMount asks for a layout from a function of its own": _await_mount_caller(),
        "App._css_update_count": getattr(app, "_css_update_count", None),
        "App._screen_stacks": getattr(app, "_screen_stacks", None),
        "App._display": getattr(app, "_display", None),
        "App.stylesheet": getattr(app, "stylesheet", None),
        "Stylesheet._parse_rules": getattr(Stylesheet, "_parse_rules", None),
        "Stylesheet._variables": getattr(app.stylesheet, "_variables", None),
        "App._batch_count": getattr(app, "_batch_count", None),
        "App.delay_update": getattr(app, "delay_update", None),
        "WorkerManager._remove_worker": getattr(app.workers, "_remove_worker", None),
        "Screen._compositor": getattr(screen, "_compositor", None),
        "Screen._compositor_refresh": getattr(screen, "_compositor_refresh", None),
        "Screen._css_update_count": getattr(screen, "_css_update_count", None),
        "Screen._get_breakpoint_classes": getattr(screen, "_get_breakpoint_classes", None),
        "Screen._repaint_required": getattr(screen, "_repaint_required", None),
        "Screen._is_mounted": getattr(screen, "_is_mounted", None),
        "Screen._styles_cache": getattr(screen, "_styles_cache", None),
        "Compositor._dirty_regions": getattr(screen._compositor, "_dirty_regions", None),
        "Compositor.full_map": getattr(type(screen._compositor), "full_map", None),
        "Compositor.render_strips": getattr(screen._compositor, "render_strips", None),
        "StylesCache._cache": getattr(StylesCache(), "_cache", None),
        "StylesCache._dirty_lines": getattr(StylesCache(), "_dirty_lines", None),
        "ScreenResume.refresh_styles": getattr(events.ScreenResume(), "refresh_styles", None),
    }
    return [name for name, found in wanted.items() if found is None]
