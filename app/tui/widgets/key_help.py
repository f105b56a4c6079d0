"""The `?` key sheet: every key of the pane on show, with what it does.

Built from the bindings themselves (the screen's, its widgets', the app's), not from a
hand-written list, so it cannot drift from what the keys do. The footer has room for a
handful of keys at 80 columns; this sheet has all of them, hidden ones included.

Only bindings declared by ccarchive's own classes are listed, and of those the ones that
say what they do (a tooltip) or are in the footer: Textual's built-in widgets bring
dozens of editing keys (an Input's ctrl+w, a Tree's shift+left), and every list has its
arrows and page keys; they would bury the pane's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

OWN_PACKAGE = "ccarchive."
"""Bindings declared in classes of this package are the app's own keys."""


@dataclass(frozen=True)
class KeyRow:
    """One line of the sheet: the keys of one action and what it does."""

    keys: str
    name: str
    what: str


def own_bindings(node: DOMNode) -> list[Binding]:
    """The bindings `node`'s own classes declare (not those of Textual's base widgets)."""
    out: list[Binding] = []
    for cls in type(node).__mro__:
        if not cls.__module__.startswith(OWN_PACKAGE):
            continue
        for b in cls.__dict__.get("BINDINGS", ()):
            if isinstance(b, Binding):
                out.append(b)
            elif isinstance(b, tuple) and len(b) >= 2:
                out.append(Binding(*b))
    return out


def _rows(node: DOMNode, bindings: Iterable[Binding], seen: set[str]) -> list[KeyRow]:
    """Bindings grouped by action (`escape,backspace` is one row), in declaration order."""
    app = node.app
    by_action: dict[str, tuple[list[str], Binding]] = {}
    for binding in bindings:
        if not binding.description or not (binding.tooltip or binding.show):
            continue  # plain navigation (arrows, pages) says nothing worth a line
        keys, _first = by_action.setdefault(binding.action, ([], binding))
        for key in binding.key.split(","):
            shown = app.get_key_display(Binding(key.strip(), binding.action))
            if shown not in keys:
                keys.append(shown)
    rows = []
    for action, (keys, binding) in by_action.items():
        if action in seen:
            continue
        seen.add(action)
        what = binding.tooltip if binding.tooltip != binding.description else ""
        rows.append(KeyRow(" ".join(keys), binding.description, what))
    return rows


def pane_keys(screen: Screen[object]) -> tuple[list[KeyRow], list[KeyRow]]:
    """(this pane's keys, the keys that work everywhere) of `screen`."""
    seen: set[str] = set()
    pane = _rows(screen, own_bindings(screen), seen)
    for widget in screen.walk_children():
        pane += _rows(widget, own_bindings(widget), seen)
    everywhere = _rows(screen.app, own_bindings(screen.app), seen)
    return pane, everywhere


def key_table(rows: list[KeyRow]) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right", style="bold", no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(style="dim")
    for row in rows:
        table.add_row(row.keys, row.name, row.what)
    return table


class KeyHelp(ModalScreen[None]):
    """A pane's keys, from its bindings; any of Esc, ?, q or Enter closes it."""

    BINDINGS = [
        Binding("escape,question_mark,q,enter", "dismiss", "Close", show=False),
    ]

    def __init__(self, pane: str, screen: Screen[object]) -> None:
        super().__init__()
        self.pane = pane
        """The pane's name (the sheet's title)."""
        self.rows = pane_keys(screen)
        """(the pane's keys, the keys of every pane), read when the sheet opens."""

    def compose(self) -> ComposeResult:
        pane, everywhere = self.rows
        with Vertical(id="keys-box") as box:
            box.border_title = f"{self.pane} keys"
            box.border_subtitle = "Esc closes"
            with VerticalScroll(id="keys-scroll"):
                if pane:
                    yield Static(key_table(pane), id="keys-pane")
                yield Static(Text("Everywhere", style="bold"), classes="keys-heading")
                yield Static(key_table(everywhere), id="keys-app")
