"""Where indexed text is cut for showing: the snippet of a hit and the page of an entry.

Both cut a text and redact it, so both are here, side by side: `snippets`/`snippet`
make a hit's highlighted snippet (`hit` the whole hit), `entry` turns a document into an
`Entry` whose text is one page (`char_offset`, `max_chars`) of the whole, read back from
the archive (`IndexContext.read_back`) when the index keeps only a cap of it.

Redaction comes first, cutting second: a rule does not match a secret cut in two, so a
snippet or a page cut through one and redacted afterwards would show the piece. The
whole text is redacted and the window taken from it, widened over any secret it touches
(`redact_window`). Offsets (`char_offset`, `next_char`) count characters of the text in
the archive; a page that would start or end inside a secret starts or ends around it.
Where the index itself cut a text (head and tail of long tool output), the pieces on
either side of its cut are treated as possible pieces of a secret (`redact.edges`).
"""

from __future__ import annotations

import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query.compiler import CompiledQuery
from ccarchive.index.schema import first_value
from ccarchive.redact import redact, redact_window
from ccarchive.service import models as M
from ccarchive.service.base import IndexContext, as_datetime, stored_strs, stored_text
from ccarchive.service.passages import PASSAGE_CHARS, Terms, Window, best_window
from ccarchive.service.sessions import SessionCatalog

SNIPPET_CHARS = 180
"""Default length of a hit's snippet."""


def _subagent_tools() -> frozenset[str]:
    from ccarchive.archive.records import SUBAGENT_TOOLS

    return SUBAGENT_TOOLS


