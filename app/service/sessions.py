"""Questions about sessions and projects: figures, titles, names, lists, and the status.

A session's figures live on its one `session:` document (a JSON blob the indexer keeps
current), so every answer here is a lookup or an aggregation over those documents; titles
are cached per commit because every search hit shows its session's. Titles are cleaned
here too (`clean_title`), so an index written before the rule reads like a new one.
Project names (`project_name`) are the shortest unique suffix of each path over all the
archive's projects, cached per commit, so every front end names a project alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import tantivy

from ccarchive.archive.titles import clean_title, fallback_title
from ccarchive.index import schema as S
from ccarchive.index.query.dates import parse_date_bound
from ccarchive.index.query.regex import contains_query, regex_query
from ccarchive.index.schema import first_value
from ccarchive.service import models as M
from ccarchive.service.arguments import (
    SHORT_SESSION_CHARS,
    ServiceError,
    check_limit,
    check_session_id,
    decode_cursor,
    encode_cursor,
)
from ccarchive.service.base import KIND_ORDER, IndexContext, as_datetime
from ccarchive.service.naming import last_part, short_names

PREFIX_MATCHES_SHOWN = 10
"""Sessions listed when an id prefix matches several."""


class SessionCatalog:
    """Session titles, session figures and lists, projects and their names, the index's
    figures for `status()`."""

    def __init__(self, ctx: IndexContext) -> None:
        self.ctx = ctx
        self._titles: dict[str, tuple[str, str]] = {}
        self._titles_gen: object = -1
        self._links: dict[str, dict[str, str]] = {}
        self._links_gen = -1
        self._project_names: tuple[object, dict[str, str]] = (None, {})
        """(generation, path -> name)."""
        self._doc_count = (-1, 0)
        self._short_ids: tuple[object, dict[str, str]] = (None, {})
        """(generation, session id -> its short form), `short_session_ids`."""
        self._gone: tuple[object, frozenset[str]] = (None, frozenset())
        """(generation, ids of the sessions whose files are gone), `gone_sessions`."""

    def _title_cache(self) -> dict[str, tuple[str, str]]:
        """Session titles read since the last commit (call it with the context's lock
        held); a change of redaction empties it too."""
        key = (self.ctx.generation, self.ctx.redact_secrets)
        if self._titles_gen != key:
            self._titles, self._titles_gen = {}, key
        return self._titles

    def title_of(self, doc: tantivy.Document) -> tuple[str, str]:
        """(title, project) of a session document, as shown."""
        return self.ctx.red_title(clean_title(first_value(doc, S.TITLE))), first_value(
            doc, S.PROJECT
        )

    def last_activity(self) -> datetime | None:
        """When the archive was last written to: its newest session's last activity
        (None for an empty archive)."""
        page = self.sessions(limit=1)
        return page.sessions[0].last_activity if page.sessions else None

    def archive_date(self, value: str) -> datetime | None:
        """A date bound as the panes read it: `7d`, `12h`, `yesterday` count back from the
        archive's last activity, not the wall clock, so an archive idle for a month
        still shows its last week (what the Timeline opens on); absolute dates are
        themselves. None for an empty value; ServiceError for a bad one."""
        if not value.strip():
            return None
        now = datetime.now(UTC)
        last = self.last_activity()
        return (
            self.ctx.date_arg(value, "since")
            if last is None or last >= now
            else self._date_bound_at(value, last)
        )

    def _date_bound_at(self, value: str, now: datetime) -> datetime:
        try:
            return parse_date_bound(value, now=now)
        except ValueError as exc:
            raise ServiceError(f"since: {exc}") from exc

    def session_title(self, sid: str) -> tuple[str, str]:
        """(title, project) of a session, cached until the next commit."""
        with self.ctx.lock:
            hit = self._title_cache().get(sid)
        if hit is not None:
            return hit
        doc = self.ctx.session_doc(sid)
        hit = ("", "") if doc is None else self.title_of(doc)
        with self.ctx.lock:
            self._title_cache()[sid] = hit
        return hit

    def prefetch_titles(self, sids: Iterable[str]) -> None:
        """Read the titles of these sessions in one query (a page of hits from 20
        sessions was 20 lookups: a fifth of `ccarchive search`'s time)."""
        with self.ctx.lock:
            known = self._title_cache()
            todo = sorted({sid for sid in sids if sid and sid not in known})
        if len(todo) < 2:
            return
        searcher = self.ctx.searcher()
        q = self.ctx.terms(S.ID, [f"session:{sid}" for sid in todo])
        found = {}
        for _score, addr in searcher.search(q, len(todo), count=False).hits:
            doc = searcher.doc(addr)
            found[first_value(doc, S.ID)[len("session:") :]] = self.title_of(doc)
        with self.ctx.lock:
            cache = self._title_cache()
            for sid in todo:
                cache.setdefault(sid, found.get(sid, ("", "")))

    def remember_title(self, sid: str, title: str, project: str) -> None:
        """Keep a session's title read from a document at hand (until the next commit)."""
        with self.ctx.lock:
            self._title_cache().setdefault(sid, (title, project))

    def subagent_links(self, sid: str) -> dict[str, str]:
        """Spawning tool_use id -> subagent id of a session, cached until the next commit:
        the Task/Agent call is indexed before its subagent is known (docs/format.md §9.2)."""
        with self.ctx.lock:
            if self._links_gen != self.ctx.generation:
                self._links = {}
                self._links_gen = self.ctx.generation
            hit = self._links.get(sid)
        if hit is not None:
            return hit
        doc = self.ctx.session_doc(sid) if sid else None
        hit = {}
        if doc is not None:
            blob = orjson.loads(first_value(doc, S.BLOB, b"{}"))
            hit = {
                r["tool_use_id"]: r.get("agent_id", "")
                for r in blob.get("subagents", [])
                if r.get("tool_use_id")
            }
        with self.ctx.lock:
            self._links[sid] = hit
        return hit

    def session_info(self, doc: tantivy.Document) -> M.SessionInfo:
        b = orjson.loads(first_value(doc, S.BLOB, b"{}"))
        subs = [
            M.SubagentInfo(
                agent_id=r.get("agent_id", ""),
                agent_type=r.get("agent_type", ""),
                description=self.ctx.red_title(r.get("description", "")),
                tool_use_id=r.get("tool_use_id", ""),
                entries=r.get("entries", 0),
                tokens=r.get("tokens", 0),
                path=self.ctx.red_name(r.get("path", "")),
                warmup=r.get("warmup", False),
                first_ts=as_datetime(r.get("first_ts")),
            )
            for r in b.get("subagents", [])
        ]
        return M.SessionInfo(
            session_id=b.get("session_id", first_value(doc, S.SESSION)),
            title=self.ctx.red_title(clean_title(b.get("title", "")))
            or fallback_title(b.get("slugs", []), b.get("project", ""), b.get("first_ts", "")),
            first_prompt=self.ctx.red_title(b.get("first_prompt", "")),
            project=b.get("project", ""),
            branches=b.get("branches", []),
            models=b.get("models", []),
            slugs=b.get("slugs", []),
            messages=b.get("messages", 0),
            prompts=b.get("prompts", 0),
            tool_calls=b.get("tool_calls", 0),
            tokens=M.TokenTotals(**b.get("tokens", {})),
            first_activity=as_datetime(b.get("first_ts")),
            last_activity=as_datetime(b.get("last_ts")),
            duration_s=b.get("duration_s", 0.0),
            subagent_count=b.get("subagent_count", 0),
            subagents=subs,
            compactions=b.get("compactions", 0),
            on_disk=b.get("on_disk", True),
            path=self.ctx.red_name(b.get("path", "")),
            archive_bytes=b.get("bytes", 0),
            version=b.get("version", ""),
            pr_links=b.get("pr_links", []),
        )

    def session(self, session_id: str) -> M.SessionInfo:
        """One session's figures; a unique prefix of its id is enough."""
        check_session_id(session_id)
        doc = self.ctx.session_doc(session_id)
        if doc is None:
            matches = self._sessions_with_prefix(session_id, PREFIX_MATCHES_SHOWN + 1)
            if len(matches) > 1:
                shown = "; ".join(
                    f"{sid} {title!r}" for sid, title in matches[:PREFIX_MATCHES_SHOWN]
                )
                more = "; …" if len(matches) > PREFIX_MATCHES_SHOWN else ""
                raise ServiceError(
                    f"{session_id!r} is the start of several session ids: "
                    f"{shown}{more}. Give more of the id."
                )
            if matches:
                doc = self.ctx.session_doc(matches[0][0])
        if doc is None:
            raise ServiceError(f"unknown session {session_id!r}")
        return self.session_info(doc)

    def short_session_ids(self, sids: Iterable[str]) -> dict[str, str]:
        """Each session id's shortest prefix of `SHORT_SESSION_CHARS` (or 4 more at a
        time) that names only it: what an agent is shown and passes back. Cached until
        the next commit (a new session may share a prefix): every MCP result names its
        sessions so, and each took a search a prefix."""
        gen = self.ctx.generation  # before the searches: a commit during them drops them
        cached_gen, known = self._short_ids
        if cached_gen != gen:
            known = {}
        out: dict[str, str] = {}
        for sid in dict.fromkeys(s for s in sids if s):
            short = known.get(sid)
            if short is None:
                n = SHORT_SESSION_CHARS
                while n < len(sid) and len(self._sessions_with_prefix(sid[:n], 2)) > 1:
                    n += 4
                short = sid[:n]
            out[sid] = short
        with self.ctx.lock:
            cached_gen, known = self._short_ids
            if cached_gen != gen or len(known) > 10_000:
                known = {}
            known.update(out)
            self._short_ids = (gen, known)
        return out

    def gone_sessions(self) -> frozenset[str]:
        """The ids of the sessions whose files are gone from disk; cached until the next
        commit (every session search marks its results by it)."""
        gen = self.ctx.generation  # before the search: a commit during it drops it
        cached_gen, gone = self._gone
        if cached_gen == gen:
            return gone
        searcher = self.ctx.searcher()
        q = self.ctx.all_of(self.ctx.term(S.KIND, S.SESSION_DOC), self.ctx.term(S.STATE, "gone"))
        n = searcher.search(q, 1, count=True).count or 0
        hits = searcher.search(q, n, count=False).hits if n else []
        ids = (first_value(searcher.doc(a), S.ID) for _s, a in hits)
        gone = frozenset(i[len("session:") :] for i in ids if i.startswith("session:"))
        with self.ctx.lock:
            self._gone = (gen, gone)
        return gone

    def _sessions_with_prefix(self, prefix: str, limit: int) -> list[tuple[str, str]]:
        """(id, title) of the sessions whose id starts with `prefix`, newest first."""
        q = self.ctx.all_of(
            self.ctx.term(S.KIND, S.SESSION_DOC),
            regex_query(self.ctx.schema, S.SESSION, re.escape(prefix) + ".*"),
        )
        searcher = self.ctx.searcher()
        hits = searcher.search(
            q, limit, count=False, order_by_field=S.TS, order=tantivy.Order.Desc
        ).hits
        out = []
        for _, addr in hits:
            doc = searcher.doc(addr)
            out.append((first_value(doc, S.SESSION), self.title_of(doc)[0]))
        return out

    def sessions(
        self,
        *,
        project: str | None = None,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        model: str | None = None,
        branch: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        include_gone: bool = True,
        include_empty: bool = False,
    ) -> M.SessionPage:
        """Sessions, most recent first, filtered by project, date, model or branch.

        Sessions with no message at all (0-byte files, files of bookkeeping records
        only) are left out unless `include_empty`.
        """
        check_limit(limit)
        offset = int(decode_cursor(cursor).get("o", 0))
        searcher = self.ctx.searcher()
        q = self.sessions_query(project, since, until, model, branch, include_gone, include_empty)
        res = searcher.search(
            q, limit, count=True, order_by_field=S.TS, order=tantivy.Order.Desc, offset=offset
        )
        total = res.count or 0
        return M.SessionPage(
            sessions=[self.session_info(searcher.doc(a)) for _, a in res.hits],
            total=total,
            next_cursor=encode_cursor({"o": offset + limit}) if offset + limit < total else None,
        )

    def sessions_query(
        self,
        project: str | None,
        since: str | datetime | None,
        until: str | datetime | None,
        model: str | None = None,
        branch: str | None = None,
        include_gone: bool = True,
        include_empty: bool = False,
    ) -> tantivy.Query:
        """The session documents `sessions()` lists (see its arguments)."""
        must = [
            self.ctx.term(S.KIND, S.SESSION_DOC),
            self.ctx.project_query(project),
            self.ctx.date_range(
                self.ctx.date_arg(since, "since"), self.ctx.date_arg(until, "until")
            ),
        ]
        if model:
            must.append(contains_query(self.ctx.schema, S.MODEL, model))
        if branch:
            must.append(contains_query(self.ctx.schema, S.BRANCH, branch))
        not_ = [] if include_gone else [self.ctx.term(S.STATE, "gone")]
        if not include_empty:
            must.append(
                tantivy.Query.range_query(
                    self.ctx.schema,
                    S.MESSAGES,
                    tantivy.FieldType.Unsigned,
                    1,
                    2**63,
                    use_inverted_index=True,
                )
            )
        return self.ctx.all_of(*must, must_not=not_)

    def active_sessions(self, *, minutes: float = 10, limit: int = 20) -> list[M.SessionInfo]:
        """Sessions with activity in the last minutes, most recent first (live tail)."""
        since = datetime.now(UTC) - timedelta(minutes=minutes)
        return self.sessions(since=since, limit=limit).sessions

    def projects(self) -> list[M.ProjectInfo]:
        """Every project (real working directory) with its figures, most recent first."""
        agg = self.ctx.searcher().aggregate(
            self.ctx.term(S.KIND, S.SESSION_DOC),
            {
                "p": {
                    "terms": {"field": S.PROJECT, "size": 10_000},
                    "aggs": {
                        "messages": {"sum": {"field": S.MESSAGES}},
                        "tokens": {"sum": {"field": S.TOKENS}},
                        "bytes": {"sum": {"field": S.BYTES}},
                        "first": {"min": {"field": S.TS_START}},
                        "last": {"max": {"field": S.TS}},
                    },
                }
            },
        )
        out = []
        for b in agg.get("p", {}).get("buckets", []):
            if not b.get("key"):
                continue
            out.append(
                M.ProjectInfo(
                    path=b["key"],
                    sessions=b["doc_count"],
                    messages=int(b["messages"]["value"] or 0),
                    tokens=int(b["tokens"]["value"] or 0),
                    archive_bytes=int(b["bytes"]["value"] or 0),
                    first_activity=_ns(b["first"].get("value")),
                    last_activity=_ns(b["last"].get("value")),
                )
            )
        out.sort(key=lambda p: p.last_activity or datetime.min.replace(tzinfo=UTC), reverse=True)
        return out

    def project_names(self) -> dict[str, str]:
        """Path -> short name of every project: the shortest suffix of its path that no
        other project of the archive ends with (`work/cli`, `cli/.worktrees/3`). Cached
        until the next commit; every front end names projects through it."""
        gen = self.ctx.generation
        cached_gen, names = self._project_names
        if cached_gen != gen:
            names = short_names(p.path for p in self.projects())
            with self.ctx.lock:
                self._project_names = (gen, names)
        return names

    def project_name(self, path: str) -> str:
        """The short name of one project (see `project_names`); a path that is not a
        session's project (a plan's or a prompt's) is named among them all the same."""
        if not path:
            return ""
        names = self.project_names()
        name = names.get(path)
        if name is None:
            name = short_names([*names, path]).get(path) or last_part(path)
            with self.ctx.lock:
                names[path] = name
        return name

    def document_count(self) -> int:
        """Searchable documents in the index, as `status()` counts them; cached until the
        next commit (the app's header shows it at every frame)."""
        gen = self.ctx.generation
        if self._doc_count[0] != gen:
            try:
                agg = self.ctx.searcher().aggregate(
                    tantivy.Query.all_query(), {"kinds": {"terms": {"field": S.KIND, "size": 50}}}
                )
                n = sum(S.searchable_counts(agg["kinds"]["buckets"]).values())
            except Exception:  # an index being created has no searcher yet
                n = 0
            self._doc_count = (gen, n)
        return self._doc_count[1]

    def status(self) -> M.Status:
        """Archive and index figures: what is indexed, what was skipped and why (the
        service adds the semantic search's line)."""
        searcher = self.ctx.searcher()
        agg = searcher.aggregate(
            tantivy.Query.all_query(),
            {"kinds": {"terms": {"field": S.KIND, "size": 50}}, "last": {"max": {"field": S.GEN}}},
        )
        by_kind = {b["key"]: b["doc_count"] for b in agg["kinds"]["buckets"]}
        skipped: dict[str, int] = {}
        repaired: dict[str, int] = {}
        unreadable: dict[str, int] = {}
        files = 0
        archive_bytes = 0
        n_state = by_kind.get(S.STATE_DOC, 0)
        if n_state:
            for _, a in searcher.search(
                self.ctx.term(S.KIND, S.STATE_DOC), n_state, count=False
            ).hits:
                blob = searcher.doc(a).get_first(S.BLOB)
                st = orjson.loads(blob) if blob else {}
                if "rel" not in st:
                    for why in (st.get("unreadable") or {}).values():  # the meta document
                        unreadable[why] = unreadable.get(why, 0) + 1
                    continue
                files += 1
                archive_bytes += st.get("size", 0)
                for k, v in st.get("skipped", {}).items():
                    skipped[k] = skipped.get(k, 0) + v
                for k, v in st.get("repaired", {}).items():
                    repaired[k] = repaired.get(k, 0) + v
                if st.get("pending"):
                    skipped["incomplete_last_line"] = skipped.get("incomplete_last_line", 0) + 1
        gone = searcher.search(
            self.ctx.all_of(self.ctx.term(S.KIND, S.SESSION_DOC), self.ctx.term(S.STATE, "gone")),
            1,
            count=True,
        ).count
        last = agg.get("last", {}).get("value")
        docs = S.searchable_counts(agg["kinds"]["buckets"])
        return M.Status(
            archive=str(self.ctx.root),
            index_path=str(self.ctx.store.path),
            role=self.ctx.role,
            projects=len(self.projects()),
            sessions=by_kind.get(S.SESSION_DOC, 0),
            sessions_gone=gone or 0,
            documents=sum(docs.values()),
            documents_by_kind=dict(sorted(docs.items(), key=lambda kv: KIND_ORDER[kv[0]])),
            files=files,
            skipped_by_reason=skipped,
            repaired_by_reason=repaired,
            unreadable_by_reason=unreadable,
            refused_reads_by_reason=dict(self.ctx.refused_reads),
            index_bytes=self.ctx.store.size_bytes(),
            archive_bytes=archive_bytes,
            last_update=datetime.fromtimestamp(last / 1000, tz=UTC) if last else None,
            message=self.ctx.message,
        )

    def indexing_note(self) -> str | None:
        """While the index is first being built, what every answer must say: how far it
        got. An empty or thin result then means "not read yet", not "never happened"
        (None once the index is complete: later passes only add what changed)."""
        live = self.ctx.live
        if live.searches_whole_index if live is not None else self.ctx.store.complete:
            return None
        if live is not None and live.is_writer:
            pct = int(live.state.progress * 100) if live.state.indexing else 0
            return (
                f"indexing: {pct} % of the archive searched so far; results are "
                "partial, ask again in a moment"
            )
        return (
            "indexing: another ccarchive process is building the index; results are "
            "partial, ask again in a moment"
        )

    def sessions_started(
        self,
        *,
        since: str | datetime | None = None,
        until: str | datetime | None = None,
        project: str | None = None,
        limit: int = 200,
    ) -> M.SessionPage:
        """Sessions that started in [since, until), newest first: a timeline bucket's list.

        `timeline()` counts a session on the day it started; this lists the same sessions
        (where `sessions()` filters on last activity).
        """
        check_limit(limit)
        must = [
            self.ctx.term(S.KIND, S.SESSION_DOC),
            self.ctx.project_query(project),
            self.ctx.date_range(
                self.ctx.date_arg(since, "since"), self.ctx.date_arg(until, "until"), S.TS_START
            ),
            tantivy.Query.range_query(
                self.ctx.schema, S.MESSAGES, tantivy.FieldType.Unsigned, 1, 2**63
            ),
        ]
        searcher = self.ctx.searcher()
        res = searcher.search(
            self.ctx.all_of(*must),
            limit,
            count=True,
            order_by_field=S.TS_START,
            order=tantivy.Order.Desc,
        )
        return M.SessionPage(
            sessions=[self.session_info(searcher.doc(a)) for _, a in res.hits],
            total=res.count or 0,
        )


def _ns(v: Any) -> datetime | None:
    return datetime.fromtimestamp(v / 1e9, tz=UTC) if v else None
