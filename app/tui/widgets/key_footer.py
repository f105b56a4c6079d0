"""The key-hint footer as one widget: Textual's `Footer`, drawn as a single line.

Textual's `Footer` composes one `FooterKey` widget per binding and composes them all again
whenever the screen's bindings may have changed (every focus change). Each key widget is
styled up to three times as it mounts (its `compact` class is set by its own reactive and
then by a data binding), so a pane switch spent most of its time styling footer keys:
~0.45 of 0.78 s CPU for the timeline's first screen in a pyinstrument profile. This
footer shows the same keys in the same colours (the theme's `$footer-*` variables), but
it is one widget: a bindings change re-reads `active_bindings` and repaints one line.

The pane's own keys come first and the app's pane keys (F1–F7) after them; below
`NARROW` columns the F-keys are left out (they are the same in every pane, and `?` lists
them), and keys are drawn compact. Keys that do not fit are left out whole, from the end
(Textual's footer cuts the last one mid-word); `?` (every key of the pane) and the command
palette key keep their place on the right. A click runs the key; hovering shows its
tooltip.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

NARROW = 100
"""Below this width: no F-key list, compact keys."""
PANES_FROM = 60
"""From this width, below NARROW, the footer names the pane keys (`F1-7 Panes`)."""
HELP_KEY = "question_mark"
"""The key-sheet key, drawn on the right beside the palette's."""


@dataclass(frozen=True)
class _Key:
    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    app_level: bool = False
    """An app binding (the pane keys F1–F7): after the pane's own, none when narrow."""


class KeyFooter(Widget, can_focus=False):
    """The active bindings' keys and descriptions; the command palette key on the right."""

    ALLOW_SELECT = False
    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .key-footer--hover { background: $block-hover-background; }
        & > .key-footer--separator { color: $foreground 20%; }
    }
    """
    """Textual's footer colours, from the theme (as `FooterKey` and `Footer` set them)."""

    COMPONENT_CLASSES = {
        "key-footer--key",
        "key-footer--description",
        "key-footer--hover",
        "key-footer--separator",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._keys: tuple[_Key, ...] | None = None
        """Shown keys (left to right), None until read; the palette key is last."""
        self._palette: _Key | None = None
        self._help: _Key | None = None
        self._spans: list[tuple[int, int, _Key]] = []
        """Where each drawn key sits: [start, end) columns, from the last render."""
        self._hover: _Key | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Screen[object]) -> None:
        if self._read_keys():
            self.refresh()

    def _read_keys(self) -> bool:
        """Re-read the screen's active bindings; True if what is shown changed."""
        app = self.app
        active = self.screen.active_bindings
        keys: list[_Key] = []
        seen: set[str] = set()
        help_key = None
        for node, binding, enabled, tooltip in active.values():
            if binding.key == HELP_KEY:
                help_key = _Key(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    enabled,
                    tooltip or binding.description,
                )
                continue
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)  # one key per action, as Footer does
            keys.append(
                _Key(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    enabled,
                    tooltip or binding.description,
                    node is app,
                )
            )
        keys.sort(key=lambda k: k.app_level)  # the pane's own first (a stable sort)
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _n, binding, enabled, _t = active[app.COMMAND_PALETTE_BINDING]
            palette = _Key(
                binding.key,
                app.get_key_display(binding),
                binding.description,
                enabled,
                binding.tooltip or binding.description,
            )
            keys = [k for k in keys if k.key != binding.key]
        new = tuple(keys)
        if new == self._keys and palette == self._palette and help_key == self._help:
            return False
        self._keys, self._palette, self._help = new, palette, help_key
        return True

    # ---- drawing -------------------------------------------------------------------
    def _item(self, k: _Key, compact: bool = False) -> Text:
        """` key description ` (Footer's padding); compact: ` key description`."""
        key_st = self.get_component_rich_style("key-footer--key")
        desc_st = self.get_component_rich_style("key-footer--description")
        if k.description:
            pad = "" if compact else " "
            text = Text.assemble(
                (f" {k.display}{pad}", key_st),
                (f"{' ' if compact else ''}{k.description}{pad}", desc_st),
            )
        else:
            text = Text(k.display, style=key_st)
        if not k.enabled:
            text.stylize(Style(dim=True))
        if k == self._hover:
            hover = self.get_component_rich_style("key-footer--hover")
            text.stylize(Style(bgcolor=hover.bgcolor))
        return text

    def render(self) -> Text:
        if self._keys is None:
            self._read_keys()
        width = self.size.width
        narrow = width < NARROW
        right = Text()
        spans: list[tuple[int, int, _Key]] = []
        if self._palette is not None or self._help is not None:
            # Footer docks it right: a vkey border, the key compact, one cell of padding
            right.append("▏", self.get_component_rich_style("key-footer--separator"))
            panes = None
            if narrow and self._help is not None and width >= PANES_FROM:
                # the pane keys have no room of their own below 100 columns: say they
                # exist (a click opens the key sheet, which lists them)
                panes = _Key(
                    HELP_KEY,
                    "F1-7",
                    "Panes",
                    True,
                    "F1 Search · F2 Replay · F3 Timeline · F4 Plans · "
                    "F5 Projects · F6 Prompts · F7 Live",
                )
            for k in (panes, self._help, self._palette):
                if k is None:
                    continue
                start = right.cell_len
                right.append_text(self._item(k, compact=True))
                spans.append((start, right.cell_len, k))
            right.append(" ")
            spans = [
                (width - right.cell_len + a, width - right.cell_len + b, k) for a, b, k in spans
            ]
        room = width - right.cell_len
        out = Text(no_wrap=True, overflow="crop", end="")
        for k in self._keys or ():
            if narrow and k.app_level:
                continue
            item = self._item(k, compact=narrow)
            if out.cell_len + item.cell_len > room:
                break  # whole keys only
            spans.append((out.cell_len, out.cell_len + item.cell_len, k))
            out.append_text(item)
        out.append(" " * max(0, room - out.cell_len))
        out.append_text(right)
        self._spans = spans
        return out

    # ---- mouse -----------------------------------------------------------------------
    def _key_at(self, x: int) -> _Key | None:
        return next((k for a, b, k in self._spans if a <= x < b), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        k = self._key_at(event.x)
        if k != self._hover:
            self._hover = k
            self.tooltip = k.tooltip if k is not None and k.tooltip else None
            self.refresh()

    def on_leave(self, _event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        k = self._key_at(event.x)
        if k is None:
            return
        if k.enabled:
            self.app.simulate_key(k.key)
        else:
            self.app.bell()
