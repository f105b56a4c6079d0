"""What the service accepts as a session id before it goes near the index.

A session id (or the prefix of one) becomes a Tantivy regex (`<prefix>.*`), whose
automaton is refused past 1,000 states: a 5,000-character forgery failed with Tantivy's
own message. Real ids are 36-character UUIDs; anything longer than `MAX_SESSION_ID`, or
holding control characters, names no session and is refused as such, saying where ids
come from. (Entry ids are parsed by `index.schema.parse_entry_id`; cursors and offsets by
`service.cursor`.)
"""

from __future__ import annotations

import re
from typing import Any

from ccarchive.service.errors import ServiceError

MAX_SESSION_ID = 128

SHORT_SESSION_CHARS = 8
"""A session id is shown by its first 8 characters (more when another shares them)."""
_SHORT_ENTRY_HEAD = re.compile(r"^(?P<sid>[0-9A-Za-z-]{4,36})(?:/(?P<agent>[0-9A-Za-z_-]{1,64}))?$")


def check_session_id(value: Any, name: str = "session_id") -> str:
    """`value` if it can be a session id (or a prefix of one), else `ServiceError`."""
    if not isinstance(value, str) or not value:
        raise ServiceError(f"{name} is required")
    if len(value) > MAX_SESSION_ID or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ServiceError(f"unknown session {value[:40]!r}{'…' if len(value) > 40 else ''}: "
                           "session ids come from search, list_sessions or get_session "
                           f"({MAX_SESSION_ID} characters at most; a unique prefix is enough)")
    return value


def short_entry_id(entry_id: str, session: str, agent_id: str = "") -> str:
    """An entry id as `<session prefix>[/<agent id>]:<offset>:<block>`: the file named by
    its session (and subagent) instead of its path, a third of the length. `session` is
    a prefix that names one session (`SessionsMixin.short_session_ids`). Ids that are no
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
