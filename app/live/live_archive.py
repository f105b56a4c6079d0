"""One archive, kept current: who writes the index, and how everyone else follows.

Every long-running front end (the app, `serve`, `index --watch`) opens the archive
through `LiveArchive`. The first process to take Tantivy's writer lock becomes the
indexer: it starts watching the archive, brings the index up to date in a background
thread, then indexes what the watcher reports. Every other process opens the index
read-only, follows the writer's commits (one `stat` of `meta.json` every 0.1 s), and
tries the lock every second, so that when the writer exits or dies (the OS frees the
lock of a killed process), one of them carries on from the last commit.

How the writer follows the archive's file events is `ccarchive.live.writer`; the
`index --watch` front end that prints a line per batch is `ccarchive.live.watch`.

Nothing is lost or doubled across kills and takeovers because the indexer commits each
file's checkpoint in the same Tantivy commit as the documents it accounts for: a new
writer resumes from exactly what the index holds (see `ccarchive.index.indexer`).

Nothing here imports Textual or MCP: front ends subscribe with `on_commit` and turn the
callback into their own messages (the TUI posts `IndexUpdated`, thread-safe).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import orjson
import tantivy

from ccarchive.config import Settings
from ccarchive.index import schema as S
from ccarchive.index.indexer import Indexer
from ccarchive.index.run_reports import CommitInfo, Progress, RunReport
from ccarchive.index.store import IndexLocked, IndexStore
from ccarchive.live.writer import follow_archive

if TYPE_CHECKING:
    from ccarchive.semantic.builder import BackgroundBuilder

log = logging.getLogger(__name__)

WRITER = "writer"
READ_ONLY = "read-only"

FOLLOW_INTERVAL = 0.1
"""How often a read-only process looks for the writer's commits (one `stat`)."""
TAKEOVER_INTERVAL = 1.0
"""How often a read-only process tries the writer lock (free again once the writer dies).
A busy lock fails at once, before any writer memory is allocated."""
WRITER_FILE = "writer.json"
"""Beside the index: which process writes it (pid, host, since), for `status` and the
read-only processes' messages. Informational only: the lock is the truth."""


class Stopped(Exception):
    """Raised inside an indexing run when the archive is being closed."""


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
    writer_pid: int | None = None  # the writing process (this one, or the one followed)
    lag: float | None = None  # last live batch: seconds from the newest write to searchable
    commits: int = 0  # commits made or seen by this process


@dataclass(frozen=True)
class Batch:
    """One pass of the writer: what `index --watch` prints a line for.

    `lag` is the time from the newest write indexed in the batch (its file's mtime) to
    the batch being searchable; None for full passes, whose files may be old.
    """

    files: tuple[str, ...]
    docs: int
    bytes: int
    commits: int
    seconds: float
    lag: float | None
    full: bool
    gone: int = 0
    report: RunReport = field(default_factory=RunReport, compare=False, repr=False)


CommitCallback = Callable[[CommitInfo], None]
BatchCallback = Callable[[Batch], None]
RoleCallback = Callable[[str], None]


