"""Secrets cut in two before they reach the redactor.

Redaction runs on whole texts, but some texts are already cut where they are stored: the
index keeps a head and a tail of long tool output, titles are capped at 200 characters.
A credential cut there is no longer whole, and its rule may not match what is left
(``ghp_`` + 20 of its 36 characters). At a known cut, the piece of a secret that touches
it is found two ways: the text before the cut is continued with a random-looking pad and
the rules run again (a rule that matches across the cut saw the start of a secret), and
a random-looking run touching the cut on either side is taken as the piece of one.
"""

from __future__ import annotations

from collections.abc import Callable

from ccarchive.service.redact.rules import Span
from ccarchive.service.redact.values import looks_random

PARTIAL = 3
"""The priority of a piece found at a cut: any other detection of it names it better."""
_PADS = ("Qx7Kp2Wm9Zr4Tb8Nv3Hy6Jc1Lf5Gd0SaE2uI9oP4", "QX7KP2WM9ZR4TB8NV3HY6JC1LF5GD0SAE2UI9OP4")
_WINDOW = 4096
_RUN_CHARS = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~!@#$%^&*-")


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
        if cut - start >= 8 and looks_random(text[start:cut]):
            out.append((start, cut, "partial", PARTIAL))
    if 0 <= cut < len(text) and not text[cut].isspace():
        hi = min(len(text), cut + _WINDOW)
        end = cut
        while end < hi and text[end] in _RUN_CHARS:
            end += 1
        if end - cut >= 8 and looks_random(text[cut:end]):
            out.append((cut, end, "partial", PARTIAL))
    return out
