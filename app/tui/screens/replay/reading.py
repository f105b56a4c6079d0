"""Replay's reading tools: find in the transcript (`/`, then n/N over the matches), an
outline of its turns to jump to (`u`), the entry copied (`y` its text, `Y` its id),
read in the pager or the editor (`v`, `E`), and the turn under the cursor exported (`x`):
the outline dialog and what the screen's actions share (`open_outside`, `FULL`).

Find asks the index for the session's entries matching the words (the search language,
tool output and thinking included), as the search that opened the session does: its
matches become the hits n/N step through. The entry shown in the pager or the editor is
read whole from the archive, written to a temporary file outside it and deleted after.
The actions themselves are methods of `ReplayScreen`.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ccarchive.service.models import Entry
from ccarchive.tui.format import local, one_line

FULL = 200_000
"""Characters of an entry read for the pager, the editor or the clipboard."""


class TurnOutline(ModalScreen[int | None]):
    """The prompts of the transcript; Enter jumps to the one selected, Esc stays."""

    BINDINGS = [Binding("escape,q", "cancel", "Close")]

    def __init__(self, turns: list[tuple[int, Entry]], current: int) -> None:
        super().__init__()
        self.turns = turns
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="outline-box") as box:
            box.border_title = f"Turns ({len(self.turns)})"
            box.border_subtitle = "Enter jumps · Esc closes"
            options = []
            for n, (index, e) in enumerate(self.turns, start=1):
                label = Text.assemble(
                    (f"{n:>3} ", "dim"),
                    (f"{local(e.timestamp, '%d %b %H:%M')}  ", "dim"),
                    one_line(e.text, 200),
                )
                options.append(Option(label, id=str(index)))
            yield OptionList(*options, id="outline-list")

    def on_mount(self) -> None:
        outline = self.query_one(OptionList)
        outline.focus()
        here = [i for i, (index, _e) in enumerate(self.turns) if index <= self.current]
        if here:
            outline.highlighted = here[-1]

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
