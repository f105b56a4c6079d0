"""The one query service that the TUI, the MCP server and the CLI all call.

Every question a view or a tool asks is a method here, returning the typed models of
`ccarchive.service.models`. A second implementation in a front end would be a second answer
to the same question, and the two would drift; so front ends format, they never query.

The service only reads. Who writes the index (this process or another) is the live
layer's business; the service is told its `role` for `status()`.
"""

from __future__ import annotations

import binascii
import math
import re
import threading
import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query import (
    CompiledQuery,
    compile_query,
    contains_query,
    parse_date_bound,
    regex_query,
)
from ccarchive.index.store import IndexStore

if TYPE_CHECKING:
    from ccarchive.live.runtime import LiveArchive
from ccarchive.service import models as M
from ccarchive.service.redact import find_secrets, redact

MAX_LIMIT = 500
SNIPPET_CHARS = 180
ENTRY_CHARS = 4_000
"""Default cap on an entry's text in transcripts and details (a cursor reads on)."""


KIND_ORDER = {k: i for i, k in enumerate(S.SEARCHABLE_KINDS)}
RANK_POOL_MIN, RANK_POOL_MAX = 200, 2000
"""How many best-scored hits are re-ranked by kind weight: a weight can lift a hit by
3.3x at most, so a hit far below the pool's floor could not have made the first page."""
ENTRY_KINDS = tuple(k for k in S.SEARCHABLE_KINDS if k not in (S.PLAN, S.MEMORY, S.HISTORY))
"""Kinds of the entries of a transcript (plans, memory files and history lines are not)."""
BASE_SCORE = 1.0
"""Added to every hit's text score before its kind weight scales it, so that a weak match
of a heavy kind still counts its weight. It is the constant the kind filter once added
inside the query; the ranking was tuned (and its snapshots taken) with it."""


class ServiceError(ValueError):
    """A bad request: unknown id, bad date, limit out of range. The message says which."""


_first = S.first_value


def _strs(doc: tantivy.Document, field: str) -> list[Any]:
    return [v.decode() if isinstance(v, bytes) else v for v in doc.get_all(field)]


def _dt(v: Any) -> datetime | None:
    if isinstance(v, datetime):
        return v if v.tzinfo else v.replace(tzinfo=UTC)
    if not v:
        return None
    from ccarchive.archive.records import parse_ts

    return parse_ts(v)


def _subagent_tools() -> frozenset[str]:
    from ccarchive.archive.records import SUBAGENT_TOOLS

    return SUBAGENT_TOOLS


_URLSAFE = bytes.maketrans(b"+/", b"-_")
_URLSAFE_BACK = bytes.maketrans(b"-_", b"+/")


def encode_cursor(data: dict[str, Any]) -> str:
    """URL-safe base64 of the cursor's JSON (binascii: `base64` costs 2 ms of imports)."""
    raw = binascii.b2a_base64(orjson.dumps(data), newline=False).translate(_URLSAFE)
    return raw.decode().rstrip("=")


def decode_cursor(cursor: str | None) -> dict[str, Any]:
    if not cursor:
        return {}
    try:
        pad = "=" * (-len(cursor) % 4)
        data = orjson.loads(binascii.a2b_base64((cursor + pad).encode().translate(
            _URLSAFE_BACK)))
    except (ValueError, binascii.Error, orjson.JSONDecodeError) as exc:
        raise ServiceError(f"invalid cursor {cursor[:40]!r}: pass back a next_cursor as given") \
            from exc
    if not isinstance(data, dict):
        raise ServiceError("invalid cursor: pass back a next_cursor as given")
    return data


def _check_limit(limit: int, name: str = "limit", top: int = MAX_LIMIT) -> int:
    if not isinstance(limit, int) or limit < 1 or limit > top:
        raise ServiceError(f"{name} must be between 1 and {top}, got {limit!r}")
    return limit


