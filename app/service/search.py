"""Full-text search: filters, kinds, ranking, hits, grouping by session, facets.

One evaluation of the compiled query fetches a pool of the best-scored hits, which is then
re-ranked by kind weight (and recency) in Python; the snippet of each hit is cut in
`ccarchive.service.excerpts`.
"""

from __future__ import annotations

import math
import re
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query.compiler import CompiledQuery, compile_query
from ccarchive.index.schema import first_value
from ccarchive.service import models as M
from ccarchive.service.arguments import ServiceError, check_limit, decode_cursor, encode_cursor
from ccarchive.service.base import KIND_ORDER, IndexContext, stored_text
from ccarchive.service.excerpts import SNIPPET_CHARS, Excerpts
from ccarchive.service.passages import KIND_WORDS, PASSAGE_CHARS, Terms, coverage
from ccarchive.service.semantic import SemanticSwitch
from ccarchive.service.session_ranking import SessionRanking, collector_paused
from ccarchive.service.sessions import SessionCatalog

RANK_POOL_MIN, RANK_POOL_MAX = 200, 2000
"""How many best-scored hits are re-ranked by kind weight: a weight can lift a hit by
3.3x at most, so a hit far below the pool's floor could not have made the first page."""
BASE_SCORE = 1.0
"""Added to every hit's text score before its kind weight scales it, so that a weak match
of a heavy kind still counts its weight. It is the constant the kind filter once added
inside the query; the ranking was tuned (and its snapshots taken) with it."""
DOCUMENT_KINDS = (S.PLAN, S.MEMORY)
"""Documents of their own beside the transcripts: what was planned, what was remembered."""
DOCUMENT_POOL = 4
"""Best documents by score weighed for `answering_documents`, of all kinds and of each
kind the question names."""
DOCUMENT_SLOTS = 2
"""At most this many documents answer beside a page of session results."""
_WORD = re.compile(r"[a-z]+")
COMPILED_QUERIES = 64
"""Compiled queries kept for reuse (`Search._compiled`)."""
_DATE_FILTERS = ("after:", "before:")
"""Filters read relative to now: a query that names one is not reused."""


