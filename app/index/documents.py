"""Reading a transcript or history file into index documents.

This is the indexer's hot loop (parse each line, extract its units, build one document
per unit), kept apart from the writer and the indexer's checkpoints. A file is read in
`Chunk`s; each carries the offset reached, the documents of the lines before it and the
file's summary at that point, so the indexer can commit (documents and checkpoint
together) at any chunk boundary, as it could at any line before. The indexer stamps
each document with the commit generation it lands in (`gen`), which only it knows.

A bad record costs its line only: what the extractor did not foresee is caught around
each record (`_RECORD_ERRORS`), the documents it had begun are dropped, and the line is
counted as skipped under the field it got wrong (`record_shape`). A record of a known type
that yields nothing because of a wrong-typed field is counted the same way.

Measured and not kept: this loop in a worker process, handing documents over as JSON
for `IndexWriter.add_json`. Building JSON, pickling it and parsing it again cost more
CPU than the worker saved the indexing thread: on two cores Tantivy's threads already
use the second one (200 MB: 4.3-4.5 s against 3.7-4.4 s in place).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
import tantivy

from ccarchive.archive import discovery as D
from ccarchive.archive.file_summary import FileSummary
from ccarchive.archive.lines import HUGE, HugeLine, LineStats, decode_line, iter_raw_lines
from ccarchive.archive.record_shape import reason_for, wrong_type_field, wrong_type_history
from ccarchive.archive.record_text import PROSE_CAP, cap, history_text, parse_ts
from ccarchive.archive.records import KNOWN_TYPES, Extractor, Unit
from ccarchive.archive.safe_read import open_file, root_of
from ccarchive.index import schema as S
from ccarchive.index.analysis import camel_parts
from ccarchive.redact import redact, redact_name

CHUNK_DOCS = 2_000
"""A chunk ends after this many documents (or `CHUNK_BYTES`): small enough to commit
between, large enough that handing one over costs nothing measurable."""
CHUNK_BYTES = 8 << 20
TAIL_PARSE_LIMIT = 16 << 20
"""A newline-less last piece up to this size is tried as a complete line."""

_RECORD_ERRORS = (
    TypeError,
    ValueError,
    AttributeError,
    KeyError,
    IndexError,
    OverflowError,
    RecursionError,
)
"""What a record of an unforeseen shape makes the extraction raise (a list where a string
belongs is unhashable, a string where a number belongs cannot be added, a surrogate
cannot be encoded for Tantivy, ...). Anything else is a bug and propagates."""


@dataclass
class ReadTask:
    """Where to start reading one file, decided by the indexer from its checkpoint."""

    src: D.SourceFile
    offset: int = 0
    summary: dict[str, Any] = field(default_factory=dict)  # FileSummary JSON (transcripts)
    open_tail: bool = False  # the last read ended on a complete line without newline


@dataclass
class Chunk:
    """Documents of the lines in [previous chunk's offset, `offset`) of one file."""

    offset: int
    docs: list[tantivy.Document]
    kinds: set[str]
    lines: LineStats
    summary: dict[str, Any] | None = None  # transcripts: the FileSummary at `offset`
    last: bool = False
    pending: int = 0  # last chunk: bytes of a final line still without its newline
    open_tail: bool = False  # last chunk: it ended by reading such a line whole


def read_chunks(
    task: ReadTask, *, chunk_docs: int = CHUNK_DOCS, fd: int | None = None
) -> Iterator[Chunk]:
    """Read `task.src` from `task.offset` to its current end, in chunks of at most
    `chunk_docs` documents; the last one has `last` set. OSError propagates (the file
    vanished or cannot be read, or is refused: `archive.safe_read`).

    Args:
        fd: the file, opened by the caller with `safe_read.open_file` (left open); else
            it is opened here, and must still be the file `task.src` found.
    """
    src = task.src
    history = src.kind == D.HISTORY
    builder = _HistoryDocs(src) if history else _UnitDocs(src, task.summary, task.offset)
    chunk_bytes = CHUNK_BYTES
    stats = LineStats()
    docs: list[tantivy.Document] = []
    kinds: set[str] = set()
    offset = first = start = task.offset

    def cut(last: bool = False) -> Chunk:
        nonlocal docs, kinds, stats, start
        chunk = Chunk(offset, docs, kinds, stats, builder.snapshot(), last=last)
        docs, kinds, stats, start = [], set(), LineStats(), offset
        return chunk

    # opened as every read back is: a file swapped for a symbolic link or a hard link
    # since the walk (or a folder on its way) is refused, an OSError like a vanished file
    if fd is None:
        fd = open_file(root_of(src.path, src.rel), src.rel, src.seen_as)
        owned = True
    else:
        owned = False
    with os.fdopen(fd, "rb", closefd=owned) as f:
        for at, line in iter_raw_lines(f, first, end=src.size):
            if isinstance(line, HugeLine):
                stats.repair(HUGE)
                builder.add(at, [_huge_envelope(line)], line.length, stats, docs, kinds)
                length = line.length
            elif task.open_tail and at == first and not line:
                length = 0  # the newline that completes a line already read
            elif isinstance(builder, _UnitDocs) and is_noise(line):  # not history
                stats.lines += 1
                stats.objects += 1
                builder.extractor.note_unparsed(line)
                length = len(line)
            else:
                builder.add(at, decode_line(line, stats), len(line), stats, docs, kinds)
                length = len(line)
            offset = at + length + 1
            if len(docs) >= chunk_docs or offset - start >= chunk_bytes:
                yield cut()
        open_tail = False
        tail = src.size - offset
        if 0 < tail <= TAIL_PARSE_LIMIT:
            # A last line without its newline: torn by a crash, being written right now,
            # or complete but never terminated. Only the last is read now; if its newline
            # arrives later it is skipped above, so nothing doubles.
            f.seek(offset)
            piece = f.read(tail)
            objs = _complete_objects(piece)
            if objs:
                stats.lines += 1
                stats.objects += len(objs)
                builder.add(offset, objs, len(piece), stats, docs, kinds)
                offset = src.size
                open_tail = True
    chunk = cut(last=True)
    chunk.pending = max(0, src.size - chunk.offset)
    chunk.open_tail = open_tail
    yield chunk


# ---- documents of transcript entries ----------------------------------------------------
class _UnitDocs:
    """Builds the documents of one transcript's entries, carrying its `FileSummary`."""

    def __init__(self, src: D.SourceFile, summary_json: dict[str, Any], offset: int) -> None:
        self.src = src
        summary = FileSummary.from_json(summary_json) if summary_json else FileSummary()
        if not summary.session_id:
            summary.session_id = src.session_id
        if src.kind == D.AGENT:
            summary.agent_id = summary.agent_id or src.agent_id
            if not summary.meta:
                summary.meta = _read_meta(src)
        if offset == 0 and (not summary.cwd or not summary.session_id):
            cwd, sid = _peek_envelope(src)
            summary.cwd = summary.cwd or redact_name(cwd)
            summary.session_id = summary.session_id or sid
        self.summary = summary
        # redacted: no secret becomes a term, a stored field, a column or a vector
        self.extractor = Extractor(summary, is_agent_file=src.kind == D.AGENT, redacted=True)
        self.last_ts = parse_ts(summary.last_ts)
        self.fallback_ts = datetime.fromtimestamp(src.mtime_ns / 1e9, tz=UTC)
        self._skey_for, self._skey = "", 0

    def snapshot(self) -> dict[str, Any]:
        return self.summary.to_json()

    def add(
        self,
        offset: int,
        objs: list[dict[str, Any]],
        length: int,
        stats: LineStats,
        out: list[tantivy.Document],
        kinds: set[str],
    ) -> None:
        for j, obj in enumerate(objs):
            begun = len(out)
            try:
                units = self.extractor.extract(obj, stats)
                if not units:
                    rtype = obj.get("type")
                    if isinstance(rtype, str) and rtype in KNOWN_TYPES:  # else counted
                        reason = wrong_type_field(obj)
                        if reason:
                            stats.skip(reason)
                    continue
                ts = parse_ts(obj.get("timestamp")) or self.last_ts
                self._docs(obj, units, offset, length, j, ts or self.fallback_ts, out, kinds)
                if ts is not None:
                    self.last_ts = ts
            except _RECORD_ERRORS as exc:
                del out[begun:]
                stats.skip(reason_for(exc, obj))

    def _docs(
        self,
        obj: dict[str, Any],
        units: list[Unit],
        offset: int,
        length: int,
        j: int,
        ts: datetime,
        out: list[tantivy.Document],
        kinds: set[str],
    ) -> None:
        src, summary = self.src, self.summary
        agent = summary.agent_id if src.kind == D.AGENT else ""
        if not agent and obj.get("isSidechain") is True and src.kind == D.SESSION:
            agent = "sidechain"
        project = summary.cwd or redact_name(decode_dir(src.project_dir))
        session = summary.session_id or src.session_id
        if session != self._skey_for:
            self._skey_for, self._skey = session, S.session_key(session)
        skey = self._skey
        uuid = obj.get("uuid")
        uuid = uuid if isinstance(uuid, str) else ""
        uuid_b, ukey = uuid.encode(), S.uuid_key(uuid)
        parent = obj.get("parentUuid") or obj.get("logicalParentUuid")
        parent_b = parent.encode() if parent and isinstance(parent, str) else b""
        msg = obj.get("message")
        model = msg.get("model") if isinstance(msg, dict) else None
        model = model if model and isinstance(model, str) else ""
        branch, slug = obj.get("gitBranch"), obj.get("slug")
        branch = redact_name(branch) if branch and isinstance(branch, str) else ""
        slug = redact_name(slug) if slug and isinstance(slug, str) else ""
        tsec = int(ts.timestamp())
        for u in units:
            seq = offset * 256 + S.block_of(j, u.block)
            if u.kind == S.PROMPT and agent != "sidechain":
                summary.turn, summary.turn_entries = seq, 0
            else:
                summary.turn_entries += 1
            doc = tantivy.Document()
            doc.add_text(S.KIND, u.kind)
            doc.add_text(S.ROLE, u.role)
            doc.add_text(S.PROJECT, project)
            doc.add_text(S.SESSION, session)
            doc.add_text(S.AGENT, agent)
            if uuid:
                doc.add_bytes(S.UUID, uuid_b)
                doc.add_text(S.UKEY, ukey)
            doc.add_date(S.TS, ts)
            if parent_b:
                doc.add_bytes(S.PARENT, parent_b)
            if model:
                doc.add_text(S.MODEL, model)
            if branch:
                doc.add_text(S.BRANCH, branch)
            if slug:
                doc.add_text(S.SLUG, slug)
            if u.tool:
                doc.add_text(S.TOOL, u.tool)
            if u.tool_use_id:
                doc.add_bytes(S.TOOL_USE_ID, u.tool_use_id.encode())
            if u.link_agent:
                doc.add_bytes(S.LINK_AGENT, u.link_agent.encode())
            for path in u.files:
                doc.add_text(S.FILES, path)
            for flag in u.flags:
                doc.add_bytes(S.FLAGS, flag.encode())
            if agent == "sidechain":
                doc.add_bytes(S.FLAGS, b"sidechain")
            doc.add_text(S.PATH, src.rel)
            doc.add_unsigned(S.OFFSET, offset)
            doc.add_unsigned(S.LENGTH, length)
            doc.add_unsigned(S.SEQ, seq)
            doc.add_unsigned(S.TEXT_LEN, u.text_len or len(u.text))
            doc.add_text(S.TEXT, u.text)
            doc.add_unsigned(S.RANK, S.entry_rank(u.kind, u.tool, u.text, bool(agent)))
            doc.add_unsigned(S.TURN, S.turn_key(summary.turn, summary.turn_entries))
            doc.add_unsigned(S.TSEC, tsec)
            doc.add_unsigned(S.SKEY, skey)
            parts = camel_parts(u.text)
            if parts:
                doc.add_text(S.PARTS, parts)
            out.append(doc)
            kinds.add(u.kind)


# ---- documents of history.jsonl ---------------------------------------------------------
class _HistoryDocs:
    """Builds one document per typed prompt of `history.jsonl`."""

    def __init__(self, src: D.SourceFile) -> None:
        self.src = src

    def snapshot(self) -> None:
        return None

    def add(
        self,
        offset: int,
        objs: list[dict[str, Any]],
        length: int,
        stats: LineStats,
        out: list[tantivy.Document],
        kinds: set[str],
    ) -> None:
        for j, obj in enumerate(objs):
            try:
                self._add(obj, offset, length, j, stats, out, kinds)
            except _RECORD_ERRORS as exc:
                stats.skip(reason_for(exc, obj, history=True))

    def _add(
        self,
        obj: dict[str, Any],
        offset: int,
        length: int,
        j: int,
        stats: LineStats,
        out: list[tantivy.Document],
        kinds: set[str],
    ) -> None:
        text = redact(history_text(obj), cached=False)
        if not text:
            reason = wrong_type_history(obj)
            if reason:
                stats.skip(reason)
            return
        project, sid = obj.get("project"), obj.get("sessionId")
        doc = tantivy.Document()
        doc.add_text(S.KIND, S.HISTORY)
        doc.add_text(S.ROLE, "user")
        doc.add_text(S.PROJECT, redact_name(project) if isinstance(project, str) else "")
        sid = sid if isinstance(sid, str) else ""
        doc.add_text(S.SESSION, sid)
        doc.add_unsigned(S.SKEY, S.session_key(sid))
        ts = parse_ts(obj.get("timestamp"))
        if ts is not None:
            doc.add_date(S.TS, ts)
            doc.add_unsigned(S.TSEC, int(ts.timestamp()))
        doc.add_text(S.PATH, self.src.rel)
        doc.add_unsigned(S.OFFSET, offset)
        doc.add_unsigned(S.LENGTH, length)
        doc.add_unsigned(S.SEQ, offset * 256 + min(j, 255))
        doc.add_unsigned(S.TEXT_LEN, len(text))
        doc.add_text(S.TEXT, cap(text, PROSE_CAP))
        doc.add_unsigned(S.RANK, S.KIND_RANK[S.HISTORY])
        out.append(doc)
        kinds.add(S.HISTORY)


# ---- recognising and rescuing lines -------------------------------------------------------
_PROGRESS = b'"type":"progress","data":'
_SNAPSHOT = b'{"type":"file-history-snapshot",'
_GLUED = b'}{"'


def is_noise(line: bytes) -> bool:
    """Progress and file-history-snapshot records, recognised without parsing them.

    They are a third of all lines and a fifth of the bytes (docs/format.md §15) and never
    become documents. The test is exact: the record's own top-level `type` is the first
    `"type":"` of the line (nothing nested comes before it in these records), and a raw
    `}{"` can only be two objects glued on one line (inside a JSON string the quote would
    be escaped), in which case the line is parsed normally.
    """
    if line.startswith(_SNAPSHOT):
        return _GLUED not in line
    i = line.find(_PROGRESS, 0, 4096)
    return i >= 0 and line.find(b'"type":"', 0, i + 8) == i and _GLUED not in line


def _complete_objects(piece: bytes) -> list[dict[str, Any]]:
    """The object(s) of a last line without newline, if it is complete; else []."""
    if piece.startswith(b"\xef\xbb\xbf"):  # a byte order mark: a one-line file's
        piece = piece[3:]
    try:
        obj = orjson.loads(piece)
    except orjson.JSONDecodeError:
        return []
    return [obj] if isinstance(obj, dict) else []


_CWD_RE = re.compile(rb'"cwd":"((?:[^"\\]|\\.)*)"')
_SID_RE = re.compile(rb'"sessionId":"([0-9A-Za-z_-]+)"')


def _peek_envelope(src: D.SourceFile) -> tuple[str, str]:
    """(cwd, sessionId) from the first entries that carry them: records at the top of a
    file (summaries, snapshots) come before them, and their documents need a project."""
    try:
        with os.fdopen(open_file(root_of(src.path, src.rel), src.rel, src.seen_as), "rb") as f:
            head = f.read(16 << 10)  # nearly always enough; read on only if not
            if b'"cwd":"' not in head or b'"sessionId":"' not in head:
                head += f.read((256 << 10) - len(head))
    except OSError:
        return "", ""
    m = _CWD_RE.search(head)
    cwd = ""
    if m:
        try:
            cwd = orjson.loads(b'"' + m.group(1) + b'"')
        except orjson.JSONDecodeError:
            cwd = ""
    s = _SID_RE.search(head)
    return cwd, s.group(1).decode() if s else ""


META_BYTES = 1 << 20
"""A subagent's `.meta.json` holds a few fields; a larger one is not read."""


def _read_meta(src: D.SourceFile) -> dict[str, Any]:
    """The subagent's `.meta.json`, opened as every archive file is (`safe_read`)."""
    rel = src.rel[: -len(".jsonl")] + ".meta.json"
    try:
        with os.fdopen(open_file(root_of(src.path, src.rel), rel), "rb") as f:
            raw = f.read(META_BYTES + 1)
        data = orjson.loads(raw) if len(raw) <= META_BYTES else None
    except (OSError, orjson.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


_HUGE_FIELDS = {
    key: re.compile(rb'"' + key.encode() + rb'":"((?:[^"\\]|\\.){0,200})"')
    for key in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "cwd", "tool_use_id")
}


def _huge_envelope(line: HugeLine) -> dict[str, Any]:
    """A stand-in record for a line too big to parse: its envelope, read from its head,
    and a tool result (what such lines are) holding the head of its text."""
    found: dict[str, Any] = {}
    for key, rx in _HUGE_FIELDS.items():
        m = rx.search(line.head)
        if m:
            found[key] = m.group(1).decode("utf-8", errors="replace")
    note = f"[a {line.length / 1e6:.1f} MB line, indexed by its first {len(line.head) // 1024} kB]"
    head_text = line.head.decode("utf-8", errors="replace")
    body = {
        "type": "tool_result",
        "tool_use_id": found.get("tool_use_id", ""),
        "content": f"{note}\n{head_text[:4000]}",
    }
    return {
        "type": "user",
        "uuid": found.get("uuid", ""),
        "parentUuid": found.get("parentUuid"),
        "sessionId": found.get("sessionId", ""),
        "timestamp": found.get("timestamp", ""),
        "cwd": found.get("cwd", ""),
        "message": {"role": "user", "content": [body]},
    }


def decode_dir(name: str) -> str:
    """Last resort only: the folder name is a lossy encoding of the path (docs/format.md §2)."""
    return name.replace("-", "/") if name.startswith("-") else name
