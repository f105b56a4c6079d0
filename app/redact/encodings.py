"""Secrets inside an encoding: hex, base64 or URL-encoding of a text that holds one.

``xxd -p .env``, ``base64 .env`` or a form body posted URL-encoded show a secret in a
form no rule reads. A run that decodes to text (hex or base64, its lines joined as the
tools wrap them; or percent-encoding) is decoded and the rules run on the result; a run
whose text holds a secret is redacted whole. Runs that do not decode to text (digests,
image data, random keys) cost a decode of their first bytes.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from urllib.parse import unquote_plus

from ccarchive.redact.rules import SPECIFIC, Span

_RUN_RE = re.compile(r"[A-Za-z0-9+/]{32,}={0,2}(?:\r?\n[A-Za-z0-9+/]{4,}={0,2})*")
"""A run of base64 (hex is a part of its alphabet), its lines joined as tools wrap them;
it starts with a character class, which ``re`` scans for quickly."""
_SHORT_RUNS_RE = re.compile(r"(?:[A-Za-z0-9+/]{1,31}+(?![A-Za-z0-9+/])|[^A-Za-z0-9+/]++)*+")
"""Runs of the alphabet shorter than 32 and what is between them, taken whole: where this
stops, the first run that `_RUN_RE` can match starts (each of its matches starts a run,
or follows a match). `_RUN_RE` tries every character of every word; this takes a word
in one step, and most texts hold no such run."""


def _first_run(text: str) -> int:
    """Where the first match of `_RUN_RE` can start (``len(text)``: there is none)."""
    return _SHORT_RUNS_RE.match(text).end()  # type: ignore[union-attr]  # matches, if only ""


_URL_GATE_RE = re.compile(
    r"%[0-9A-Fa-f]{2}[A-Za-z0-9._~+*!'()=&-]*%[0-9A-Fa-f]{2}[A-Za-z0-9._~+*!'()=&-]*"
    r"%[0-9A-Fa-f]{2}[A-Za-z0-9._~+*!'()=&-]*%[0-9A-Fa-f]{2}"
)
"""Four escapes in one run, as every match of `_URL_RE` holds: found by a scan for "%",
where `_URL_RE` (a look-behind first) is tried at every character."""
_HEX = frozenset("0123456789abcdefABCDEF\r\n")
_URL_RE = re.compile(  # starts where a run starts: tried once per run, not per character
    r"(?<![A-Za-z0-9._~+*!'()=&%-])[A-Za-z0-9._~+*!'()=&-]*"
    r"(?:%[0-9A-Fa-f]{2}[A-Za-z0-9._~+*!'()=&-]*){4,}"
)
_MAX_RUN = 1 << 16


_B64_TEXT_LEADS = frozenset("CIJKLMNOPQRSTUVWXYZabcdef")
"""The first character of each 4 of base64 of ASCII text: its first byte is printable or
a tab or a line break, which fixes its top bits (base64 of a digest or a key has any)."""
_HEX_TEXT_LEADS = frozenset("0234567")


def _could_be_text(run: str) -> bool:
    """A cheap look at the first 32 characters: could this run encode ASCII text?"""
    head = run[:32]
    if all(c in _HEX for c in head):
        return all(head[i] in _HEX_TEXT_LEADS for i in range(0, len(head) - 1, 2))
    return all(head[i] in _B64_TEXT_LEADS for i in range(0, len(head), 4))


def _texty(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\r\t" for c in text)
    return text if len(text) >= 8 and printable >= 0.95 * len(text) else None


def encoded_spans(text: str, out: list[Span], detect: Callable[[str], list]) -> None:
    """Append the runs of ``text`` that decode to a text holding a secret."""
    if len(text) < 24:
        return
    first = _first_run(text)
    for m in _RUN_RE.finditer(text, first) if first < len(text) else ():
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "+/"):
            continue
        run = re.sub(r"\s", "", m.group())
        if len(run) > _MAX_RUN or run.isalpha() or run.isdigit():
            continue
        if not _could_be_text(run):
            continue
        try:
            if _HEX.issuperset(m.group()) and len(run) % 2 == 0:
                if _texty(bytes.fromhex(run[:64])) is None:
                    continue  # a digest: hex of bytes, not of text
                decoded = _texty(bytes.fromhex(run))
            else:
                head = run[:64][: len(run[:64]) // 4 * 4]
                if _texty(base64.b64decode(head)) is None:
                    continue
                decoded = _texty(base64.b64decode(run + "=" * (-len(run) % 4)))
        except (binascii.Error, ValueError):
            continue
        if decoded and detect(decoded):
            out.append((m.start(), m.end(), "encoded", SPECIFIC))
    if "%" in text and _URL_GATE_RE.search(text) is not None:
        for m in _URL_RE.finditer(text):
            run = m.group()
            if len(run) > _MAX_RUN:
                continue
            decoded = unquote_plus(run)
            if decoded != run and detect(decoded):
                out.append((m.start(), m.end(), "encoded", SPECIFIC))
