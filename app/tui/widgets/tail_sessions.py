"""Sessions active in the last minutes, newest activity first; the selection sticks to its
session while the list reorders and grows."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ccarchive.service.models import SessionInfo
from ccarchive.tui.format import ago, one_line, short_project


class ActiveSessions(OptionList):
    """One option per active session: title, then project · age · figures."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sessions: list[SessionInfo] = []

    def show(self, sessions: list[SessionInfo], keep: str | None) -> None:
        self.sessions = sessions
        with self.prevent(OptionList.OptionHighlighted):
            self.clear_options()
            if not sessions:
                self.add_option(
                    Option(
                        Text("no session active in this window", style="dim italic"),
                        id="-",
                        disabled=True,
                    )
                )
                return
            for s in sessions:
                label = Text(one_line(s.title or s.first_prompt or s.session_id, 30), style="bold")
                label.append(
                    f"\n{short_project(s.project)} · {ago(s.last_activity)} · {s.messages} msgs",
                    style="dim",
                )
                self.add_option(Option(label, id=s.session_id))
            ids = [s.session_id for s in sessions]
            if keep in ids:
                self.highlighted = ids.index(keep)

    @property
    def selected_id(self) -> str | None:
        i = self.highlighted
        if i is None or not 0 <= i < len(self.sessions):
            return None
        return self.sessions[i].session_id
