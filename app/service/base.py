"""What every part of the query service stands on: one `IndexContext` per service.

`ArchiveService` is composed of plain parts, one per kind of question (`search`,
`session_ranking`, `semantic`, `excerpts`, `readback`, `sessions`, `browse`). Each is
given the one `IndexContext` of its service: the state they share (the store, the archive
root, redaction, the role, the lock their caches take, the reads refused) and the small
helpers that build tantivy queries, read stored values and read an entry's source back
from the archive. A switch such as `redact_secrets` set on the service is set here, so
every part sees it at once.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from ccarchive.archive.titles import readable
from ccarchive.index import schema as S
from ccarchive.index.query.dates import parse_date_bound
from ccarchive.index.query.regex import contains_query
from ccarchive.index.schema import first_value
from ccarchive.index.store import IndexStore
from ccarchive.redact import MARKER_PREFIX, redact, redact_name, redact_window
from ccarchive.service.arguments import ServiceError

if TYPE_CHECKING:
    from ccarchive.index.query.compiler import CompiledQuery
    from ccarchive.live.live_archive import LiveArchive

KIND_ORDER = {k: i for i, k in enumerate(S.SEARCHABLE_KINDS)}
"""Display order of the kinds (facets, status): the order of `S.SEARCHABLE_KINDS`."""


def stored_strs(doc: tantivy.Document, field: str) -> list[Any]:
    return [v.decode() if isinstance(v, bytes) else v for v in doc.get_all(field)]


def as_datetime(v: Any) -> datetime | None:
    if isinstance(v, datetime):
        return v if v.tzinfo else v.replace(tzinfo=UTC)
    if not v:
        return None
    from ccarchive.archive.record_text import parse_ts

    return parse_ts(v)


def stored_text(doc: tantivy.Document) -> tuple[str, tuple[int, ...]]:
    """The indexed text, and where the index cut it: a long text is kept as its head,
    "\n…\n" and its tail (record_text.cap)."""
    text = first_value(doc, S.TEXT)
    if int(first_value(doc, S.TEXT_LEN, 0) or 0) > len(text) > 3:
        head = _head_len(text)
        return text, (head, head + 3)
    return text, ()


def _head_len(stored: str) -> int:
    """Where the head of a capped text ends: cap() keeps ``limit - limit // 5`` characters
    of head, "\n…\n" and ``limit // 5`` of tail."""
    limit = len(stored) - 3
    return limit - limit // 5


PAGE_MARGIN = 32_768
"""Characters of a file read and redacted on either side of a page: more than the
longest secret a page can cut through (a private key's body)."""


TERMS_AS_UNION = 256
"""Most values `terms_query` writes as a union of term queries."""


PROMPT_BATCH = 10_000
"""Most prompts `prompt_addresses` reads in its one search; past it, the rest one by one."""


def prompt_addresses(
    searcher: tantivy.Searcher,
    schema: tantivy.Schema,
    wanted: set[tuple[str, int]],
    filters: tantivy.Query | None = None,
) -> dict[tuple[str, int], tantivy.DocAddress]:
    """The prompts at these (transcript path, seq) that pass `filters`, by (path, seq).

    One search for the prompts of all those transcripts, each hit's `seq` read from its
    column, the path read only where the `seq` is wanted: a range clause on `seq` per
    prompt scanned that column each time (0.2 ms each at 350 MB, and a page asks for up
    to a dozen). Should the transcripts hold more than `PROMPT_BATCH` prompts between
    them, those not among the first are looked up one by one, so none is ever missed."""
    if not wanted:
        return {}

    def prompts(*where: tantivy.Query) -> tantivy.Query:
        kept = [tantivy.Query.term_query(schema, S.KIND, S.PROMPT), *where]
        if filters is not None:
            kept.append(filters)
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in kept])

    paths = terms_query(schema, S.PATH, sorted({p for p, _s in wanted}))
    hits = searcher.search(prompts(paths), PROMPT_BATCH, count=False).hits
    seqs = searcher.fast_field_values(S.SEQ, [a for _s, a in hits]) if hits else []
    seqs_wanted = {seq for _path, seq in wanted}
    found: dict[tuple[str, int], tantivy.DocAddress] = {}
    for (_score, addr), seq in zip(hits, seqs, strict=True):
        if seq in seqs_wanted:
            key = (S.first_value(searcher.doc(addr), S.PATH), int(seq))
            if key in wanted and key not in found:  # the best scored, as one search gives
                found[key] = addr
    if len(hits) >= PROMPT_BATCH:
        for path, seq in sorted(wanted - found.keys()):
            at = tantivy.Query.range_query(schema, S.SEQ, tantivy.FieldType.Unsigned, seq, seq)
            top = searcher.search(
                prompts(tantivy.Query.term_query(schema, S.PATH, path), at), 1, count=False
            ).hits
            if top:
                found[(path, seq)] = top[0][1]
    return found


