"""Entries read back: by id, around a hit, as a transcript, and the live tail.

The index keeps a capped copy of each text; an entry's whole text is read back from its
source line in the archive by the offset and length the index stored
(`IndexContext.read_back`, which `Excerpts.entry` calls when a page needs it).
Transcripts are ordered by `seq`, the order of the source file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query.regex import regex_query
from ccarchive.index.schema import first_value
from ccarchive.service import models as M
from ccarchive.service.arguments import (
    ServiceError,
    check_limit,
    decode_cursor,
    encode_cursor,
    parse_short_head,
)
from ccarchive.service.base import IndexContext
from ccarchive.service.excerpts import Excerpts
from ccarchive.service.sessions import SessionCatalog
from ccarchive.service.tool_calls import read_tool_inputs, tool_summaries

ENTRY_CHARS = 4_000
"""Default cap on an entry's text in transcripts and details (a cursor reads on)."""
ENTRY_KINDS = tuple(k for k in S.SEARCHABLE_KINDS if k not in (S.PLAN, S.MEMORY, S.HISTORY))
"""Kinds of the entries of a transcript (plans, memory files and history lines are not)."""


class Readback:
    """Entries by id, context, transcripts, positions and the live tail."""

    def __init__(self, ctx: IndexContext, catalog: SessionCatalog, excerpts: Excerpts) -> None:
        self.ctx = ctx
        self.catalog = catalog
        self.excerpts = excerpts

    def tool_inputs(self, entries: Sequence[M.Entry]) -> dict[str, dict[str, Any]]:
        """Entry id -> the `input` object of each tool call among `entries` whose picture
        needs it, read back from its source line and redacted as every text is
        (`ccarchive.service.tool_calls`)."""
        return read_tool_inputs(
            self.ctx.root,
            list(entries),
            redact=self.ctx.redact_secrets,
            identity=self.ctx.indexed_identity,
        )

    def tool_summaries(self, entries: Sequence[M.Entry]) -> dict[str, str]:
        """Entry id -> what each tool call among `entries` did, in one line (as Replay
        shows it, from its input where the index keeps too little)."""
        calls = [e for e in entries if e.kind == "tool_call"]
        return tool_summaries(calls, self.tool_inputs(calls) if calls else {})

    def _doc_by_id(self, entry_id: str) -> tantivy.Document:
        searcher = self.ctx.searcher()
        parsed = S.parse_entry_id(entry_id)
        if parsed is None:
            q = self.ctx.term(S.ID, entry_id)
        else:
            path, seq = parsed
            seq_q = tantivy.Query.range_query(
                self.ctx.schema, S.SEQ, tantivy.FieldType.Unsigned, seq, seq
            )
            short = parse_short_head(path)
            if short is None:
                path = self.ctx.raw_path(path)  # an id shown with a token in its path redacted
                q = self.ctx.all_of(self.ctx.term(S.PATH, path), seq_q)
            else:  # <session prefix>[/<agent>]:<offset>:<block> (`ids.short_entry_id`)
                sid, agent = short
                q = self.ctx.all_of(
                    regex_query(self.ctx.schema, S.SESSION, re.escape(sid) + ".*"),
                    self.ctx.term(S.AGENT, agent),
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
        return [
            self.excerpts.entry(self._doc_by_id(i), max_chars, char_offset, full=True) for i in ids
        ]

    def context(
        self, entry_id: str, *, before: int = 3, after: int = 3, max_chars: int = 1_000
    ) -> M.ContextResult:
        """The entries around one entry, in conversation order."""
        check_limit(before + 1, "before", 51)
        check_limit(after + 1, "after", 51)
        doc = self._doc_by_id(entry_id)
        path, seq = first_value(doc, S.PATH), int(first_value(doc, S.SEQ, 0))
        searcher = self.ctx.searcher()
        same = self.ctx.with_kinds(self.ctx.term(S.PATH, path), S.SEARCHABLE_KINDS)

        def around(lo: int, hi: int, n: int, order: tantivy.Order) -> list[M.Entry]:
            if n == 0:
                return []
            q = self.ctx.all_of(
                same,
                tantivy.Query.range_query(
                    self.ctx.schema, S.SEQ, tantivy.FieldType.Unsigned, lo, hi
                ),
            )
            rows = searcher.search(q, n, count=False, order_by_field=S.SEQ, order=order).hits
            return [self.excerpts.entry(searcher.doc(a), max_chars) for _, a in rows]

        prev = around(0, max(0, seq - 1), before, tantivy.Order.Desc) if seq else []
        prev.reverse()
        nxt = around(seq + 1, 2**63, after, tantivy.Order.Asc)
        return M.ContextResult(
            target=self.excerpts.entry(doc, max_chars * 4), before=prev, after=nxt
        )

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
        info = self.catalog.session(session_id)
        q = self._transcript_query(info, agent_id, kinds)
        state = decode_cursor(cursor)
        offset = int(state.get("o", 0)) if start is None else max(0, start)
        searcher = self.ctx.searcher()
        res = searcher.search(
            q, limit, count=True, order_by_field=S.SEQ, order=tantivy.Order.Asc, offset=offset
        )
        entries = [self.excerpts.entry(searcher.doc(a), max_chars) for _, a in res.hits]
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
                return self.ctx.with_kinds(
                    self.ctx.term(S.PATH, self.ctx.raw_path(sub.path)), kinds
                )
            return self.ctx.with_kinds(
                self.ctx.all_of(
                    self.ctx.term(S.SESSION, info.session_id), self.ctx.term(S.AGENT, agent_id)
                ),
                kinds,
            )
        if not info.path:
            raise ServiceError(f"session {info.session_id} has no main transcript indexed")
        return self.ctx.with_kinds(self.ctx.term(S.PATH, self.ctx.raw_path(info.path)), kinds)

    def entry_position(self, entry_id: str) -> tuple[str, str, int]:
        """(session id, agent id, index in its transcript) of an entry: to open a hit."""
        doc = self._doc_by_id(entry_id)
        sid, agent = first_value(doc, S.SESSION), first_value(doc, S.AGENT)
        if first_value(doc, S.KIND) not in ENTRY_KINDS:
            raise ServiceError(f"{entry_id!r} is not a transcript entry")
        seq = int(first_value(doc, S.SEQ, 0))
        q = self.ctx.with_kinds(
            self.ctx.all_of(
                self.ctx.term(S.PATH, first_value(doc, S.PATH)),
                tantivy.Query.range_query(
                    self.ctx.schema, S.SEQ, tantivy.FieldType.Unsigned, 0, max(0, seq - 1)
                ),
            ),
            ENTRY_KINDS,
        )
        n = self.ctx.searcher().search(q, 1, count=True).count if seq else 0
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
        info = self.catalog.session(session_id)
        q = self._transcript_query(info, agent_id, None)
        q = self.ctx.all_of(
            q,
            tantivy.Query.range_query(
                self.ctx.schema, S.SEQ, tantivy.FieldType.Unsigned, after_seq + 1, 2**63
            ),
        )
        searcher = self.ctx.searcher()
        rows = searcher.search(
            q, limit, count=False, order_by_field=S.SEQ, order=tantivy.Order.Asc
        ).hits
        docs = [searcher.doc(a) for _, a in rows]
        last = max([after_seq] + [int(first_value(d, S.SEQ, 0)) for d in docs])
        return [self.excerpts.entry(d, max_chars) for d in docs], last

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
        info = self.catalog.session(session_id)
        q = self._transcript_query(info, agent_id, None)
        searcher = self.ctx.searcher()
        rows = searcher.search(
            q, count, count=False, order_by_field=S.SEQ, order=tantivy.Order.Desc
        ).hits
        docs = [searcher.doc(a) for _, a in reversed(rows)]
        last = max([-1] + [int(first_value(d, S.SEQ, 0)) for d in docs])
        return [self.excerpts.entry(d, max_chars) for d in docs], last