class Search:
    """`search()` and the steps it takes: kinds, filters, ranking, hits, groups, facets;
    and `recent_activity()`, what the empty query shows.

    Grouped by session, a query with words is ranked by `SessionRanking`, given the
    semantic search when it is on (`SemanticSwitch.dense`) and the search's filters
    without its words, for the sessions found by meaning alone."""

    def __init__(
        self,
        ctx: IndexContext,
        catalog: SessionCatalog,
        excerpts: Excerpts,
        ranking: SessionRanking,
        semantic: SemanticSwitch,
    ) -> None:
        self.ctx = ctx
        self.catalog = catalog
        self.excerpts = excerpts
        self.ranking = ranking
        self.semantic = semantic
        self._compiled_queries: OrderedDict[str, CompiledQuery] = OrderedDict()
        """The last queries compiled (`_compiled`), oldest first."""

    def search(
        self,
        query: str,
        *,
        project: str | None = None,
        kind: str | Sequence[str] | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        session_id: str | None = None,
        limit: int = 20,
        cursor: str | None = None,
        group_by_session: bool = False,
        include_tool_results: bool = False,
        include_thinking: bool = False,
        recency: bool = False,
        facets: bool = False,
        exclude_sessions: Iterable[str] = (),
        hits_per_group: int = 3,
        snippet_chars: int = SNIPPET_CHARS,
        passage_chars: int = PASSAGE_CHARS,
    ) -> M.SearchPage:
        """Full-text search over every session, plan, memory file and prompt.

        Hits are ranked by relevance, with human prompts, plans and memory above assistant
        prose, and that above raw tool output; tool results and thinking are left out
        unless asked for (`kind:` or the include options). Each hit of a plain query
        carries its `passage` (about `passage_chars`): where its query words are densest.
        """
        t0 = time.perf_counter()
        check_limit(limit)
        if len(query) > 20_000:
            query = query[:20_000]
        state = decode_cursor(cursor)
        offset = int(state.get("o", 0))
        # pages after the first see only what was committed when the first was asked
        # for, so documents committed in between do not shift them
        gen_max = int(state.get("g", 0)) or None
        cq = self._compiled(query)
        warnings = list(cq.warnings)
        kinds = self._kinds(cq, kind, include_tool_results, include_thinking, warnings)
        options: dict[str, Any] = {
            "project": project,
            "since": since,
            "until": until,
            "session_id": session_id,
            "exclude_sessions": exclude_sessions,
            "gen_max": gen_max,
        }
        base = self._filters(cq, **options)
        searcher = self.ctx.searcher()
        full = self.ctx.with_kinds(base, kinds)
        scored = cq.text_query is not None
        page = M.SearchPage(
            query=query, warnings=warnings, ignored=bool(query.strip()) and cq.is_empty()
        )
        # one hit more a session than asked for: a history line that repeats the
        # prompt beside it is dropped (`drop_echoes`), and the next hit takes its row
        if group_by_session and scored and cq.rank_terms and not recency:
            dense = self.semantic.dense
            # a plain query with no required word matches any of its words: each word's
            # own search needs only the filters beside it (the same hits, and no union
            # of every word evaluated under each one)
            optional = cq.plain and cq.any_query is not None
            optional = optional and not any(req for _t, _q, req in cq.rank_terms)
            words_filter = self._term_clauses(cq, kinds, options) if optional else None
            with collector_paused():
                self.ranking.find_sessions(
                    searcher,
                    cq,
                    full,
                    offset,
                    limit,
                    hits_per_group + 1,
                    snippet_chars,
                    page,
                    gen_max,
                    passage_chars,
                    dense=dense,
                    bare_filters=self._bare_filters(cq, options) if dense is not None else None,
                    words_filter=words_filter,
                )
            drop_echoes(page.groups or [], hits_per_group)
            self._mark_gone(page.groups)
        elif group_by_session:
            self._grouped(
                searcher,
                cq,
                full,
                scored,
                recency,
                offset,
                limit,
                hits_per_group + 1,
                snippet_chars,
                page,
                gen_max,
            )
            drop_echoes(page.groups or [], hits_per_group)
            self._mark_gone(page.groups)
        else:
            fetch = limit + offset
            ranked = self._ranked(searcher, full, scored, recency, fetch, count=True)
            page.total = ranked[0]
            rows = ranked[1][offset : offset + limit]
            snip = self.excerpts.snippets(searcher, cq)
            docs = [searcher.doc(addr) for _score, addr in rows]
            self.catalog.prefetch_titles(first_value(d, S.SESSION) for d in docs)
            page.hits = [
                self.excerpts.hit(doc, score, snip, snippet_chars)
                for (score, _addr), doc in zip(rows, docs, strict=True)
            ]
            if cq.rank_terms and page.hits:  # each hit's passage, as in session results
                words = [t for t, _q, _r in cq.rank_terms]
                evidence = Terms.of(words, self.ranking.term_weights(searcher, cq.rank_terms))
                for hit, doc in zip(page.hits, docs, strict=True):
                    hit.passage = self.excerpts.passage(doc, evidence, passage_chars)
            if offset + limit < page.total:
                page.next_cursor = encode_cursor(
                    {"o": offset + limit, "g": gen_max or self.ctx.visible_gen(searcher)}
                )
        if facets:  # kinds counted over every kind (to pick from); the rest as filtered
            every = self.ctx.with_kinds(base, self._kinds(cq, None, True, True, []))
            page.facets = self._facets(searcher, every, full if kind else None)
        page.elapsed_ms = (time.perf_counter() - t0) * 1000
        return page

    def answering_documents(
        self,
        query: str,
        results: Sequence[M.SessionGroup],
        *,
        project: str | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        exclude_sessions: Iterable[str] = (),
        snippet_chars: int = SNIPPET_CHARS,
        passage_chars: int = PASSAGE_CHARS,
    ) -> list[M.Hit]:
        """The plans and memory files that answer a question beside a page of its session
        results (`results`, ranked by `search(group_by_session=True)`), each with its
        passage; none already among them, at most `DOCUMENT_SLOTS`.

        A plan or memory file is one document, so the session ranking, which adds a
        whole session's evidence to its best turn, puts it below sessions that mention
        the same words in many places, and a plan is filed under the session that wrote
        it, where its agent subplans (short, so scored high) stand for it; yet it is often
        the answer itself ("what did the plan say", "what does the user prefer"). So of
        the best documents by score, each on its own: for each kind the question names
        by word (`KIND_WORDS`), that kind's document covering most of the question; then
        any document covering at least as much of it as the first of `results`
        (`relevance`: the share of its words, by rarity). Coverage decides among the
        best by score, which favour short documents over the one that answers."""
        cq = self._compiled(query)
        if not cq.rank_terms or (cq.kinds and not set(cq.kinds) & set(DOCUMENT_KINDS)):
            return []
        searcher = self.ctx.searcher()
        base = self._filters(
            cq,
            project=project,
            since=since,
            until=until,
            session_id=None,
            exclude_sessions=exclude_sessions,
            gen_max=None,
        )
        words = [t for t, _q, _r in cq.rank_terms]
        weights = self.ranking.term_weights(searcher, cq.rank_terms)
        evidence = Terms.of(words, weights)

        shown = {h.id for g in results for h in g.hits}
        bar = results[0].relevance if results else 0.0

        def pool(kinds: Sequence[str]) -> list[tuple[float, str, tantivy.Document]]:
            """(coverage, id, document) of the best documents of these kinds by score,
            the most covering first (by score among equals)."""
            _n, rows = self._ranked(
                searcher, self.ctx.with_kinds(base, kinds), True, False, DOCUMENT_POOL, False
            )
            docs = [searcher.doc(addr) for _score, addr in rows]
            out = [
                (coverage(stored_text(d)[0], evidence), self.ctx.red_name(S.doc_id(d)), d)
                for d in docs
            ]
            out.sort(key=lambda r: -r[0])
            return [r for r in out if r[0] > 0]

        picked: dict[str, tantivy.Document] = {}
        asked = {KIND_WORDS.get(w) for w in _WORD.findall(query.lower())}
        for kind in DOCUMENT_KINDS:
            best = pool([kind]) if kind in asked else []
            if best and best[0][1] not in shown:
                picked[best[0][1]] = best[0][2]
        for cov, doc_id, doc in pool(DOCUMENT_KINDS):
            if round(cov, 3) >= bar and doc_id not in shown:  # relevance is rounded so
                picked.setdefault(doc_id, doc)
        snip = self.excerpts.snippets(searcher, cq)
        out = []
        for doc in list(picked.values())[:DOCUMENT_SLOTS]:
            hit = self.excerpts.hit(doc, 0.0, snip, snippet_chars)
            hit.passage = self.excerpts.passage(doc, evidence, passage_chars)
            out.append(hit)
        return out

    def recent_activity(
        self,
        *,
        project: str | None = None,
        kind: str | Sequence[str] | None = None,
        since: str | datetime | None = None,
        limit: int = 40,
        hits_per_group: int = 3,
        include_tool_results: bool = False,
        include_thinking: bool = False,
        facets: bool = False,
    ) -> M.SearchPage:
        """The latest entries of each recently active session, one group per session.

        What the empty query shows. `search("", group_by_session=True)` groups the
        newest entries of the whole archive, and the newest few hundred entries of a
        real archive are those of its last one or two sessions; this asks for the most
        recently active sessions first, then each one's newest entries.
        """
        t0 = time.perf_counter()
        check_limit(limit)
        searcher = self.ctx.searcher()
        recent = searcher.search(
            self.catalog.sessions_query(project, since, None),
            limit,
            order_by_field=S.TS,
            order=tantivy.Order.Desc,
        ).hits
        args: dict[str, Any] = {
            "project": project,
            "kind": kind,
            "since": since,
            "include_tool_results": include_tool_results,
            "include_thinking": include_thinking,
        }
        groups: list[M.SessionGroup] = []
        total = 0
        for _, addr in recent:  # titles from the documents at hand (and cached)
            doc = searcher.doc(addr)
            sid, title = first_value(doc, S.SESSION), self.catalog.title_of(doc)[0]
            self.catalog.remember_title(sid, title, first_value(doc, S.PROJECT))
            part = self.search("", session_id=sid, limit=hits_per_group, **args)
            if part.hits:
                group = _recent_group(part.hits, part.total, sid, title)
                group.on_disk = first_value(doc, S.STATE, "on_disk") != "gone"
                groups.append(group)
                total += part.total
        # plans and memory files belong to no session: each is a row of its own
        asked = {kind} if isinstance(kind, str) else set(kind or (S.PLAN, S.MEMORY))
        loose = sorted(asked & {S.PLAN, S.MEMORY})
        if loose:
            part = self.search("", limit=limit, **{**args, "kind": loose})
            groups += [_recent_group([h], 1, "", h.title) for h in part.hits if not h.session_id]
            total += part.total
        epoch = datetime.min.replace(tzinfo=UTC)
        groups.sort(key=lambda g: g.timestamp or epoch, reverse=True)
        page = M.SearchPage(query="", total=total, groups=groups[:limit])
        page.hits = [g.hits[0] for g in groups[:limit]]
        if facets:
            page.facets = self.search("", limit=1, facets=True, **args).facets
        page.elapsed_ms = (time.perf_counter() - t0) * 1000
        return page

    def _compiled(self, query: str) -> CompiledQuery:
        """`query` compiled, reused while it does not depend on the time: a front end
        asks the same words again (an MCP search, then its answering documents; the TUI
        as a query is typed and paged). A query with a date filter (`after:7d`) is
        compiled anew, its dates read from now."""
        with self.ctx.lock:
            cq = self._compiled_queries.get(query)
            if cq is not None:
                self._compiled_queries.move_to_end(query)
                return cq
        cq = compile_query(query, self.ctx.schema, self.ctx.analyzer, now=datetime.now(UTC))
        low = query.lower()
        if not any(f in low for f in _DATE_FILTERS):
            with self.ctx.lock:
                self._compiled_queries[query] = cq
                if len(self._compiled_queries) > COMPILED_QUERIES:
                    self._compiled_queries.popitem(last=False)
        return cq

    def _mark_gone(self, groups: list[M.SessionGroup] | None) -> None:
        """Mark the sessions whose files are gone from disk (`gone_sessions`)."""
        if not groups:
            return
        gone = self.catalog.gone_sessions()
        for g in groups:
            g.on_disk = not g.session_id or g.session_id not in gone

    def _kinds(
        self,
        cq: CompiledQuery,
        kind: str | Sequence[str] | None,
        include_tool_results: bool,
        include_thinking: bool,
        warnings: list[str],
    ) -> list[str]:
        asked: set[str] = set()
        if kind:
            for k in [kind] if isinstance(kind, str) else kind:
                for part in str(k).split(","):
                    part = part.strip()
                    if part in S.SEARCHABLE_KINDS:
                        asked.add(part)
                    elif part:
                        raise ServiceError(
                            f"unknown kind {part!r}; kinds are: {', '.join(S.SEARCHABLE_KINDS)}"
                        )
        if cq.kinds:
            asked = (asked & set(cq.kinds)) if asked else set(cq.kinds)
            if not asked:
                warnings.append(
                    "the kind option and the kind: filter exclude each other; "
                    "nothing can match both"
                )
                return []
        if asked:
            return sorted(asked)
        excluded = set(S.DEFAULT_EXCLUDED_KINDS)
        if include_tool_results:
            excluded.discard(S.TOOL_RESULT)
        if include_thinking:
            excluded.discard(S.THINKING)
        return [k for k in S.SEARCHABLE_KINDS if k not in excluded]

    def _filters(self, cq: CompiledQuery, *, words: bool = True, **options: Any) -> tantivy.Query:
        """What a search matches: its words (`words=False`: only the query's own filters,
        `kind:` `tool:`...) and the filters given beside them (`_filter_parts`' options)."""
        must, must_not = self._filter_parts(cq, words=words, **options)
        return self.ctx.all_of(*must, must_not=must_not)

    def _term_clauses(
        self, cq: CompiledQuery, kinds: list[str], options: dict[str, Any]
    ) -> list[tuple[tantivy.Occur, tantivy.Query]]:
        """The search's filters without its words, kinds included, as unscored clauses to
        put beside each word's query (`SessionRanking.find_sessions`): the same documents
        as `with_kinds(_filters(words=False))` around it, a quarter faster to search
        than that query nested as one clause."""
        must, must_not = self._filter_parts(cq, words=False, **options)
        clauses = [(tantivy.Occur.Must, tantivy.Query.const_score_query(q, 0.0)) for q in must]
        clauses += [(tantivy.Occur.MustNot, q) for q in must_not]
        return clauses + self.ctx.kind_clauses(kinds)

    def _filter_parts(
        self,
        cq: CompiledQuery,
        *,
        project: str | None,
        since: Any,
        until: Any,
        session_id: str | None,
        exclude_sessions: Iterable[str],
        gen_max: int | None,
        words: bool = True,
    ) -> tuple[list[tantivy.Query], list[tantivy.Query]]:
        """(must, must not) of `_filters`."""
        text = self.ctx.matching(cq) if words else cq.filter_query
        must: list[tantivy.Query | None] = [text, self.ctx.project_query(project)]
        lo, hi = self.ctx.date_arg(since, "since"), self.ctx.date_arg(until, "until")
        must.append(self.ctx.date_range(lo, hi))
        if session_id:
            must.append(self.ctx.term(S.SESSION, session_id))
        # filters select, they do not rank: scored, they would add to each hit a constant
        # that the kind weights then scale differently, and page 2 (gen filter) would
        # rank otherwise than page 1
        kept = [must[0]] + [
            tantivy.Query.const_score_query(q, 0.0) for q in must[1:] if q is not None
        ]
        excl = [s for s in exclude_sessions if s]
        not_ = [self.ctx.terms(S.SESSION, excl)] if excl else []
        if gen_max:  # leave out what is newer (few documents: cheaper than keeping the rest)
            not_.append(
                tantivy.Query.range_query(
                    self.ctx.schema,
                    S.GEN,
                    tantivy.FieldType.Unsigned,
                    gen_max + 1,
                    None,
                    use_inverted_index=True,
                )
            )
        return [q for q in kept if q is not None], not_

    def _bare_filters(self, cq: CompiledQuery, options: dict[str, Any]) -> tantivy.Query:
        """The search's filters without its words (`project:`, dates, `session:`... and the
        same options): what a session found by meaning alone must pass (`semantic`)."""
        only = compile_query(
            " ".join(cq.filters), self.ctx.schema, self.ctx.analyzer, now=datetime.now(UTC)
        )
        return self._filters(only, **options)

    def _ranked(
        self,
        searcher: tantivy.Searcher,
        q: tantivy.Query,
        scored: bool,
        recency: bool,
        fetch: int,
        count: bool,
    ) -> tuple[int, list[tuple[float, Any]]]:
        if not scored:
            res = searcher.search(
                q, fetch, count=count, order_by_field=S.TS, order=tantivy.Order.Desc
            )
            return (res.count or 0), [(0.0, addr) for _v, addr in res.hits]
        # One evaluation of the query, then the pool re-ranked by kind (and recency):
        # weighting inside the query meant evaluating it once per kind group (5x).
        pool = min(RANK_POOL_MAX, max(RANK_POOL_MIN, fetch * 4))
        res = searcher.search(q, pool, count=count)
        addrs = [a for _s, a in res.hits]
        ranks = searcher.fast_field_values(S.RANK, addrs) if addrs else []
        rows = [
            ((float(sc) + BASE_SCORE) * (r or 10) / 10, a)
            for (sc, a), r in zip(res.hits, ranks, strict=True)
        ]
        if recency and rows:
            now = time.time()
            secs = searcher.fast_field_values(S.TSEC, [a for _s, a in rows])
            rows = [
                (score * (1 + 0.5 * math.exp(-max(0.0, now - t) / 86400 / 30)) if t else score, a)
                for (score, a), t in zip(rows, secs, strict=True)
            ]
        # ties in index order: tantivy's segment threads return equal scores in any
        # order, so the same query could list two sessions either way round
        rows.sort(key=lambda r: (-r[0], r[1].segment_ord, r[1].doc))
        rows = rows[:fetch]
        return (res.count or 0), rows

    def _grouped(
        self,
        searcher: tantivy.Searcher,
        cq: CompiledQuery,
        q: tantivy.Query,
        scored: bool,
        recency: bool,
        offset: int,
        limit: int,
        per_group: int,
        chars: int,
        page: M.SearchPage,
        gen: int | None = None,
    ) -> None:
        want = offset + limit
        fetch = min(1000, max(100, want * 5))
        total, rows = self._ranked(searcher, q, scored, recency, fetch, count=True)
        page.total = total
        order: list[object] = []
        groups: dict[object, list[tuple[float, Any]]] = {}
        # grouped by the session key column: only the hits shown are read from the store
        keys = searcher.fast_field_values(S.SKEY, [a for _, a in rows]) if rows else []
        key: object  # a session key, or the document's address where there is none
        for (score, addr), key in zip(rows, keys, strict=True):
            key = key or (addr.segment_ord, addr.doc)  # no session: a group of its own
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append((score, addr))
        shown = {
            key: [(sc, searcher.doc(a)) for sc, a in groups[key][:per_group]]
            for key in order[offset:want]
        }
        snip = self.excerpts.snippets(searcher, cq)
        self.catalog.prefetch_titles(first_value(docs[0][1], S.SESSION) for docs in shown.values())
        out = []
        for key in order[offset:want]:
            members = groups[key]
            hits = [self.excerpts.hit(d, s, snip, chars) for s, d in shown[key]]
            first = hits[0]
            sid = first.session_id
            # named after its session, not its best hit (which may be a plan)
            title = (self.catalog.session_title(sid)[0] if sid else "") or first.title
            out.append(
                M.SessionGroup(
                    session_id=sid,
                    title=title,
                    project=first.project,
                    timestamp=max((h.timestamp for h in hits if h.timestamp), default=None),
                    score=members[0][0],
                    hit_count=len(members),
                    hits=hits,
                )
            )
        page.groups = out
        page.hits = [g.hits[0] for g in out]
        if want < len(order):
            page.next_cursor = encode_cursor(
                {"o": want, "g": gen or self.ctx.visible_gen(searcher)}
            )

    def _facets(
        self, searcher: tantivy.Searcher, q: tantivy.Query, narrowed: tantivy.Query | None = None
    ) -> M.Facets:
        """Counts for a filter sidebar. `q` matches every kind; `narrowed`, when kinds are
        chosen, what they keep: projects and dates count that, so a project's count
        agrees with the results shown."""
        aggs = {
            "projects": {"terms": {"field": S.PROJECT, "size": 30}},
            "first": {"min": {"field": S.TS}},
            "last": {"max": {"field": S.TS}},
        }
        kinds = {"kinds": {"terms": {"field": S.KIND, "size": 20}}}
        if narrowed is None:
            agg = searcher.aggregate(q, {**aggs, **kinds})
        else:
            agg = {**searcher.aggregate(narrowed, aggs), **searcher.aggregate(q, kinds)}

        def counts(name: str) -> list[M.FacetCount]:
            return [
                M.FacetCount(value=b["key"], count=b["doc_count"])
                for b in agg.get(name, {}).get("buckets", [])
                if b.get("key")
            ]

        def when(name: str) -> datetime | None:
            v = agg.get(name, {}).get("value")
            return datetime.fromtimestamp(v / 1e9, tz=UTC) if v else None

        by_kind = sorted(counts("kinds"), key=lambda f: KIND_ORDER.get(f.value, 99))
        return M.Facets(
            projects=counts("projects"), kinds=by_kind, first=when("first"), last=when("last")
        )


