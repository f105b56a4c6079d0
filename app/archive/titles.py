"""A session's title as a person reads it: one line of plain text, never raw Markdown.

Claude Code titles a session with its custom title, agent name, AI title, a summary, or
else the first prompt. The first prompt of a session started from an accepted plan is
the whole plan (`Implement the following plan: # Plan: Retry backoff ## Context …`), so
half the titles of a real archive read `Implement the following plan…` and say nothing.
`clean_title` keeps what names the session: the plan's first heading, Markdown marks
stripped, on one line.

It is a pure function on purpose: the indexer applies it when it writes a session's
document, and the service applies it again when it reads one, so indexes written before
the rule show clean titles too (it is idempotent on a title it already cleaned).
Prompts are stored with their whitespace folded (`FileSummary.first_prompt`), so every
rule here also works on a title with no line breaks left.
"""

from __future__ import annotations

import re
from datetime import datetime

from ccarchive.redact import MARKER_RE
from ccarchive.text import clip

PLAN_PREFIX = re.compile(r"^\s*implement\s+the\s+following\s+plan\s*:?\s*", re.I)
"""What Claude Code writes before the plan when a session starts from an accepted one."""

_HEADING = re.compile(r"(?:^|(?<=\s))#{1,6}[ \t]+(\S.*?)(?=\s+#{1,6}\s|[ \t]*$)", re.M)
"""A Markdown heading, up to the end of its line or, in folded text, the next heading."""
_PLAN_WORD = re.compile(r"^(?:implementation\s+)?plan\s*(?::|—|–|-)\s+(?=\S)", re.I)
"""`Plan: ` before a plan's heading: every plan has it, so it tells plans apart from none."""

_MARKUP = (
    (re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)"), r"\1"),  # [text](url), ![alt](src)
    (re.compile(r"```[\w+-]*"), " "),  # code fences
    (re.compile(r"`([^`\n]*)`"), r"\1"),  # `code`
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"\1"),  # **strong** (never __: __init__)
    (re.compile(r"(?<![\w*])\*(?=\w)([^*\n]+?)(?<=[\w.!?)])\*(?![\w*])"), r"\1"),  # *em*
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),  # ~~struck~~
)
_LEAD = re.compile(r"^(?:#{1,6}\s+|>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)+")
"""Marks that open a Markdown line: a heading, a quote, a list item or a task."""


def plan_heading(text: str) -> str:
    """The title of a plan's Markdown: its first heading without `Plan:`, else its first
    line; '' when there is no text."""
    m = _HEADING.search(text)
    if m:
        head = m.group(1)
    else:
        head = next((ln for ln in text.splitlines() if ln.strip()), "")
    head = _PLAN_WORD.sub("", strip_markdown(head))
    return head


def strip_markdown(text: str) -> str:
    """`text` on one line without the Markdown marks that only style it."""
    lines = [_LEAD.sub("", ln.strip()) for ln in text.splitlines()]
    flat = " ".join(" ".join(lines).split())
    flat = _LEAD.sub("", flat)
    for pattern, repl in _MARKUP:
        flat = pattern.sub(repl, flat)
    return " ".join(flat.split())


def clean_title(text: str, width: int = 0) -> str:
    """A session title as it should read: one line, plain text, a plan's heading for a
    session that implements a plan; cut with an ellipsis at `width` (0: never cut)."""
    if not text:
        return ""
    m = PLAN_PREFIX.match(text)
    if m and text[m.end() :].strip():
        title = plan_heading(text[m.end() :])
    else:
        title = strip_markdown(text)
    return clip(title, width) if width else title


_WORD = re.compile(r"[^\W_]{2,}")


def readable(title: str) -> bool:
    """Does ``title`` say something besides redaction marks and punctuation? A title that
    is only ``[REDACTED:env]`` names nothing and is never shown as one."""
    return _WORD.search(MARKER_RE.sub(" ", title)) is not None


_NAMING_WORD = re.compile(r"[^\W\d_]{3,}")


def names_something(prompt: str) -> bool:
    """Does a typed prompt say enough to name its session? A prompt of a number or a
    greeting (`181`, `hi`, `ok`) is a reply to the previous session's question, not a
    subject: the session is better named by a later prompt, or by its project and date."""
    words = _NAMING_WORD.findall(MARKER_RE.sub(" ", prompt))
    return len(words) >= 2 or any(len(w) >= 5 for w in words)


def first_readable(*candidates: str) -> str:
    """The first candidate that reads as a title once cleaned (`clean_title`), or ''."""
    for text in candidates:
        title = clean_title(text) if text else ""
        if title and readable(title):
            return title
    return ""


def fallback_title(slugs: list[str], project: str, first_ts: str) -> str:
    """A name for a session that titles itself nowhere (no title, summary or typed
    prompt): its plan codename in words, else its project's folder and when it began;
    never an id, which names nothing to a reader."""
    for slug in slugs:
        words = " ".join(slug.replace("-", " ").replace("_", " ").split())
        if readable(words):
            return words
    name = project.rstrip("/").rsplit("/", 1)[-1] if project else ""
    name = name if readable(name) else ""
    when = ""
    try:
        when = datetime.fromisoformat(first_ts.replace("Z", "+00:00")).strftime("%-d %b %Y %H:%M")
    except (ValueError, AttributeError):
        pass
    if name and when:
        return f"{name} session, {when}"
    if name or when:
        return f"{name or 'Untitled'} session{', ' + when if when else ''}"
    return "Untitled session"