class Excerpts:
    """Hits with their snippets and passages, and entries with a page of their text,
    redacted; a hit and an entry are named by their session (`SessionCatalog`)."""

    def __init__(self, ctx: IndexContext, catalog: SessionCatalog) -> None:
        self.ctx = ctx
        self.catalog = catalog

    def snippets(
        self, searcher: tantivy.Searcher, cq: CompiledQuery
    ) -> dict[str, tantivy.SnippetGenerator] | None:
        if cq.text_query is None:
            return None
        g = tantivy.SnippetGenerator.create(searcher, cq.text_query, self.ctx.schema, S.TEXT)
        g.set_max_num_chars(SNIPPET_CHARS)
        return {S.TEXT: g}

    def red_stored(self, doc: tantivy.Document) -> str:
        """The indexed text, redacted (for a list that shows it whole)."""
        text, cuts = stored_text(doc)
        return redact(text, cuts=cuts) if self.ctx.redact_secrets and text else text

    def snippet(
        self, doc: tantivy.Document, gens: dict[str, tantivy.SnippetGenerator] | None, chars: int
    ) -> tuple[str, list[tuple[int, int]]]:
        text, cuts = stored_text(doc)
        if gens is not None:
            try:
                sn = gens[S.TEXT].snippet_from_doc(doc)
                frag = sn.fragment()
                if frag:
                    spans = _merge_spans([(r.start, r.end) for r in sn.highlighted()])
                    if not self.ctx.redact_secrets:
                        return _clean(frag), spans
                    # the fragment is a piece of the stored text: redact that whole, then
                    # cut the same piece out of it (widened over a secret it cuts)
                    start = text.find(frag)
                    if start < 0:  # not expected; treat both its ends as cuts
                        return _clean(redact(frag, cuts=(0, len(frag)))), []
                    w = redact_window(text, start, start + len(frag), cuts=cuts, highlights=spans)
                    return _clean(w.text), w.highlights
            except (ValueError, AttributeError):
                pass
        shown = redact(text, cuts=cuts) if self.ctx.redact_secrets else text
        flat = " ".join(shown.split())
        return flat[:chars] + ("…" if len(flat) > chars else ""), []

    def passage_window(
        self, doc: tantivy.Document, terms: Terms, width: int = PASSAGE_CHARS
    ) -> Window:
        """Where in `doc`'s indexed text its query evidence is densest (`passages`)."""
        return best_window(stored_text(doc)[0], terms, width)

    def passage(
        self,
        doc: tantivy.Document,
        terms: Terms,
        width: int = PASSAGE_CHARS,
        window: Window | None = None,
    ) -> str:
        """The passage of `doc` that answers the query: its densest window of query
        terms, redacted (the whole text first, the window widened over a secret it
        cuts), on one line, with "…" where it was cut from more."""
        text, cuts = stored_text(doc)
        w = window or best_window(text, terms, width)
        if self.ctx.redact_secrets:
            piece = redact_window(text, w.start, w.end, cuts=cuts).text
        else:
            piece = text[w.start : w.end]
        flat = " ".join(piece.split())
        return ("…" if w.start > 0 else "") + flat + ("…" if w.end < len(text) else "")

    def hit(
        self,
        doc: tantivy.Document,
        score: float,
        gens: dict[str, tantivy.SnippetGenerator] | None,
        chars: int,
    ) -> M.Hit:
        """A search hit: the document, its snippet, and the title of its session (a
        plan's or memory file's own)."""
        kind = first_value(doc, S.KIND)
        sid = first_value(doc, S.SESSION)
        title, _ = (
            self.catalog.session_title(sid)
            if sid and kind not in (S.PLAN, S.MEMORY)
            else (self.ctx.red_title(first_value(doc, S.TITLE)), "")
        )
        snippet, spans = self.snippet(doc, gens, chars)
        return M.Hit(
            id=self.ctx.red_name(S.doc_id(doc)),
            kind=kind,
            role=first_value(doc, S.ROLE),
            session_id=sid,
            agent_id=first_value(doc, S.AGENT),
            uuid=first_value(doc, S.UUID),
            project=first_value(doc, S.PROJECT),
            timestamp=as_datetime(doc.get_first(S.TS)),
            title=title or self.ctx.red_title(first_value(doc, S.TITLE)),
            snippet=snippet,
            highlights=spans,
            score=round(score, 4),
            path=self.ctx.red_name(first_value(doc, S.PATH)),
            tool=first_value(doc, S.TOOL),
            model=first_value(doc, S.MODEL),
            branch=first_value(doc, S.BRANCH),
            flags=stored_strs(doc, S.FLAGS),
        )

    def entry(
        self, doc: tantivy.Document, max_chars: int, char_offset: int = 0, full: bool = False
    ) -> M.Entry:
        text, cuts = stored_text(doc)
        text_len = int(first_value(doc, S.TEXT_LEN, 0)) or len(text)
        path = first_value(doc, S.PATH)
        offset, length = int(first_value(doc, S.OFFSET, 0)), int(first_value(doc, S.LENGTH, 0))
        readable = True
        # the index holds redacted text: shown as archived (redaction off), it is read back
        if full or not self.ctx.redact_secrets or (text_len > len(text) and char_offset):
            full_text = self.ctx.read_back(doc, path, offset, length)
            readable = full_text is not None
            if full_text is not None:
                text, text_len, cuts = full_text, len(full_text), ()
        if cuts:
            # only the head is a prefix of the whole text, so only the head is shown and
            # read on from; it ends where the index cut the text
            text = text[: cuts[0]]
            cuts = (len(text),)
        if self.ctx.redact_secrets:
            w = redact_window(text, char_offset, char_offset + max_chars, cuts=cuts)
            piece, end = w.text, max(w.end, min(char_offset, len(text)))
        else:
            piece = text[char_offset : char_offset + max_chars]
            end = char_offset + len(piece)
        truncated = end < max(text_len, len(text))
        kind, tool = first_value(doc, S.KIND), first_value(doc, S.TOOL)
        subagent = first_value(doc, S.LINK_AGENT)
        if not subagent and kind == S.TOOL_CALL and tool in _subagent_tools():
            subagent = self.catalog.subagent_links(first_value(doc, S.SESSION)).get(
                first_value(doc, S.TOOL_USE_ID), ""
            )
        return M.Entry(
            id=self.ctx.red_name(S.doc_id(doc)),
            kind=kind,
            role=first_value(doc, S.ROLE),
            uuid=first_value(doc, S.UUID),
            parent_uuid=first_value(doc, S.PARENT),
            session_id=first_value(doc, S.SESSION),
            agent_id=first_value(doc, S.AGENT),
            timestamp=as_datetime(doc.get_first(S.TS)),
            text=piece,
            text_len=text_len,
            truncated=truncated,
            next_char=end if truncated and (end < len(text) or readable) else None,
            tool=tool,
            tool_use_id=first_value(doc, S.TOOL_USE_ID),
            subagent_id=subagent,
            files=doc.get_all(S.FILES),
            model=first_value(doc, S.MODEL),
            flags=stored_strs(doc, S.FLAGS),
            path=self.ctx.red_name(path),
            offset=offset,
            length=length,
            project=first_value(doc, S.PROJECT),
        )


def _clean(fragment: str) -> str:
    return fragment.replace("\n", " ").replace("\r", " ").replace("\t", " ")


def _merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent highlights (`foo`+`Bar` of `fooBar`) shown as one."""
    out: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out
