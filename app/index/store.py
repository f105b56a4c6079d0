"""Opening the index: its folder, its version, the one-writer lock, and recovery.

Tantivy allows one writer per index across processes (`.tantivy-writer.lock`, freed by
the OS when the holder dies). `IndexStore.try_writer` takes it or says that another
process has it; the caller then works read-only and follows that process's commits.

The folder is `index-v<SCHEMA_VERSION>`: a new schema builds a new folder, and the old
one is removed only once the new one is complete (`complete` marker), so an upgrade
never leaves the user with nothing. An index that fails to open is moved aside and
rebuilt, with a message saying so.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path

import tantivy

from app.index import schema as S

log = logging.getLogger(__name__)

WRITER_HEAP = 160_000_000
"""Split over the writer threads; with 2 threads each gets 80 MB (the minimum is 15)."""
WRITER_THREADS = 2


class IndexLocked(Exception):
    """Another process holds the index writer."""


class IndexStore:
    """The on-disk index of one archive.

    Args:
        archive_data_dir: this archive's folder under the data dir.
    """

    def __init__(self, archive_data_dir: Path) -> None:
        self.base = archive_data_dir
        self.path = archive_data_dir / f"index-v{S.SCHEMA_VERSION}"
        self.schema = S.build_schema()
        self.analyzer = S.code_analyzer()
        self.recovered: str | None = None
        """Set when the index was found broken and rebuilt from scratch (for the UI)."""
        self.index = self._open()

    def _open(self) -> tantivy.Index:
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        except ValueError as exc:
            if "LockBusy" in str(exc):
                raise
            aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
            self.path.rename(aside)
            self.recovered = (
                f"the index at {self.path} could not be opened ({exc}); it was moved to "
                f"{aside.name} and is being rebuilt from the archive"
            )
            log.warning(self.recovered)
            self.path.mkdir(parents=True)
            index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        index.register_tokenizer(S.CODE_TOKENIZER, self.analyzer)
        index.config_reader(reload_policy="manual")
        return index

    @property
    def complete(self) -> bool:
        """Whether a full build of this index has finished once."""
        return (self.path / "complete").exists()

    def mark_complete(self) -> None:
        """Record a finished full build, and drop older index versions and broken copies."""
        (self.path / "complete").touch()
        for old in self.base.glob("index-v*"):
            if old != self.path and old.is_dir():
                shutil.rmtree(old, ignore_errors=True)

    def try_writer(self) -> tantivy.IndexWriter:
        """Take the single writer, or raise `IndexLocked` if another process has it."""
        try:
            return self.index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
        except ValueError as exc:
            if "LockBusy" in str(exc) or "lock" in str(exc).lower():
                raise IndexLocked(str(exc)) from exc
            raise

    def reload(self) -> None:
        """Make the latest commit (ours or another process's) visible to searches."""
        self.index.reload()

    def searcher(self) -> tantivy.Searcher:
        return self.index.searcher()

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())
