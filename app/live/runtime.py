"""One archive, kept current: who writes the index, and how everyone else follows.

Every long-running front end (the app, `serve`, `index --watch`) opens the archive
through `LiveArchive`. The first process to take Tantivy's writer lock becomes the
indexer: it brings the index up to date in a background thread, then follows the
archive as it is written. Every other process opens the index read-only, follows the
writer's commits, and tries to take over the lock now and then, so that when the writer
exits or dies, one of them carries on.

Nothing here imports Textual or MCP: front ends subscribe with `on_commit` and turn the
callback into their own messages (the TUI posts `IndexUpdated`, thread-safe).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.config import Settings
from app.index.indexer import CommitInfo, Indexer, Progress, RunReport
from app.index.store import IndexLocked, IndexStore
from app.service.service import ArchiveService

log = logging.getLogger(__name__)

WRITER = "writer"
READ_ONLY = "read-only"

FOLLOW_INTERVAL = 0.25
"""How often a read-only process looks for the writer's commits (cheap: one stat)."""
TAKEOVER_INTERVAL = 2.0
"""How often a read-only process tries the writer lock (free again once the writer dies)."""


@dataclass
class IndexState:
    """What the status line shows: the role, and indexing progress while it runs."""

    role: str = READ_ONLY
    indexing: bool = False
    progress: float = 1.0  # 0..1 of the bytes of the current run
    documents: int = 0
    last_commit: float = 0.0
    last_error: str | None = None
    watching: str = ""  # "inotify", "polling (…reason…)", or "" when not watching


CommitCallback = Callable[[CommitInfo], None]


class LiveArchive:
    """The index of one archive, opened for a long-running process.

    Args:
        settings: archive and data dir.
        watch: follow the archive's changes after the first indexing run.
        on_commit: called (from a background thread) after every commit this process
            makes or sees.
    """

    def __init__(self, settings: Settings, *, watch: bool = True) -> None:
        self.settings = settings
        self.store = IndexStore(settings.archive_data_dir)
        self.service = ArchiveService(self.store, settings.archive_root)
        self.state = IndexState()
        self.watch = watch
        self._callbacks: list[CommitCallback] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.indexer: Indexer | None = None
        self._lock = threading.Lock()
        self._seen_meta = self._meta_mtime()

    # ---- subscriptions ---------------------------------------------------------------
    def on_commit(self, callback: CommitCallback) -> None:
        self._callbacks.append(callback)

    def _committed(self, info: CommitInfo) -> None:
        self.service.refresh()
        self.state.last_commit = time.time()
        self._seen_meta = self._meta_mtime()
        for cb in list(self._callbacks):
            try:
                cb(info)
            except Exception:  # a view's bug must not stop indexing
                log.exception("commit callback failed")

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> LiveArchive:
        """Take the writer if free and index in the background; else follow read-only."""
        if self._try_become_writer():
            self._spawn(self._writer_loop, "ccarchive-indexer")
        else:
            self._spawn(self._follow_loop, "ccarchive-follower")
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop background work and release the writer lock."""
        self._stop.set()
        for t in self._threads:
            t.join(timeout)
        with self._lock:
            if self.indexer is not None:
                self.indexer.close()
                self.indexer = None

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        self._threads.append(t)
        t.start()

    def _try_become_writer(self) -> bool:
        try:
            writer = self.store.try_writer()
        except IndexLocked:
            self.state.role = READ_ONLY
            self.service.role = READ_ONLY
            return False
        self.indexer = Indexer(self.store, self.settings.archive_root, writer,
                               on_commit=self._committed)
        self.state.role = WRITER
        self.service.role = WRITER
        return True

    # ---- the writer ------------------------------------------------------------------
    def run_once(self, only: list[str] | None = None) -> RunReport | None:
        """One indexing pass (all files, or only the given archive-relative paths).

        Deterministic: tests call it instead of waiting for the watcher.
        """
        with self._lock:
            if self.indexer is None:
                return None
            self.state.indexing = only is None
            try:
                report = self.indexer.run(progress=self._progress, only=only)
            except Exception as exc:
                self.state.last_error = str(exc)
                log.exception("indexing failed")
                return None
            finally:
                self.state.indexing = False
                self.state.progress = 1.0
            if only is None:
                self.store.mark_complete()
            self.state.documents = self.service._searcher().num_docs
            return report

    def _progress(self, p: Progress) -> None:
        self.state.progress = p.bytes_done / p.bytes_total if p.bytes_total else 1.0
        self.state.documents = p.docs

    def _writer_loop(self) -> None:
        self.run_once()
        if self.watch and not self._stop.is_set():
            from app.live.watch import follow_archive

            follow_archive(self)

    # ---- read-only followers -----------------------------------------------------------
    def _meta_mtime(self) -> float:
        try:
            return (self.store.path / "meta.json").stat().st_mtime
        except OSError:
            return 0.0

    def poll_commits(self) -> bool:
        """Read-only: if the writer committed since we last looked, reload and notify."""
        m = self._meta_mtime()
        if m != self._seen_meta:
            self._seen_meta = m
            self._committed(CommitInfo(opstamp=0, docs=0, sessions=frozenset(),
                                       kinds=frozenset(), files=frozenset()))
            return True
        return False

    def _follow_loop(self) -> None:
        last_try = time.monotonic()
        while not self._stop.wait(FOLLOW_INTERVAL):
            self.poll_commits()
            if time.monotonic() - last_try >= TAKEOVER_INTERVAL:
                last_try = time.monotonic()
                if self._try_become_writer():
                    log.info("the previous writer is gone: this process now indexes")
                    self._writer_loop()
                    return

    @property
    def stopping(self) -> threading.Event:
        return self._stop


def open_live(settings: Settings, *, watch: bool = True) -> LiveArchive:
    """Open and start: the usual way for the app and `serve`."""
    return LiveArchive(settings, watch=watch).start()


def archive_exists(root: Path) -> bool:
    return (root / "projects").is_dir() or (root / "history.jsonl").is_file()
