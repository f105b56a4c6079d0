"""Content words of a query and of a real session, to hold rewordings to their promise.

A rewording query is only a rewording if it shares at most one content word with the whole session
it should find (every text of the session file: prompts, answers, thinking, tool calls and results,
summaries). Words are compared by a crude stem (plural, -ed, -ing, -ly cut) so that "runs" and "run"
count as one word; function words and words of three letters or fewer are not content words.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FUNCTION_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing don down during each
    even ever every few for from further get got had has have having he her here hers him
    his how i if in into is it its itself just let like made make many may me might more
    most much must my no nor not now of off on once one only or other our ours out over own
    same she should so some such than that the their theirs them then there these they this
    those through to too under until up upon us very via was we were what when where which
    while who whom why will with within without would yet you your yours instead rather just
    each every thing things something anything way ways really still already again whether
    """.split()
)

_WORD = re.compile(r"[a-z0-9]+")


def stem(word: str) -> str:
    """A crude stem: enough to make plural and tense variants one word."""
    for suffix in ("ing", "ies", "ied", "es", "ed", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if len(w) > 3 and w not in FUNCTION_WORDS}


def _strings(value, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, inner in value.items():
            if key not in ("signature", "data", "id", "tool_use_id"):
                _strings(inner, out)
    elif isinstance(value, list):
        for inner in value:
            _strings(inner, out)


def session_text(path: Path) -> str:
    """Every text of a transcript file (message contents, tool inputs and results, summaries)."""
    parts: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            _strings(entry.get("message"), parts)
            _strings(entry.get("summary"), parts)
            _strings(entry.get("toolUseResult"), parts)
            _strings(entry.get("content"), parts)
    return "\n".join(parts)


def shared_content_words(query: str, session: Path) -> set[str]:
    return content_stems(query) & content_stems(session_text(session))
