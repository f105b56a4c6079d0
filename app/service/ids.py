"""What the service accepts as a session id before it goes near the index.

A session id (or the prefix of one) becomes a Tantivy regex (`<prefix>.*`), whose
automaton is refused past 1,000 states: a 5,000-character forgery failed with Tantivy's
own message. Real ids are 36-character UUIDs; anything longer than `MAX_SESSION_ID`, or
holding control characters, names no session and is refused as such, saying where ids
come from. (Entry ids are parsed by `index.schema.parse_entry_id`; cursors and offsets by
`service.cursor`.)
"""

from __future__ import annotations

from typing import Any

from ccarchive.service.errors import ServiceError

MAX_SESSION_ID = 128


def check_session_id(value: Any, name: str = "session_id") -> str:
    """`value` if it can be a session id (or a prefix of one), else `ServiceError`."""
    if not isinstance(value, str) or not value:
        raise ServiceError(f"{name} is required")
    if len(value) > MAX_SESSION_ID or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ServiceError(f"unknown session {value[:40]!r}{'…' if len(value) > 40 else ''}: "
                           "session ids come from search, list_sessions or get_session "
                           f"({MAX_SESSION_ID} characters at most; a unique prefix is enough)")
    return value
