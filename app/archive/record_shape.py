"""The JSON types of the record fields ccarchive reads, to say which one a bad line got wrong.

The extractor tolerates every shape it knows of (a field of the wrong type is treated as
absent), and the reader catches what it did not foresee around each record, so a bad line
costs that line only. When a line is lost that way, or holds nothing to index, the reason
counted is the first field whose type is wrong (`wrong_type:message.content`), found
here: only then, so the check costs nothing on the lines that index.

`null` is accepted everywhere: it is how Claude Code writes an absent value
(`"parentUuid": null`). Fields not listed may hold anything (`toolUseResult`, `input`).
"""

from __future__ import annotations

from typing import Any

from ccarchive.archive.lines import NESTED_TOO_DEEP

WRONG_TYPE = "wrong_type:"
"""Prefix of the skip reasons this module names (`wrong_type:<field path>`)."""
UNEXPECTED = "unexpected_value"
"""A record that could not be read although every listed field has its type."""

_STR: tuple[type, ...] = (str,)
_BOOL: tuple[type, ...] = (bool,)
_DICT: tuple[type, ...] = (dict,)
_TEXT: tuple[type, ...] = (str, list)  # a string, or a list of content blocks
_NUMBER: tuple[type, ...] = (int, float)

RECORD: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "subtype": _STR,
    "uuid": _STR,
    "parentUuid": _STR,
    "logicalParentUuid": _STR,
    "sessionId": _STR,
    "timestamp": _STR,
    "cwd": _STR,
    "gitBranch": _STR,
    "slug": _STR,
    "version": _STR,
    "agentId": _STR,
    "isSidechain": _BOOL,
    "isMeta": _BOOL,
    "isCompactSummary": _BOOL,
    "message": _DICT,
    "content": _TEXT,
    "level": _STR,
    "summary": _STR,
    "leafUuid": _STR,
    "customTitle": _STR,
    "agentName": _STR,
    "aiTitle": _STR,
    "lastPrompt": _STR,
    "prUrl": _STR,
    "attachment": _DICT,
    "compactMetadata": _DICT,
}
MESSAGE: dict[str, tuple[type, ...]] = {
    "role": _STR,
    "model": _STR,
    "id": _STR,
    "usage": _DICT,
    "content": _TEXT,
}
USAGE: dict[str, tuple[type, ...]] = {
    "input_tokens": _NUMBER,
    "output_tokens": _NUMBER,
    "cache_creation_input_tokens": _NUMBER,
    "cache_read_input_tokens": _NUMBER,
}
BLOCK: dict[str, tuple[type, ...]] = {
    "type": _STR,
    "text": _STR,
    "thinking": _STR,
    "name": _STR,
    "id": _STR,
    "tool_use_id": _STR,
    "content": _TEXT,
    "is_error": _BOOL,
}
ATTACHMENT: dict[str, tuple[type, ...]] = {"type": _STR, "prompt": _TEXT}
HISTORY: dict[str, tuple[type, ...]] = {
    "display": _STR,
    "pastedContents": _DICT,
    "project": _STR,
    "sessionId": _STR,
    "timestamp": (int, float, str),
}


def _first_wrong(
    obj: dict[str, Any], fields: dict[str, tuple[type, ...]], prefix: str = ""
) -> str | None:
    for key, types in fields.items():
        value = obj.get(key)
        if value is None:
            continue
        # bool is an int to Python, never a number to JSON
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return f"{WRONG_TYPE}{prefix}{key}"
    return None


def _blocks(content: Any, prefix: str, depth: int = 0) -> str | None:
    """Content blocks, and the blocks inside a tool result's content (two levels: the
    format has no deeper ones)."""
    if not isinstance(content, list) or depth > 1:
        return None
    for block in content:
        if block is None or isinstance(block, str):
            continue  # tolerated: a bare string where a block belongs
        if not isinstance(block, dict):
            return f"{WRONG_TYPE}{prefix}[]"
        found = _first_wrong(block, BLOCK, f"{prefix}[].")
        if found:
            return found
        found = _blocks(block.get("content"), f"{prefix}[].content", depth + 1)
        if found:
            return found
    return None


def wrong_type_field(obj: dict[str, Any]) -> str | None:
    """The skip reason for a transcript record with a field of the wrong type, or None.

    It looks no deeper than the format goes, however deep the record is nested.
    """
    found = _first_wrong(obj, RECORD)
    if found:
        return found
    msg = obj.get("message")
    if isinstance(msg, dict):
        found = _first_wrong(msg, MESSAGE, "message.")
        if found:
            return found
        usage = msg.get("usage")
        if isinstance(usage, dict):
            found = _first_wrong(usage, USAGE, "message.usage.")
            if found:
                return found
        found = _blocks(msg.get("content"), "message.content")
        if found:
            return found
    att = obj.get("attachment")
    if isinstance(att, dict):
        found = _first_wrong(att, ATTACHMENT, "attachment.")
        if found:
            return found
        return _blocks(att.get("prompt"), "attachment.prompt")
    return None


def wrong_type_history(obj: dict[str, Any]) -> str | None:
    """The same for a line of `history.jsonl`."""
    return _first_wrong(obj, HISTORY)


def reason_for(exc: BaseException, obj: dict[str, Any], *, history: bool = False) -> str:
    """Why a record that raised while being read is skipped, in words a person reads."""
    if isinstance(exc, RecursionError):
        return NESTED_TOO_DEEP
    found = wrong_type_history(obj) if history else wrong_type_field(obj)
    return found or UNEXPECTED
