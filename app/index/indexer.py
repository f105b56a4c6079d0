"""Incremental indexing of an archive: read only what changed, commit checkpoints with data.

Each source file has a checkpoint (identity, size, offset consumed, its `FileSummary`),
stored as a document in the same index and committed in the same Tantivy commit as the
documents it accounts for. A commit is atomic, so whenever a run is killed (even by
SIGKILL) the index holds exactly the documents of the checkpoints it holds, and the next
run resumes from them: nothing lost, nothing doubled.

A file that grew is read from its offset; one that shrank, changed identity or changed
its first bytes or the last bytes read was rewritten, so its documents are deleted and it
is read again. A file that disappeared (Claude Code's 30-day sweep) keeps its documents;
its session is marked as gone from disk.

This module is the run loop: what to read, when to commit. Its parts live beside it:
reading a transcript into documents is `ccarchive.index.documents`'s, the checkpoints are
`checkpoints`, a session's document is `session_docs`, plans and memory files are
`plan_memory_docs`, and what a run reports is `run_reports`.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import tantivy

from ccarchive.archive import discovery as D
from ccarchive.archive.safe_read import FileSwapped, UnsafePath, fingerprint, open_file
from ccarchive.index import schema as S
from ccarchive.index.checkpoints import (
    HEAD_BYTES,
    META_ID,
    FileState,
    load_states,
    meta_doc,
    state_doc,
)
from ccarchive.index.documents import CHUNK_DOCS, Chunk, ReadTask, read_chunks
from ccarchive.index.plan_memory_docs import CheckpointMaps, whole_file_doc
from ccarchive.index.run_reports import (
    CommitFn,
    CommitInfo,
    Progress,
    ProgressFn,
    RunReport,
)
from ccarchive.index.session_docs import build_session_doc, match_leaves, summary_titles
from ccarchive.index.store import IndexStore

log = logging.getLogger(__name__)

COMMIT_DOCS = 500_000
"""Commit after this many documents: bounds what a kill loses (it is re-read, not lost).
The writer's memory is bounded by its heap, which Tantivy flushes on its own."""
COMMIT_BYTES = 1 << 30
COMMIT_SECONDS = 4.0
"""...and while documents wait, commit after this long, then after twice as long each
time within one run, up to `COMMIT_SECONDS_MAX`: during a first build the app searches
what is already indexed, so the first results must come soon; but every commit stalls
the reader of the archive while Tantivy finishes its segments, and makes segments to
merge (on 1 GB, a commit every 4 s took 40 s where 4 commits took 23 s)."""
COMMIT_SECONDS_MAX = 32.0


