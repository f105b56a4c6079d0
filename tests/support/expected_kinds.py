"""The documents a transcript file should yield, by kind, read independently of the
indexer: the standard library and the written rules of what is indexed (the same rules as
tests/archive/fixtures/quirks/EXPECTED.json), so a bug in either shows up as a mismatch;
and what the index holds, by file and kind, to compare."""

from __future__ import annotations

import json
from collections import Counter

import tantivy

from ccarchive.index import schema as S

KNOWN = {
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "custom-title",
    "agent-name",
    "agent-color",
    "ai-title",
    "agent-setting",
    "last-prompt",
    "permission-mode",
    "mode",
    "pr-link",
    "bridge-session",
    "atis-latch",
    "cost-state",
    "worktree-state",
}
EVENT_SUBTYPES = {
    "compact_boundary",
    "microcompact_boundary",
    "api_error",
    "local_command",
    "informational",
    "bridge_status",
}


def objects_of(data: bytes) -> list[dict]:
    """Complete lines only (split on \\n), each decoded to the objects it holds."""
    lines = data.split(b"\n")[:-1]  # the piece after the last newline waits for it
    out = []
    dec = json.JSONDecoder()
    for raw in lines:
        text = raw.decode("utf-8", errors="replace")
        i = 0
        found = []
        try:
            while i < len(text):
                while i < len(text) and text[i] in " \t\r":
                    i += 1
                if i >= len(text):
                    break
                obj, i = dec.raw_decode(text, i)
                found.append(obj)
        except ValueError:
            continue
        out.extend(o for o in found if isinstance(o, dict))
    return out


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    return ""


def expected_kinds(data: bytes, agent_file: bool) -> Counter:
    kinds: Counter = Counter()
    for o in objects_of(data):
        t = o.get("type")
        if t not in KNOWN:
            continue
        msg = o.get("message") if isinstance(o.get("message"), dict) else {}
        if t == "user":
            if o.get("isMeta") is True:
                continue
            content = msg.get("content")
            if isinstance(content, list) and any(
                isinstance(b, dict) and b.get("type") == "tool_result" for b in content
            ):
                kinds["tool_result"] += sum(
                    1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
                )
                continue
            text = text_of(content)
            if o.get("isCompactSummary") is True or text.startswith(
                "This session is being continued from a previous conversation"
            ):
                kinds["summary"] += 1
            elif text.lstrip().startswith(
                ("<local-command-stdout>", "<local-command-stderr>", "<task-notification>")
            ):
                kinds["event"] += 1
            elif text.lstrip().startswith("[Request interrupted by user"):
                pass
            elif agent_file and text.strip() == "Warmup":
                pass
            elif text.strip():
                kinds["prompt"] += 1
        elif t == "assistant":
            content = msg.get("content")
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            for b in content if isinstance(content, list) else []:
                if not isinstance(b, dict):
                    continue
                if b.get("type") == "text" and str(b.get("text") or "").strip():
                    kinds["assistant"] += 1
                elif b.get("type") == "thinking" and str(b.get("thinking") or "").strip():
                    kinds["thinking"] += 1
                elif b.get("type") == "tool_use":
                    kinds["tool_call"] += 1
        elif t == "system":
            sub = o.get("subtype")
            content = o.get("content") if isinstance(o.get("content"), str) else ""
            if sub == "away_summary":
                kinds["summary"] += 1
            elif sub in EVENT_SUBTYPES or (not sub and content.strip()):
                kinds["event"] += 1
        elif t == "summary":
            if isinstance(o.get("summary"), str) and o["summary"]:
                kinds["summary"] += 1
        elif t == "attachment":
            att = o.get("attachment")
            if (
                isinstance(att, dict)
                and att.get("type") == "queued_command"
                and text_of(att.get("prompt")).strip()
            ):
                kinds["prompt"] += 1
    return kinds


def indexed_kinds(svc) -> dict[str, Counter]:
    agg = svc.store.searcher().aggregate(
        tantivy.Query.term_set_query(svc.schema, S.KIND, list(S.SEARCHABLE_KINDS)),
        {
            "p": {
                "terms": {"field": S.PATH, "size": 100_000},
                "aggs": {"k": {"terms": {"field": S.KIND, "size": 20}}},
            }
        },
    )
    out: dict[str, Counter] = {}
    for b in agg["p"]["buckets"]:
        out[b["key"]] = Counter({k["key"]: k["doc_count"] for k in b["k"]["buckets"]})
    return out
