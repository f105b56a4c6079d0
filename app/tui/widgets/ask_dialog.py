"""A one-line question in a small modal (jump to a time, where to export)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class AskDialog(ModalScreen[str | None]):
    """Ask for one value; Enter answers, Escape cancels (returns None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        *,
        value: str = "",
        placeholder: str = "",
        help: str = "",  # noqa: A002 (the dialog's line of help, as Textual names it)
    ) -> None:
        super().__init__()
        self._title = title
        self._value = value
        self._placeholder = placeholder
        self._help = help

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-box"):
            yield Static(self._title, id="ask-title")
            yield Input(value=self._value, placeholder=self._placeholder, id="ask-input")
            if self._help:
                yield Static(self._help, id="ask-help")

    def on_mount(self) -> None:
        # a toast still on screen (bottom right) would cover the answer's end at 80x24
        self.app.clear_notifications()
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _answer(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