class Indexer:
    """The single writer of an archive's index.

    Args:
        store: the opened index.
        archive_root: the archive (read only).
        writer: the writer taken with `store.try_writer()` (raises `IndexLocked` if busy).
        on_commit: called after every commit, from the indexing thread.
    """

    def __init__(
        self,
        store: IndexStore,
        archive_root: Path,
        writer: tantivy.IndexWriter,
        on_commit: CommitFn | None = None,
    ) -> None:
        self.store = store
        self.root = archive_root
        self.writer = writer
        self.on_commit = on_commit
        self.schema = store.schema
        self.states: dict[str, FileState]
        self.leaf_sessions: dict[str, str]
        """Summary `leafUuid` -> the session it titles (resolved through the index)."""
        self.states, meta = load_states(store)
        self.leaf_sessions = meta.get("leaf_sessions", {})
        self.unreadable: dict[str, str] = meta.get("unreadable", {})
        """Archive-relative path -> why it was not read (a symbolic or hard link, not a
        regular file, swapped while read, unreadable): `ccarchive status` counts them."""
        self.leaf_tried: set[str] = set()
        self._session_files: dict[str, set[str]] = {}
        """Session id -> its transcript files, so a commit finds a session's checkpoints
        without scanning every file's (7,000+ on a 1 GB archive)."""
        self._leaf_text: dict[str, str] = {}
        """Summary leafUuid -> text, from every transcript's checkpoint."""
        self._new_leaves: set[str] = set()
        self._refused: dict[str, str] = {}
        for st in self.states.values():
            self._remember(st)
        self._new_leaves = {leaf for leaf in self._leaf_text if leaf not in self.leaf_sessions}
        self._pending_docs = 0
        self._pending_bytes = 0
        self._touched_files: set[str] = set()
        self._touched_sessions: set[str] = set()
        self._touched_kinds: set[str] = set()
        self._gen = int(time.time() * 1000)
        self._maps: CheckpointMaps | None = None
        self._last_commit = time.monotonic()
        self._commit_every = COMMIT_SECONDS

    # ---- the run -------------------------------------------------------------------
    def run(
        self, progress: ProgressFn | None = None, only: Iterable[str] | None = None
    ) -> RunReport:
        """Bring the index up to date with the archive.

        Args:
            progress: called now and then with a `Progress`.
            only: archive-relative paths to look at (live updates); None walks everything.
        """
        t0 = time.perf_counter()
        report = RunReport()
        self._commit_every = COMMIT_SECONDS
        disc = D.DiscoveryReport({})
        if only is None:
            sources = list(D.discover(self.root, disc))
        else:  # live updates: stat just these paths, never walk the archive
            only = set(only)
            sources = D.sources_for(self.root, only, disc)
        report.discovery_skipped = disc.skipped
        seen = {s.rel for s in sources}
        report.files_seen = len(sources)
        unreadable = (
            {}
            if only is None
            else {rel: why for rel, why in self.unreadable.items() if rel not in only}
        )
        unreadable.update(disc.files)
        self._refused = unreadable
        todo = [s for s in sources if self._changed(s)]
        # transcripts and history first: plans and memory files look up the sessions
        # (and their projects) that those just read
        lines = [s for s in todo if s.kind not in (D.PLAN, D.MEMORY)]
        whole = [s for s in todo if s.kind in (D.PLAN, D.MEMORY)]
        total = sum(max(0, s.size - self._resumes_at(s)) for s in lines) + sum(
            s.size for s in whole
        )
        done_bytes = 0
        for i, src in enumerate(lines, 1):
            done_bytes += self._read_one(src, report, self._index_lines)
            if progress:
                progress(Progress(i, len(todo), done_bytes, total, report.docs_added))
        for i, src in enumerate(whole, len(lines) + 1):
            done_bytes += self._read_one(src, report, self._index_whole_file)
            if progress:
                progress(Progress(i, len(todo), done_bytes, total, report.docs_added))
        if only is None:
            missing = [st for rel, st in self.states.items() if rel not in seen]
        else:
            missing = [self.states[rel] for rel in set(only) - seen if rel in self.states]
        for st in missing:
            if not st.gone:
                st.gone = True
                report.files_gone += 1
                self._touch_state(st)
        if unreadable != self.unreadable:
            self.unreadable = unreadable
            self._touched_files.add("_meta")
        report.refused.update(unreadable[rel] for rel in unreadable if only is None or rel in only)
        self._commit(report)
        if self._resolve_leaves():
            self._commit(report)
        report.seconds = time.perf_counter() - t0
        scope = (
            self.states.values()
            if only is None
            else [self.states[rel] for rel in set(only) if rel in self.states]
        )
        for st in scope:
            for reason, n in st.skipped.items():
                report.skipped[reason] += n
        return report

    def _read_one(
        self,
        src: D.SourceFile,
        report: RunReport,
        read: Callable[[D.SourceFile, int, RunReport], int],
    ) -> int:
        """Open one file as every archive file is opened (`archive.safe_read`: no link
        of either kind, a regular file, the very file the walk found) and read it.

        A refusal is counted by its reason and changes nothing indexed: the next run
        looks again (a swapped file is then read as the new file it is).
        """
        try:
            fd = open_file(self.root, src.rel, src.identity)
        except FileNotFoundError:
            return 0  # gone since the walk: the next run marks it gone
        except (UnsafePath, FileSwapped) as exc:
            log.warning("not indexed: %s", exc)
            self._refused[src.rel] = exc.reason
            return 0
        except OSError as exc:
            log.warning("cannot read %s: %s", src.rel, exc)
            self._refused[src.rel] = D.UNREADABLE
            return 0
        try:
            n = read(src, fd, report)
        except OSError as exc:  # an I/O error while reading
            log.warning("cannot read %s: %s", src.rel, exc)
            self._refused[src.rel] = D.UNREADABLE
            n = 0
        finally:
            os.close(fd)
        report.bytes_read += n
        report.files_read += 1
        return n

    def _resumes_at(self, src: D.SourceFile) -> int:
        """Where reading `src` will likely start (for progress only: `_plan` decides)."""
        st = self.states.get(src.rel)
        if st is None or st.gone or (st.dev, st.ino) != src.identity or src.size < st.offset:
            return 0
        return st.offset

    def _changed(self, src: D.SourceFile) -> bool:
        st = self.states.get(src.rel)
        if st is None or st.gone:
            return True
        return (src.size, src.mtime_ns, (src.dev, src.ino)) != (
            st.size,
            st.mtime_ns,
            (st.dev, st.ino),
        )

    def _rewritten(self, src: D.SourceFile, fd: int) -> bool:
        """Whether what was read of this file is no longer what it holds."""
        st = self.states.get(src.rel)
        if st is None:
            return False
        return (
            (st.dev, st.ino) != src.identity
            or src.size < st.offset
            or fingerprint(fd, min(st.head_len, src.size)) != st.head
            or (
                st.tail_at < st.offset
                and fingerprint(fd, st.offset - st.tail_at, st.tail_at) != st.tail
            )
        )

    def _plan(self, src: D.SourceFile, fd: int) -> tuple[ReadTask, bool]:
        """Where reading this file starts, and whether what was read of it before is
        gone (its documents are deleted by `_begin_file` when the new ones come)."""
        st = self.states.get(src.rel)
        if st is None:
            return ReadTask(src), False
        if self._rewritten(src, fd):
            return ReadTask(src), True
        return ReadTask(
            src, st.offset, st.summary if src.kind in D.TRANSCRIPT_KINDS else {}, st.open_tail
        ), False

    def _begin_file(
        self, src: D.SourceFile, fd: int, *, rewritten: bool, report: RunReport
    ) -> FileState:
        """The checkpoint to read into: the old one, or a new one once the documents of
        a rewritten file are deleted (in the same commit as what replaces them)."""
        st = self.states.get(src.rel)
        if st is not None and rewritten:
            self.writer.delete_documents_by_term(S.PATH, src.rel)
            report.files_reset += 1 if src.kind not in (D.PLAN, D.MEMORY) else 0
            st = None
        if st is None:
            st = FileState(rel=src.rel, kind=src.kind)
            self.states[src.rel] = st
        # size and mtime are recorded only once the file is read to the end: a checkpoint
        # committed mid-file must still look "changed" to the next run, which resumes it
        # from its offset.
        st.dev, st.ino, st.gone = src.dev, src.ino, False
        st.head_len = min(src.size, HEAD_BYTES)
        st.head = fingerprint(fd, st.head_len)
        return st

    def _end_file(self, src: D.SourceFile, st: FileState) -> None:
        st.size, st.mtime_ns = src.size, src.mtime_ns
        self._remember(st)
        self._touch_state(st)

    def _remember(self, st: FileState) -> None:
        """Fold a checkpoint into the incremental lookups."""
        s = st.summary
        if not s or st.kind not in D.TRANSCRIPT_KINDS:
            return
        sid = s.get("session_id")
        if sid:
            self._session_files.setdefault(sid, set()).add(st.rel)
        for leaf, text in s.get("summaries", {}).items():
            if leaf not in self._leaf_text:
                self._new_leaves.add(leaf)
            self._leaf_text[leaf] = text

    def _touch_state(self, st: FileState) -> None:
        self._touched_files.add(st.rel)
        sid = st.summary.get("session_id") if st.summary else None
        if sid:
            self._touched_sessions.add(sid)

    # ---- transcripts and history ---------------------------------------------------
    def _index_lines(self, src: D.SourceFile, fd: int, report: RunReport) -> int:
        """Add the documents `ccarchive.index.documents` made of a file, committing between its
        chunks when a commit is due (checkpoint and documents together)."""
        task, rewritten = self._plan(src, fd)
        st = self._begin_file(src, fd, rewritten=rewritten, report=report)
        first = start = st.offset = task.offset
        st.open_tail = False
        add = self.writer.add_document
        chunk: Chunk
        for chunk in read_chunks(task, chunk_docs=max(1, min(CHUNK_DOCS, COMMIT_DOCS)), fd=fd):
            gen = self._gen
            for doc in chunk.docs:
                doc.add_unsigned(S.GEN, gen)
                add(doc)
            n = len(chunk.docs)
            st.docs += n
            self._pending_docs += n
            report.docs_added += n
            self._touched_kinds |= chunk.kinds
            st.offset = chunk.offset
            if chunk.summary is not None:
                st.summary = chunk.summary
            for reason, k in (chunk.lines.skipped or {}).items():
                st.skipped[reason] = st.skipped.get(reason, 0) + k
            for reason, k in (chunk.lines.repaired or {}).items():
                st.repaired[reason] = st.repaired.get(reason, 0) + k
            if chunk.last:
                st.pending, st.open_tail = chunk.pending, chunk.open_tail
            elif self._commit_due(st.offset - start):
                self._pending_bytes += st.offset - start
                start = st.offset
                self._save_file(st, fd)
                self._commit(report)
        self._pending_bytes += st.offset - start
        self._save_file(st, fd)
        self._end_file(src, st)
        self._maps = None
        if self._commit_due(0):
            self._commit(report)
        return st.offset - first

    def _commit_due(self, unsaved_bytes: int) -> bool:
        return (
            self._pending_docs >= COMMIT_DOCS
            or self._pending_bytes + unsaved_bytes >= COMMIT_BYTES
            or (
                self._pending_docs > 0
                and time.monotonic() - self._last_commit >= self._commit_every
            )
        )

    def _save_file(self, st: FileState, fd: int) -> None:
        st.tail_at = max(0, st.offset - HEAD_BYTES)
        st.tail = fingerprint(fd, st.offset - st.tail_at, st.tail_at)
        self._touch_state(st)

    # ---- plans and memory ------------------------------------------------------------
    def _index_whole_file(self, src: D.SourceFile, fd: int, report: RunReport) -> int:
        """A plan or memory file: one document, replaced whole when the file changes."""
        doc, kind, summary = whole_file_doc(src, self.maps, self._gen, fd)
        st = self._begin_file(src, fd, rewritten=True, report=report)
        st.summary = summary
        self.writer.add_document(doc)
        self._touched_kinds.add(kind)
        st.docs = 1
        st.offset = src.size
        self._pending_docs += 1
        report.docs_added += 1
        self._end_file(src, st)
        return src.size

    @property
    def maps(self) -> CheckpointMaps:
        """Lookups derived from all checkpoints, rebuilt after transcripts change."""
        if self._maps is None:
            self._maps = CheckpointMaps.build(self.states)
        return self._maps

    def sessions_for_slug(self, slug: str) -> list[str]:
        """Main sessions whose entries carry this plan codename, most recent first."""
        return self.maps.sessions_for_slug(slug)

    # ---- sessions --------------------------------------------------------------------
    def _session_docs(self, sids: Iterable[str]) -> list[tuple[str, tantivy.Document]]:
        titles = summary_titles(self.leaf_sessions, self._leaf_text)
        out = []
        for sid in set(sids):
            files = [
                self.states[rel] for rel in self._session_files.get(sid, ()) if rel in self.states
            ]
            if files:
                out.append((sid, build_session_doc(sid, files, titles.get(sid, ""), self._gen)))
        return out

    def _resolve_leaves(self) -> bool:
        """Match the summary records read since the last call to the sessions they title
        (`match_leaves`); True if a session got a title to commit."""
        leaves, self._new_leaves = self._new_leaves, set()
        todo = [
            leaf
            for leaf in leaves
            if leaf not in self.leaf_sessions and leaf not in self.leaf_tried
        ]
        if not todo:
            return False
        self.leaf_tried.update(todo)
        changed = match_leaves(self.store.searcher(), self.schema, todo, self.leaf_sessions)
        if changed:
            self._maps = None
            self._touched_sessions.update(changed)
            self._touched_files.add("_meta")
            return True
        return False

    # ---- commits ---------------------------------------------------------------------
    def _commit(self, report: RunReport) -> None:
        if not (self._touched_files or self._pending_docs):
            return
        w = self.writer
        for rel in self._touched_files:
            if rel == "_meta":
                continue
            w.delete_documents_by_term(S.ID, f"state:{rel}")
            w.add_document(state_doc(self.states[rel]))
        w.delete_documents_by_term(S.ID, META_ID)
        w.add_document(meta_doc(self.leaf_sessions, self._gen, self.unreadable))
        for sid, doc in self._session_docs(self._touched_sessions):
            w.delete_documents_by_term(S.ID, f"session:{sid}")
            w.add_document(doc)
        opstamp = w.commit()
        self.store.reload()
        report.commits += 1
        info = CommitInfo(
            opstamp=opstamp,
            docs=self._pending_docs,
            sessions=frozenset(self._touched_sessions),
            kinds=frozenset(self._touched_kinds),
            files=frozenset(self._touched_files - {"_meta"}),
        )
        self._pending_docs = 0
        self._pending_bytes = 0
        self._touched_files = set()
        self._touched_sessions = set()
        self._touched_kinds = set()
        self._gen = max(int(time.time() * 1000), self._gen + 1)  # strictly increasing
        self._last_commit = time.monotonic()
        self._commit_every = min(COMMIT_SECONDS_MAX, self._commit_every * 2)  # see COMMIT_SECONDS
        if self.on_commit:
            self.on_commit(info)

    def close(self) -> None:
        """Release the writer (and its lock) after merges settle."""
        writer, self.writer = self.writer, None  # type: ignore[assignment]
        if writer is not None:
            try:
                writer.wait_merging_threads()
            except (RuntimeError, ValueError):
                pass
