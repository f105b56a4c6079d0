"""What the service accepts: its one error, and the checks of session ids, limits,
offsets and the opaque cursors it hands out.

`ServiceError` is a `ValueError`, so callers that only know the standard library still
catch it; the front ends turn it into their own message (a CLI error, an MCP `ToolError`).

A session id (or the prefix of one) becomes a Tantivy regex (`<prefix>.*`), whose
automaton is refused past 1,000 states: a 5,000-character forgery failed with Tantivy's
own message. Real ids are 36-character UUIDs; anything longer than `MAX_SESSION_ID`, or
holding control characters, names no session and is refused as such, saying where ids
come from. (Entry ids are parsed by `index.schema.parse_entry_id`.)

A cursor is URL-safe base64 of a small JSON object (`o`: offset, `g`: the commit
generation the first page saw); callers pass back a `next_cursor` as given.
"""

from __future__ import annotations

import binascii
import re
from typing import Any

import orjson


class ServiceError(ValueError):
    """A bad request: unknown id, bad date, limit out of range. The message says which."""


MAX_SESSION_ID = 128


def check_session_id(value: Any, name: str = "session_id") -> str:
    """`value` if it can be a session id (or a prefix of one), else `ServiceError`."""
    if not isinstance(value, str) or not value:
        raise ServiceError(f"{name} is required")
    if len(value) > MAX_SESSION_ID or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ServiceError(
            f"unknown session {value[:40]!r}{'…' if len(value) > 40 else ''}: "
            "session ids come from search, list_sessions or get_session "
            f"({MAX_SESSION_ID} characters at most; a unique prefix is enough)"
        )
    return value


MAX_LIMIT = 500

_URLSAFE = bytes.maketrans(b"+/", b"-_")
_URLSAFE_BACK = bytes.maketrans(b"-_", b"+/")


def encode_cursor(data: dict[str, Any]) -> str:
    """URL-safe base64 of the cursor's JSON (binascii: `base64` costs 2 ms of imports)."""
    raw = binascii.b2a_base64(orjson.dumps(data), newline=False).translate(_URLSAFE)
    return raw.decode().rstrip("=")


MAX_OFFSET = 1_000_000
"""How far a cursor or an offset may page: more entries than the largest session holds
(108k in a 200 MB one), far fewer than would make Tantivy allocate for them (a forged
offset of 10**13 aborted the whole process)."""
MAX_GEN = 1 << 62
"""A commit generation (milliseconds since the epoch, at most)."""
MAX_CURSOR_CHARS = 256
"""A real cursor is about 40 characters."""
BAD_CURSOR = (
    "invalid cursor: pass back the next_cursor of the previous page exactly as it "
    "was given, or leave cursor out to start at the first page"
)


def decode_cursor(cursor: str | None) -> dict[str, Any]:
    """The state a cursor holds (`o` offset, `g` generation), checked: a cursor is opaque
    to callers, so anything but one the service made is refused with `BAD_CURSOR`."""
    if cursor is None or cursor == "":
        return {}
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS:
        raise ServiceError(BAD_CURSOR)
    try:
        pad = "=" * (-len(cursor) % 4)
        data = orjson.loads(
            binascii.a2b_base64((cursor + pad).encode().translate(_URLSAFE_BACK), strict_mode=True)
        )
    except (ValueError, UnicodeError, binascii.Error, orjson.JSONDecodeError):
        raise ServiceError(BAD_CURSOR) from None
    if not isinstance(data, dict) or not set(data) <= {"o", "g"}:
        raise ServiceError(BAD_CURSOR)
    for key, top in (("o", MAX_OFFSET), ("g", MAX_GEN)):
        if not _whole(data.get(key, 0), top):
            raise ServiceError(BAD_CURSOR)
    return data


def check_offset(offset: Any, name: str = "offset", top: int = MAX_OFFSET) -> int:
    """A paging offset given as a number (plans, history)."""
    if not _whole(offset, top):
        raise ServiceError(
            f"{name} must be a whole number from 0 to {top:,}, got {str(offset)[:40]}"
        )
    return int(offset)


def _whole(value: Any, top: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= top


def check_limit(limit: int, name: str = "limit", top: int = MAX_LIMIT) -> int:
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1 or limit > top:
        raise ServiceError(f"{name} must be between 1 and {top}, got {str(limit)[:40]}")
    return limit


# ---- short ids ----------------------------------------------------------------------
SHORT_SESSION_CHARS = 8
"""A session id is shown by its first 8 characters (more when another shares them)."""
_SHORT_ENTRY_HEAD = re.compile(r"^(?P<sid>[0-9A-Za-z-]{4,36})(?:/(?P<agent>[0-9A-Za-z_-]{1,64}))?$")


def short_entry_id(entry_id: str, session: str, agent_id: str = "") -> str:
    """An entry id as `<session prefix>[/<agent id>]:<offset>:<block>`: the file named by
    its session (and subagent) instead of its path, a third of the length. `session` is
    a prefix that names one session (`SessionCatalog.short_session_ids`). Ids that are no
    transcript entry's (plans, memory files, typed prompts) are returned as they are."""
    head, sep, block = entry_id.rpartition(":")
    path, sep2, offset = head.rpartition(":")
    if not (sep and sep2 and session and path.endswith(".jsonl") and session in path):
        return entry_id
    return f"{session}{'/' + agent_id if agent_id else ''}:{offset}:{block}"


def parse_short_head(path: str) -> tuple[str, str] | None:
    """(session prefix, agent id) of a short entry id's head, or None if `path` is a
    file's path (a long id)."""
    if "." in path:
        return None
    m = _SHORT_ENTRY_HEAD.match(path)
    return (m["sid"], m["agent"] or "") if m else None
