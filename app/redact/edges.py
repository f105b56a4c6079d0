"""Secrets cut in two before they reach the redactor.

Redaction runs on whole texts, but some texts are already cut where they are stored: the
index keeps a head and a tail of long tool output, titles are capped at 200 characters.
A credential cut there is no longer whole, and its rule may not match what is left
(``ghp_`` + 20 of its 36 characters). At a known cut, the piece of a secret that touches
it is found two ways: the text before the cut is continued with a random-looking pad and
the rules run again (a rule that matches across the cut saw the start of a secret); a run
touching the cut that starts like a known format, or is random-looking or mixed like a
key, is taken as the piece of one. A word cut there stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ccarchive.redact.rules import Span
from ccarchive.redact.token_table import TOKEN_RULES
from ccarchive.redact.values import looks_random

PARTIAL = 3
"""The priority of a piece found at a cut: any other detection of it names it better."""
_PAD = "Qx7Kp2Wm9Zr4Tb8Nv3Hy6Jc1Lf5Gd0SaE2uI9oP4"
_PADS = (_PAD, _PAD.upper(), _PAD + '"', _PAD + "'", _PAD + '\\"')
"""Continuations of a cut text: random, upper case (AKIA...), and closing a quoted value
("secret": "~Ddn... cut before its closing quote)."""
_WINDOW = 4096
_RUN_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~!@#$%^&*-"
)
_LEADS = tuple(
    sorted(
        lead
        for lead in ({r.lead for r in TOKEN_RULES} | {g for r in TOKEN_RULES for g in r.gates})
        if len(lead) >= 3 and not (lead.isalpha() and lead.islower())
    )
)
"""The known formats' prefixes, but words ("hooks", "curl", "earer")."""


def _piece(run: str) -> bool:
    """Could this run, cut at one end, be the piece of a secret? Random-looking, or a
    single token of letters and digits (``paH16TYtv``, the end of a key) or of letters of
    both cases; not a word, a number, a capitalised word, nor a path or a dotted name
    that does not look random."""
    if len(run) < 8:
        return False  # no 8 characters of anything survive
    if looks_random(run):
        return True
    if "/" in run:
        return False
    if "." in run:  # a dotted name, unless a part of it is key-like (r75Yn9Y.zDcP)
        return any(len(part) >= 6 and _KEYLIKE_RE.match(part) for part in run.split("."))
    if any(c.isdigit() for c in run) and any(c.isalpha() for c in run):
        return True
    # letters only: both cases past its first letter (wXeiXDjQcg, PIkusmbsxBt); a name
    # cut in two (ationController) goes too, which costs a piece of a cut word
    return any(c.isupper() for c in run[1:]) and any(c.islower() for c in run)


def _lead_at(run: str) -> int:
    """Where a known token format starts in ``run`` (at a word boundary), or -1; also
    where the run ends in the first 4+ characters of one (``...key github_p`` cut)."""
    best = -1
    for lead in _LEADS:
        i = run.find(lead)
        while i > 0 and run[i - 1].isalnum():
            i = run.find(lead, i + 1)
        if i >= 0 and not _body_start(run[i + len(lead) :]):
            i = -1  # "key-value", "npm_config_cache": words after it, not a key's body
        if i < 0:
            for k in range(min(len(lead) - 1, len(run)), 3, -1):
                if lead[:k].isalpha():
                    break  # a word ("github", "secret"), not yet a format's prefix
                if run.endswith(lead[:k]) and (k == len(run) or not run[-k - 1].isalnum()):
                    i = len(run) - k
                    break
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def _body_start(rest: str) -> bool:
    """Could ``rest`` be the start of a token's body (what follows its prefix)?"""
    return (
        len(rest) < 4
        or any(c.isdigit() for c in rest)
        or (any(c.isupper() for c in rest) and any(c.islower() for c in rest))
    )


def _userinfo_piece(run: str) -> int:
    """The end of a URL's password that a cut left at the start of ``run``
    (``t*LlFKwwi5Hj@db.internal``), or 0."""
    at = run.find("@")
    piece = run[:at]
    if at >= 8 and any(c.isalpha() for c in piece) and not piece.isalpha():
        return at
    return 0


_KEYLIKE_RE = re.compile(r"(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z])")
_BREAK_RE = re.compile(r"(\s+|\\{1,8}[nr])")
_B64_LINE_RE = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_KEY_LINE_RE = re.compile(
    r"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=[^0-9]*[0-9])[A-Za-z0-9+/]{40,}={0,2}"
)
"""A line of a key's base64 body: long, both cases and digits (a hex digest is not)."""


def _base64_block_start(head: str) -> int:
    """Where a block of random base64 lines that runs into the end of ``head`` starts
    (a key's body whose END line was cut off: two such lines, or one key-like), or -1."""
    parts = _BREAK_RE.split(head[-4096:])
    pos = first = len(head)
    lines = 0
    for i in range(len(parts) - 1, -1, -1):
        part = parts[i]
        pos -= len(part)
        if i % 2:  # a separator
            continue
        if i == len(parts) - 1:  # the piece at the cut: any length of base64
            if part and _B64_LINE_RE.fullmatch(part + "A" * 16) is None:
                break
        elif not (_B64_LINE_RE.fullmatch(part) and looks_random(part)):
            break
        else:
            lines += 1 if lines or not _KEY_LINE_RE.fullmatch(part) else 2
        first = pos
    return first if lines >= 2 else -1


def edge_spans(text: str, cut: int, detect: Callable[[str], list[Span]]) -> list[Span]:
    """Spans of what may be the piece of a secret on either side of ``cut``."""
    out: list[Span] = []
    end = cut
    while end > 0 and text[end - 1] == "\\":
        end -= 1  # cut inside an escape ("...lQJ\\" + "n"): its backslashes go with it
    if 0 < end <= len(text) and not text[end - 1].isspace():
        lo = max(0, end - _WINDOW)
        head = text[lo:end]
        for pad in _PADS:
            for s, e, kind, prio in detect(head + pad):
                if s < len(head) < e:
                    out.append((lo + s, cut, kind, prio))
        block = _base64_block_start(head)
        if block >= 0:  # base64 lines cut off before their END line
            out.append((lo + block, cut, "private-key", PARTIAL))
        start = end
        while start > lo and text[start - 1] in _RUN_CHARS:
            start -= 1
        if start < end and text[start] in "nrt" and text[start - 1 : start] == "\\":
            start += 1  # the n of a "\\n" escape before it
        run = text[start:end]
        lead = _lead_at(run)
        if lead >= 0:  # the start of a known format ("AGE-SECRET-KEY-10EF")
            out.append((start + lead, cut, "partial", PARTIAL))
        elif _piece(run):
            out.append((start, cut, "partial", PARTIAL))
    if 0 <= cut < len(text) and not text[cut].isspace():
        hi = min(len(text), cut + _WINDOW)
        stop = cut
        while stop < hi and text[stop] in _RUN_CHARS:
            stop += 1
        if _piece(text[cut:stop]):
            out.append((cut, stop, "partial", PARTIAL))
        elif at := _userinfo_piece(text[cut:stop]):
            out.append((cut, cut + at, "url-password", PARTIAL))
    return out
