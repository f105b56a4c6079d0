"""How the values of a record become text: caps, message content, prompts as typed,
harness events, tool inputs, timestamps (docs/format.md §4-§9).

These are the pure text rules the `Extractor` (`ccarchive.archive.records`) applies, and
that the readers of an entry (the service, the views) apply again to what they read back.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import orjson

# ---- caps: what the index keeps of a text (the full text is read back by offset) -----
PROSE_CAP = 32_000
"""Prompts, assistant prose, plans and memory: whole in nearly every real case."""
TOOL_CAP = 2_000
"""Tool inputs and outputs: the head (and tail) is what people search for (the command,
the error); the rest is 60% of archive bytes and would triple the index."""
TITLE_CAP = 200

_COMMAND_RE = re.compile(r"<command-name>\s*(/?[^<]*?)\s*</command-name>")
_ARGS_RE = re.compile(r"<command-args>(.*?)</command-args>", re.S)


def cap(text: str, limit: int) -> str:
    """Keep the head (and a little of the tail, where errors and results usually are)."""
    if len(text) <= limit:
        return text
    tail = limit // 5
    return f"{text[: limit - tail]}\n…\n{text[-tail:]}"


def content_text(content: Any) -> str:
    """The text of a message `content` (string, or list of blocks), images left out."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "tool_reference":
                    parts.append(str(block.get("tool_name", "")))
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


_CONTEXT_TAGS = re.compile(
    r"<(ide_opened_file|ide_selection|ide_diagnostics|system-reminder|local-command-caveat)>"
    r".*?</\1>\s*",
    re.S,
)
_BASH_INPUT = re.compile(r"<bash-input>(.*?)</bash-input>", re.S)


def history_text(obj: dict[str, Any]) -> str:
    """A `history.jsonl` line's prompt with its pasted contents ("" if it has none)."""
    display = obj.get("display")
    if not isinstance(display, str) or not display.strip():
        return ""
    text = display
    pasted = obj.get("pastedContents")
    if isinstance(pasted, dict):
        for item in pasted.values():
            if isinstance(item, dict) and isinstance(item.get("content"), str):
                text += "\n" + item["content"]
    return text


def prompt_display(text: str) -> str:
    """A prompt as the person typed it: `/model sonnet` instead of the command's XML
    tags, `!ls` for shell mode, and the IDE context and reminders the harness
    attached left out."""
    if "<command-name>" in text:
        m = _COMMAND_RE.search(text)
        if m:
            a = _ARGS_RE.search(text)
            args = a.group(1).strip() if a else ""
            return f"{m.group(1).strip()} {args}".strip()
    if "<" not in text:
        return text
    if "<bash-input>" in text:
        m = _BASH_INPUT.search(text)
        if m:
            return "!" + m.group(1).strip()
    cleaned = _CONTEXT_TAGS.sub("", text).strip()
    return cleaned or text


_LOCAL_OUTPUT = re.compile(r"</?local-command-(?:stdout|stderr|caveat)>")


def event_display(text: str) -> str:
    """A harness event as a reader wants it: `/rename Foo` rather than the command's XML
    tags, a local command's output without its wrapper tags."""
    if "<command-name>" in text:
        return prompt_display(text)
    if "<local-command-" in text:
        return _LOCAL_OUTPUT.sub("", text).strip() or text
    return text


TS_MIN = datetime(1970, 1, 1, tzinfo=UTC)
TS_MAX = datetime(2262, 1, 1, tzinfo=UTC)
"""Times outside [TS_MIN, TS_MAX) are not read as times: Tantivy's dates end in 2262 and
the index keeps epoch seconds unsigned (a year-9999 timestamp stopped the index)."""
TS_YEARS = ("1970", "2262")
"""The same bounds as year prefixes, for the string comparisons of the hot loop."""


def parse_ts(value: Any) -> datetime | None:
    """An ISO-8601 timestamp (`…Z`, ms or µs) or epoch milliseconds, as aware UTC; None
    if it is neither, or outside [TS_MIN, TS_MAX)."""
    if isinstance(value, str) and value:
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
        except (ValueError, OverflowError):
            return None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            dt = datetime.fromtimestamp(value / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    else:
        return None
    return dt if TS_MIN <= dt < TS_MAX else None


def compact_json(value: Any, limit: int) -> str:
    """A value as compact JSON, cut at `limit` characters (its `str` if not JSON)."""
    try:
        return orjson.dumps(value).decode()[:limit]
    except TypeError:
        return str(value)[:limit]


def tool_input_text(name: str, data: Any) -> str:
    """The key input of a tool call: what a person would search for."""
    if not isinstance(data, dict):
        return compact_json(data, TOOL_CAP)
    parts: list[str] = [name]
    for key in (
        "description",
        "command",
        "file_path",
        "notebook_path",
        "path",
        "pattern",
        "query",
        "url",
        "subagent_type",
        "skill",
        "plan",
    ):
        v = data.get(key)
        if isinstance(v, str) and v:
            parts.append(v)
    for key in ("prompt", "new_string", "content", "todos", "questions"):
        v = data.get(key)
        if isinstance(v, str) and v:
            parts.append(v)
        elif isinstance(v, list) and v:
            parts.append(compact_json(v, TOOL_CAP))
    if len(parts) == 1 and data:
        parts.append(compact_json(data, TOOL_CAP))
    return "\n".join(parts)