class LiveArchive:
    """The index of one archive, opened for a long-running process.

    Args:
        settings: archive and data dir.
        watch: follow the archive's changes after the first indexing run.
        force_polling: poll the archive instead of using OS file events (None: decide
            from the filesystem, see `ccarchive.live.writer.watch_mode`).
        rebuild: if this process becomes the writer, drop the index and read everything
            again (what `index --rebuild --watch` asks for).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        watch: bool = True,
        force_polling: bool | None = None,
        rebuild: bool = False,
        never_write: bool = False,
    ) -> None:
        self.settings = settings
        self.never_write = never_write
        """Follow the writer's commits but never take over (`serve --read-only`)."""
        self.root = settings.archive_root.resolve()
        self.store = IndexStore(settings.archive_data_dir, archive_root=self.root)
        self.state = IndexState()
        self.watch = watch
        self.force_polling = force_polling
        self._rebuild = rebuild
        self._callbacks: list[CommitCallback] = []
        self._batch_callbacks: list[BatchCallback] = []
        self._role_callbacks: list[RoleCallback] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.indexer: Indexer | None = None
        self.vectors: BackgroundBuilder | None = None
        """With semantic search on, in the writer: brings the vectors up to date after
        the first full pass and after each commit (`ccarchive.semantic.builder`)."""
        self._lock = threading.RLock()
        self._run_commits: list[CommitInfo] | None = None
        self._seen_meta = self._meta_key()
        self._seen_gen = self._max_gen()
        self._whole = self.store.complete

    # ---- subscriptions ---------------------------------------------------------------
    def on_commit(self, callback: CommitCallback) -> None:
        """Call `callback(CommitInfo)` after every commit this process makes or sees.

        Called from a background thread, after the store was reloaded (searches see it).
        """
        self._callbacks.append(callback)

    def on_batch(self, callback: BatchCallback) -> None:
        """Call `callback(Batch)` after every full pass and every live pass that
        changed something."""
        self._batch_callbacks.append(callback)

    def on_role(self, callback: RoleCallback) -> None:
        """Call `callback(role)` when this process becomes the writer."""
        self._role_callbacks.append(callback)

    def _notify(self, callbacks: Iterable[Callable[..., None]], arg: object) -> None:
        for cb in list(callbacks):
            try:
                cb(arg)
            except Exception:  # a view's bug must not stop indexing
                log.exception("live callback failed")

    def _committed(self, info: CommitInfo) -> None:
        self.store.reload()
        self.state.last_commit = time.time()
        self.state.commits += 1
        self._seen_meta = self._meta_key()
        if self._run_commits is not None:
            self._run_commits.append(info)
        if self.vectors is not None:
            self.vectors.kick()
        self._notify(self._callbacks, info)

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self, *, begin: threading.Event | None = None, wait: float = 0.0) -> LiveArchive:
        """Take the writer if free and index in the background; else follow read-only.

        The role is settled before this returns (so `state` says at once whether this
        process indexes). With `begin`, the writer's first pass waits until it is set
        or `wait` seconds have gone (0: as long as it takes): `serve` answers the
        client's `initialize` first, as indexing in a Python thread would take the GIL
        from the main thread's imports and handshake.
        """
        if not self.never_write and self._try_become_writer():
            loop = (
                self._writer_loop if begin is None else lambda: self._index_once_begun(begin, wait)
            )
            self._spawn(loop, "ccarchive-indexer")
        else:
            self._spawn(self._follow_loop, "ccarchive-follower")
        return self

    def _index_once_begun(self, begin: threading.Event, wait: float) -> None:
        """The writer's loop, once `begin` is set or `wait` seconds have gone; polled, so
        that `stop()` ends the waiting too."""
        deadline = time.monotonic() + wait if wait > 0 else None
        while not begin.wait(0.05):
            if self._stop.is_set() or (deadline is not None and time.monotonic() >= deadline):
                break
        if not self._stop.is_set():
            self._writer_loop()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop background work and release the writer lock.

        A running pass is interrupted between files; what it read but did not commit is
        read again by the next writer (checkpoints are committed with their documents).
        """
        self._stop.set()
        for t in self._threads:
            t.join(timeout)
        if self.vectors is not None:
            self.vectors.stop(timeout)
        with self._lock:
            if self.indexer is not None:
                self.indexer.close()
                self.indexer = None
                self._forget_writer_file()

    def __enter__(self) -> LiveArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        self._threads.append(t)
        t.start()

    def _try_become_writer(self) -> bool:
        if self.never_write:
            self.state.role = READ_ONLY
            return False
        with self._lock:
            if self.indexer is not None:
                return True
            try:
                writer = self.store.try_writer()
            except IndexLocked:
                self.state.role = READ_ONLY
                self.state.writer_pid = self._writer_file_pid()
                return False
            if self._rebuild:
                self._rebuild = False
                writer.delete_all_documents()
                writer.commit()
            self.indexer = Indexer(self.store, self.root, writer, on_commit=self._committed)
            self._start_vectors()
            self.state.role = WRITER
            self.state.writer_pid = os.getpid()
            self._write_writer_file()
        self._notify(self._role_callbacks, WRITER)
        return True

    def _start_vectors(self) -> None:
        """Semantic search on (by default, when its parts are here: `semantic.choose`):
        the writer builds the vectors, in a thread of their own, once the index is
        complete (search never waits for them)."""
        if self.vectors is not None or self.settings.semantic is False:
            return
        from ccarchive.semantic import choose

        choice = choose(self.settings)
        if choice.kind is None:
            if self.settings.semantic:  # asked for and not there: say so; the default is quiet
                log.warning("semantic search: %s", choice.why)
            return
        from ccarchive.semantic.builder import background_builder

        self.vectors = background_builder(
            self.store, self.settings, choice.kind, ready=lambda: self.store.complete
        )

    @property
    def is_writer(self) -> bool:
        return self.state.role == WRITER

    @property
    def searches_whole_index(self) -> bool:
        """Whether this process's searches see a whole first build. The writer marks the
        index complete after its last commit; a follower counts it only once it has
        reloaded after seeing the mark (until then it may still search a part)."""
        return self.store.complete if self.is_writer else self._whole

    @property
    def stopping(self) -> threading.Event:
        return self._stop

    # ---- the writer ------------------------------------------------------------------
    def run_once(self, only: Iterable[str] | None = None) -> RunReport | None:
        """One indexing pass (all files, or only the given archive-relative paths).

        Deterministic: tests call it instead of waiting for the watcher. Returns None
        when this process is not the writer, or the pass failed or was stopped.
        """
        only = None if only is None else sorted(set(only))
        with self._lock:
            if self.indexer is None:
                return None
            self.state.indexing = only is None
            self._run_commits = []
            t0 = time.perf_counter()
            try:
                report = self.indexer.run(progress=self._progress, only=only)
            except Stopped:
                log.info("indexing stopped")
                return None
            except Exception as exc:
                self.state.last_error = f"indexing failed: {exc}"
                log.exception("indexing failed")
                return None
            finally:
                self.state.indexing = False
                self.state.progress = 1.0
                commits, self._run_commits = self._run_commits, None
            if only is None:
                self.store.mark_complete()
                if self.vectors is not None:
                    self.vectors.kick()  # the words are searchable: now their meaning
            self.state.documents = self.store.searcher().num_docs
            self.state.last_error = None
            if commits or only is None:
                self._report_batch(commits, report, time.perf_counter() - t0, only is None)
            return report

    def _report_batch(
        self, commits: list[CommitInfo], report: RunReport, seconds: float, full: bool
    ) -> None:
        files = sorted(set().union(*(c.files for c in commits))) if commits else []
        lag = None
        if not full and self.indexer is not None:
            newest = max(
                (self.indexer.states[f].mtime_ns for f in files if f in self.indexer.states),
                default=0,
            )
            if newest:
                lag = max(0.0, time.time() - newest / 1e9)
                self.state.lag = lag
        batch = Batch(
            files=tuple(files),
            docs=report.docs_added,
            bytes=report.bytes_read,
            commits=len(commits),
            seconds=seconds,
            lag=lag,
            full=full,
            gone=report.files_gone,
            report=report,
        )
        self._notify(self._batch_callbacks, batch)

    def _progress(self, p: Progress) -> None:
        if self._stop.is_set():
            raise Stopped
        self.state.progress = p.bytes_done / p.bytes_total if p.bytes_total else 1.0
        self.state.documents = p.docs

    def _writer_loop(self) -> None:
        if self.watch:
            follow_archive(self)  # watches first, then catches up, then follows
        else:
            self.run_once()

    # ---- the writer file (informational) ---------------------------------------------
    @property
    def _writer_path(self) -> Path:
        return self.store.base / WRITER_FILE

    def _write_writer_file(self) -> None:
        from ccarchive.config import UnsafeWrite, replace_file

        info = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        try:
            replace_file(self._writer_path, json.dumps(info).encode())
        except UnsafeWrite as exc:
            log.warning("%s", exc)
        except OSError:
            log.debug("cannot write %s", self._writer_path, exc_info=True)

    def _writer_file_pid(self) -> int | None:
        try:
            info = json.loads(self._writer_path.read_text())
        except (OSError, ValueError):
            return None
        pid = info.get("pid") if isinstance(info, dict) else None
        return pid if isinstance(pid, int) else None

    def _forget_writer_file(self) -> None:
        if self._writer_file_pid() == os.getpid():
            try:
                self._writer_path.unlink()
            except OSError:
                pass

    # ---- read-only followers -----------------------------------------------------------
    def _meta_key(self) -> tuple[int, int, int]:
        try:
            st = (self.store.path / "meta.json").stat()
        except OSError:
            return (0, 0, 0)
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _max_gen(self) -> int:
        try:
            agg = self.store.searcher().aggregate(
                tantivy.Query.all_query(), {"g": {"max": {"field": S.GEN}}}
            )
            value = agg.get("g", {}).get("value")
        except (ValueError, RuntimeError):
            return 0
        return int(value) if value else 0

    def poll_commits(self) -> bool:
        """Read-only: if the writer committed since we last looked, reload and notify.

        The `CommitInfo` says what changed, from the documents stamped with a newer
        generation than any seen before (their sessions, kinds and files).
        """
        marked = self.store.complete  # looked at before the reload: the reload holds it
        key = self._meta_key()
        if key == self._seen_meta:
            self._whole = self._whole or marked
            return False
        self._seen_meta = key
        self.store.reload()
        self._whole = self._whole or marked
        info = self._changes_since_seen()
        self.state.last_commit = time.time()
        self.state.commits += 1
        self.state.documents = self.store.searcher().num_docs
        self._notify(self._callbacks, info)
        return True

    def _changes_since_seen(self) -> CommitInfo:
        searcher = self.store.searcher()
        opstamp = 0
        try:
            opstamp = int(
                orjson.loads((self.store.path / "meta.json").read_bytes()).get("opstamp", 0)
            )
        except (OSError, ValueError):
            pass
        q = tantivy.Query.range_query(
            self.schema, S.GEN, tantivy.FieldType.Unsigned, self._seen_gen + 1, 2**63 - 1
        )
        try:
            agg = searcher.aggregate(
                q,
                {
                    "sessions": {"terms": {"field": S.SESSION, "size": 10_000}},
                    "kinds": {"terms": {"field": S.KIND, "size": 100}},
                    "files": {"terms": {"field": S.PATH, "size": 10_000}},
                    "gen": {"max": {"field": S.GEN}},
                },
            )
        except (ValueError, RuntimeError):
            return CommitInfo(opstamp, 0, frozenset(), frozenset(), frozenset())

        def keys(name: str) -> dict[str, int]:
            return {
                b["key"]: b["doc_count"] for b in agg.get(name, {}).get("buckets", []) if b["key"]
            }

        kinds = keys("kinds")
        gen = agg.get("gen", {}).get("value")
        if gen:
            self._seen_gen = max(self._seen_gen, int(gen))
        docs = sum(S.searchable_counts(agg.get("kinds", {}).get("buckets", [])).values())
        return CommitInfo(
            opstamp=opstamp,
            docs=docs,
            sessions=frozenset(keys("sessions")),
            kinds=frozenset(k for k in kinds if k in S.SEARCHABLE_KINDS),
            files=frozenset(f for f in keys("files") if not f.startswith("session:")),
        )

    @property
    def schema(self) -> tantivy.Schema:
        return self.store.schema

    def _follow_loop(self) -> None:
        last_try = time.monotonic()
        while not self._stop.wait(FOLLOW_INTERVAL):
            try:
                self.poll_commits()
            except Exception:  # a torn read of a commit in progress: try again next tick
                log.debug("following the writer failed", exc_info=True)
            if not self.never_write and time.monotonic() - last_try >= TAKEOVER_INTERVAL:
                last_try = time.monotonic()
                try:
                    became_writer = self._try_become_writer()
                except Exception:  # e.g. a planted link refused: keep following, say why
                    log.warning("could not take over indexing", exc_info=True)
                    became_writer = False
                if became_writer:
                    log.info("the previous writer is gone: this process now indexes")
                    self.poll_commits()  # see its last commits before writing
                    self._writer_loop()
                    return


def index_role(store: IndexStore) -> str:
    """For a one-shot command (`status`): is some process indexing this archive now?

    The writer lock is the truth (free again when its holder dies); `writer.json` only
    names the process. Returns a phrase for the status line.
    """
    try:
        writer = store.try_writer()
    except IndexLocked:
        try:
            info = json.loads((store.base / WRITER_FILE).read_text())
            pid = info.get("pid")
        except (OSError, ValueError, AttributeError):
            pid = None
        return f"live: pid {pid} is indexing" if pid else "live: another process is indexing"
    del writer  # released: nobody was indexing
    return "offline: no ccarchive process is indexing (ccarchive index --watch follows)"
