"""Incremental indexing of an archive: read only what changed, commit checkpoints with data.

Each source file has a checkpoint (identity, size, offset consumed, its `FileSummary`),
stored as a document in the same index and committed in the same Tantivy commit as the
documents it accounts for. A commit is atomic, so whenever a run is killed (even by
SIGKILL) the index holds exactly the documents of the checkpoints it holds, and the next
run resumes from them: nothing lost, nothing doubled.

A file that grew is read from its offset; one that shrank, changed identity or changed
its first bytes or the last bytes read was rewritten, so its documents are deleted and it
is read again. A file that disappeared (Claude Code's 30-day sweep) keeps its documents;
its session is marked as gone from disk. Reading a file into documents is
`ccarchive.index.reader`'s; this module decides what to read and commits it.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import tantivy

from ccarchive.archive import discovery as D
from ccarchive.archive.lines import INCOMPLETE_LAST_LINE
from ccarchive.archive.records import PROSE_CAP, TITLE_CAP, FileSummary, cap, parse_ts
from ccarchive.index import schema as S
from ccarchive.index.analysis import camel_parts
from ccarchive.index.reader import CHUNK_DOCS, Chunk, ReadTask, decode_dir, read_chunks
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
HEAD_BYTES = 1024
"""The first bytes of a file are fingerprinted, and so are the last bytes read: same
inode and size-or-larger but other bytes at either place means the file was rewritten
in place, not appended to."""


ProgressFn = Callable[["Progress"], None]
CommitFn = Callable[["CommitInfo"], None]


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
class FileState:
    """The checkpoint of one source file."""

    rel: str
    kind: str
    dev: int = 0
    ino: int = 0
    size: int = 0
    mtime_ns: int = 0
    offset: int = 0
    head: str = ""
    head_len: int = 0
    tail: str = ""  # fingerprint of the HEAD_BYTES before `offset` (what was read last)
    tail_at: int = 0  # where that span starts
    gone: bool = False
    docs: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    repaired: dict[str, int] = field(default_factory=dict)
    pending: int = 0  # bytes of a last line still without its newline
    open_tail: bool = False  # the file ended in a complete line without newline, read
    summary: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> bytes:
        return orjson.dumps({k: getattr(self, k) for k in self.__dataclass_fields__})

    @classmethod
    def from_json(cls, raw: bytes) -> FileState:
        data = orjson.loads(raw)
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})


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
    discovery_skipped: dict[str, int] = field(default_factory=dict)


def _head_hash(path: Path, length: int, start: int = 0) -> str:
    """Fingerprint of `length` bytes from `start` (the first bytes by default)."""
    if length <= 0:
        return ""
    with open(path, "rb") as f:
        f.seek(start)
        return hashlib.blake2b(f.read(length), digest_size=8).hexdigest()


class Indexer:
    """The single writer of an archive's index.

    Args:
        store: the opened index.
        archive_root: the archive (read only).
        writer: the writer taken with `store.try_writer()` (raises `IndexLocked` if busy).
        on_commit: called after every commit, from the indexing thread.
    """

    def __init__(self, store: IndexStore, archive_root: Path, writer: tantivy.IndexWriter,
                 on_commit: CommitFn | None = None) -> None:
        self.store = store
        self.root = archive_root
        self.writer = writer
        self.on_commit = on_commit
        self.schema = store.schema
        self.states: dict[str, FileState] = {}
        self.leaf_sessions: dict[str, str] = {}
        """Summary `leafUuid` -> the session it titles (resolved through the index)."""
        self.leaf_tried: set[str] = set()
        self._session_files: dict[str, set[str]] = {}
        """Session id -> its transcript files, so a commit finds a session's checkpoints
        without scanning every file's (7,000+ on a 1 GB archive)."""
        self._leaf_text: dict[str, str] = {}
        """Summary leafUuid -> text, from every transcript's checkpoint."""
        self._new_leaves: set[str] = set()
        self._load_states()
        for st in self.states.values():
            self._remember(st)
        self._new_leaves = {leaf for leaf in self._leaf_text if leaf not in self.leaf_sessions}
        self._pending_docs = 0
        self._pending_bytes = 0
        self._touched_files: set[str] = set()
        self._touched_sessions: set[str] = set()
        self._touched_kinds: set[str] = set()
        self._gen = int(time.time() * 1000)
        self._maps: _Maps | None = None
        self._last_commit = time.monotonic()
        self._commit_every = COMMIT_SECONDS

    # ---- checkpoints ---------------------------------------------------------------
    def _load_states(self) -> None:
        self.store.reload()
        searcher = self.store.searcher()
        q = tantivy.Query.term_query(self.schema, S.KIND, S.STATE_DOC)
        n = searcher.search(q, 1, count=True).count
        if not n:
            return
        for _score, addr in searcher.search(q, n + 1, count=False).hits:
            doc = searcher.doc(addr)
            blob = doc.get_first(S.BLOB)
            if blob is None:
                continue
            if doc.get_first(S.ID) == "state:_meta":
                meta = orjson.loads(blob)
                self.leaf_sessions = meta.get("leaf_sessions", {})
                continue
            st = FileState.from_json(blob)
            self.states[st.rel] = st

    def _state_doc(self, st: FileState) -> tantivy.Document:
        doc = tantivy.Document()
        doc.add_text(S.ID, f"state:{st.rel}")
        doc.add_text(S.KIND, S.STATE_DOC)
        doc.add_text(S.PATH, st.rel)
        doc.add_bytes(S.BLOB, st.to_json())
        return doc

    # ---- the run -------------------------------------------------------------------
    def run(self, progress: ProgressFn | None = None,
            only: Iterable[str] | None = None) -> RunReport:
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
        todo = [s for s in sources if self._changed(s)]
        # transcripts and history first: plans and memory files look up the sessions
        # (and their projects) that those just read
        lines = [s for s in todo if s.kind not in (D.PLAN, D.MEMORY)]
        whole = [s for s in todo if s.kind in (D.PLAN, D.MEMORY)]
        plans = [self._plan(s) for s in lines]
        total = sum(max(0, s.size - task.offset) for s, (task, _) in zip(lines, plans,
                                                                         strict=True)) + \
            sum(s.size for s in whole)
        done_bytes = 0
        for i, (src, (task, rewritten)) in enumerate(zip(lines, plans, strict=True), 1):
            done_bytes += self._read_one(src, report, self._index_lines, task, rewritten)
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
        self._commit(report)
        if self._resolve_leaves():
            self._commit(report)
        report.seconds = time.perf_counter() - t0
        scope = self.states.values() if only is None else \
            [self.states[rel] for rel in set(only) if rel in self.states]
        for st in scope:
            for reason, n in st.skipped.items():
                report.skipped[reason] += n
        return report

    def _read_one(self, src: D.SourceFile, report: RunReport, read: Callable[..., int],
                  *args: Any) -> int:
        try:
            n = read(src, *args, report)
        except OSError as exc:  # vanished or unreadable between walk and read
            log.warning("cannot read %s: %s", src.rel, exc)
            report.skipped["unreadable"] += 1
            n = 0
        report.bytes_read += n
        report.files_read += 1
        return n

    def _changed(self, src: D.SourceFile) -> bool:
        st = self.states.get(src.rel)
        if st is None or st.gone:
            return True
        return (src.size, src.mtime_ns, (src.dev, src.ino)) != (st.size, st.mtime_ns,
                                                                 (st.dev, st.ino))

    def _rewritten(self, src: D.SourceFile) -> bool:
        """Whether what was read of this file is no longer what it holds."""
        st = self.states.get(src.rel)
        if st is None:
            return False
        return (
            (st.dev, st.ino) != src.identity
            or src.size < st.offset
            or _head_hash(src.path, min(st.head_len, src.size)) != st.head
            or (st.tail_at < st.offset and
                _head_hash(src.path, st.offset - st.tail_at, st.tail_at) != st.tail)
        )

    def _plan(self, src: D.SourceFile) -> tuple[ReadTask, bool]:
        """Where reading this file starts, and whether what was read of it before is
        gone (its documents are deleted by `_begin_file` when the new ones come)."""
        st = self.states.get(src.rel)
        if st is None:
            return ReadTask(src), False
        if self._rewritten(src):
            return ReadTask(src), True
        return ReadTask(src, st.offset, st.summary if src.kind in D.TRANSCRIPT_KINDS else {},
                        st.open_tail), False

    def _begin_file(self, src: D.SourceFile, *, rewritten: bool,
                    report: RunReport) -> FileState:
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
        st.head = _head_hash(src.path, st.head_len)
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
    def _index_lines(self, src: D.SourceFile, task: ReadTask, rewritten: bool,
                     report: RunReport) -> int:
        """Add the documents `ccarchive.index.reader` made of a file, committing between its
        chunks when a commit is due (checkpoint and documents together)."""
        st = self._begin_file(src, rewritten=rewritten, report=report)
        first = start = st.offset = task.offset
        st.open_tail = False
        add = self.writer.add_document
        chunk: Chunk
        for chunk in read_chunks(task, chunk_docs=max(1, min(CHUNK_DOCS, COMMIT_DOCS))):
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
                self._save_file(st)
                self._commit(report)
        self._pending_bytes += st.offset - start
        self._save_file(st)
        self._end_file(src, st)
        self._maps = None
        if self._commit_due(0):
            self._commit(report)
        return st.offset - first

    def _commit_due(self, unsaved_bytes: int) -> bool:
        return self._pending_docs >= COMMIT_DOCS or \
            self._pending_bytes + unsaved_bytes >= COMMIT_BYTES or \
            (self._pending_docs > 0 and
             time.monotonic() - self._last_commit >= self._commit_every)

    def _save_file(self, st: FileState) -> None:
        st.tail_at = max(0, st.offset - HEAD_BYTES)
        try:
            st.tail = _head_hash(self.root / st.rel, st.offset - st.tail_at, st.tail_at)
        except OSError:  # vanished since: the next run marks it gone
            st.tail, st.tail_at = "", 0
        self._touch_state(st)

    # ---- plans and memory ------------------------------------------------------------
    def _index_whole_file(self, src: D.SourceFile, report: RunReport) -> int:
        """A plan or memory file: one document, replaced whole when the file changes."""
        st = self._begin_file(src, rewritten=True, report=report)
        read = self._index_document_file(src, st, report)
        self._end_file(src, st)
        return read

    def _index_document_file(self, src: D.SourceFile, st: FileState, report: RunReport) -> int:
        raw = src.path.read_bytes()
        text = raw.decode("utf-8", errors="replace")
        stem = src.path.stem
        doc = tantivy.Document()
        doc.add_text(S.ID, f"{src.kind}:{src.rel}")
        doc.add_text(S.PATH, src.rel)
        doc.add_unsigned(S.OFFSET, 0)
        doc.add_unsigned(S.LENGTH, len(raw))
        doc.add_unsigned(S.SEQ, 0)
        doc.add_unsigned(S.TEXT_LEN, len(text))
        doc.add_unsigned(S.GEN, self._gen)
        doc.add_date(S.TS, datetime.fromtimestamp(src.mtime_ns / 1e9, tz=UTC))
        title = _markdown_title(text)
        session = ""
        if src.kind == D.PLAN:
            slug, aid = D.agent_plan_parts(stem)
            doc.add_text(S.KIND, S.PLAN)
            doc.add_text(S.SLUG, slug)
            doc.add_text(S.AGENT, aid)
            sessions = self.sessions_for_slug(slug)
            session = sessions[0] if sessions else ""
            project = self._session_project(session)
            title = title or slug
            st.summary = {"slug": slug, "agent_id": aid, "sessions": sessions[:20]}
        else:
            doc.add_text(S.KIND, S.MEMORY)
            session = src.session_id
            project = self._project_for_dir(src.project_dir)
            title = f"{src.path.name}: {title}" if title else src.path.name
            if src.session_id:
                title = f"session memory: {title}"
            st.summary = {"project_dir": src.project_dir, "session_id": src.session_id}
        doc.add_text(S.PROJECT, project)
        doc.add_text(S.SESSION, session)
        doc.add_unsigned(S.SKEY, S.session_key(session))
        doc.add_text(S.TITLE, title[:TITLE_CAP])
        doc.add_text(S.TEXT, cap(text, PROSE_CAP))
        doc.add_unsigned(S.RANK, S.KIND_RANK[S.PLAN if src.kind == D.PLAN else S.MEMORY])
        doc.add_unsigned(S.TSEC, src.mtime_ns // 1_000_000_000)
        parts = camel_parts(text[:PROSE_CAP])
        if parts:
            doc.add_text(S.PARTS, parts)
        self.writer.add_document(doc)
        self._touched_kinds.add(S.PLAN if src.kind == D.PLAN else S.MEMORY)
        st.docs = 1
        st.offset = src.size
        self._pending_docs += 1
        report.docs_added += 1
        return src.size

    @property
    def maps(self) -> _Maps:
        """Lookups derived from all checkpoints, rebuilt after transcripts change."""
        if self._maps is None:
            self._maps = _Maps.build(self.states)
        return self._maps

    def sessions_for_slug(self, slug: str) -> list[str]:
        """Main sessions whose entries carry this plan codename, most recent first."""
        return self.maps.slug_sessions.get(slug, [])

    def _session_project(self, sid: str) -> str:
        return self.maps.session_cwd.get(sid, "") if sid else ""

    def _project_for_dir(self, project_dir: str) -> str:
        """The real path of a project folder: the commonest `cwd` of its sessions."""
        counts = self.maps.dir_cwds.get(project_dir)
        if counts:
            return counts.most_common(1)[0][0]
        return decode_dir(project_dir)

    # ---- sessions --------------------------------------------------------------------
    def _session_docs(self, sids: Iterable[str]) -> list[tuple[str, tantivy.Document]]:
        by_session: dict[str, list[FileState]] = {}
        for sid in set(sids):
            files = [self.states[rel] for rel in self._session_files.get(sid, ())
                     if rel in self.states]
            if files:
                by_session[sid] = files
        titles = self._summary_titles()
        out = []
        for sid, files in by_session.items():
            out.append((sid, build_session_doc(sid, files, titles.get(sid, ""), self._gen)))
        return out

    def _summary_titles(self) -> dict[str, str]:
        """Session id -> the text of a summary record that titles it."""
        titles = {}
        for leaf, sid in self.leaf_sessions.items():
            text = self._leaf_text.get(leaf)
            if text:
                titles[sid] = text
        return titles

    def _resolve_leaves(self) -> bool:
        """Match summary records to the sessions they title, through the uuid field.

        Summaries are written at the top of *later* files and point (`leafUuid`) at the
        last entry of the conversation they name (FORMAT.md §6.4).
        """
        leaves, self._new_leaves = self._new_leaves, set()
        todo = [leaf for leaf in leaves
                if leaf not in self.leaf_sessions and leaf not in self.leaf_tried]
        if not todo:
            return False
        self.leaf_tried.update(todo)
        searcher = self.store.searcher()
        changed: set[str] = set()
        for i in range(0, len(todo), 512):
            chunk = set(todo[i:i + 512])
            # the uuid is found through its first characters (`S.UKEY`): every entry
            # sharing them is a candidate, and its stored uuid decides
            q = tantivy.Query.term_set_query(self.schema, S.UKEY,
                                             sorted({S.uuid_key(u) for u in chunk}))
            n = searcher.search(q, 1, count=True).count or 0
            for _score, addr in searcher.search(q, max(1, n), count=False).hits:
                doc = searcher.doc(addr)
                uuid, sid = S.first_value(doc, S.UUID), S.first_value(doc, S.SESSION)
                if uuid in chunk and sid and uuid not in self.leaf_sessions:
                    self.leaf_sessions[uuid] = sid
                    changed.add(sid)
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
            w.add_document(self._state_doc(self.states[rel]))
        w.delete_documents_by_term(S.ID, "state:_meta")
        meta = tantivy.Document()
        meta.add_text(S.ID, "state:_meta")
        meta.add_text(S.KIND, S.STATE_DOC)
        meta.add_bytes(S.BLOB, orjson.dumps({"leaf_sessions": self.leaf_sessions}))
        meta.add_unsigned(S.GEN, self._gen)  # what a search cursor pins its pages to
        w.add_document(meta)
        for sid, doc in self._session_docs(self._touched_sessions):
            w.delete_documents_by_term(S.ID, f"session:{sid}")
            w.add_document(doc)
        opstamp = w.commit()
        self.store.reload()
        report.commits += 1
        info = CommitInfo(opstamp=opstamp, docs=self._pending_docs,
                          sessions=frozenset(self._touched_sessions),
                          kinds=frozenset(self._touched_kinds),
                          files=frozenset(self._touched_files - {"_meta"}))
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


@dataclass
class _Maps:
    """Lookups over all checkpoints for plans and memory files (rebuilt when needed)."""

    slug_sessions: dict[str, list[str]]
    session_cwd: dict[str, str]
    dir_cwds: dict[str, Counter[str]]

    @classmethod
    def build(cls, states: dict[str, FileState]) -> _Maps:
        slugs: dict[str, list[tuple[str, str]]] = {}
        session_cwd: dict[str, str] = {}
        dir_cwds: dict[str, Counter[str]] = {}
        for rel, st in states.items():
            s = st.summary
            if not s or st.kind != D.SESSION:
                continue
            sid, cwd = s.get("session_id", ""), s.get("cwd", "")
            if sid and cwd:
                session_cwd.setdefault(sid, cwd)
                parts = rel.split("/")
                if len(parts) > 2:
                    dir_cwds.setdefault(parts[1], Counter())[cwd] += 1
            for slug in s.get("slugs", ()):
                slugs.setdefault(slug, []).append((s.get("last_ts", ""), sid))
        slug_sessions = {k: [sid for _, sid in sorted(v, reverse=True) if sid]
                         for k, v in slugs.items()}
        return cls(slug_sessions, session_cwd, dir_cwds)


def build_session_doc(sid: str, files: list[FileState], summary_title: str,
                      gen: int) -> tantivy.Document:
    """The session's figures, from its main transcript and its subagents' checkpoints."""
    main = [f for f in files if f.kind == D.SESSION]
    agents = [f for f in files if f.kind == D.AGENT]
    m = FileSummary.from_json(main[0].summary) if main else FileSummary(session_id=sid)
    for extra in main[1:]:  # rare: the same session id in two project folders
        e = FileSummary.from_json(extra.summary)
        m.usage.update(e.usage)
        m.prompts += e.prompts
    tin, tout, tcw, tcr = m.token_totals()
    agent_rows = []
    agent_tokens = 0
    first, last = m.first_ts, m.last_ts
    for a in sorted(agents, key=lambda s: s.summary.get("first_ts", "")):
        s = FileSummary.from_json(a.summary)
        at = sum(s.token_totals())
        agent_tokens += at
        meta = s.meta or {}
        tool_use_id = meta.get("toolUseId", "")
        if not tool_use_id:
            for tid, aid in m.agent_links.items():
                if aid == s.agent_id:
                    tool_use_id = tid
        agent_rows.append({
            "agent_id": s.agent_id, "path": a.rel, "warmup": s.warmup,
            "agent_type": meta.get("agentType", ""),
            "description": meta.get("description", "") or m.agent_calls.get(tool_use_id, ""),
            "tool_use_id": tool_use_id, "entries": s.entries, "tokens": at,
            "first_ts": s.first_ts, "last_ts": s.last_ts, "gone": a.gone,
        })
        if not first or (s.first_ts and s.first_ts < first):
            first = s.first_ts or first
        if s.last_ts > last:
            last = s.last_ts
    title = m.title() or summary_title or m.first_prompt or sid[:8]
    gone = bool(main) and all(f.gone for f in main)
    real_agents = [r for r in agent_rows if not r["warmup"]]
    first_dt, last_dt = parse_ts(first), parse_ts(last)
    duration = (last_dt - first_dt).total_seconds() if first_dt and last_dt else 0.0
    blob = {
        "session_id": sid, "title": title, "first_prompt": m.first_prompt,
        "project": m.cwd, "branches": m.branches, "models": m.models, "slugs": m.slugs,
        "version": m.version, "prompts": m.prompts, "assistant_messages": m.assistant_messages,
        "messages": m.prompts + m.assistant_messages, "tool_calls": m.tool_calls,
        "tokens": {"input": tin, "output": tout, "cache_creation": tcw, "cache_read": tcr,
                   "total": tin + tout + tcw + tcr, "subagents": agent_tokens},
        "first_ts": first, "last_ts": last, "duration_s": duration,
        "subagents": agent_rows, "subagent_count": len(real_agents),
        "sidechain_entries": m.sidechain_entries, "pr_links": m.pr_links,
        "compactions": m.compactions, "on_disk": not gone,
        "path": main[0].rel if main else "", "skipped": _merged_skips(files),
        "bytes": sum(f.size for f in files),
        "custom_title": m.custom_title, "ai_title": m.ai_title, "summary_title": summary_title,
    }
    doc = tantivy.Document()
    doc.add_text(S.ID, f"session:{sid}")
    doc.add_text(S.KIND, S.SESSION_DOC)
    doc.add_text(S.SESSION, sid)
    doc.add_text(S.PROJECT, m.cwd)
    doc.add_text(S.STATE, "gone" if gone else "on_disk")
    doc.add_text(S.PATH, f"session:{sid}")
    for v in m.models:
        doc.add_text(S.MODEL, v)
    for v in m.branches:
        doc.add_text(S.BRANCH, v)
    for v in m.slugs:
        doc.add_text(S.SLUG, v)
    if last_dt:
        doc.add_date(S.TS, last_dt)
    if first_dt:
        doc.add_date(S.TS_START, first_dt)
    doc.add_text(S.TITLE, title[:TITLE_CAP])
    doc.add_unsigned(S.TOKENS, tin + tout + tcw + tcr)
    doc.add_unsigned(S.MESSAGES, m.prompts + m.assistant_messages)
    doc.add_unsigned(S.BYTES, sum(f.size for f in files))
    doc.add_unsigned(S.GEN, gen)
    doc.add_bytes(S.BLOB, orjson.dumps(blob))
    return doc


def _merged_skips(files: list[FileState]) -> dict[str, int]:
    out: Counter[str] = Counter()
    for f in files:
        out.update(f.skipped)
        if f.pending:
            out[INCOMPLETE_LAST_LINE] += 1
    return dict(out)


def _markdown_title(text: str) -> str:
    for line in text.splitlines()[:40]:
        s = line.strip()
        if s.startswith("#"):
            return s.lstrip("#").strip()[:TITLE_CAP]
    return ""
