"""Replay's reading tools: find in the transcript (`/`, then n/N over the matches), an
outline of its turns to jump to (`u`), the entry copied (`y` its text, `Y` its id),
read in the pager or the editor (`v`, `E`), and the turn under the cursor exported (`x`).

Find asks the index for the session's entries matching the words (the search language,
tool output and thinking included), as the search that opened the session does: its
matches become the hits n/N step through. The entry shown in the pager or the editor is
read whole from the archive, written to a temporary file outside it and deleted after.
Mixed into `ReplayScreen`, which supplies `place`, `view` and `_find_hits`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ccarchive.service.models import Entry
from ccarchive.tui.format import local, one_line
from ccarchive.tui.screens.replay.place import ReplayPart
from ccarchive.tui.transcript_export import (
    ExportRefused,
    default_export_dir,
    export_markdown,
    export_name,
    export_target,
)
from ccarchive.tui.widgets.ask_dialog import AskDialog
from ccarchive.tui.widgets.entry_render import entry_markdown

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
                label = Text.assemble((f"{n:>3} ", "dim"),
                                      (f"{local(e.timestamp, '%d %b %H:%M')}  ", "dim"),
                                      one_line(e.text, 200))
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


class ReadingTools(ReplayPart):
    """Find, outline, copy, pager/editor and turn export (mixed into the replay screen)."""

    if TYPE_CHECKING:
        def _find_hits(self, key: int, session_id: str, agent_id: str,
                       query: str) -> None: ...
        def _render_status(self) -> None: ...

    # ---- find ------------------------------------------------------------------------
    def action_find(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        self.app.push_screen(AskDialog(
            "Find in this session", value=place.query or "",
            placeholder="words, \"a phrase\", kind:tool_call …",
            help="Its matching entries are marked ◆; n/N step through them."),
            self._find_answered)

    def _find_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None:
            return
        place.query = answer
        place.find_pending = True  # the cursor goes to the first match after it
        self._find_hits(place.key, place.session_id, place.agent_id, answer)

    # ---- outline -----------------------------------------------------------------------
    def action_outline(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        self._load_turns(place.key, place.session_id, place.agent_id)

    @work(thread=True, exclusive=True, group="transcript-outline", exit_on_error=False,
          description="Reading the turns")
    def _load_turns(self, key: int, session_id: str, agent_id: str) -> None:
        turns = self.app.service.turns(session_id,  # type: ignore[attr-defined]
                                       agent_id=agent_id or None)
        self.app.call_from_thread(self._show_outline, key, turns)

    def _show_outline(self, key: int, turns: list[tuple[int, Entry]]) -> None:
        place = self.place
        if place is None or place.key != key:
            return
        if not turns:
            self.notify("This transcript has no prompt to jump to.", severity="warning")
            return
        self.app.push_screen(TurnOutline(turns, self.view.cursor), self._turn_chosen)

    def _turn_chosen(self, index: int | None) -> None:
        if index is not None:
            self.view.move_cursor(index, context=1)

    # ---- the entry under the cursor ----------------------------------------------------
    def _entry_whole(self) -> Entry | None:
        entry = self.view.entry(self.view.cursor)
        if entry is None:
            return None
        if entry.truncated:
            full = self.app.service.entries([entry.id], max_chars=FULL)  # type: ignore
            return full[0] if full else entry
        return entry

    def action_copy_entry(self) -> None:
        entry = self._entry_whole()
        if entry is None:
            return
        self.app.copy_to_clipboard(entry.text)
        self.notify(f"Copied the {entry.kind.replace('_', ' ')} ({len(entry.text):,} "
                    "characters)", title="Copy", markup=False)

    def action_copy_id(self) -> None:
        entry = self.view.entry(self.view.cursor)
        if entry is None:
            return
        self.app.copy_to_clipboard(entry.id)
        self.notify(f"Copied: {entry.id}", title="Copy", markup=False)

    def action_pager(self) -> None:
        self._open_outside("PAGER", "less")

    def action_editor(self) -> None:
        self._open_outside("VISUAL", "EDITOR", "vi")

    def _open_outside(self, *names: str) -> None:
        """The entry as Markdown in a temporary file, opened by the program the first of
        the environment variables `names` names (the last name: the default program)."""
        entry = self._entry_whole()
        if entry is None:
            return
        *env, default = names
        command = next((os.environ[v] for v in env if os.environ.get(v)), default)
        argv = shlex.split(command)
        if not argv or shutil.which(argv[0]) is None:
            self.notify(f"`{argv[0] if argv else command}` is not on PATH "
                        f"(set ${env[0]}).", severity="error", markup=False)
            return
        fd, name = tempfile.mkstemp(prefix="ccarchive-", suffix=".md")
        path = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(entry_markdown(entry) + "\n")
            try:
                with self.app.suspend():
                    subprocess.run([*argv, str(path)], check=False)
            except SuspendNotSupported:  # no terminal to hand over (a headless app)
                subprocess.run([*argv, str(path)], check=False, stdin=subprocess.DEVNULL)
        finally:
            path.unlink(missing_ok=True)

    # ---- the turn under the cursor -----------------------------------------------------
    def _turn_span(self) -> tuple[int, int]:
        """[its prompt, the next prompt) around the cursor, from the entries loaded (a
        page not loaded yet ends the turn there)."""
        view = self.view
        first = view.cursor
        while first > 0:
            e = view.entry(first)
            if e is None or e.kind == "prompt":
                break
            first -= 1
        stop = view.cursor + 1
        while stop < view.total:
            e = view.entry(stop)
            if e is None or e.kind == "prompt":
                break
            stop += 1
        return first, stop

    def action_export_turn(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        first, stop = self._turn_span()
        root = Path(self.app.service.root)  # type: ignore[attr-defined]
        name = export_name(place.info, place.agent_id).removesuffix(".md") \
            + f"-turn-{first + 1}.md"
        self.app.push_screen(AskDialog(
            "Export this turn as Markdown to", value=str(default_export_dir(root) / name),
            help=f"Entries {first + 1}–{stop} (its prompt and what answered it). Never "
                 "inside the archive."),
            lambda answer: self._export_turn(answer, name, (first, stop)))

    def _export_turn(self, answer: str | None, name: str, span: tuple[int, int]) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        root = Path(self.app.service.root)  # type: ignore[attr-defined]
        try:
            path = export_target(answer, root, name)
            n = export_markdown(self.app.service, place.info, place.agent_id, place.title,
                                path, archive_root=root, span=span)
        except (ExportRefused, OSError) as exc:
            self.notify(str(exc), title="Not exported", severity="error", timeout=8,
                        markup=False)
            return
        self.notify(f"{n:,} entries written to {path}", title="Exported", markup=False)

