"""Where a typed prompt (a `history.jsonl` line) sits in its session's transcript.

history.jsonl records what was typed and when; the transcript records the same prompt as
an entry of its own, a moment later. To open a prompt "at that prompt", the session's
prompt entries near its time are read and the one whose text matches is taken, the
nearest in time if several match (the same words typed twice), else the nearest in time
within `NEAR` (the text differs: pasted text is a placeholder in the history, expanded
in the transcript).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ccarchive.service.service import ServiceError

if TYPE_CHECKING:
    from ccarchive.service import ArchiveService

WINDOW = timedelta(hours=6)
"""How far from the typed time the prompt entries are read."""
NEAR = timedelta(minutes=2)
"""A prompt entry this close in time stands for the typed one even if its text differs."""
COMPARED = 80
"""Characters of each text compared (after spaces are folded)."""
CANDIDATES = 100
"""Prompt entries read around the typed time."""

_PASTE = re.compile(r"\[Pasted text #\d+[^\]]*\]|\[Image #\d+\]")


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


def find_prompt_entry(service: ArchiveService, session_id: str, text: str,
                      when: datetime | None) -> str | None:
    """The id of the session's prompt entry that `text`, typed at `when`, became
    (None if none is found: the session then opens at its start)."""
    if not session_id:
        return None
    around = {} if when is None else {"since": when - WINDOW, "until": when + WINDOW}
    try:
        page = service.search("", session_id=session_id, kind="prompt", limit=CANDIDATES,
                              **around)
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
