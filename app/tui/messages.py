"""Messages that cross screens. Widget-specific messages live inside their widget class."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from ccarchive.index.run_reports import CommitInfo


@dataclass
class IndexUpdated(Message):
    """The index committed (this process or the writer we follow): views re-run queries.

    A newer commit supersedes a pending one, so `info` is only a hint of what changed:
    a view re-runs its query on any IndexUpdated unless it is provably unaffected.
    """

    info: CommitInfo

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexUpdated)


@dataclass
class OpenSession(Message):
    """Open a session in transcript replay, at an entry if given (from any pane)."""

    session_id: str
    entry_id: str | None = None
    agent_id: str | None = None
    query: str | None = None
    """The search that led here: replay highlights its words and steps through its hits."""


@dataclass
class OpenItem(Message):
    """Show a plan or a memory file in its pane, selected and unfolded (from any pane)."""

    pane: str
    """The mode that shows it: "plans" or "projects"."""
    path: str
    """Its file, relative to the archive root (a hit's `path`)."""
    project: str = ""
