"""Replay's way out of the app: `c` copies `claude --resume <id>`, `R` runs it in the
project's directory, `e` exports the transcript as Markdown.

An export path is checked before anything is written (`transcript_export.export_target`):
one inside the archive is refused with the reason, and the dialog comes back with the
default place outside it. Mixed into `ReplayScreen`, which supplies `place`.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from textual import work
from textual.markup import escape

from ccarchive.service.models import SessionInfo
from ccarchive.tui.screens.replay.place import ReplayPart
from ccarchive.tui.transcript_export import (
    ExportRefused,
    default_export_dir,
    export_markdown,
    export_name,
    export_target,
)
from ccarchive.tui.widgets.ask_dialog import AskDialog
from ccarchive.tui.widgets.status_header import short_path


class ResumeAndExport(ReplayPart):
    """Resume in Claude Code, and export (mixed into the replay screen)."""

    def _resume_command(self) -> str | None:
        place = self.place
        return f"claude --resume {place.session_id}" if place else None

    def action_copy_resume(self) -> None:
        cmd = self._resume_command()
        if cmd is None:
            return
        self.app.copy_to_clipboard(cmd)
        where = self.place.info.project if self.place and self.place.info else ""
        self.notify(f"Copied: {cmd}" + (f"\nRun it in {short_path(where)} (R does)."
                                        if where else ""), title="Resume", timeout=6,
                    markup=False)

    def action_run_resume(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        claude = shutil.which("claude")
        if claude is None:
            self.notify("`claude` is not on PATH; c copies the command instead.",
                        severity="error")
            return
        cwd = place.info.project if place.info.project and Path(place.info.project).is_dir() \
            else None
        with self.app.suspend():
            subprocess.run([claude, "--resume", place.session_id], cwd=cwd, check=False)

    def _archive_root(self) -> Path:
        return Path(self.app.service.root)  # type: ignore[attr-defined]

    def action_export(self) -> None:
        place = self.place
        if place is None or place.info is None:
            return
        self._ask_export(str(default_export_dir(self._archive_root())
                             / export_name(place.info, place.agent_id)))

    def _ask_export(self, value: str, refused: str = "") -> None:
        help_text = "The whole transcript, full texts (read back from the archive). " \
                    "Never inside the archive."
        self.app.push_screen(AskDialog(
            "Export as Markdown to", value=value,
            help=f"⚠ {escape(refused)}\nHere instead?" if refused else help_text),
            self._export_answered)

    def _export_answered(self, answer: str | None) -> None:
        place = self.place
        if not answer or place is None or place.info is None:
            return
        root = self._archive_root()
        name = export_name(place.info, place.agent_id)
        try:
            path = export_target(answer, root, name)
        except ExportRefused as exc:  # say why, and offer the default place
            self.notify(str(exc), title="Not exported", severity="error", timeout=8,
                        markup=False)
            self._ask_export(str(default_export_dir(root) / name), refused=str(exc))
            return
        self._run_export(path, place.info, place.agent_id, place.title)

    @work(thread=True, exclusive=True, group="export", exit_on_error=False,
          description="Exporting the transcript")
    def _run_export(self, path: Path, info: SessionInfo, agent_id: str, title: str) -> None:
        try:
            n = export_markdown(self.app.service, info, agent_id, title, path,  # type: ignore
                                archive_root=self._archive_root())
        except (ExportRefused, OSError) as exc:
            self.app.call_from_thread(self.notify, str(exc), title="Not exported",
                                      severity="error", markup=False)
            return
        self.app.call_from_thread(self.notify, f"{n:,} entries written to {path}",
                                  title="Exported", markup=False)