class ArchiveService:
    """Read-only queries over one archive's index.

    Args:
        store: the opened index.
        archive_root: the archive, to read full entries back by offset.
        redact_secrets: redact credentials in every text returned (the default; see
            `ccarchive.service.redact`).
        live: the live archive keeping this index current, if any: the service reports
            its role (writer / read-only) in `status()`.
    """

    def __init__(self, store: IndexStore, archive_root: Path, *,
                 redact_secrets: bool = True, live: LiveArchive | None = None) -> None:
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

    def _all(self, *must: tantivy.Query | None,
             must_not: Sequence[tantivy.Query] = ()) -> tantivy.Query:
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
        return self._all(q, tantivy.Query.const_score_query(
            self._terms(S.KIND, sorted(wanted)), 0.0))

    def _date_range(self, since: datetime | None, until: datetime | None,
                    field: str = S.TS) -> tantivy.Query | None:
        if since is None and until is None:
            return None
        return tantivy.Query.range_query(
            self.schema, field, tantivy.FieldType.Date,
            since or datetime(1970, 1, 1, tzinfo=UTC),
            until or datetime(2200, 1, 1, tzinfo=UTC),
            include_lower=True, include_upper=False)

    def _date_arg(self, value: str | datetime | None, name: str) -> datetime | None:
        if value is None or value == "":
            return None
        if isinstance(value, datetime):
            return value if value.tzinfo else value.replace(tzinfo=UTC)
        try:
            return parse_date_bound(str(value), now=datetime.now(UTC))
        except ValueError as exc:
            raise ServiceError(f"{name}: {exc}") from exc

    def _project_query(self, project: str | None) -> tantivy.Query | None:
        if not project:
            return None
        return contains_query(self.schema, S.PROJECT, project)

    def _red(self, text: str) -> str:
        return redact(text) if self.redact_secrets and text else text

    def _title_cache(self) -> dict[str, tuple[str, str]]:
        """Session titles read since the last commit (call it with `_lock` held); a
        change of redaction empties it too."""
        key = (self.generation, self.redact_secrets)
        if self._titles_gen != key:
            self._titles, self._titles_gen = {}, key
        return self._titles

    def _title_of(self, doc: tantivy.Document) -> tuple[str, str]:
        return self._red(_first(doc, S.TITLE)), _first(doc, S.PROJECT)

    def session_title(self, sid: str) -> tuple[str, str]:
        """(title, project) of a session, cached until the next commit."""
        with self._lock:
            hit = self._title_cache().get(sid)
        if hit is not None:
            return hit
        doc = self._session_doc(sid)
        hit = ("", "") if doc is None else self._title_of(doc)
        with self._lock:
            self._title_cache()[sid] = hit
        return hit

    def _prefetch_titles(self, sids: Iterable[str]) -> None:
        """Read the titles of these sessions in one query (a page of hits from 20
        sessions was 20 lookups: a fifth of `ccarchive search`'s time)."""
        with self._lock:
            known = self._title_cache()
            todo = sorted({sid for sid in sids if sid and sid not in known})
        if len(todo) < 2:
            return
        searcher = self._searcher()
        q = self._terms(S.ID, [f"session:{sid}" for sid in todo])
        found = {}
        for _score, addr in searcher.search(q, len(todo), count=False).hits:
            doc = searcher.doc(addr)
            found[_first(doc, S.ID)[len("session:"):]] = self._title_of(doc)
        with self._lock:
            cache = self._title_cache()
            for sid in todo:
                cache.setdefault(sid, found.get(sid, ("", "")))

    def _session_doc(self, sid: str) -> tantivy.Document | None:
        searcher = self._searcher()
        hits = searcher.search(self._term(S.ID, f"session:{sid}"), 1, count=False).hits
        return searcher.doc(hits[0][1]) if hits else None

    # ---- search --------------------------------------------------------------------
    def search(self, query: str, *, project: str | None = None,
               kind: str | Sequence[str] | None = None, since: str | datetime | None = None,
               until: str | datetime | None = None, session_id: str | None = None,
               limit: int = 20, cursor: str | None = None, group_by_session: bool = False,
               include_tool_results: bool = False, include_thinking: bool = False,
               recency: bool = False, facets: bool = False,
               exclude_sessions: Iterable[str] = (), hits_per_group: int = 3,
               snippet_chars: int = SNIPPET_CHARS) -> M.SearchPage:
        """Full-text search over every session, plan, memory file and prompt.

        Hits are ranked by relevance, with human prompts, plans and memory above assistant
        prose, and that above raw tool output; tool results and thinking are left out
        unless asked for (`kind:` or the include options).
        """
        t0 = time.perf_counter()
        _check_limit(limit)
        if len(query) > 20_000:
            query = query[:20_000]
        state = decode_cursor(cursor)
        offset = int(state.get("o", 0))
        # pages after the first see only what was committed when the first was asked
        # for, so documents committed in between do not shift them
        gen_max = int(state.get("g", 0)) or None
        cq = compile_query(query, self.schema, self.analyzer, now=datetime.now(UTC))
        warnings = list(cq.warnings)
        kinds = self._kinds(cq, kind, include_tool_results, include_thinking, warnings)
        base = self._filters(cq, project=project, since=since, until=until,
                             session_id=session_id, exclude_sessions=exclude_sessions,
                             gen_max=gen_max)
        searcher = self._searcher()
        full = self._with_kinds(base, kinds)
        scored = cq.text_query is not None
        page = M.SearchPage(query=query, warnings=warnings)
        if group_by_session:
            self._grouped(searcher, cq, full, scored, recency, offset, limit, hits_per_group,
                          snippet_chars, page, gen_max)
        else:
            fetch = limit + offset
            ranked = self._ranked(searcher, full, scored, recency, fetch, count=True)
            page.total = ranked[0]
            rows = ranked[1][offset:offset + limit]
            snip = self._snippets(searcher, cq)
            docs = [searcher.doc(addr) for _score, addr in rows]
            self._prefetch_titles(_first(d, S.SESSION) for d in docs)
            page.hits = [self._hit(doc, score, snip, snippet_chars)
                         for (score, _addr), doc in zip(rows, docs, strict=True)]
            if offset + limit < page.total:
                page.next_cursor = encode_cursor(
                    {"o": offset + limit, "g": gen_max or self._visible_gen(searcher)})
        if facets:
            page.facets = self._facets(searcher, self._with_kinds(
                base, self._kinds(cq, None, True, True, [])))
        page.elapsed_ms = (time.perf_counter() - t0) * 1000
        return page

    def _kinds(self, cq: CompiledQuery, kind: str | Sequence[str] | None,
               include_tool_results: bool, include_thinking: bool,
               warnings: list[str]) -> list[str]:
        asked: set[str] = set()
        if kind:
            for k in [kind] if isinstance(kind, str) else kind:
                for part in str(k).split(","):
                    part = part.strip()
                    if part in S.SEARCHABLE_KINDS:
                        asked.add(part)
                    elif part:
                        raise ServiceError(
                            f"unknown kind {part!r}; kinds are: {', '.join(S.SEARCHABLE_KINDS)}")
        if cq.kinds:
            asked = (asked & set(cq.kinds)) if asked else set(cq.kinds)
            if not asked:
                warnings.append("the kind option and the kind: filter exclude each other; "
                                "nothing can match both")
                return []
        if asked:
            return sorted(asked)
        excluded = set(S.DEFAULT_EXCLUDED_KINDS)
        if include_tool_results:
            excluded.discard(S.TOOL_RESULT)
        if include_thinking:
            excluded.discard(S.THINKING)
        return [k for k in S.SEARCHABLE_KINDS if k not in excluded]

    def _filters(self, cq: CompiledQuery, *, project: str | None, since: Any, until: Any,
                 session_id: str | None, exclude_sessions: Iterable[str],
                 gen_max: int | None) -> tantivy.Query:
        must: list[tantivy.Query | None] = [cq.query, self._project_query(project)]
        lo, hi = self._date_arg(since, "since"), self._date_arg(until, "until")
        must.append(self._date_range(lo, hi))
        if session_id:
            must.append(self._term(S.SESSION, session_id))
        # filters select, they do not rank: scored, they would add to each hit a constant
        # that the kind weights then scale differently, and page 2 (gen filter) would
        # rank otherwise than page 1
        must = [must[0]] + [tantivy.Query.const_score_query(q, 0.0) for q in must[1:]
                            if q is not None]
        excl = [s for s in exclude_sessions if s]
        not_ = [self._terms(S.SESSION, excl)] if excl else []
        if gen_max:  # leave out what is newer (few documents: cheaper than keeping the rest)
            not_.append(tantivy.Query.range_query(
                self.schema, S.GEN, tantivy.FieldType.Unsigned, gen_max + 1, None,
                use_inverted_index=True))
        return self._all(*must, must_not=not_)

    def _visible_gen(self, searcher: tantivy.Searcher) -> int:
        """The commit generation of the newest documents this searcher sees.

        The indexer stamps it on its `state:_meta` document at every commit; an index
        written before that falls back to the largest `gen` of any document.
        """
        hits = searcher.search(self._term(S.ID, "state:_meta"), 1, count=False).hits
        if hits:
            g = searcher.doc(hits[0][1]).get_first(S.GEN)
            if g:
                return int(g)
        top = searcher.search(tantivy.Query.all_query(), 1, count=False, order_by_field=S.GEN,
                              order=tantivy.Order.Desc).hits
        return int(top[0][0]) if top else 1

    def _ranked(self, searcher: tantivy.Searcher, q: tantivy.Query, scored: bool,
                recency: bool, fetch: int, count: bool) -> tuple[int, list[tuple[float, Any]]]:
        if not scored:
            res = searcher.search(q, fetch, count=count, order_by_field=S.TS,
                                  order=tantivy.Order.Desc)
            return (res.count or 0), [(0.0, addr) for _v, addr in res.hits]
        # One evaluation of the query, then the pool re-ranked by kind (and recency):
        # weighting inside the query meant evaluating it once per kind group (5x).
        pool = min(RANK_POOL_MAX, max(RANK_POOL_MIN, fetch * 4))
        res = searcher.search(q, pool, count=count)
        addrs = [a for _s, a in res.hits]
        ranks = searcher.fast_field_values(S.RANK, addrs) if addrs else []
        rows = [((float(sc) + BASE_SCORE) * (r or 10) / 10, a)
                for (sc, a), r in zip(res.hits, ranks, strict=True)]
        if recency and rows:
            now = time.time()
            secs = searcher.fast_field_values(S.TSEC, [a for _s, a in rows])
            rows = [(score * (1 + 0.5 * math.exp(-max(0.0, now - t) / 86400 / 30)) if t
                     else score, a) for (score, a), t in zip(rows, secs, strict=True)]
        # ties in index order: tantivy's segment threads return equal scores in any
        # order, so the same query could list two sessions either way round
        rows.sort(key=lambda r: (-r[0], r[1].segment_ord, r[1].doc))
        rows = rows[:fetch]
        return (res.count or 0), rows

    def _snippets(self, searcher: tantivy.Searcher,
                  cq: CompiledQuery) -> dict[str, tantivy.SnippetGenerator] | None:
        if cq.text_query is None:
            return None
        g = tantivy.SnippetGenerator.create(searcher, cq.text_query, self.schema, S.TEXT)
        g.set_max_num_chars(SNIPPET_CHARS)
        return {S.TEXT: g}

    def _snippet(self, doc: tantivy.Document, gens: dict[str, tantivy.SnippetGenerator] | None,
                 chars: int) -> tuple[str, list[tuple[int, int]]]:
        text = _first(doc, S.TEXT)
        if gens is not None:
            try:
                sn = gens[S.TEXT].snippet_from_doc(doc)
                frag = sn.fragment()
                if frag:
                    spans = [(r.start, r.end) for r in sn.highlighted()]
                    return self._redact_snippet(_clean(frag), spans)
            except (ValueError, AttributeError):
                pass
        flat = " ".join(text.split())
        return self._redact_snippet(flat[:chars] + ("…" if len(flat) > chars else ""), [])

    def _redact_snippet(self, text: str,
                        spans: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
        spans = _merge_spans(spans)
        if not self.redact_secrets or not find_secrets(text):
            return text, spans
        return redact(text), []

    def _hit(self, doc: tantivy.Document, score: float,
             gens: dict[str, tantivy.SnippetGenerator] | None, chars: int) -> M.Hit:
        kind = _first(doc, S.KIND)
        sid = _first(doc, S.SESSION)
        title, _ = self.session_title(sid) if sid and kind not in (S.PLAN, S.MEMORY) else \
            (_first(doc, S.TITLE), "")
        snippet, spans = self._snippet(doc, gens, chars)
        return M.Hit(
            id=S.doc_id(doc), kind=kind, role=_first(doc, S.ROLE), session_id=sid,
            agent_id=_first(doc, S.AGENT), uuid=_first(doc, S.UUID),
            project=_first(doc, S.PROJECT), timestamp=_dt(doc.get_first(S.TS)),
            title=title or self._red(_first(doc, S.TITLE)), snippet=snippet, highlights=spans,
            score=round(score, 4), path=_first(doc, S.PATH), tool=_first(doc, S.TOOL),
            model=_first(doc, S.MODEL), branch=_first(doc, S.BRANCH),
            flags=_strs(doc, S.FLAGS),
        )

    def _grouped(self, searcher: tantivy.Searcher, cq: CompiledQuery, q: tantivy.Query,
                 scored: bool, recency: bool, offset: int, limit: int, per_group: int,
                 chars: int, page: M.SearchPage, gen: int | None = None) -> None:
        want = offset + limit
        fetch = min(1000, max(100, want * 5))
        total, rows = self._ranked(searcher, q, scored, recency, fetch, count=True)
        page.total = total
        order: list[object] = []
        groups: dict[object, list[tuple[float, Any]]] = {}
        # grouped by the session key column: only the hits shown are read from the store
        keys = searcher.fast_field_values(S.SKEY, [a for _, a in rows]) if rows else []
        for (score, addr), key in zip(rows, keys, strict=True):
            key = key or (addr.segment_ord, addr.doc)  # no session: a group of its own
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append((score, addr))
        shown = {key: [(sc, searcher.doc(a)) for sc, a in groups[key][:per_group]]
                 for key in order[offset:want]}
        snip = self._snippets(searcher, cq)
        self._prefetch_titles(_first(docs[0][1], S.SESSION) for docs in shown.values())
        out = []
        for key in order[offset:want]:
            members = groups[key]
            hits = [self._hit(d, s, snip, chars) for s, d in shown[key]]
            first = hits[0]
            sid = first.session_id
            # named after its session, not its best hit (which may be a plan)
            title = (self.session_title(sid)[0] if sid else "") or first.title
            out.append(M.SessionGroup(session_id=sid, title=title, project=first.project,
                                      timestamp=max((h.timestamp for h in hits if h.timestamp),
                                                    default=None),
                                      score=members[0][0], hit_count=len(members), hits=hits))
        page.groups = out
        page.hits = [g.hits[0] for g in out]
        if want < len(order):
            page.next_cursor = encode_cursor({"o": want, "g": gen or self._visible_gen(searcher)})

    def _facets(self, searcher: tantivy.Searcher, q: tantivy.Query) -> M.Facets:
        agg = searcher.aggregate(q, {
            "projects": {"terms": {"field": S.PROJECT, "size": 30}},
            "kinds": {"terms": {"field": S.KIND, "size": 20}},
            "first": {"min": {"field": S.TS}}, "last": {"max": {"field": S.TS}},
        })

        def counts(name: str) -> list[M.FacetCount]:
            return [M.FacetCount(value=b["key"], count=b["doc_count"])
                    for b in agg.get(name, {}).get("buckets", []) if b.get("key")]

        def when(name: str) -> datetime | None:
            v = agg.get(name, {}).get("value")
            return datetime.fromtimestamp(v / 1e9, tz=UTC) if v else None

        kinds = sorted(counts("kinds"), key=lambda f: KIND_ORDER.get(f.value, 99))
        return M.Facets(projects=counts("projects"), kinds=kinds, first=when("first"),
                        last=when("last"))

    # ---- entries, context, transcripts ---------------------------------------------
    def _entry(self, doc: tantivy.Document, max_chars: int, char_offset: int = 0,
               full: bool = False) -> M.Entry:
        text = _first(doc, S.TEXT)
        text_len = int(_first(doc, S.TEXT_LEN, 0)) or len(text)
        path = _first(doc, S.PATH)
        offset, length = int(_first(doc, S.OFFSET, 0)), int(_first(doc, S.LENGTH, 0))
        readable = True
        if full or (text_len > len(text) and char_offset):
            full_text = self._read_back(doc, path, offset, length)
            readable = full_text is not None
            if full_text is not None:
                text, text_len = full_text, len(full_text)
        if text_len > len(text) > 3:
            # the index keeps head + "\n…\n" + tail (records.cap); only the head is a
            # prefix of the whole text, so only the head is shown and read on from
            limit = len(text) - 3
            text = text[:limit - limit // 5]
        piece = text[char_offset:char_offset + max_chars]
        end = char_offset + len(piece)
        truncated = end < max(text_len, len(text))
        kind, tool = _first(doc, S.KIND), _first(doc, S.TOOL)
        subagent = _first(doc, S.LINK_AGENT)
        if not subagent and kind == S.TOOL_CALL and tool in _subagent_tools():
            subagent = self._subagent_links(_first(doc, S.SESSION)).get(
                _first(doc, S.TOOL_USE_ID), "")
        return M.Entry(
            id=S.doc_id(doc), kind=kind, role=_first(doc, S.ROLE),
            uuid=_first(doc, S.UUID), parent_uuid=_first(doc, S.PARENT),
            session_id=_first(doc, S.SESSION), agent_id=_first(doc, S.AGENT),
            timestamp=_dt(doc.get_first(S.TS)), text=self._red(piece), text_len=text_len,
            truncated=truncated,
            next_char=end if truncated and (end < len(text) or readable) else None,
            tool=tool, tool_use_id=_first(doc, S.TOOL_USE_ID),
            subagent_id=subagent, files=doc.get_all(S.FILES),
            model=_first(doc, S.MODEL), flags=_strs(doc, S.FLAGS), path=path,
            offset=offset, length=length, project=_first(doc, S.PROJECT),
        )

    def _subagent_links(self, sid: str) -> dict[str, str]:
        """Spawning tool_use id -> subagent id of a session, cached until the next commit:
        the Task/Agent call is indexed before its subagent is known (FORMAT.md §9.2)."""
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
            blob = orjson.loads(_first(doc, S.BLOB, b"{}"))
            hit = {r["tool_use_id"]: r.get("agent_id", "") for r in blob.get("subagents", [])
                   if r.get("tool_use_id")}
        with self._lock:
            self._links[sid] = hit
        return hit

    def _read_back(self, doc: tantivy.Document, rel: str, offset: int,
                   length: int) -> str | None:
        """The whole text of an entry, read from its source line (the index keeps a cap)."""
        # the archive readers load here, not at import: `ccarchive search` never needs them
        from ccarchive.archive.lines import LineStats, decode_line, read_span
        from ccarchive.archive.records import Extractor, FileSummary, history_text

        kind = _first(doc, S.KIND)
        path = self.root / rel
        try:
            if kind in (S.PLAN, S.MEMORY):
                return path.read_text(encoding="utf-8", errors="replace")
            if not length or length > 64 << 20:
                return None
            raw = read_span(path, offset, length)
        except OSError:
            return None
        objs = decode_line(raw, LineStats())
        block = int(_first(doc, S.SEQ, 0)) % 256
        j, b = divmod(block, 16)
        if kind == S.HISTORY:  # history documents number the objects of a line directly
            if block >= len(objs):
                return None
            return history_text(objs[block])
        if j >= len(objs):
            return None
        is_agent = "/agent-" in rel or rel.rsplit("/", 1)[-1].startswith("agent-")
        units = Extractor(FileSummary(), is_agent_file=is_agent, full_text=True).extract(
            objs[j], LineStats())
        for u in units:
            if min(u.block, 15) == b and u.kind == kind:
                return u.text
        return None

    def _doc_by_id(self, entry_id: str) -> tantivy.Document:
        searcher = self._searcher()
        parsed = S.parse_entry_id(entry_id)
        if parsed is None:
            q = self._term(S.ID, entry_id)
        else:
            path, seq = parsed
            q = self._all(self._term(S.PATH, path), tantivy.Query.range_query(
                self.schema, S.SEQ, tantivy.FieldType.Unsigned, seq, seq))
        hits = searcher.search(q, 1, count=False).hits
        if not hits:
            raise ServiceError(f"unknown entry id {entry_id!r}: ids come from search hits")
        doc = searcher.doc(hits[0][1])
        if _first(doc, S.KIND) not in S.SEARCHABLE_KINDS:
            raise ServiceError(f"unknown entry id {entry_id!r}: ids come from search hits")
        return doc

    def entries(self, ids: Sequence[str], *, max_chars: int = 20_000,
                char_offset: int = 0) -> list[M.Entry]:
        """Full details of chosen entries (read back from the archive), each capped."""
        if not ids:
            raise ServiceError("ids must name at least one entry")
        _check_limit(len(ids), "number of ids", 100)
        _check_limit(max_chars, "max_chars", 200_000)
        return [self._entry(self._doc_by_id(i), max_chars, char_offset, full=True)
                for i in ids]

    def context(self, entry_id: str, *, before: int = 3, after: int = 3,
                max_chars: int = 1_000) -> M.ContextResult:
        """The entries around one entry, in conversation order."""
        _check_limit(before + 1, "before", 51)
        _check_limit(after + 1, "after", 51)
        doc = self._doc_by_id(entry_id)
        path, seq = _first(doc, S.PATH), int(_first(doc, S.SEQ, 0))
        searcher = self._searcher()
        same = self._with_kinds(self._term(S.PATH, path), S.SEARCHABLE_KINDS)

        def around(lo: int, hi: int, n: int, order: tantivy.Order) -> list[M.Entry]:
            if n == 0:
                return []
            q = self._all(same, tantivy.Query.range_query(
                self.schema, S.SEQ, tantivy.FieldType.Unsigned, lo, hi))
            rows = searcher.search(q, n, count=False, order_by_field=S.SEQ, order=order).hits
            return [self._entry(searcher.doc(a), max_chars) for _, a in rows]

        prev = around(0, max(0, seq - 1), before, tantivy.Order.Desc) if seq else []
        prev.reverse()
        nxt = around(seq + 1, 2**63, after, tantivy.Order.Asc)
        return M.ContextResult(target=self._entry(doc, max_chars * 4), before=prev, after=nxt)

    def transcript(self, session_id: str, *, agent_id: str | None = None,
                   cursor: str | None = None, limit: int = 100, start: int | None = None,
                   max_chars: int = ENTRY_CHARS,
                   kinds: Sequence[str] | None = None) -> M.TranscriptPage:
        """A session's (or one of its subagents') entries in conversation order, in pages.

        Order is the order of the source file, which is the order Claude Code appended in;
        rewinds, compaction boundaries and errors are flagged on the entries.
        """
        _check_limit(limit, "limit", 1000)
        info = self.session(session_id)
        q = self._transcript_query(info, agent_id, kinds)
        state = decode_cursor(cursor)
        offset = int(state.get("o", 0)) if start is None else max(0, start)
        searcher = self._searcher()
        res = searcher.search(q, limit, count=True, order_by_field=S.SEQ,
                              order=tantivy.Order.Asc, offset=offset)
        entries = [self._entry(searcher.doc(a), max_chars) for _, a in res.hits]
        total = res.count or 0
        nxt = encode_cursor({"o": offset + limit}) if offset + limit < total else None
        return M.TranscriptPage(session_id=session_id, agent_id=agent_id or "",
                                title=info.title, project=info.project, total=total,
                                start=offset, entries=entries, next_cursor=nxt,
                                subagents=info.subagents, on_disk=info.on_disk)

    def _transcript_query(self, info: M.SessionInfo, agent_id: str | None,
                          kinds: Sequence[str] | None) -> tantivy.Query:
        kinds = [k for k in kinds or ENTRY_KINDS if k in ENTRY_KINDS]
        if agent_id:
            sub = next((a for a in info.subagents if a.agent_id == agent_id), None)
            if sub is not None and sub.path:
                return self._with_kinds(self._term(S.PATH, sub.path), kinds)
            return self._with_kinds(self._all(self._term(S.SESSION, info.session_id),
                                              self._term(S.AGENT, agent_id)), kinds)
        if not info.path:
            raise ServiceError(f"session {info.session_id} has no main transcript indexed")
        return self._with_kinds(self._term(S.PATH, info.path), kinds)

    def entry_position(self, entry_id: str) -> tuple[str, str, int]:
        """(session id, agent id, index in its transcript) of an entry: to open a hit."""
        doc = self._doc_by_id(entry_id)
        sid, agent = _first(doc, S.SESSION), _first(doc, S.AGENT)
        if _first(doc, S.KIND) not in ENTRY_KINDS:
            raise ServiceError(f"{entry_id!r} is not a transcript entry")
        seq = int(_first(doc, S.SEQ, 0))
        q = self._with_kinds(self._all(
            self._term(S.PATH, _first(doc, S.PATH)),
            tantivy.Query.range_query(self.schema, S.SEQ, tantivy.FieldType.Unsigned,
                                      0, max(0, seq - 1))), ENTRY_KINDS)
        n = self._searcher().search(q, 1, count=True).count if seq else 0
        return sid, agent if agent != "sidechain" else "", int(n or 0)

    # ---- sessions, projects, timeline ----------------------------------------------
    def _session_info(self, doc: tantivy.Document) -> M.SessionInfo:
        b = orjson.loads(_first(doc, S.BLOB, b"{}"))
        subs = [M.SubagentInfo(agent_id=r.get("agent_id", ""), agent_type=r.get("agent_type", ""),
                               description=self._red(r.get("description", "")),
                               tool_use_id=r.get("tool_use_id", ""), entries=r.get("entries", 0),
                               tokens=r.get("tokens", 0), path=r.get("path", ""),
                               warmup=r.get("warmup", False), first_ts=_dt(r.get("first_ts")))
                for r in b.get("subagents", [])]
        return M.SessionInfo(
            session_id=b.get("session_id", _first(doc, S.SESSION)),
            title=self._red(b.get("title", "")), first_prompt=self._red(b.get("first_prompt", "")),
            project=b.get("project", ""), branches=b.get("branches", []),
            models=b.get("models", []), slugs=b.get("slugs", []),
            messages=b.get("messages", 0), prompts=b.get("prompts", 0),
            tool_calls=b.get("tool_calls", 0), tokens=M.TokenTotals(**b.get("tokens", {})),
            first_activity=_dt(b.get("first_ts")), last_activity=_dt(b.get("last_ts")),
            duration_s=b.get("duration_s", 0.0), subagent_count=b.get("subagent_count", 0),
            subagents=subs, compactions=b.get("compactions", 0), on_disk=b.get("on_disk", True),
            path=b.get("path", ""), archive_bytes=b.get("bytes", 0), version=b.get("version", ""),
            pr_links=b.get("pr_links", []),
        )

    def session(self, session_id: str) -> M.SessionInfo:
        """One session's figures; a unique prefix of its id is enough."""
        if not session_id or not isinstance(session_id, str):
            raise ServiceError("session_id is required")
        doc = self._session_doc(session_id)
        if doc is None and len(session_id) >= 4:
            q = self._all(self._term(S.KIND, S.SESSION_DOC), regex_query(
                self.schema, S.SESSION, re.escape(session_id) + ".*"))
            searcher = self._searcher()
            hits = searcher.search(q, 2, count=False).hits
            if len(hits) == 1:
                doc = searcher.doc(hits[0][1])
        if doc is None:
            raise ServiceError(f"unknown session {session_id!r}")
        return self._session_info(doc)

    def sessions(self, *, project: str | None = None, since: str | datetime | None = None,
                 until: str | datetime | None = None, model: str | None = None,
                 branch: str | None = None, limit: int = 50, cursor: str | None = None,
                 include_gone: bool = True, include_empty: bool = False) -> M.SessionPage:
        """Sessions, most recent first, filtered by project, date, model or branch.

        Sessions with no message at all (0-byte files, files of bookkeeping records
        only) are left out unless `include_empty`.
        """
        _check_limit(limit)
        offset = int(decode_cursor(cursor).get("o", 0))
        must = [self._term(S.KIND, S.SESSION_DOC), self._project_query(project),
                self._date_range(self._date_arg(since, "since"),
                                 self._date_arg(until, "until"))]
        if model:
            must.append(contains_query(self.schema, S.MODEL, model))
        if branch:
            must.append(contains_query(self.schema, S.BRANCH, branch))
        not_ = [] if include_gone else [self._term(S.STATE, "gone")]
        if not include_empty:
            must.append(tantivy.Query.range_query(self.schema, S.MESSAGES,
                                                  tantivy.FieldType.Unsigned, 1, 2**63,
                                                  use_inverted_index=True))
        searcher = self._searcher()
        res = searcher.search(self._all(*must, must_not=not_), limit, count=True,
                              order_by_field=S.TS, order=tantivy.Order.Desc, offset=offset)
        total = res.count or 0
        return M.SessionPage(
            sessions=[self._session_info(searcher.doc(a)) for _, a in res.hits], total=total,
            next_cursor=encode_cursor({"o": offset + limit}) if offset + limit < total else None)

    def active_sessions(self, *, minutes: float = 10, limit: int = 20) -> list[M.SessionInfo]:
        """Sessions with activity in the last minutes, most recent first (live tail)."""
        since = datetime.now(UTC) - timedelta(minutes=minutes)
        return self.sessions(since=since, limit=limit).sessions

    def projects(self) -> list[M.ProjectInfo]:
        """Every project (real working directory) with its figures, most recent first."""
        agg = self._searcher().aggregate(self._term(S.KIND, S.SESSION_DOC), {
            "p": {"terms": {"field": S.PROJECT, "size": 10_000}, "aggs": {
                "messages": {"sum": {"field": S.MESSAGES}},
                "tokens": {"sum": {"field": S.TOKENS}},
                "bytes": {"sum": {"field": S.BYTES}},
                "first": {"min": {"field": S.TS_START}},
                "last": {"max": {"field": S.TS}},
            }}})
        out = []
        for b in agg.get("p", {}).get("buckets", []):
            if not b.get("key"):
                continue
            out.append(M.ProjectInfo(
                path=b["key"], sessions=b["doc_count"],
                messages=int(b["messages"]["value"] or 0), tokens=int(b["tokens"]["value"] or 0),
                archive_bytes=int(b["bytes"]["value"] or 0),
                first_activity=_ns(b["first"].get("value")),
                last_activity=_ns(b["last"].get("value"))))
        out.sort(key=lambda p: p.last_activity or datetime.min.replace(tzinfo=UTC),
                 reverse=True)
        return out

    def timeline(self, *, since: str | datetime | None = None,
                 until: str | datetime | None = None, days: int | None = None,
                 project: str | None = None, bucket: str = "day") -> M.Timeline:
        """Sessions, prompts, messages and tokens per day (or week, month)."""
        if bucket not in ("day", "week", "month"):
            raise ServiceError(f"bucket must be day, week or month, got {bucket!r}")
        now = datetime.now(UTC)
        hi = self._date_arg(until, "until") or (now + timedelta(days=1)).replace(
            hour=0, minute=0, second=0, microsecond=0)
        if days is not None:
            _check_limit(days, "days", 3660)
        # whole (UTC) days: a partial first or last day would undercount its bucket
        midnight = hi.astimezone(UTC).replace(hour=0, minute=0, second=0,
                                                       microsecond=0)
        hi = midnight if midnight == hi else midnight + timedelta(days=1)
        lo = self._date_arg(since, "since") or (hi - timedelta(days=days or 30))
        lo = lo.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        if lo >= hi:
            raise ServiceError("since must be before until")
        searcher = self._searcher()
        pq = self._project_query(project)
        sess = searcher.aggregate(
            self._all(self._term(S.KIND, S.SESSION_DOC), pq,
                      self._date_range(lo, hi, S.TS_START)),
            {"d": {"date_histogram": {"field": S.TS_START, "fixed_interval": "1d"}, "aggs": {
                "tokens": {"sum": {"field": S.TOKENS}},
                "messages": {"sum": {"field": S.MESSAGES}}}}})
        prompts = searcher.aggregate(
            self._all(self._term(S.KIND, S.PROMPT), self._term(S.AGENT, ""), pq,
                      self._date_range(lo, hi)),
            {"d": {"date_histogram": {"field": S.TS, "fixed_interval": "1d"}}})
        rows: dict[str, M.DayActivity] = {}
        day = lo.replace(hour=0, minute=0, second=0, microsecond=0)
        while day < hi:
            key = day.date().isoformat()
            rows[key] = M.DayActivity(day=key)
            day += timedelta(days=1)
        for b in sess.get("d", {}).get("buckets", []):
            key = b["key_as_string"][:10]
            if key in rows:
                r = rows[key]
                r.sessions += b["doc_count"]
                r.tokens += int(b["tokens"]["value"] or 0)
                r.messages += int(b["messages"]["value"] or 0)
        for b in prompts.get("d", {}).get("buckets", []):
            key = b["key_as_string"][:10]
            if key in rows:
                rows[key].prompts += b["doc_count"]
        out = list(rows.values())
        if bucket != "day":
            out = _rebucket(out, bucket)
        return M.Timeline(since=lo, until=hi, bucket=bucket, project=project, days=out)

    # ---- plans and memory ----------------------------------------------------------
    def _plan_info(self, doc: tantivy.Document, searcher: tantivy.Searcher,
                   sessions: list[str] | None = None) -> M.PlanInfo:
        slug = _first(doc, S.SLUG)
        if sessions is None:
            sessions = self._slug_sessions(searcher, [slug]).get(slug, [])
        return M.PlanInfo(codename=slug, title=self._red(_first(doc, S.TITLE)),
                          agent_id=_first(doc, S.AGENT), project=_first(doc, S.PROJECT),
                          modified=_dt(doc.get_first(S.TS)),
                          size=int(_first(doc, S.LENGTH, 0)), path=_first(doc, S.PATH),
                          sessions=sessions)

    SLUG_SESSIONS = 20
    """Sessions listed per plan at most (the newest)."""

    def _slug_sessions(self, searcher: tantivy.Searcher,
                       slugs: Iterable[str]) -> dict[str, list[str]]:
        """The newest sessions of each slug, in one query for all of them (a page of
        ~350 plans took ~20 ms as a query per plan on the 1 GB archive, ~7 ms so)."""
        wanted = {s for s in slugs if s}
        if not wanted:
            return {}
        q = self._all(self._term(S.KIND, S.SESSION_DOC), self._terms(S.SLUG, wanted))
        cap = self.SLUG_SESSIONS
        limit = max(1, len(wanted) * cap)
        res = searcher.search(q, limit, count=True, order_by_field=S.TS,
                              order=tantivy.Order.Desc)
        if (res.count or 0) > limit:  # some slug has more than `cap`: take them all
            res = searcher.search(q, res.count or 0, count=False, order_by_field=S.TS,
                                  order=tantivy.Order.Desc)
        out: dict[str, list[str]] = {}
        for _, a in res.hits:
            doc = searcher.doc(a)
            got = out.setdefault(_first(doc, S.SLUG), [])
            if len(got) < cap:
                got.append(_first(doc, S.SESSION))
        return out

    def plans(self, *, project: str | None = None, codename: str | None = None,
              limit: int = 30, offset: int = 0, include_agent_plans: bool = False,
              query: str | None = None) -> M.PlanList:
        """Plans, most recently changed first; agent subplans only when asked for."""
        _check_limit(limit)
        if offset < 0:
            raise ServiceError("offset must be 0 or more")
        must: list[tantivy.Query | None] = [self._term(S.KIND, S.PLAN),
                                            self._project_query(project)]
        if codename:
            must.append(contains_query(self.schema, S.SLUG, codename))
        scored = False
        if query:
            cq = compile_query(query, self.schema, self.analyzer)
            must.append(cq.query)
            scored = cq.text_query is not None
        not_ = [] if include_agent_plans else [regex_query(
            self.schema, S.AGENT, ".+")]
        searcher = self._searcher()
        q = self._all(*must, must_not=not_)
        if scored:
            res = searcher.search(q, limit, count=True, offset=offset)
        else:
            res = searcher.search(q, limit, count=True, order_by_field=S.TS,
                                  order=tantivy.Order.Desc, offset=offset)
        docs = [searcher.doc(a) for _, a in res.hits]
        sessions = self._slug_sessions(searcher, (_first(d, S.SLUG) for d in docs))
        return M.PlanList(plans=[self._plan_info(d, searcher,
                                                 sessions.get(_first(d, S.SLUG), []))
                                 for d in docs], total=res.count or 0)

    def plan(self, codename: str, *, include_agent_plans: bool = True,
             max_chars: int = 50_000) -> M.PlanTree:
        """One plan with its agent subplans beneath it and the sessions linked to it."""
        if not codename:
            raise ServiceError("codename is required")
        searcher = self._searcher()
        q = self._all(self._term(S.KIND, S.PLAN), self._term(S.SLUG, codename))
        rows = searcher.search(q, 200, count=False, order_by_field=S.TS,
                               order=tantivy.Order.Desc).hits
        docs = [searcher.doc(a) for _, a in rows]
        main = [d for d in docs if not _first(d, S.AGENT)]
        subs = [d for d in docs if _first(d, S.AGENT)]
        if not main and not subs:
            raise ServiceError(f"unknown plan {codename!r}")
        head = main[0] if main else subs.pop(0)

        def tree(doc: tantivy.Document, with_sessions: bool) -> M.PlanTree:
            text = self._read_back(doc, _first(doc, S.PATH), 0, 0) or _first(doc, S.TEXT)
            info = self._plan_info(doc, searcher)
            sessions = []
            if with_sessions:
                for sid in info.sessions:
                    try:
                        sessions.append(self.session(sid))
                    except ServiceError:
                        continue
            return M.PlanTree(plan=info, text=self._red(text[:max_chars]),
                              truncated=len(text) > max_chars, sessions=sessions)

        root = tree(head, True)
        if include_agent_plans:
            root.subplans = [tree(d, False) for d in subs]
        return root

    def memory_files(self, *, project: str | None = None) -> list[M.MemoryFileInfo]:
        """Memory files (MEMORY.md and topics) and session-memory summaries, by project."""
        searcher = self._searcher()
        q = self._all(self._term(S.KIND, S.MEMORY), self._project_query(project))
        n = searcher.search(q, 1, count=True).count or 0
        rows = searcher.search(q, max(1, n), count=False).hits if n else []
        out = [self._memory_info(searcher.doc(a)) for _, a in rows]
        out.sort(key=lambda m: (m.project, m.session_id != "", m.filename != "MEMORY.md",
                                m.filename))
        return out

    def _memory_info(self, doc: tantivy.Document) -> M.MemoryFileInfo:
        path = _first(doc, S.PATH)
        return M.MemoryFileInfo(project=_first(doc, S.PROJECT), filename=path.rsplit("/", 1)[-1],
                                title=self._red(_first(doc, S.TITLE)), path=path,
                                size=int(_first(doc, S.LENGTH, 0)),
                                modified=_dt(doc.get_first(S.TS)),
                                session_id=_first(doc, S.SESSION))

    def memory_file(self, project: str, filename: str | None = None, *,
                    max_chars: int = 50_000) -> M.MemoryFile:
        """Read one memory file (MEMORY.md by default) of a project."""
        files = self.memory_files(project=project)
        if not files:
            raise ServiceError(f"no memory files for project {project!r}")
        want = filename or "MEMORY.md"
        match = [f for f in files if f.filename == want or f.path == want]
        if not match and filename is None:
            match = files[:1]
        if not match:
            names = ", ".join(sorted({f.filename for f in files}))
            raise ServiceError(f"no memory file {want!r} in {project!r}; there are: {names}")
        info = match[0]
        searcher = self._searcher()
        hits = searcher.search(self._term(S.ID, f"memory:{info.path}"), 1, count=False).hits
        doc = searcher.doc(hits[0][1])
        text = self._read_back(doc, info.path, 0, 0) or _first(doc, S.TEXT)
        return M.MemoryFile(info=info, text=self._red(text[:max_chars]),
                            truncated=len(text) > max_chars)

    # ---- prompt history ------------------------------------------------------------
    def history(self, *, query: str | None = None, project: str | None = None,
                session_id: str | None = None, since: str | datetime | None = None,
                until: str | datetime | None = None, limit: int = 50,
                offset: int = 0) -> M.HistoryPage:
        """Typed prompts from history.jsonl, newest first, or ranked when a query is given."""
        _check_limit(limit)
        if offset < 0:
            raise ServiceError("offset must be 0 or more")
        must: list[tantivy.Query | None] = [
            self._term(S.KIND, S.HISTORY), self._project_query(project),
            self._date_range(self._date_arg(since, "since"), self._date_arg(until, "until"))]
        if session_id:
            must.append(regex_query(self.schema, S.SESSION, re.escape(session_id) + ".*"))
        warnings: list[str] = []
        gens = None
        searcher = self._searcher()
        if query and query.strip():
            cq = compile_query(query, self.schema, self.analyzer)
            warnings = cq.warnings
            must.append(cq.query)
            gens = self._snippets(searcher, cq)
        q = self._all(*must)
        if gens is not None:
            res = searcher.search(q, limit, count=True, offset=offset)
        else:
            res = searcher.search(q, limit, count=True, order_by_field=S.TS,
                                  order=tantivy.Order.Desc, offset=offset)
        items = []
        for _, addr in res.hits:
            doc = searcher.doc(addr)
            snippet, _spans = self._snippet(doc, gens, SNIPPET_CHARS)
            items.append(M.HistoryItem(id=S.doc_id(doc), text=self._red(_first(doc, S.TEXT)),
                                       project=_first(doc, S.PROJECT),
                                       session_id=_first(doc, S.SESSION),
                                       timestamp=_dt(doc.get_first(S.TS)), snippet=snippet))
        return M.HistoryPage(items=items, total=res.count or 0, warnings=warnings)

    # ---- live tail -----------------------------------------------------------------
    def tail(self, session_id: str, *, after_seq: int = -1, agent_id: str | None = None,
             limit: int = 200, max_chars: int = ENTRY_CHARS) -> tuple[list[M.Entry], int]:
        """Entries of a session's transcript after a position: (entries, last seq).

        The live pane calls this on every commit with the last seq it has shown.
        """
        info = self.session(session_id)
        q = self._transcript_query(info, agent_id, None)
        q = self._all(q, tantivy.Query.range_query(self.schema, S.SEQ, tantivy.FieldType.Unsigned,
                                                   after_seq + 1, 2**63))
        searcher = self._searcher()
        rows = searcher.search(q, limit, count=False, order_by_field=S.SEQ,
                               order=tantivy.Order.Asc).hits
        docs = [searcher.doc(a) for _, a in rows]
        last = max([after_seq] + [int(_first(d, S.SEQ, 0)) for d in docs])
        return [self._entry(d, max_chars) for d in docs], last

    # ---- status --------------------------------------------------------------------
    def status(self) -> M.Status:
        """Archive and index figures: what is indexed, what was skipped and why."""
        searcher = self._searcher()
        agg = searcher.aggregate(tantivy.Query.all_query(), {
            "kinds": {"terms": {"field": S.KIND, "size": 50}},
            "last": {"max": {"field": S.GEN}}})
        by_kind = {b["key"]: b["doc_count"] for b in agg["kinds"]["buckets"]}
        skipped: dict[str, int] = {}
        repaired: dict[str, int] = {}
        files = 0
        archive_bytes = 0
        n_state = by_kind.get(S.STATE_DOC, 0)
        if n_state:
            for _, a in searcher.search(self._term(S.KIND, S.STATE_DOC), n_state,
                                        count=False).hits:
                blob = searcher.doc(a).get_first(S.BLOB)
                st = orjson.loads(blob) if blob else {}
                if "rel" not in st:
                    continue
                files += 1
                archive_bytes += st.get("size", 0)
                for k, v in st.get("skipped", {}).items():
                    skipped[k] = skipped.get(k, 0) + v
                for k, v in st.get("repaired", {}).items():
                    repaired[k] = repaired.get(k, 0) + v
                if st.get("pending"):
                    skipped["incomplete_last_line"] = skipped.get("incomplete_last_line", 0) + 1
        gone = searcher.search(self._all(self._term(S.KIND, S.SESSION_DOC),
                                         self._term(S.STATE, "gone")), 1, count=True).count
        last = agg.get("last", {}).get("value")
        docs = {k: v for k, v in by_kind.items() if k in S.SEARCHABLE_KINDS}
        return M.Status(
            archive=str(self.root), index_path=str(self.store.path), role=self.role,
            projects=len(self.projects()), sessions=by_kind.get(S.SESSION_DOC, 0),
            sessions_gone=gone or 0, documents=sum(docs.values()),
            documents_by_kind=dict(sorted(docs.items(), key=lambda kv: KIND_ORDER[kv[0]])),
            files=files, skipped_by_reason=skipped, repaired_by_reason=repaired,
            index_bytes=self.store.size_bytes(), archive_bytes=archive_bytes,
            last_update=datetime.fromtimestamp(last / 1000, tz=UTC) if last else None,
            message=self.message)


    # ---- panes of the app (timeline day list, live tail) ---------------------------
    def sessions_started(self, *, since: str | datetime | None = None,
                         until: str | datetime | None = None, project: str | None = None,
                         limit: int = 200) -> M.SessionPage:
        """Sessions that started in [since, until), newest first: a timeline bucket's list.

        `timeline()` counts a session on the day it started; this lists the same sessions
        (where `sessions()` filters on last activity).
        """
        _check_limit(limit)
        must = [self._term(S.KIND, S.SESSION_DOC), self._project_query(project),
                self._date_range(self._date_arg(since, "since"),
                                 self._date_arg(until, "until"), S.TS_START),
                tantivy.Query.range_query(self.schema, S.MESSAGES,
                                          tantivy.FieldType.Unsigned, 1, 2**63)]
        searcher = self._searcher()
        res = searcher.search(self._all(*must), limit, count=True, order_by_field=S.TS_START,
                              order=tantivy.Order.Desc)
        return M.SessionPage(sessions=[self._session_info(searcher.doc(a)) for _, a in res.hits],
                             total=res.count or 0)

    def tail_last(self, session_id: str, *, count: int = 100, agent_id: str | None = None,
                  max_chars: int = ENTRY_CHARS) -> tuple[list[M.Entry], int]:
        """The last `count` entries of a session, in order, and the last seq.

        Where a live view starts; it then follows with `tail(after_seq=last)`.
        """
        _check_limit(count)
        info = self.session(session_id)
        q = self._transcript_query(info, agent_id, None)
        searcher = self._searcher()
        rows = searcher.search(q, count, count=False, order_by_field=S.SEQ,
                               order=tantivy.Order.Desc).hits
        docs = [searcher.doc(a) for _, a in reversed(rows)]
        last = max([-1] + [int(_first(d, S.SEQ, 0)) for d in docs])
        return [self._entry(d, max_chars) for d in docs], last

def _ns(v: Any) -> datetime | None:
    return datetime.fromtimestamp(v / 1e9, tz=UTC) if v else None


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


def _rebucket(days: list[M.DayActivity], bucket: str) -> list[M.DayActivity]:
    out: dict[str, M.DayActivity] = {}
    for d in days:
        day = datetime.fromisoformat(d.day)
        if bucket == "week":
            key = (day - timedelta(days=day.weekday())).date().isoformat()
        else:
            key = day.date().replace(day=1).isoformat()
        r = out.setdefault(key, M.DayActivity(day=key))
        r.sessions += d.sessions
        r.prompts += d.prompts
        r.messages += d.messages
        r.tokens += d.tokens
    return list(out.values())
