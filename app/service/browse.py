"""The archive's other collections: activity per day, plans, memory files, prompt history.

Each backs one pane of the app and one group of MCP tools. Plans and memory files are
whole files, read back from the archive; history lines are indexed whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query.compiler import compile_query
from ccarchive.index.query.regex import contains_query, regex_query
from ccarchive.service import models as M
from ccarchive.service.base import ServiceBase, _dt, _first
from ccarchive.service.cursor import _check_limit, check_offset
from ccarchive.service.errors import ServiceError
from ccarchive.service.excerpts import SNIPPET_CHARS
from ccarchive.service.ids import check_session_id


class BrowseMixin(ServiceBase):
    """`timeline()`, plans, memory files and `history()`."""
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

    def _plan_info(self, doc: tantivy.Document, searcher: tantivy.Searcher,
                   sessions: list[str] | None = None) -> M.PlanInfo:
        slug = _first(doc, S.SLUG)
        if sessions is None:
            sessions = self._slug_sessions(searcher, [slug]).get(slug, [])
        return M.PlanInfo(codename=slug, title=self._red_title(_first(doc, S.TITLE)),
                          agent_id=_first(doc, S.AGENT), project=_first(doc, S.PROJECT),
                          modified=_dt(doc.get_first(S.TS)),
                          size=int(_first(doc, S.LENGTH, 0)), path=self._name(_first(doc, S.PATH)),
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
        check_offset(offset)
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
             max_chars: int = 50_000, char_offset: int = 0) -> M.PlanTree:
        """One plan with its agent subplans beneath it and the sessions linked to it.

        The plan's text from `char_offset` (its subplans' from the start), `max_chars` of
        each, read back from the archive in bounded memory; `truncated` when more follow.
        """
        if not codename:
            raise ServiceError("codename is required")
        _check_page(max_chars, char_offset)
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
            text, more = self._read_page(doc, char_offset if with_sessions else 0, max_chars)
            info = self._plan_info(doc, searcher)
            sessions = []
            if with_sessions:
                for sid in info.sessions:
                    try:
                        sessions.append(self.session(sid))
                    except ServiceError:
                        continue
            return M.PlanTree(plan=info, text=text, truncated=more,
                              sessions=sessions)

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
        path = self._name(_first(doc, S.PATH))  # a token in a file name, redacted
        return M.MemoryFileInfo(project=_first(doc, S.PROJECT), filename=path.rsplit("/", 1)[-1],
                                title=self._red_title(_first(doc, S.TITLE)), path=path,
                                size=int(_first(doc, S.LENGTH, 0)),
                                modified=_dt(doc.get_first(S.TS)),
                                session_id=_first(doc, S.SESSION))

    def memory_file(self, project: str, filename: str | None = None, *,
                    max_chars: int = 50_000, char_offset: int = 0) -> M.MemoryFile:
        """Read one memory file (MEMORY.md by default) of a project: `max_chars` from
        `char_offset`, read back in bounded memory; `truncated` when more follow."""
        _check_page(max_chars, char_offset)
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
        raw = self._raw_path(info.path)  # the name as shown: resolved to the file's own
        hits = searcher.search(self._term(S.ID, f"memory:{raw}"), 1, count=False).hits
        if not hits:
            raise ServiceError(f"no memory file {want!r} in {project!r}")
        text, more = self._read_page(searcher.doc(hits[0][1]), char_offset, max_chars)
        return M.MemoryFile(info=info, text=text, truncated=more)

    def history(self, *, query: str | None = None, project: str | None = None,
                session_id: str | None = None, since: str | datetime | None = None,
                until: str | datetime | None = None, limit: int = 50,
                offset: int = 0) -> M.HistoryPage:
        """Typed prompts from history.jsonl, newest first, or ranked when a query is given."""
        _check_limit(limit)
        check_offset(offset)
        must: list[tantivy.Query | None] = [
            self._term(S.KIND, S.HISTORY), self._project_query(project),
            self._date_range(self._date_arg(since, "since"), self._date_arg(until, "until"))]
        if session_id:
            check_session_id(session_id)
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
            items.append(M.HistoryItem(id=S.doc_id(doc), text=self._red_stored(doc),
                                       project=_first(doc, S.PROJECT),
                                       session_id=_first(doc, S.SESSION),
                                       timestamp=_dt(doc.get_first(S.TS)), snippet=snippet))
        return M.HistoryPage(items=items, total=res.count or 0, warnings=warnings)


def _check_page(max_chars: int, char_offset: int) -> None:
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
        raise ServiceError(f"max_chars must be a positive number, got {max_chars!r}")
    if not isinstance(char_offset, int) or isinstance(char_offset, bool) or char_offset < 0:
        raise ServiceError(f"char_offset must be 0 or more, got {char_offset!r}")


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
