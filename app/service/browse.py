"""The archive's other collections: activity per day, plans, memory files, prompt history.

Each backs one pane of the app and one group of MCP tools. Plans and memory files are
whole files, read back from the archive; history lines are indexed whole.

A typed prompt (a `history.jsonl` line) is also an entry of its session's transcript,
recorded a moment later. To open a prompt "at that prompt" (`prompt_entry`), the
session's prompt entries near its time are read and the one whose text matches is taken,
the nearest in time if several match (the same words typed twice), else the nearest in
time within `NEAR` (the text differs: pasted text is a placeholder in the history,
expanded in the transcript).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta

import tantivy

from ccarchive.index import schema as S
from ccarchive.index.query.compiler import compile_query
from ccarchive.index.query.regex import contains_query, regex_query
from ccarchive.index.schema import first_value
from ccarchive.service import models as M
from ccarchive.service.arguments import ServiceError, check_limit, check_offset, check_session_id
from ccarchive.service.base import IndexContext, as_datetime
from ccarchive.service.excerpts import SNIPPET_CHARS, Excerpts
from ccarchive.service.search import Search
from ccarchive.service.sessions import SessionCatalog

WINDOW = timedelta(hours=6)
"""How far from the typed time the prompt entries are read."""
NEAR = timedelta(minutes=2)
"""A prompt entry this close in time stands for the typed one even if its text differs."""
COMPARED = 80
"""Characters of each text compared (after spaces are folded)."""
CANDIDATES = 100
"""Prompt entries read around the typed time."""

_PASTE = re.compile(r"\[Pasted text #\d+[^\]]*\]|\[Image #\d+\]")


class Browse:
    """`timeline()`, plans, memory files and `history()`; `prompt_entry()` finds a typed
    prompt's entry with `Search`."""

    def __init__(
        self, ctx: IndexContext, catalog: SessionCatalog, excerpts: Excerpts, text_search: Search
    ) -> None:
        self.ctx = ctx
        self.catalog = catalog
        self.excerpts = excerpts
        self.text_search = text_search

    def timeline(
        self,
        *,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        days: int | None = None,
        project: str | None = None,
        bucket: str = "day",
        ending: date | None = None,
        buckets: int | None = None,
    ) -> M.Timeline:
        """Sessions, prompts, messages and tokens per day (or week, month).

        With `ending` and `buckets`, the range is that many whole buckets ending with the
        bucket that holds the day `ending` (`since`, `until` and `days` are then unused)."""
        if bucket not in ("day", "week", "month"):
            raise ServiceError(f"bucket must be day, week or month, got {bucket!r}")
        if ending is not None and buckets is not None:
            check_limit(buckets, "buckets", 3660)
            since, until = bucket_window(ending, bucket, buckets)
        now = datetime.now(UTC)
        hi = self.ctx.date_arg(until, "until") or (now + timedelta(days=1)).replace(
            hour=0, minute=0, second=0, microsecond=0
        )
        if days is not None:
            check_limit(days, "days", 3660)
        # whole (UTC) days: a partial first or last day would undercount its bucket
        midnight = hi.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        hi = midnight if midnight == hi else midnight + timedelta(days=1)
        lo = self.ctx.date_arg(since, "since") or (hi - timedelta(days=days or 30))
        lo = lo.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        if lo >= hi:
            raise ServiceError("since must be before until")
        searcher = self.ctx.searcher()
        pq = self.ctx.project_query(project)
        sess = searcher.aggregate(
            self.ctx.all_of(
                self.ctx.term(S.KIND, S.SESSION_DOC), pq, self.ctx.date_range(lo, hi, S.TS_START)
            ),
            {
                "d": {
                    "date_histogram": {"field": S.TS_START, "fixed_interval": "1d"},
                    "aggs": {
                        "tokens": {"sum": {"field": S.TOKENS}},
                        "messages": {"sum": {"field": S.MESSAGES}},
                    },
                }
            },
        )
        prompts = searcher.aggregate(
            self.ctx.all_of(
                self.ctx.term(S.KIND, S.PROMPT),
                self.ctx.term(S.AGENT, ""),
                pq,
                self.ctx.date_range(lo, hi),
            ),
            {"d": {"date_histogram": {"field": S.TS, "fixed_interval": "1d"}}},
        )
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

    def _plan_info(
        self, doc: tantivy.Document, searcher: tantivy.Searcher, sessions: list[str] | None = None
    ) -> M.PlanInfo:
        slug = first_value(doc, S.SLUG)
        if sessions is None:
            sessions = self._slug_sessions(searcher, [slug]).get(slug, [])
        return M.PlanInfo(
            codename=slug,
            title=self.ctx.red_title(first_value(doc, S.TITLE)),
            agent_id=first_value(doc, S.AGENT),
            project=first_value(doc, S.PROJECT),
            modified=as_datetime(doc.get_first(S.TS)),
            size=int(first_value(doc, S.LENGTH, 0)),
            path=self.ctx.red_name(first_value(doc, S.PATH)),
            sessions=sessions,
        )

    SLUG_SESSIONS = 20
    """Sessions listed per plan at most (the newest)."""

    def _slug_sessions(
        self, searcher: tantivy.Searcher, slugs: Iterable[str]
    ) -> dict[str, list[str]]:
        """The newest sessions of each slug, in one query for all of them (a page of
        ~350 plans took ~20 ms as a query per plan on the 1 GB archive, ~7 ms so)."""
        wanted = {s for s in slugs if s}
        if not wanted:
            return {}
        q = self.ctx.all_of(self.ctx.term(S.KIND, S.SESSION_DOC), self.ctx.terms(S.SLUG, wanted))
        cap = self.SLUG_SESSIONS
        limit = max(1, len(wanted) * cap)
        res = searcher.search(q, limit, count=True, order_by_field=S.TS, order=tantivy.Order.Desc)
        if (res.count or 0) > limit:  # some slug has more than `cap`: take them all
            res = searcher.search(
                q, res.count or 0, count=False, order_by_field=S.TS, order=tantivy.Order.Desc
            )
        out: dict[str, list[str]] = {}
        for _, a in res.hits:
            doc = searcher.doc(a)
            got = out.setdefault(first_value(doc, S.SLUG), [])
            if len(got) < cap:
                got.append(first_value(doc, S.SESSION))
        return out

    def plans(
        self,
        *,
        project: str | None = None,
        codename: str | None = None,
        limit: int = 30,
        offset: int = 0,
        include_agent_plans: bool = False,
        query: str | None = None,
        whole_plans: bool = False,
    ) -> M.PlanList:
        """Plans, most recently changed first; agent subplans only when asked for.

        With `whole_plans`, a subplan listed without its main plan (a query matched the
        subplan only) brings the main plan along: appended after the page, in the order
        of their subplans (`total` counts the matches alone)."""
        check_limit(limit)
        check_offset(offset)
        must: list[tantivy.Query | None] = [
            self.ctx.term(S.KIND, S.PLAN),
            self.ctx.project_query(project),
        ]
        if codename:
            must.append(contains_query(self.ctx.schema, S.SLUG, codename))
        scored = False
        if query:
            cq = compile_query(query, self.ctx.schema, self.ctx.analyzer)
            must.append(self.ctx.matching(cq))
            scored = cq.text_query is not None
        not_ = [] if include_agent_plans else [regex_query(self.ctx.schema, S.AGENT, ".+")]
        searcher = self.ctx.searcher()
        q = self.ctx.all_of(*must, must_not=not_)
        if scored:
            res = searcher.search(q, limit, count=True, offset=offset)
        else:
            res = searcher.search(
                q, limit, count=True, order_by_field=S.TS, order=tantivy.Order.Desc, offset=offset
            )
        docs = [searcher.doc(a) for _, a in res.hits]
        sessions = self._slug_sessions(searcher, (first_value(d, S.SLUG) for d in docs))
        plans = [
            self._plan_info(d, searcher, sessions.get(first_value(d, S.SLUG), [])) for d in docs
        ]
        if whole_plans:
            plans += self._main_plans(searcher, plans)
        return M.PlanList(plans=plans, total=res.count or 0)

    def _main_plans(self, searcher: tantivy.Searcher, plans: list[M.PlanInfo]) -> list[M.PlanInfo]:
        """The main plans of the subplans among `plans` whose main plan is not among
        them, in the order of those subplans (the newest, if a codename has several)."""
        listed = {p.codename for p in plans if not p.agent_id}
        missing = list(
            dict.fromkeys(p.codename for p in plans if p.agent_id and p.codename not in listed)
        )
        if not missing:
            return []
        q = self.ctx.all_of(
            self.ctx.term(S.KIND, S.PLAN),
            self.ctx.terms(S.SLUG, missing),
            must_not=[regex_query(self.ctx.schema, S.AGENT, ".+")],
        )
        res = searcher.search(
            q, len(missing) * 5, count=False, order_by_field=S.TS, order=tantivy.Order.Desc
        )
        docs: dict[str, tantivy.Document] = {}
        for _, a in res.hits:
            doc = searcher.doc(a)
            docs.setdefault(first_value(doc, S.SLUG), doc)
        sessions = self._slug_sessions(searcher, docs)
        return [
            self._plan_info(docs[c], searcher, sessions.get(c, [])) for c in missing if c in docs
        ]

    def plan(
        self,
        codename: str,
        *,
        include_agent_plans: bool = True,
        max_chars: int = 50_000,
        char_offset: int = 0,
    ) -> M.PlanTree:
        """One plan with its agent subplans beneath it and the sessions linked to it.

        The plan's text from `char_offset` (its subplans' from the start), `max_chars` of
        each, read back from the archive in bounded memory; `truncated` when more follow.
        """
        if not codename:
            raise ServiceError("codename is required")
        _check_page(max_chars, char_offset)
        searcher = self.ctx.searcher()
        if codename.startswith("plan:"):  # a search hit's id names the plan's file
            hits = searcher.search(
                self.ctx.all_of(self.ctx.term(S.KIND, S.PLAN), self.ctx.term(S.ID, codename)), 1
            ).hits
            if not hits:
                raise ServiceError(
                    f"unknown plan {codename!r}: plan ids come from search, "
                    "codenames from list_plans"
                )
            codename = first_value(searcher.doc(hits[0][1]), S.SLUG)
        q = self.ctx.all_of(self.ctx.term(S.KIND, S.PLAN), self.ctx.term(S.SLUG, codename))
        rows = searcher.search(
            q, 200, count=False, order_by_field=S.TS, order=tantivy.Order.Desc
        ).hits
        docs = [searcher.doc(a) for _, a in rows]
        main = [d for d in docs if not first_value(d, S.AGENT)]
        subs = [d for d in docs if first_value(d, S.AGENT)]
        if not main and not subs:
            raise ServiceError(f"unknown plan {codename!r}")
        head = main[0] if main else subs.pop(0)

        def tree(doc: tantivy.Document, with_sessions: bool) -> M.PlanTree:
            text, more = self.ctx.read_page(doc, char_offset if with_sessions else 0, max_chars)
            info = self._plan_info(doc, searcher)
            sessions = []
            if with_sessions:
                for sid in info.sessions:
                    try:
                        sessions.append(self.catalog.session(sid))
                    except ServiceError:
                        continue
            return M.PlanTree(plan=info, text=text, truncated=more, sessions=sessions)

        root = tree(head, True)
        if include_agent_plans:
            root.subplans = [tree(d, False) for d in subs]
        return root

    def memory_files(self, *, project: str | None = None) -> list[M.MemoryFileInfo]:
        """Memory files (MEMORY.md and topics) and session-memory summaries, by project."""
        searcher = self.ctx.searcher()
        q = self.ctx.all_of(self.ctx.term(S.KIND, S.MEMORY), self.ctx.project_query(project))
        n = searcher.search(q, 1, count=True).count or 0
        rows = searcher.search(q, max(1, n), count=False).hits if n else []
        out = [self._memory_info(searcher.doc(a)) for _, a in rows]
        out.sort(
            key=lambda m: (m.project, m.session_id != "", m.filename != "MEMORY.md", m.filename)
        )
        return out

    def _memory_info(self, doc: tantivy.Document) -> M.MemoryFileInfo:
        path = self.ctx.red_name(first_value(doc, S.PATH))  # a token in a file name, redacted
        return M.MemoryFileInfo(
            project=first_value(doc, S.PROJECT),
            filename=path.rsplit("/", 1)[-1],
            title=self.ctx.red_title(first_value(doc, S.TITLE)),
            path=path,
            size=int(first_value(doc, S.LENGTH, 0)),
            modified=as_datetime(doc.get_first(S.TS)),
            session_id=first_value(doc, S.SESSION),
        )

    def memory_file(
        self,
        project: str,
        filename: str | None = None,
        *,
        max_chars: int = 50_000,
        char_offset: int = 0,
    ) -> M.MemoryFile:
        """Read one memory file (MEMORY.md by default) of a project: `max_chars` from
        `char_offset`, read back in bounded memory; `truncated` when more follow."""
        _check_page(max_chars, char_offset)
        if project.startswith("memory:"):  # a search hit's id names the file
            searcher = self.ctx.searcher()
            hits = searcher.search(
                self.ctx.all_of(self.ctx.term(S.KIND, S.MEMORY), self.ctx.term(S.ID, project)), 1
            ).hits
            if not hits:
                raise ServiceError(
                    f"unknown memory file {project!r}: memory ids come from "
                    "search, projects and file names from list_memory_files"
                )
            info = self._memory_info(searcher.doc(hits[0][1]))
            project, filename = info.project, filename or info.path
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
        searcher = self.ctx.searcher()
        raw = self.ctx.raw_path(info.path)  # the name as shown: resolved to the file's own
        hits = searcher.search(self.ctx.term(S.ID, f"memory:{raw}"), 1, count=False).hits
        if not hits:
            raise ServiceError(f"no memory file {want!r} in {project!r}")
        text, more = self.ctx.read_page(searcher.doc(hits[0][1]), char_offset, max_chars)
        return M.MemoryFile(info=info, text=text, truncated=more)

    def history(
        self,
        *,
        query: str | None = None,
        project: str | None = None,
        session_id: str | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> M.HistoryPage:
        """Typed prompts from history.jsonl, newest first, or ranked when a query is given."""
        check_limit(limit)
        check_offset(offset)
        must: list[tantivy.Query | None] = [
            self.ctx.term(S.KIND, S.HISTORY),
            self.ctx.project_query(project),
            self.ctx.date_range(
                self.ctx.date_arg(since, "since"), self.ctx.date_arg(until, "until")
            ),
        ]
        if session_id:
            check_session_id(session_id)
            must.append(regex_query(self.ctx.schema, S.SESSION, re.escape(session_id) + ".*"))
        warnings: list[str] = []
        gens = None
        searcher = self.ctx.searcher()
        if query and query.strip():
            cq = compile_query(query, self.ctx.schema, self.ctx.analyzer)
            warnings = cq.warnings
            must.append(self.ctx.matching(cq))
            gens = self.excerpts.snippets(searcher, cq)
        q = self.ctx.all_of(*must)
        if gens is not None:
            res = searcher.search(q, limit, count=True, offset=offset)
        else:
            res = searcher.search(
                q, limit, count=True, order_by_field=S.TS, order=tantivy.Order.Desc, offset=offset
            )
        items = []
        for _, addr in res.hits:
            doc = searcher.doc(addr)
            snippet, _spans = self.excerpts.snippet(doc, gens, SNIPPET_CHARS)
            items.append(
                M.HistoryItem(
                    id=S.doc_id(doc),
                    text=self.excerpts.red_stored(doc),
                    project=first_value(doc, S.PROJECT),
                    session_id=first_value(doc, S.SESSION),
                    timestamp=as_datetime(doc.get_first(S.TS)),
                    snippet=snippet,
                )
            )
        return M.HistoryPage(items=items, total=res.count or 0, warnings=warnings)

    def prompt_entry(self, session_id: str, text: str, when: datetime | None) -> str | None:
        """The id of the session's prompt entry that `text`, typed at `when`, became
        (None if none is found: the session then opens at its start)."""
        if not session_id:
            return None
        since, until = (None, None) if when is None else (when - WINDOW, when + WINDOW)
        try:
            page = self.text_search.search(
                "",
                session_id=session_id,
                kind="prompt",
                limit=CANDIDATES,
                since=since,
                until=until,
            )
        except ServiceError:
            return None
        prompts = [h for h in page.hits if not h.agent_id]  # the session's own, not a subagent's

        def distance(ts: datetime | None) -> float:
            if ts is None or when is None:
                return float("inf")
            return abs((ts - when).total_seconds())

        matching = [h for h in prompts if _matches(text, h.snippet)]
        if matching:
            return min(matching, key=lambda h: distance(h.timestamp)).id
        near = [h for h in prompts if distance(h.timestamp) <= NEAR.total_seconds()]
        return min(near, key=lambda h: distance(h.timestamp)).id if near else None


def _key(text: str) -> str:
    """The comparable head of a prompt: no paste placeholders, spaces folded, lowercase."""
    text = _PASTE.split(text, maxsplit=1)[0].rstrip("…")  # a snippet ends with … if cut
    return " ".join(text.split()).lower()[:COMPARED]


def _matches(typed: str, entry: str) -> bool:
    a, b = _key(typed), _key(entry)
    if not a or not b:
        return False
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _check_page(max_chars: int, char_offset: int) -> None:
    if not isinstance(max_chars, int) or isinstance(max_chars, bool) or max_chars < 1:
        raise ServiceError(f"max_chars must be a positive number, got {max_chars!r}")
    if not isinstance(char_offset, int) or isinstance(char_offset, bool) or char_offset < 0:
        raise ServiceError(f"char_offset must be 0 or more, got {char_offset!r}")


def bucket_start(day: date, kind: str) -> date:
    """The first day of the day, week (Monday) or month bucket holding `day`."""
    if kind == "week":
        return day - timedelta(days=day.weekday())
    if kind == "month":
        return day.replace(day=1)
    return day


def next_bucket(start: datetime, kind: str) -> datetime:
    """The start of the day, week or month bucket after the one starting at `start`."""
    if kind == "day":
        return start + timedelta(days=1)
    if kind == "week":
        return start + timedelta(days=7)
    return (start.replace(day=28) + timedelta(days=4)).replace(day=1)


def bucket_window(end: date, kind: str, n: int) -> tuple[datetime, datetime]:
    """[since, until) of `n` day, week or month buckets ending with the bucket holding
    `end` (UTC midnights)."""
    hi = datetime.combine(end, time(), tzinfo=UTC) + timedelta(days=1)
    if kind == "day":
        return hi - timedelta(days=n), hi
    if kind == "week":
        monday = hi - timedelta(days=1) - timedelta(days=(end.weekday()))
        lo = monday - timedelta(weeks=n - 1)
        return lo, monday + timedelta(weeks=1)
    first = end.replace(day=1)
    start = first
    for _ in range(n - 1):
        start = (start - timedelta(days=1)).replace(day=1)
    return datetime.combine(start, time(), tzinfo=UTC), next_bucket(
        datetime.combine(first, time(), tzinfo=UTC), "month"
    )


def _rebucket(days: list[M.DayActivity], bucket: str) -> list[M.DayActivity]:
    out: dict[str, M.DayActivity] = {}
    for d in days:
        key = bucket_start(date.fromisoformat(d.day[:10]), bucket).isoformat()
        r = out.setdefault(key, M.DayActivity(day=key))
        r.sessions += d.sessions
        r.prompts += d.prompts
        r.messages += d.messages
        r.tokens += d.tokens
    return list(out.values())
