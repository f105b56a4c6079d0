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

import json
import os
import re
import time
import zlib
from pathlib import Path

import orjson
import tantivy

from ccarchive.config import UnsafeWrite, check_own_folder, create_private_file, private_dir
from ccarchive.index import schema as S
from ccarchive.text import clip

WRITER_HEAP = 160_000_000
"""Split over the writer threads; with 2 threads each gets 80 MB (the minimum is 15)."""
WRITER_THREADS = 2


def _is_panic(exc: BaseException) -> bool:
    """A Rust panic surfaced by PyO3 (`pyo3_runtime.PanicException`, a BaseException that
    cannot be imported by name): Tantivy panics on some damaged files instead of failing."""
    return type(exc).__name__ == "PanicException"


def complete_index_exists(archive_data_dir: Path) -> bool:
    """Whether a full build of the current index version has finished, without opening
    (or creating) anything: for read-only callers that must never build an index."""
    return (archive_data_dir / f"index-v{S.SCHEMA_VERSION}" / "complete").exists()


class IndexLocked(Exception):
    """Another process holds the index writer."""


class IndexStore:
    """The on-disk index of one archive.

    Args:
        archive_data_dir: this archive's folder under the data dir.
        verify: also check every segment file against its checksum (reads the whole
            index: `ccarchive index` does, a search does not).
        archive_root: the archive, which the index must lie outside of once resolved.

    Raises:
        UnsafeWrite: a link planted where the index's folders or files go (Tantivy would
            write through it): refused with what and where (`config.private_dir`).
    """

    def __init__(
        self, archive_data_dir: Path, *, verify: bool = False, archive_root: Path | None = None
    ) -> None:
        self.base = archive_data_dir
        self.path = archive_data_dir / f"index-v{S.SCHEMA_VERSION}"
        self.archive_root = archive_root
        self.schema = S.build_schema()
        self.analyzer = S.code_analyzer()
        self.recovered: str | None = None
        """Set when the index was found broken and rebuilt from scratch (for the UI)."""
        self.index = self._open(verify)

    def _make_folder(self) -> None:
        private_dir(self.path, under=self.base.parent, archive_root=self.archive_root)
        check_own_folder(self.base)
        check_own_folder(self.path)

    def _open(self, verify: bool = False) -> tantivy.Index:
        self._make_folder()
        try:
            missing = _missing_parts(self.path) or (_bad_checksum(self.path) if verify else None)
            if missing:  # Tantivy would open it: empty, or failing at the first search
                raise ValueError(missing)
            index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        except BaseException as exc:  # Tantivy may panic on damaged files
            if not (isinstance(exc, ValueError) or _is_panic(exc)) or "LockBusy" in str(exc):
                raise
            aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
            self.path.rename(aside)
            detail = clip(str(exc), 300)
            self.recovered = (
                f"the index at {self.path} could not be opened ({detail}); it was moved to "
                f"{aside.name} and is being rebuilt from the archive"
            )
            import logging  # rare; a hook or `ccarchive search` should not pay its import

            logging.getLogger(__name__).warning(self.recovered)
            self._make_folder()
            index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        index.register_tokenizer(S.CODE_TOKENIZER, self.analyzer)
        index.config_reader(reload_policy="manual")
        return index

    @property
    def complete(self) -> bool:
        """Whether a full build of this index has finished once."""
        return complete_index_exists(self.base)

    def mark_complete(self) -> None:
        """Record a finished full build, and drop older index versions and broken copies."""
        marker = self.path / "complete"
        if not os.path.lexists(marker):
            try:
                create_private_file(marker, b"", mode=0o644)
            except UnsafeWrite:
                if not marker.is_file() or marker.is_symlink():
                    raise  # a link planted there since the folder was checked
        for old in self.base.glob("index-v*"):
            if old != self.path and old.is_dir():
                import shutil  # rare; `ccarchive search` should not pay its imports

                shutil.rmtree(old, ignore_errors=True)

    def try_writer(self) -> tantivy.IndexWriter:
        """Take the single writer, or raise `IndexLocked` if another process has it.

        Holding the lock, it first removes what a killed writer left behind (see
        `remove_orphans`), so that the new writer never collides with it.
        """
        check_own_folder(self.path)  # the lock file is opened (and truncated) by name
        try:
            writer = self.index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
        except ValueError as exc:
            if "LockBusy" in str(exc) or "lock" in str(exc).lower():
                raise IndexLocked(str(exc)) from exc
            raise
        removed = remove_orphans(self.path)
        if removed:
            import logging  # rare; a hook or `ccarchive search` should not pay its import

            logging.getLogger(__name__).info(
                "removed %d files left by an interrupted writer", removed
            )
        return writer

    def reload(self) -> None:
        """Make the latest commit (ours or another process's) visible to searches."""
        self.index.reload()
        self.generation += 1

    generation: int = 0
    """Bumped by every `reload()`: caches keyed on it (the service's) drop stale answers."""

    def searcher(self) -> tantivy.Searcher:
        return self.index.searcher()

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())