def _recent_group(hits: list[M.Hit], count: int, sid: str, title: str) -> M.SessionGroup:
    return M.SessionGroup(
        session_id=sid,
        title=title or hits[0].title,
        project=hits[0].project,
        timestamp=max((h.timestamp for h in hits if h.timestamp), default=None),
        hit_count=count,
        hits=hits,
    )


def narrows_to_entries(query: str, kind: object = None) -> bool:
    """Whether a search asks for single entries rather than sessions: a kind given, or a
    filter on what an entry is (`kind:`, `tool:`, `file:`, `role:`). Front ends default
    to sessions otherwise."""
    low = query.lower()
    return bool(kind) or any(f in low for f in ("kind:", "tool:", "file:", "role:"))


def _said(text: str) -> str:
    """A snippet's words for comparing (no cut marks, case or spacing)."""
    return " ".join(text.replace("…", " ").lower().split())


def drop_echoes(groups: list[M.SessionGroup], keep: int) -> None:
    """Each session's hits without the `history` lines that repeat a prompt shown with
    them (the prompt as typed is both a transcript entry and a history line: two rows of
    the same words), cut to `keep` hits."""
    for g in groups:
        prompts = [_said(h.snippet) for h in g.hits if h.kind == S.PROMPT]
        prompts += [_said(h.prompt) for h in g.hits if h.prompt]
        prompts = [p for p in prompts if p]

        g.hits = [h for h in g.hits if not _echoes(h, prompts)][: max(1, keep)]


def _echoes(hit: M.Hit, prompts: list[str]) -> bool:
    """A history line with the words of one of `prompts` (or a piece of them)."""
    said = _said(hit.snippet)
    return hit.kind == S.HISTORY and bool(said) and any(said in p or p in said for p in prompts)