def terms_query(schema: tantivy.Schema, field: str, values: Iterable[str]) -> tantivy.Query:
    """Documents with any of `values` in `field`, each scored 1.0 (as Tantivy's term-set
    query scores them). Up to `TERMS_AS_UNION` values it is a union of term queries: the
    term-set query costs about 0.45 ms a search on a 350 MB archive whatever the values
    (it walks the field's terms on every segment), a union of a few terms what their
    postings cost (0.03-0.06 ms for ids, paths and sessions), with the same documents
    (`tests/service/test_ranking_shortcuts.py`)."""
    values = list(values)
    if not values or len(values) > TERMS_AS_UNION:
        return tantivy.Query.term_set_query(schema, field, values)
    union = [(tantivy.Occur.Should, tantivy.Query.term_query(schema, field, v)) for v in values]
    return tantivy.Query.const_score_query(tantivy.Query.boolean_query(union), 1.0)


class IndexContext:
    """The state every part of one service shares, and the helpers they query with (see
    `ArchiveService` for the arguments)."""

    def __init__(
        self,
        store: IndexStore,
        archive_root: Path,
        *,
        redact_secrets: bool = True,
        live: LiveArchive | None = None,
    ) -> None:
        self.store = store
        self.root = archive_root
        self.schema = store.schema
        self.analyzer = store.analyzer
        self.redact_secrets = redact_secrets
        self.live = live
        self._role = "offline"
        self.message: str | None = store.recovered
        self._identities: dict[str, tuple[int, int] | None] = {}
        self._identities_gen = -1
        self.refused_reads: Counter[str] = Counter()
        """Reads back refused since this service started, by reason (`archive.safe_read`:
        symlink, hard_link, not_a_file, swapped, ...): shown by `status`."""
        self.lock = threading.Lock()
        """Taken by every cache of the service's parts (a service answers from threads)."""

    @property
    def role(self) -> str:
        """writer | read-only (another process indexes) | offline (nobody indexes)."""
        return self.live.state.role if self.live is not None else self._role

    @role.setter
    def role(self, value: str) -> None:
        self._role = value

    @property
    def generation(self) -> int:
        """Changes with every commit this process sees: caches keyed on it drop stale
        answers (the live layer reloads the store after each commit)."""
        return self.store.generation

    # ---- the archive's files ---------------------------------------------------------
    def indexed_identity(self, rel: str) -> tuple[int, int] | None:
        """(device, inode) of the archive file `rel` as it was indexed (its checkpoint),
        cached until the next commit: a read back must find that very file, not one put
        in its place since (`archive.safe_read`). None when the index has no checkpoint."""
        with self.lock:
            if self._identities_gen != self.generation:
                self._identities, self._identities_gen = {}, self.generation
            if rel in self._identities:
                return self._identities[rel]
        import orjson

        searcher = self.searcher()
        hits = searcher.search(self.term(S.ID, f"state:{rel}"), 1).hits
        ident = None
        if hits:
            blob = searcher.doc(hits[0][1]).get_first(S.BLOB)
            st = orjson.loads(blob) if blob else {}
            if st.get("ino"):
                ident = (int(st.get("dev", 0)), int(st["ino"]))
        with self.lock:
            if len(self._identities) > 10_000:
                self._identities.clear()
            self._identities[rel] = ident
        return ident

    def note_refused(self, reason: str) -> None:
        """Count a read back refused (`refused_reads`)."""
        with self.lock:
            self.refused_reads[reason] += 1

    # ---- plumbing ------------------------------------------------------------------
    def refresh(self) -> None:
        """See the latest commit now (the live layer does this after each one)."""
        self.store.reload()

    def searcher(self) -> tantivy.Searcher:
        return self.store.searcher()

    def term(self, field: str, value: str) -> tantivy.Query:
        return tantivy.Query.term_query(self.schema, field, value)

    def terms(self, field: str, values: Iterable[str]) -> tantivy.Query:
        return terms_query(self.schema, field, values)

    def all_of(
        self, *must: tantivy.Query | None, must_not: Sequence[tantivy.Query] = ()
    ) -> tantivy.Query:
        clauses = [(tantivy.Occur.Must, q) for q in must if q is not None]
        clauses += [(tantivy.Occur.MustNot, q) for q in must_not]
        if not clauses:
            return tantivy.Query.all_query()
        if len(clauses) == 1 and clauses[0][0] == tantivy.Occur.Must:
            return clauses[0][1]
        if all(o == tantivy.Occur.MustNot for o, _ in clauses):
            clauses.append((tantivy.Occur.Must, tantivy.Query.all_query()))
        return tantivy.Query.boolean_query(clauses)

    def with_kinds(self, q: tantivy.Query | None, kinds: Iterable[str]) -> tantivy.Query:
        """`q` restricted to documents of these kinds, without scoring the restriction.

        Written as "none of the other kinds" when that is the shorter list, as it nearly
        always is (all but tool results and thinking; every entry of a transcript): a
        term-set filter reads every posting of every kind it names into a bitset on each
        query, about 0.5 ms per 200k documents, a third of a typical search, while left-out
        terms are only skipped to alongside the hits. Neither adds to the score (see
        `BASE_SCORE`).
        """
        clauses = self.kind_clauses(kinds)
        must = [c for o, c in clauses if o == tantivy.Occur.Must]
        return self.all_of(q, *must, must_not=[c for o, c in clauses if o == tantivy.Occur.MustNot])

    def kind_clauses(self, kinds: Iterable[str]) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """The restriction of `with_kinds` as clauses of a boolean query (a must-not for
        each other kind, or one unscored term-set), to put beside a query's own clauses
        rather than around them."""
        wanted = set(kinds)
        others = [k for k in S.ALL_KINDS if k not in wanted]
        if len(others) < len(wanted):
            return [(tantivy.Occur.MustNot, self.term(S.KIND, k)) for k in others]
        kept = tantivy.Query.const_score_query(self.terms(S.KIND, sorted(wanted)), 0.0)
        return [(tantivy.Occur.Must, kept)]

    def date_range(
        self, since: datetime | None, until: datetime | None, field: str = S.TS
    ) -> tantivy.Query | None:
        if since is None and until is None:
            return None
        return tantivy.Query.range_query(
            self.schema,
            field,
            tantivy.FieldType.Date,
            since or datetime(1970, 1, 1, tzinfo=UTC),
            until or datetime(2200, 1, 1, tzinfo=UTC),
            include_lower=True,
            include_upper=False,
        )

    def date_arg(self, value: str | datetime | None, name: str) -> datetime | None:
        if value is None or value == "":
            return None
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
        try:
            return parse_date_bound(str(value), now=datetime.now(UTC))
        except ValueError as exc:
            raise ServiceError(f"{name}: {exc}") from exc

    @staticmethod
    def matching(cq: CompiledQuery) -> tantivy.Query | None:
        """What a query matches, the same for every list that takes one (search, typed
        prompts, plans): a plain query any of its words that rank (function words
        dropped, +required words and "phrases" required), other queries as written."""
        return cq.any_query if cq.plain and cq.any_query is not None else cq.query

    def project_query(self, project: str | None) -> tantivy.Query | None:
        if not project:
            return None
        return contains_query(self.schema, S.PROJECT, project)

    def red(self, text: str) -> str:
        """A whole text, redacted (never a piece of one: see `excerpts`)."""
        return redact(text) if self.redact_secrets and text else text

    def red_name(self, name: str) -> str:
        """A path, id, branch or URL as shown: known-format tokens redacted (the index
        keeps a file's real path to read it back; ids that embed one resolve both ways:
        `raw_path`)."""
        return redact_name(name) if self.redact_secrets and name else name

    def raw_path(self, shown: str) -> str:
        """The indexed path a shown one stands for: itself, or (when a redaction mark is
        in it) the one indexed path that redacts to it; '' if none does."""
        if MARKER_PREFIX not in shown:
            return shown
        agg = self.searcher().aggregate(
            tantivy.Query.all_query(), {"p": {"terms": {"field": S.PATH, "size": 1_000_000}}}
        )
        found = [
            b["key"] for b in agg.get("p", {}).get("buckets", []) if redact_name(b["key"]) == shown
        ]
        return found[0] if len(found) == 1 else ""

    def red_title(self, text: str) -> str:
        """A title, redacted again (the indexer redacted it whole before cutting it, so
        its end is no cut through a secret: reading it as one took the end of ordinary
        names, ``CheckpointSummary``, for a piece). '' when only marks would be left."""
        if not (self.redact_secrets and text):
            return text
        shown = redact(text)
        return shown if readable(shown) else ""

    def session_doc(self, sid: str) -> tantivy.Document | None:
        searcher = self.searcher()
        hits = searcher.search(self.term(S.ID, f"session:{sid}"), 1, count=False).hits
        return searcher.doc(hits[0][1]) if hits else None

    def visible_gen(self, searcher: tantivy.Searcher) -> int:
        """The commit generation of the newest documents this searcher sees: a cursor
        keeps it, so pages after the first see only what the first saw.

        The indexer stamps it on its `state:_meta` document at every commit; an index
        written before that falls back to the largest `gen` of any document.
        """
        hits = searcher.search(self.term(S.ID, "state:_meta"), 1, count=False).hits
        if hits:
            g = searcher.doc(hits[0][1]).get_first(S.GEN)
            if g:
                return int(g)
        top = searcher.search(
            tantivy.Query.all_query(),
            1,
            count=False,
            order_by_field=S.GEN,
            order=tantivy.Order.Desc,
        ).hits
        return int(top[0][0]) if top else 1

    # ---- reading the archive back --------------------------------------------------------
    def read_back(self, doc: tantivy.Document, rel: str, offset: int, length: int) -> str | None:
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

    def read_page(
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
            text, cuts = stored_text(doc)
            more = len(text) > lo + want
            text, cuts = text[lo : lo + want], tuple(c - lo for c in cuts if lo <= c <= lo + want)
        start = char_offset - lo
        if not self.redact_secrets:
            return text[start : start + max_chars], more or len(text) > start + max_chars
        edges = ((0,) if lo else ()) + ((len(text),) if more else ())
        w = redact_window(text, start, start + max_chars, cuts=cuts + edges)
        return w.text, more or w.end < len(text)
