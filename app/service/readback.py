"""Entries read back: by id, around a hit, as a transcript, and the live tail.

The index keeps a capped copy of each text; an entry's whole text is read back from its
source line in the archive by the offset and length the index stored (`_read_back`).
Transcripts are ordered by `seq`, the order of the source file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson
import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query.regex import regex_query
from ccarchive.index.schema import first_value
from ccarchive.redact import redact_window
from ccarchive.service import models as M
from ccarchive.service.arguments import (
    ServiceError,
    check_limit,
    decode_cursor,
    encode_cursor,
    parse_short_head,
)
from ccarchive.service.base import ServiceBase
from ccarchive.service.tool_calls import read_tool_inputs, tool_summaries

PAGE_MARGIN = 32_768
"""Characters of a file read and redacted on either side of a page: more than the
longest secret a page can cut through (a private key's body)."""
ENTRY_CHARS = 4_000
"""Default cap on an entry's text in transcripts and details (a cursor reads on)."""
ENTRY_KINDS = tuple(k for k in S.SEARCHABLE_KINDS if k not in (S.PLAN, S.MEMORY, S.HISTORY))
"""Kinds of the entries of a transcript (plans, memory files and history lines are not)."""


class ReadbackMixin(ServiceBase):
    """Entries by id, context, transcripts, positions and the live tail."""

    def tool_inputs(self, entries: Sequence[M.Entry]) -> dict[str, dict[str, Any]]:
        """Entry id -> the `input` object of each tool call among `entries` whose picture
        needs it, read back from its source line and redacted as every text is
        (`ccarchive.service.tool_calls`)."""
        return read_tool_inputs(
            self.root, list(entries), redact=self.redact_secrets, identity=self.indexed_identity
        )

    def tool_summaries(self, entries: Sequence[M.Entry]) -> dict[str, str]:
        """Entry id -> what each tool call among `entries` did, in one line (as Replay
        shows it, from its input where the index keeps too little)."""
        calls = [e for e in entries if e.kind == "tool_call"]
        return tool_summaries(calls, self.tool_inputs(calls) if calls else {})

    def _subagent_links(self, sid: str) -> dict[str, str]:
        """Spawning tool_use id -> subagent id of a session, cached until the next commit:
        the Task/Agent call is indexed before its subagent is known (docs/format.md §9.2)."""
        with self._lock:
            if self._links_gen != self.generation:
                self._links = {}
                self._links_gen = self.generation
            hit = self._links.get(sid)
        if hit is not None:
            return hit
        doc = self._session_doc(sid) if sid else None
        hit = {}
        if doc is not None:
            blob = orjson.loads(first_value(doc, S.BLOB, b"{}"))
            hit = {
                r["tool_use_id"]: r.get("agent_id", "")
                for r in blob.get("subagents", [])
                if r.get("tool_use_id")
            }
        with self._lock:
            self._links[sid] = hit
        return hit

    def _read_back(self, doc: tantivy.Document, rel: str, offset: int, length: int) -> str | None:
        """The whole text of an entry, read from its source line (the index keeps a cap).

        The line is read through `archive.safe_read` (never out of the archive, never
        more than the line, never a file with a second link) and must still be what was
        indexed: the same file (device and inode), the same span of it, a record with the
        same uuid, a text that starts as the indexed one. None when it is not (the file
        changed or was replaced: the indexed copy is shown instead).

        Raises:
            ServiceError: the file (or a folder on its way) is now a symbolic link, a hard
                link or not a file, or the path leaves the archive: refused, with the reason.
        """
        # the archive readers load here, not at import: `ccarchive search` never needs them
        from ccarchive.archive.file_summary import FileSummary
        from ccarchive.archive.lines import HUGE_LINE, LineStats, decode_line
        from ccarchive.archive.record_text import history_text
        from ccarchive.archive.records import Extractor
        from ccarchive.archive.safe_read import FileSwapped, UnsafePath, read_line

        kind = first_value(doc, S.KIND)
        if not length or length > HUGE_LINE:
            return None  # a huge line is indexed, and shown, by its head
        try:
            raw = read_line(self.root, rel, offset, length, self.indexed_identity(rel))
        except UnsafePath as exc:
            self.note_refused(exc.reason)
            raise ServiceError(str(exc)) from None
        except FileSwapped as exc:
            self.note_refused(exc.reason)
            return None
        except OSError:
            return None
        objs = decode_line(raw, LineStats())
        block = int(first_value(doc, S.SEQ, 0)) % 256
        j, b = divmod(block, 16)
        text: str | None = None
        if kind == S.HISTORY:  # history documents number the objects of a line directly
            if block < len(objs):
                text = history_text(objs[block])
        elif j < len(objs):
            uuid = first_value(doc, S.UUID)
            if uuid and objs[j].get("uuid") != uuid:
                return None  # another record sits there now
            is_agent = "/agent-" in rel or rel.rsplit("/", 1)[-1].startswith("agent-")
            units = Extractor(FileSummary(), is_agent_file=is_agent, full_text=True).extract(
                objs[j], LineStats()
            )
            text = next((u.text for u in units if min(u.block, 15) == b and u.kind == kind), None)
        indexed = first_value(doc, S.TEXT)
        mark = indexed.find("[REDACTED:", 0, 80)  # the index holds it redacted: up to a mark
        if text is None or not text.startswith(indexed[: 64 if mark < 0 else min(mark, 64)]):
            return None
        return text

    def _read_page(
        self, doc: tantivy.Document, char_offset: int, max_chars: int
    ) -> tuple[str, bool]:
        """A page of a plan or memory file, redacted, read back in bounded memory (the
        file may be hundreds of megabytes); the indexed copy when the file is gone or
        unreadable.

        The page is redacted with `PAGE_MARGIN` characters of the file on either side of
        it and widened over any secret it cuts (`redact_window`): a page boundary never
        shows a piece of one.

        Raises:
            ServiceError: refused (a symbolic link, a path out of the archive).
        """
        from ccarchive.archive.safe_read import FileSwapped, UnsafePath, read_text_page

        margin = PAGE_MARGIN if self.redact_secrets else 0
        lo = max(0, char_offset - margin)
        want = char_offset - lo + max_chars + margin
        rel = first_value(doc, S.PATH)
        try:
            text, more, _ = read_text_page(self.root, rel, lo, want, self.indexed_identity(rel))
            cuts: tuple[int, ...] = ()
        except UnsafePath as exc:
            self.note_refused(exc.reason)
            raise ServiceError(str(exc)) from None
        except (FileSwapped, OSError) as exc:
            if isinstance(exc, FileSwapped):
                self.note_refused(exc.reason)
            text, cuts = self._stored(doc)  # type: ignore[attr-defined]  # ExcerptsMixin
            more = len(text) > lo + want
            text, cuts = text[lo : lo + want], tuple(c - lo for c in cuts if lo <= c <= lo + want)
        start = char_offset - lo
        if not self.redact_secrets:
            return text[start : start + max_chars], more or len(text) > start + max_chars
        edges = ((0,) if lo else ()) + ((len(text),) if more else ())
        w = redact_window(text, start, start + max_chars, cuts=cuts + edges)
        return w.text, more or w.end < len(text)

    def _doc_by_id(self, entry_id: str) -> tantivy.Document:
        searcher = self._searcher()
        parsed = S.parse_entry_id(entry_id)
        if parsed is None:
            q = self._term(S.ID, entry_id)
        else:
            path, seq = parsed
            seq_q = tantivy.Query.range_query(
                self.schema, S.SEQ, tantivy.FieldType.Unsigned, seq, seq
            )
            short = parse_short_head(path)
            if short is None:
                path = self._raw_path(path)  # an id shown with a token in its path redacted
                q = self._all(self._term(S.PATH, path), seq_q)
            else:  # <session prefix>[/<agent>]:<offset>:<block> (`ids.short_entry_id`)
                sid, agent = short
                q = self._all(
                    regex_query(self.schema, S.SESSION, re.escape(sid) + ".*"),
                    self._term(S.AGENT, agent),
                    seq_q,
                )
        hits = searcher.search(q, 2, count=False).hits
        if len(hits) > 1 and parsed is not None and parse_short_head(parsed[0]):
            raise ServiceError(
                f"entry id {entry_id!r} names entries of several sessions: "
                "give more of its session id"
            )
        if not hits:
            raise ServiceError(f"unknown entry id {entry_id!r}: ids come from search hits")
        doc = searcher.doc(hits[0][1])
        if first_value(doc, S.KIND) not in S.SEARCHABLE_KINDS:
            raise ServiceError(f"unknown entry id {entry_id!r}: ids come from search hits")
        return doc

    def entries(
        self, ids: Sequence[str], *, max_chars: int = 20_000, char_offset: int = 0
    ) -> list[M.Entry]:
        """Full details of chosen entries (read back from the archive), each capped.

        A page is `max_chars` from `char_offset`, both counted in characters of the text
        as archived; with redaction on, the whole text is redacted before the page is
        cut and a page that would cut a credential widens over it (see `excerpts`), so
        `next_char` may lie a little past `char_offset + max_chars`.
        """
        if not ids:
            raise ServiceError("ids must name at least one entry")
        check_limit(len(ids), "number of ids", 100)
        check_limit(max_chars, "max_chars", 200_000)
        return [self._entry(self._doc_by_id(i), max_chars, char_offset, full=True) for i in ids]

    def context(
        self, entry_id: str, *, before: int = 3, after: int = 3, max_chars: int = 1_000
    ) -> M.ContextResult:
        """The entries around one entry, in conversation order."""
        check_limit(before + 1, "before", 51)
        check_limit(after + 1, "after", 51)
        doc = self._doc_by_id(entry_id)
        path, seq = first_value(doc, S.PATH), int(first_value(doc, S.SEQ, 0))
        searcher = self._searcher()
        same = self._with_kinds(self._term(S.PATH, path), S.SEARCHABLE_KINDS)

        def around(lo: int, hi: int, n: int, order: tantivy.Order) -> list[M.Entry]:
            if n == 0:
                return []
            q = self._all(
                same,
                tantivy.Query.range_query(self.schema, S.SEQ, tantivy.FieldType.Unsigned, lo, hi),
            )
            rows = searcher.search(q, n, count=False, order_by_field=S.SEQ, order=order).hits
            return [self._entry(searcher.doc(a), max_chars) for _, a in rows]

        prev = around(0, max(0, seq - 1), before, tantivy.Order.Desc) if seq else []
        prev.reverse()
        nxt = around(seq + 1, 2**63, after, tantivy.Order.Asc)
        return M.ContextResult(target=self._entry(doc, max_chars * 4), before=prev, after=nxt)

    def transcript(
        self,
        session_id: str,
        *,
        agent_id: str | None = None,
        cursor: str | None = None,
        limit: int = 100,
        start: int | None = None,
        max_chars: int = ENTRY_CHARS,
        kinds: Sequence[str] | None = None,
    ) -> M.TranscriptPage:
        """A session's (or one of its subagents') entries in conversation order, in pages.

        Order is the order of the source file, which is the order Claude Code appended in;
        rewinds, compaction boundaries and errors are flagged on the entries.
        """
        check_limit(limit, "limit", 1000)
        info = self.session(session_id)
        q = self._transcript_query(info, agent_id, kinds)
        state = decode_cursor(cursor)
        offset = int(state.get("o", 0)) if start is None else max(0, start)
        searcher = self._searcher()
        res = searcher.search(
            q, limit, count=True, order_by_field=S.SEQ, order=tantivy.Order.Asc, offset=offset
        )
        entries = [self._entry(searcher.doc(a), max_chars) for _, a in res.hits]
        total = res.count or 0
        nxt = encode_cursor({"o": offset + limit}) if offset + limit < total else None
        return M.TranscriptPage(
            session_id=session_id,
            agent_id=agent_id or "",
            title=info.title,
            project=info.project,
            total=total,
            start=offset,
            entries=entries,
            next_cursor=nxt,
            subagents=info.subagents,
            on_disk=info.on_disk,
        )

    def _transcript_query(
        self, info: M.SessionInfo, agent_id: str | None, kinds: Sequence[str] | None
    ) -> tantivy.Query:
        kinds = [k for k in kinds or ENTRY_KINDS if k in ENTRY_KINDS]
        if agent_id:
            sub = next((a for a in info.subagents if a.agent_id == agent_id), None)
            if sub is not None and sub.path:
                return self._with_kinds(self._term(S.PATH, self._raw_path(sub.path)), kinds)
            return self._with_kinds(
                self._all(self._term(S.SESSION, info.session_id), self._term(S.AGENT, agent_id)),
                kinds,
            )
        if not info.path:
            raise ServiceError(f"session {info.session_id} has no main transcript indexed")
        return self._with_kinds(self._term(S.PATH, self._raw_path(info.path)), kinds)

    def entry_position(self, entry_id: str) -> tuple[str, str, int]:
        """(session id, agent id, index in its transcript) of an entry: to open a hit."""
        doc = self._doc_by_id(entry_id)
        sid, agent = first_value(doc, S.SESSION), first_value(doc, S.AGENT)
        if first_value(doc, S.KIND) not in ENTRY_KINDS:
            raise ServiceError(f"{entry_id!r} is not a transcript entry")
        seq = int(first_value(doc, S.SEQ, 0))
        q = self._with_kinds(
            self._all(
                self._term(S.PATH, first_value(doc, S.PATH)),
                tantivy.Query.range_query(
                    self.schema, S.SEQ, tantivy.FieldType.Unsigned, 0, max(0, seq - 1)
                ),
            ),
            ENTRY_KINDS,
        )
        n = self._searcher().search(q, 1, count=True).count if seq else 0
        return sid, agent if agent != "sidechain" else "", int(n or 0)

    def turns(
        self,
        session_id: str,
        *,
        agent_id: str | None = None,
        limit: int = 1000,
        max_chars: int = 300,
    ) -> list[tuple[int, M.Entry]]:
        """The prompts of a transcript, each with its index in it (as `transcript`
        counts): an outline of its turns to jump to, without reading every entry."""
        page = self.transcript(
            session_id, agent_id=agent_id, limit=limit, max_chars=max_chars, kinds=[S.PROMPT]
        )
        return [(self.entry_position(e.id)[2], e) for e in page.entries]

    def tail(
        self,
        session_id: str,
        *,
        after_seq: int = -1,
        agent_id: str | None = None,
        limit: int = 200,
        max_chars: int = ENTRY_CHARS,
    ) -> tuple[list[M.Entry], int]:
        """Entries of a session's transcript after a position: (entries, last seq).

        The live pane calls this on every commit with the last seq it has shown.
        """
        info = self.session(session_id)
        q = self._transcript_query(info, agent_id, None)
        q = self._all(
            q,
            tantivy.Query.range_query(
                self.schema, S.SEQ, tantivy.FieldType.Unsigned, after_seq + 1, 2**63
            ),
        )
        searcher = self._searcher()
        rows = searcher.search(
            q, limit, count=False, order_by_field=S.SEQ, order=tantivy.Order.Asc
        ).hits
        docs = [searcher.doc(a) for _, a in rows]
        last = max([after_seq] + [int(first_value(d, S.SEQ, 0)) for d in docs])
        return [self._entry(d, max_chars) for d in docs], last

    def tail_last(
        self,
        session_id: str,
        *,
        count: int = 100,
        agent_id: str | None = None,
        max_chars: int = ENTRY_CHARS,
    ) -> tuple[list[M.Entry], int]:
        """The last `count` entries of a session, in order, and the last seq.

        Where a live view starts; it then follows with `tail(after_seq=last)`.
        """
        check_limit(count)
        info = self.session(session_id)
        q = self._transcript_query(info, agent_id, None)
        searcher = self._searcher()
        rows = searcher.search(
            q, count, count=False, order_by_field=S.SEQ, order=tantivy.Order.Desc
        ).hits
        docs = [searcher.doc(a) for _, a in reversed(rows)]
        last = max([-1] + [int(first_value(d, S.SEQ, 0)) for d in docs])
        return [self._entry(d, max_chars) for d in docs], last
