"""A session's document: its figures and title, built from its files' checkpoints.

A session is spread over its main transcript and its subagents' transcripts; each file's
checkpoint carries a `FileSummary`, so a session's document is rebuilt from checkpoints
alone whenever one of its files changes, without reading any transcript again. A title
may also come from a summary record in a *later* file: `match_leaves` finds the session
such a record names, through the index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import orjson
import tantivy

from ccarchive.archive import discovery as D
from ccarchive.archive.file_summary import FileSummary
from ccarchive.archive.lines import INCOMPLETE_LAST_LINE
from ccarchive.archive.record_text import TITLE_CAP, parse_ts
from ccarchive.archive.titles import fallback_title
from ccarchive.index import schema as S
from ccarchive.index.checkpoints import FileState

LEAF_BATCH = 512
"""Summary leaves looked up per query."""


def build_session_doc(
    sid: str, files: list[FileState], summary_title: str, gen: int
) -> tantivy.Document:
    """The session's figures, from its main transcript and its subagents' checkpoints."""
    main = [f for f in files if f.kind == D.SESSION]
    agents = [f for f in files if f.kind == D.AGENT]
    m = FileSummary.from_json(main[0].summary) if main else FileSummary(session_id=sid)
    for extra in main[1:]:  # rare: the same session id in two project folders
        e = FileSummary.from_json(extra.summary)
        m.usage.update(e.usage)
        m.prompts += e.prompts
    tin, tout, tcw, tcr = m.token_totals()
    agent_rows = []
    agent_tokens = 0
    first, last = m.first_ts, m.last_ts
    for a in sorted(agents, key=lambda s: s.summary.get("first_ts", "")):
        s = FileSummary.from_json(a.summary)
        at = sum(s.token_totals())
        agent_tokens += at
        meta = s.meta or {}
        tool_use_id = meta.get("toolUseId", "")
        if not tool_use_id:
            for tid, aid in m.agent_links.items():
                if aid == s.agent_id:
                    tool_use_id = tid
        agent_rows.append(
            {
                "agent_id": s.agent_id,
                "path": a.rel,
                "warmup": s.warmup,
                "agent_type": meta.get("agentType", ""),
                "description": meta.get("description", "") or m.agent_calls.get(tool_use_id, ""),
                "tool_use_id": tool_use_id,
                "entries": s.entries,
                "tokens": at,
                "first_ts": s.first_ts,
                "last_ts": s.last_ts,
                "gone": a.gone,
            }
        )
        if not first or (s.first_ts and s.first_ts < first):
            first = s.first_ts or first
        if s.last_ts > last:
            last = s.last_ts
    title = m.title(summary_title) or fallback_title(m.slugs, m.cwd, first)
    gone = bool(main) and all(f.gone for f in main)
    real_agents = [r for r in agent_rows if not r["warmup"]]
    first_dt, last_dt = parse_ts(first), parse_ts(last)
    duration = (last_dt - first_dt).total_seconds() if first_dt and last_dt else 0.0
    blob = {
        "session_id": sid,
        "title": title,
        "first_prompt": m.first_prompt,
        "project": m.cwd,
        "branches": m.branches,
        "models": m.models,
        "slugs": m.slugs,
        "version": m.version,
        "prompts": m.prompts,
        "assistant_messages": m.assistant_messages,
        "messages": m.prompts + m.assistant_messages,
        "tool_calls": m.tool_calls,
        "tokens": {
            "input": tin,
            "output": tout,
            "cache_creation": tcw,
            "cache_read": tcr,
            "total": tin + tout + tcw + tcr,
            "subagents": agent_tokens,
        },
        "first_ts": first,
        "last_ts": last,
        "duration_s": duration,
        "subagents": agent_rows,
        "subagent_count": len(real_agents),
        "sidechain_entries": m.sidechain_entries,
        "pr_links": m.pr_links,
        "compactions": m.compactions,
        "on_disk": not gone,
        "path": main[0].rel if main else "",
        "skipped": merged_skips(files),
        "bytes": sum(f.size for f in files),
        "custom_title": m.custom_title,
        "ai_title": m.ai_title,
        "summary_title": summary_title,
    }
    doc = tantivy.Document()
    doc.add_text(S.ID, f"session:{sid}")
    doc.add_text(S.KIND, S.SESSION_DOC)
    doc.add_text(S.SESSION, sid)
    doc.add_unsigned(S.SKEY, S.session_key(sid))  # search credits a title match to it
    doc.add_text(S.PROJECT, m.cwd)
    doc.add_text(S.STATE, "gone" if gone else "on_disk")
    doc.add_text(S.PATH, f"session:{sid}")
    for v in m.models:
        doc.add_text(S.MODEL, v)
    for v in m.branches:
        doc.add_text(S.BRANCH, v)
    for v in m.slugs:
        doc.add_text(S.SLUG, v)
    if last_dt:
        doc.add_date(S.TS, last_dt)
    if first_dt:
        doc.add_date(S.TS_START, first_dt)
    doc.add_text(S.TITLE, title[:TITLE_CAP])
    doc.add_unsigned(S.TOKENS, tin + tout + tcw + tcr)
    doc.add_unsigned(S.MESSAGES, m.prompts + m.assistant_messages)
    doc.add_unsigned(S.BYTES, sum(f.size for f in files))
    doc.add_unsigned(S.GEN, gen)
    doc.add_bytes(S.BLOB, orjson.dumps(blob))
    return doc


def merged_skips(files: list[FileState]) -> dict[str, int]:
    """What the session's files skipped, by reason (an unfinished last line counts too)."""
    out: Counter[str] = Counter()
    for f in files:
        out.update(f.skipped)
        if f.pending:
            out[INCOMPLETE_LAST_LINE] += 1
    return dict(out)


def summary_titles(leaf_sessions: dict[str, str], leaf_text: dict[str, str]) -> dict[str, str]:
    """Session id -> the text of a summary record that titles it."""
    titles = {}
    for leaf, sid in leaf_sessions.items():
        text = leaf_text.get(leaf)
        if text:
            titles[sid] = text
    return titles


def match_leaves(
    searcher: tantivy.Searcher,
    schema: tantivy.Schema,
    leaves: Iterable[str],
    leaf_sessions: dict[str, str],
) -> set[str]:
    """Match summary records to the sessions they title, through the uuid field.

    Summaries are written at the top of *later* files and point (`leafUuid`) at the
    last entry of the conversation they name (docs/format.md §6.4). Each match is added to
    `leaf_sessions`; returns the sessions that got one.
    """
    todo = list(leaves)
    changed: set[str] = set()
    for i in range(0, len(todo), LEAF_BATCH):
        chunk = set(todo[i : i + LEAF_BATCH])
        # the uuid is found through its first characters (`S.UKEY`): every entry
        # sharing them is a candidate, and its stored uuid decides
        q = tantivy.Query.term_set_query(schema, S.UKEY, sorted({S.uuid_key(u) for u in chunk}))
        n = searcher.search(q, 1, count=True).count or 0
        for _score, addr in searcher.search(q, max(1, n), count=False).hits:
            doc = searcher.doc(addr)
            uuid, sid = S.first_value(doc, S.UUID), S.first_value(doc, S.SESSION)
            if uuid in chunk and sid and uuid not in leaf_sessions:
                leaf_sessions[uuid] = sid
                changed.add(sid)
    return changed