SEGMENT_PARTS = (".fast", ".fieldnorm", ".idx", ".pos", ".store", ".term")
"""The files Tantivy writes for every segment (`<segment id><part>`)."""


def _segment_files(path: Path) -> list[str] | None:
    """The files of the segments `meta.json` lists (None: no readable meta.json)."""
    try:
        data = orjson.loads((path / "meta.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    segments = data.get("segments") if isinstance(data, dict) else None
    names = []
    for seg in segments if isinstance(segments, list) else []:
        if not isinstance(seg, dict):
            continue
        sid = str(seg.get("segment_id", "")).replace("-", "")
        names += [f"{sid}{part}" for part in SEGMENT_PARTS]
        deletes = seg.get("deletes")
        if isinstance(deletes, dict) and "opstamp" in deletes:
            names.append(f"{sid}.{deletes['opstamp']}.del")
    return names


def _missing_parts(path: Path) -> str | None:
    """What an index folder lacks that Tantivy would not notice when opening it.

    Without `meta.json` Tantivy creates a new, empty index over the old files (and the
    `complete` marker would vouch for it); a segment file that is gone fails only at
    the first search that reads it.
    """
    if not (path / "meta.json").exists():
        left = [p.name for p in path.iterdir() if p.name == "complete" or p.suffix in SEGMENT_PARTS]
        return f"meta.json is missing, {len(left)} index files remain" if left else None
    for name in _segment_files(path) or []:  # an unreadable meta.json: Tantivy says so
        if not (path / name).exists():
            return f"the segment file {name} is missing"
    return None


def _bad_checksum(path: Path) -> str | None:
    """The first segment file whose content does not match the CRC-32 in its footer.

    Damage inside a file that leaves its footer whole is not seen when Tantivy opens
    the index: a search that reads it fails (or panics) instead. Only the segments
    `meta.json` lists are read (another process may be writing new ones).
    """
    for name in _segment_files(path) or []:
        try:
            raw = (path / name).read_bytes()
        except OSError as exc:
            return f"cannot read {name}: {exc}"
        if len(raw) < 8:
            return f"{name} is truncated"
        size = int.from_bytes(raw[-8:-4], "little")
        try:
            crc = orjson.loads(raw[-8 - size : -8])["crc"]
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return f"{name} has no readable footer"
        if zlib.crc32(memoryview(raw)[: len(raw) - 8 - size]) != crc:
            return f"{name} is damaged (checksum mismatch)"
    return None


_SEGMENT_FILE = re.compile(r"^([0-9a-f]{32})\.(?:(\d+)\.del|[a-z]+)$")


def remove_orphans(path: Path) -> int:
    """Delete segment files that the last commit does not reference.

    A writer killed mid-commit leaves new segment files and, worse, delete files named
    `<segment>.<opstamp>.del` for committed segments. The next writer restarts from the
    last committed opstamp and would write a delete file of the same name, which Tantivy
    refuses (`FileAlreadyExists`): without this, indexing could fail after a crash. Only
    the lock holder calls this, and readers only open files that meta.json references.
    """
    try:
        meta = json.loads((path / "meta.json").read_text())
    except (OSError, ValueError):
        return 0
    keep: dict[str, int | None] = {}
    for seg in meta.get("segments", []):
        deletes = seg.get("deletes") or {}
        keep[seg["segment_id"].replace("-", "")] = deletes.get("opstamp")
    removed = 0
    for f in path.iterdir():
        m = _SEGMENT_FILE.match(f.name)
        if not m:
            continue
        seg, del_opstamp = m.group(1), m.group(2)
        if seg in keep and (del_opstamp is None or int(del_opstamp) == keep[seg]):
            continue
        try:
            f.unlink()
            removed += 1
        except OSError:
            pass
    return removed
