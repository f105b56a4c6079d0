"""What every part of the query service stands on: the index handle and its query helpers.

`ArchiveService` is composed of one mixin per kind of question (`search`, `session_ranking`,
`semantic`, `excerpts`, `readback`, `sessions`, `browse`); each subclasses `ServiceBase`,
which holds the state they share (the store, the archive root, redaction, the caches and
their lock) and the small helpers that build tantivy queries and read stored values.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy

from ccarchive.archive.titles import readable
from ccarchive.index import schema as S
from ccarchive.index.query.dates import parse_date_bound
from ccarchive.index.query.regex import contains_query
from ccarchive.index.store import IndexStore
from ccarchive.redact import MARKER_PREFIX, redact, redact_name
from ccarchive.service.arguments import ServiceError

if TYPE_CHECKING:
    from ccarchive.index.query.compiler import CompiledQuery
    from ccarchive.live.live_archive import LiveArchive
    from ccarchive.service import models as M
    from ccarchive.service.passages import Terms, Window

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


class ServiceBase:
    """The shared state and query helpers of `ArchiveService` (see its Args)."""

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
        self._titles: dict[str, tuple[str, str]] = {}
        self._titles_gen: object = -1
        self._links: dict[str, dict[str, str]] = {}
        self._links_gen = -1
        self._identities: dict[str, tuple[int, int] | None] = {}
        self._identities_gen = -1
        self.refused_reads: Counter[str] = Counter()
        """Reads back refused since this service started, by reason (`archive.safe_read`:
        symlink, hard_link, not_a_file, swapped, ...): shown by `status`."""
        self._doc_count = (-1, 0)
        self._lock = threading.Lock()

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
        with self._lock:
            if self._identities_gen != self.generation:
                self._identities, self._identities_gen = {}, self.generation
            if rel in self._identities:
                return self._identities[rel]
        import orjson

        searcher = self._searcher()
        hits = searcher.search(self._term(S.ID, f"state:{rel}"), 1).hits
        ident = None
        if hits:
            blob = searcher.doc(hits[0][1]).get_first(S.BLOB)
            st = orjson.loads(blob) if blob else {}
            if st.get("ino"):
                ident = (int(st.get("dev", 0)), int(st["ino"]))
        with self._lock:
            if len(self._identities) > 10_000:
                self._identities.clear()
            self._identities[rel] = ident
        return ident

    def note_refused(self, reason: str) -> None:
        """Count a read back refused (`refused_reads`)."""
        with self._lock:
            self.refused_reads[reason] += 1

    # ---- plumbing ------------------------------------------------------------------
    def refresh(self) -> None:
        """See the latest commit now (the live layer does this after each one)."""
        self.store.reload()

    def _searcher(self) -> tantivy.Searcher:
        return self.store.searcher()

    def _term(self, field: str, value: str) -> tantivy.Query:
        return tantivy.Query.term_query(self.schema, field, value)

    def _terms(self, field: str, values: Iterable[str]) -> tantivy.Query:
        return tantivy.Query.term_set_query(self.schema, field, list(values))

    def _all(
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

    def _with_kinds(self, q: tantivy.Query | None, kinds: Iterable[str]) -> tantivy.Query:
        """`q` restricted to documents of these kinds, without scoring the restriction.

        Written as "none of the other kinds" when that is the shorter list, as it nearly
        always is (all but tool results and thinking; every entry of a transcript): a
        term-set filter reads every posting of every kind it names into a bitset on each
        query, about 0.5 ms per 200k documents, a third of a typical search, while left-out
        terms are only skipped to alongside the hits. Neither adds to the score (see
        `BASE_SCORE`).
        """
        wanted = set(kinds)
        others = [k for k in S.ALL_KINDS if k not in wanted]
        if len(others) < len(wanted):
            return self._all(q, must_not=[self._term(S.KIND, k) for k in others])
        return self._all(
            q, tantivy.Query.const_score_query(self._terms(S.KIND, sorted(wanted)), 0.0)
        )

    def _date_range(
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

    def _date_arg(self, value: str | datetime | None, name: str) -> datetime | None:
        if value is None or value == "":
            return None
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
        try:
            return parse_date_bound(str(value), now=datetime.now(UTC))
        except ValueError as exc:
            raise ServiceError(f"{name}: {exc}") from exc

    @staticmethod
    def _matching(cq: CompiledQuery) -> tantivy.Query | None:
        """What a query matches, the same for every list that takes one (search, typed
        prompts, plans): a plain query any of its words that rank (function words
        dropped, +required words and "phrases" required), other queries as written."""
        return cq.any_query if cq.plain and cq.any_query is not None else cq.query

    def _project_query(self, project: str | None) -> tantivy.Query | None:
        if not project:
            return None
        return contains_query(self.schema, S.PROJECT, project)

    def _red(self, text: str) -> str:
        """A whole text, redacted (never a piece of one: see `excerpts`)."""
        return redact(text) if self.redact_secrets and text else text

    def _name(self, name: str) -> str:
        """A path, id, branch or URL as shown: known-format tokens redacted (the index
        keeps a file's real path to read it back; ids that embed one resolve both ways:
        `_raw_path`)."""
        return redact_name(name) if self.redact_secrets and name else name

    def _raw_path(self, shown: str) -> str:
        """The indexed path a shown one stands for: itself, or (when a redaction mark is
        in it) the one indexed path that redacts to it; '' if none does."""
        if MARKER_PREFIX not in shown:
            return shown
        agg = self._searcher().aggregate(
            tantivy.Query.all_query(), {"p": {"terms": {"field": S.PATH, "size": 1_000_000}}}
        )
        found = [
            b["key"] for b in agg.get("p", {}).get("buckets", []) if redact_name(b["key"]) == shown
        ]
        return found[0] if len(found) == 1 else ""

    def _red_title(self, text: str) -> str:
        """A title, redacted again (the indexer redacted it whole before cutting it, so
        its end is no cut through a secret: reading it as one took the end of ordinary
        names, ``CheckpointSummary``, for a piece). '' when only marks would be left."""
        if not (self.redact_secrets and text):
            return text
        shown = redact(text)
        return shown if readable(shown) else ""

    def _session_doc(self, sid: str) -> tantivy.Document | None:
        searcher = self._searcher()
        hits = searcher.search(self._term(S.ID, f"session:{sid}"), 1, count=False).hits
        return searcher.doc(hits[0][1]) if hits else None

    if TYPE_CHECKING:
        # What one mixin calls on another, declared so that each module reads (and type
        # checks) on its own; `ArchiveService` composes the real methods.
        def session(self, session_id: str) -> M.SessionInfo: ...

        search: Callable[..., M.SearchPage]

        def status(self) -> M.Status: ...
        def _visible_gen(self, searcher: tantivy.Searcher) -> int: ...
        def _hit(
            self,
            doc: tantivy.Document,
            score: float,
            gens: dict[str, tantivy.SnippetGenerator] | None,
            chars: int,
        ) -> M.Hit: ...
        def _find_sessions(
            self,
            searcher: tantivy.Searcher,
            cq: CompiledQuery,
            base: tantivy.Query,
            offset: int,
            limit: int,
            per_group: int,
            chars: int,
            page: M.SearchPage,
            gen: int | None,
            passage_chars: int = ...,
        ) -> None: ...
        def _read_page(
            self, doc: tantivy.Document, char_offset: int, max_chars: int
        ) -> tuple[str, bool]: ...
        def _red_stored(self, doc: tantivy.Document) -> str: ...
        def session_title(self, sid: str) -> tuple[str, str]: ...
        def _prefetch_titles(self, sids: Iterable[str]) -> None: ...
        def _session_info(self, doc: tantivy.Document) -> M.SessionInfo: ...
        def projects(self) -> list[M.ProjectInfo]: ...
        def _snippets(
            self, searcher: tantivy.Searcher, cq: CompiledQuery
        ) -> dict[str, tantivy.SnippetGenerator] | None: ...
        def _snippet(
            self,
            doc: tantivy.Document,
            gens: dict[str, tantivy.SnippetGenerator] | None,
            chars: int,
        ) -> tuple[str, list[tuple[int, int]]]: ...
        def _entry(
            self, doc: tantivy.Document, max_chars: int, char_offset: int = 0, full: bool = False
        ) -> M.Entry: ...
        def _read_back(
            self, doc: tantivy.Document, rel: str, offset: int, length: int
        ) -> str | None: ...
        def _subagent_links(self, sid: str) -> dict[str, str]: ...
        def _term_weights(
            self, searcher: tantivy.Searcher, terms: list[tuple[str, tantivy.Query, bool]]
        ) -> list[float]: ...
        def _passage(
            self,
            doc: tantivy.Document,
            terms: Terms,
            width: int = ...,
            window: Window | None = None,
        ) -> str: ...
        def _passage_window(
            self, doc: tantivy.Document, terms: Terms, width: int = ...
        ) -> Window: ...
