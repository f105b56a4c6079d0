"""What an indexing run tells its callers: progress as it goes, each commit, a final report.

Kept apart from the `Indexer` so the live layer and the views that refresh on commits
can name these records without reading the run loop.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Progress:
    """Where a run is, for a progress bar."""

    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int
    docs: int


@dataclass(frozen=True)
class CommitInfo:
    """What one commit changed, for views that refresh on commits."""

    opstamp: int
    docs: int
    sessions: frozenset[str]
    kinds: frozenset[str]
    files: frozenset[str]


@dataclass
class RunReport:
    """What one indexing run did."""

    files_seen: int = 0
    files_read: int = 0
    files_reset: int = 0
    files_gone: int = 0
    bytes_read: int = 0
    docs_added: int = 0
    commits: int = 0
    seconds: float = 0.0
    skipped: Counter[str] = field(default_factory=Counter)
    """Lines skipped, by reason."""
    refused: Counter[str] = field(default_factory=Counter)
    """Files not read, by reason (`archive.discovery`: symlink, hard_link, ...)."""
    discovery_skipped: dict[str, int] = field(default_factory=dict)


ProgressFn = Callable[[Progress], None]
CommitFn = Callable[[CommitInfo], None]
