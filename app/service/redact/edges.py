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

from collections.abc import Callable

from ccarchive.service.redact.rules import Span
from ccarchive.service.redact.token_table import TOKEN_RULES
from ccarchive.service.redact.values import looks_random

PARTIAL = 3
"""The priority of a piece found at a cut: any other detection of it names it better."""
_PADS = ("Qx7Kp2Wm9Zr4Tb8Nv3Hy6Jc1Lf5Gd0SaE2uI9oP4", "QX7KP2WM9ZR4TB8NV3HY6JC1LF5GD0SAE2UI9OP4")
_WINDOW = 4096
_RUN_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~!@#$%^&*-")
_LEADS = tuple(sorted({r.lead for r in TOKEN_RULES if len(r.lead) >= 3}
                      | {g for r in TOKEN_RULES for g in r.gates if len(g) >= 3}))


def _piece(run: str) -> bool:
    """Could this run, cut at one end, be the piece of a secret? Random-looking, or mixed
    like one: letters and digits, or capitals after the first letter beside lower case
    (``paH16TYtv``); not a word, a number or a capitalised name."""
    if len(run) < 8:
        return False  # no 8 characters of anything survive
    if looks_random(run):
        return True
    digit = any(c.isdigit() for c in run)
    alpha = any(c.isalpha() for c in run)
    upper = any(c.isupper() for c in run[1:])
    lower = any(c.islower() for c in run)
    return (digit and alpha) or (upper and lower)


def _lead_at(run: str) -> int:
    """Where a known token format starts in ``run`` (at a word boundary), or -1."""
    best = -1
    for lead in _LEADS:
        i = run.find(lead)
        while i > 0 and run[i - 1].isalnum():
            i = run.find(lead, i + 1)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def edge_spans(text: str, cut: int, detect: Callable[[str], list[Span]]) -> list[Span]:
    """Spans of what may be the piece of a secret on either side of ``cut``."""
    out: list[Span] = []
    if 0 < cut <= len(text) and not text[cut - 1].isspace():
        lo = max(0, cut - _WINDOW)
        head = text[lo:cut]
        for pad in _PADS:
            for s, e, kind, prio in detect(head + pad):
                if s < len(head) < e:
                    out.append((lo + s, cut, kind, prio))
        start = cut
        while start > lo and text[start - 1] in _RUN_CHARS:
            start -= 1
        run = text[start:cut]
        lead = _lead_at(run)
        if lead >= 0:  # the start of a known format ("AGE-SECRET-KEY-10EF")
            out.append((start + lead, cut, "partial", PARTIAL))
        elif _piece(run):
            out.append((start, cut, "partial", PARTIAL))
    if 0 <= cut < len(text) and not text[cut].isspace():
        hi = min(len(text), cut + _WINDOW)
        end = cut
        while end < hi and text[end] in _RUN_CHARS:
            end += 1
        if _piece(text[cut:end]):
            out.append((cut, end, "partial", PARTIAL))
    return out
