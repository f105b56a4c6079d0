"""The engine: run every rule, merge what they found, settle, replace; and cut safely.

``find_secrets`` runs the token table, the private-key finder and the assignment rules
and merges overlapping detections (the most specific kind names the result).
``secret_spans`` settles them: a redaction can, rarely, leave context that reveals
another secret (a value cut short by a token inside it), so detection runs again on the
redacted text until nothing more is found, and the spans are given in the coordinates
of the original text. ``redact_window`` is how a snippet or a page is cut: the whole
text is redacted first and the window then taken from the redacted text, widened so
that no secret it touches is cut (a piece of a secret does not match its rule).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ccarchive.redact.assignments import assignment_spans, keyword_hits
from ccarchive.redact.contexts import context_spans, secret_file
from ccarchive.redact.edges import edge_spans
from ccarchive.redact.encodings import encoded_spans
from ccarchive.redact.names import may_name_secret
from ccarchive.redact.pem import pem_spans
from ccarchive.redact.rules import Span, scan
from ccarchive.redact.token_table import TOKEN_RULES
from ccarchive.redact.values import MARKER_PREFIX, literal_is_secret

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,32}\]")
Found = tuple[int, int, str]


def marker(kind: str) -> str:
    """The replacement text for a secret of ``kind``."""
    return f"[REDACTED:{kind}]"


_JSON_ESCAPE_RE = re.compile(r'\\(?:[nrt"]|u[0-9a-fA-F]{4})')


_JSON_ESCAPE_ANY_RE = re.compile(r'\\(?:[nrt"\\/]|u[0-9a-fA-F]{4})')


class _Decoded:
    """A text with its JSON escapes (``\\n``, ``\\"``, ``\\u0439``) decoded, and where
    each character of the result starts and ends in the text: only the escapes are kept
    (a character between two of them is shifted as the escape before it), so a long text
    costs no list of its characters, and only the few spans found are mapped back."""

    __slots__ = ("text", "_at", "_starts", "_ends")

    def __init__(self, text: str):
        parts: list[str] = []
        self._at: list[int] = []  # where each escape's character stands in the result
        self._starts: list[int] = []  # where the escape starts in ``text``
        self._ends: list[int] = []  # and where it ends
        last = size = 0
        for m in _JSON_ESCAPE_ANY_RE.finditer(text):
            parts.append(text[last : m.start()])
            size += m.start() - last
            esc = m.group()
            ch = {"n": "\n", "r": "\r", "t": "\t"}.get(esc[1]) or (
                chr(int(esc[2:], 16)) if esc[1] == "u" else esc[1]
            )
            parts.append(ch)
            self._at.append(size)
            self._starts.append(m.start())
            self._ends.append(m.end())
            size += 1
            last = m.end()
        parts.append(text[last:])
        self.text = "".join(parts)

    def start(self, i: int) -> int:
        """Where character ``i`` of the result starts in the text."""
        k = bisect_right(self._at, i) - 1
        if k < 0:
            return i
        if self._at[k] == i:
            return self._starts[k]
        return self._ends[k] + i - self._at[k] - 1

    def end(self, i: int) -> int:
        """Where character ``i`` of the result ends in the text."""
        k = bisect_right(self._at, i) - 1
        if k < 0:
            return i + 1
        if self._at[k] == i:
            return self._ends[k]
        return self._ends[k] + i - self._at[k]


def _detect(text: str, depth: int = 0) -> list[Span]:
    spans: list[Span] = []
    scan(TOKEN_RULES, text, spans)
    pem_spans(text, spans)
    hits = keyword_hits(text)
    assignment_spans(text, spans, hits)
    # no keyword found: no secret's name, unless a letter outside ASCII lowers to one
    context_spans(text, spans, bool(hits) or (not text.isascii() and may_name_secret(text)))
    if "\\" in text and _JSON_ESCAPE_RE.search(text):
        # text printed inside a JSON string (once or twice): the contexts read its lines,
        # quotes and letters decoded, and what they find is mapped back onto the text
        layers = [_Decoded(text)]
        if "\\" in layers[0].text and _JSON_ESCAPE_RE.search(layers[0].text):
            layers.append(_Decoded(layers[0].text))
        found: list[Span] = []
        context_spans(layers[-1].text, found)
        for s, e, kind, prio in found:
            if e > s:  # its first and last characters, mapped back layer by layer
                first, last = s, e - 1
                for layer in reversed(layers):
                    first, last = layer.start(first), layer.end(last) - 1
                spans.append((first, last + 1, kind, prio))
    if depth == 0:  # an encoding of an encoding is not looked into
        encoded_spans(text, spans, lambda inner: _detect(inner, 1))
    return spans


def _merge(spans: list[Span], text: str) -> list[Found]:
    spans.sort(key=lambda s: (s[0], -s[1]))
    markers = [m.span() for m in MARKER_RE.finditer(text)] if MARKER_PREFIX in text else []
    marker_starts = [ms for ms, _ in markers]
    merged: list[list] = []
    for s, e, kind, prio in spans:
        if e <= s:
            continue
        if markers:
            # never redact into an existing marker: check the last marker starting before e
            i = bisect_left(marker_starts, e) - 1
            if i >= 0 and markers[i][1] > s:
                continue
        if merged and s < merged[-1][1]:
            cur = merged[-1]
            cur[1] = max(cur[1], e)
            if prio < cur[3]:
                cur[2], cur[3] = kind, prio
        else:
            merged.append([s, e, kind, prio])
    return [(s, e, k) for s, e, k, _ in merged]


def find_secrets(text: str, *, cuts: Iterable[int] = ()) -> list[Found]:
    """Sorted, non-overlapping ``(start, end, kind)`` spans of the secrets in ``text``.

    ``cuts``: positions where the text was cut before it got here (a stored head and
    tail, a capped title); the pieces of secrets touching them are found too.
    """
    if len(text) < 8:
        return []
    if _ESCAPED_SLASH in text:
        return _unescaping_slashes(text, tuple(cuts))
    if _CONTINUATION in text:
        return _joining_continuations(text, tuple(cuts))
    spans = _detect(text)
    for cut in cuts:
        spans.extend(edge_spans(text, cut, _detect))
    return _merge(spans, text) if spans else []


_ESCAPED_SLASH = "\\/"


def _unescaping_slashes(text: str, cuts: tuple[int, ...]) -> list[Found]:
    """Some JSON encoders (PHP's, Java's) write "/" as "\\/", which splits a key, a
    base64 body or a URL in two for the rules: they run on the text with "/" put back,
    and the spans are mapped onto the text as it is."""
    removed: list[int] = []  # where each "/" that lost its backslash stands in the unescaped text
    i = text.find(_ESCAPED_SLASH)
    while i >= 0:
        removed.append(i - len(removed))
        i = text.find(_ESCAPED_SLASH, i + 2)
    clean = text.replace(_ESCAPED_SLASH, "/")
    back = [c - bisect_left([r + n for n, r in enumerate(removed)], c) for c in cuts]
    return [
        (s + bisect_left(removed, s), e + bisect_left(removed, e), kind)
        for s, e, kind in find_secrets(clean, cuts=back)
    ]


_CONTINUATION = "\\\n"
_CONTINUATION_RE = re.compile(r"\\\r?\n[ \t]*")


def _joining_continuations(text: str, cuts: tuple[int, ...]) -> list[Found]:
    """A shell line continued over a backslash and a line break splits a token (a bearer
    token, a key) in two: the rules also run on the text with the breaks taken out, and
    a secret found across one is redacted in both its pieces."""
    pieces, starts, removed = [], [], []  # removed: (position in joined, length)
    last = 0
    for m in _CONTINUATION_RE.finditer(text):
        pieces.append(text[last : m.start()])
        starts.append(last)
        removed.append((sum(map(len, pieces)), m.end() - m.start()))
        last = m.end()
    pieces.append(text[last:])
    joined = "".join(pieces)
    spans = find_secrets(text.replace(_CONTINUATION, "\\ \n"), cuts=cuts)
    extra = []
    for s, e, kind in find_secrets(joined):
        shift_s = sum(n for at, n in removed if at <= s)
        shift_e = sum(n for at, n in removed if at < e)
        if shift_s != shift_e:  # across a continuation: both pieces
            extra.append((s + shift_s, e + shift_e, kind))
    if not extra:
        return spans
    merged = _merge([(s, e, k, 0) for s, e, k in spans + extra], text)
    return merged


def _apply(text: str, found: Sequence[Found]) -> str:
    parts = []
    last = 0
    for s, e, kind in found:
        parts.append(text[last:s])
        parts.append(marker(kind))
        last = e
    parts.append(text[last:])
    return "".join(parts)


def _shifts(found: Sequence[Found]) -> tuple[list[int], list[int]]:
    """For each span, where it ends in the redacted text, and the length added up to there."""
    ends, deltas, delta = [], [], 0
    for s, e, kind in found:
        delta += len(kind) + 11 - (e - s)  # len(marker(kind)) == len(kind) + 11
        ends.append(e + delta)
        deltas.append(delta)
    return ends, deltas


def secret_spans(text: str, *, cuts: Iterable[int] = (), cached: bool = True) -> list[Found]:
    """`find_secrets`, settled: replacing these spans gives `redact` (see the module doc).
    ``cached=False`` for texts seen once (the indexer's): they would only churn the cache."""
    if len(text) < 8:
        return []
    if not cached or len(text) > _CACHED_CHARS:
        return list(_settle(text, tuple(cuts)))
    return list(_settled(text, tuple(cuts)))


_CACHED_CHARS = 65_536
"""Texts up to this long have their spans cached (512 of them: at most 32 MB held)."""


@lru_cache(maxsize=512)
def _settled(text: str, cuts: tuple[int, ...]) -> tuple[Found, ...]:
    """Cached: a hit's whole stored text is redacted for every snippet cut from it, and
    the same hits come back as a query is typed or a page is redrawn."""
    return _settle(text, cuts)


def _settle(text: str, cuts: tuple[int, ...]) -> tuple[Found, ...]:
    found = find_secrets(text, cuts=cuts)
    for _ in range(16):
        if not found:
            break
        more = find_secrets(_apply(text, found))
        if not more:
            break
        ends, deltas = _shifts(found)
        mapped = []
        for s, e, kind in more:  # outside every marker: shifted as the text before it
            i = bisect_right(ends, s) - 1
            d = deltas[i] if i >= 0 else 0
            mapped.append((s - d, e - d, kind))
        found = sorted(found + mapped)
    return tuple(found)


def redact(text: str, *, cuts: Iterable[int] = (), cached: bool = True) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    found = secret_spans(text, cuts=cuts, cached=cached)
    return _apply(text, found) if found else text


def redact_pieces(pieces: Sequence[str]) -> list[str]:
    """Texts that were one before they were cut in blocks (an assistant message's text
    blocks): each redacted, and a secret that runs from one into the next is found in
    their concatenation and redacted in every piece it touches."""
    pieces = list(pieces)
    if len(pieces) < 2:
        return [redact(p, cached=False) for p in pieces]
    joined = "".join(pieces)
    starts, pos = [], 0
    for p in pieces:
        starts.append(pos)
        pos += len(p)
    extra: list[list[Span]] = [[] for _ in pieces]
    for s, e, kind in secret_spans(joined, cached=False):
        i, j = bisect_right(starts, s) - 1, bisect_right(starts, e - 1) - 1
        if i == j:
            continue  # inside one piece: its own redaction finds it
        for k in range(i, j + 1):
            a, b = max(s, starts[k]) - starts[k], min(e, starts[k] + len(pieces[k])) - starts[k]
            if b > a:
                extra[k].append((a, b, kind, 0))
    out = []
    for piece, more in zip(pieces, extra, strict=True):
        if not more:
            out.append(redact(piece, cached=False))
            continue
        own = [(s, e, k, 1) for s, e, k in secret_spans(piece, cached=False)]
        out.append(_apply(piece, _merge(own + more, piece)))
    return out


def redact_output(command: str, output: str) -> str:
    """What a command printed, redacted as if the command stood above it (``printenv
    DB_PASS`` prints the password alone: the output has no context of its own)."""
    head = f"$ {command.strip().splitlines()[-1] if command.strip() else ''}\n"
    found = secret_spans(head + output, cached=False)
    spans = [
        (max(s, len(head)) - len(head), e - len(head), k) for s, e, k in found if e > len(head)
    ]
    return _apply(output, spans) if spans else output


@lru_cache(maxsize=4096)
def redact_name(name: str) -> str:
    """A name (a branch, a path, a URL, a slug, a file name) with the known-format tokens
    and URL passwords in it replaced: only what is a credential by its shape alone. A name
    carries no assignments, and the context rules would take an ordinary name for a
    secret's value (``feature/secret-rotation``). Cached: the indexer asks for the same
    working directory, branch and file paths record after record (a scan of the token
    table each time cost ~8% of a cold index's CPU)."""
    if len(name) < 8:
        return name
    spans: list[Span] = []
    scan(TOKEN_RULES, name, spans)
    return _apply(name, _merge(spans, name)) if spans else name


@dataclass
class Window:
    """A cut of a text, redacted: ``text`` shows ``[start, end)`` of the original, widened
    over any secret the cut touched; ``highlights`` are offsets into ``text``."""

    text: str
    start: int
    end: int
    highlights: list[tuple[int, int]]


def redact_window(
    text: str,
    start: int,
    end: int,
    *,
    cuts: Iterable[int] = (),
    highlights: Sequence[tuple[int, int]] = (),
) -> Window:
    """The redacted ``text[start:end]``, from the redaction of the whole ``text``.

    A secret the window touches is replaced whole (the window widens to take it in), so
    no piece of one survives the cut. ``highlights`` (offsets into ``text[start:end]``)
    come back as offsets into the result; one that falls on a secret is dropped.
    """
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    found = secret_spans(text, cuts=cuts)
    start0 = start
    for s, e, _ in found:
        if s < start < e:
            start = s
        if s < end < e:
            end = e
    inside = [f for f in found if f[0] < end and f[1] > start]
    out = _apply(text[start:end], [(s - start, e - start, k) for s, e, k in inside])
    _, deltas = _shifts(inside)
    span_ends = [e for _, e, _ in inside]
    marks = []
    for hs, he in highlights:
        a, b = hs + start0, he + start0
        if any(s < b and a < e for s, e, _ in inside):
            continue
        i = bisect_right(span_ends, a) - 1
        d = deltas[i] if i >= 0 else 0
        marks.append((a - start + d, b - start + d))
    return Window(out, start, end, marks)


_EDIT_KEYS = frozenset(("new_string", "old_string", "content"))
_EDITED = "[REDACTED:env]"


def _one_value(v: Any) -> bool:
    """A lone word of 6+ characters, the whole text of an edit: a value, not code."""
    return (
        isinstance(v, str)
        and 6 <= len(v.strip()) <= 512
        and not any(c.isspace() for c in v.strip())
        and literal_is_secret(v.strip(), "password", False)
    )


def redact_value(obj: Any) -> Any:
    """``obj`` with every string inside it redacted: same shape, no copy when unchanged.

    Walks ``str``, ``list``, ``tuple`` (named tuples too), ``dict`` (values only; keys
    are left alone) and pydantic models (duck-typed: a class with ``model_fields``
    and an instance with ``model_copy``; the copy is made with
    ``model_copy(update=...)``, so no re-validation), recursively.  Anything else is
    returned unchanged.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        path = obj.get("file_path")
        if isinstance(path, str) and secret_file(path):
            # an Edit or Write of a secrets file: its new text may be the secret alone
            obj = {k: _EDITED if k in _EDIT_KEYS and _one_value(v) else v for k, v in obj.items()}
        new = {}
        changed = False
        for k, v in obj.items():
            nv = redact_value(v)
            changed = changed or nv is not v
            new[k] = nv
        return new if changed else obj
    if isinstance(obj, (list, tuple)):
        items = [redact_value(v) for v in obj]
        if all(a is b for a, b in zip(items, obj, strict=True)):
            return obj
        if isinstance(obj, list):
            return items
        if hasattr(obj, "_fields"):  # named tuple
            return type(obj)(*items)
        return tuple(items) if type(obj) is tuple else type(obj)(items)
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, dict) and hasattr(obj, "model_copy"):
        update = {}
        for field in fields:
            v = getattr(obj, field, None)
            nv = redact_value(v)
            if nv is not v:
                update[field] = nv
        for field, v in (getattr(obj, "__pydantic_extra__", None) or {}).items():
            nv = redact_value(v)
            if nv is not v:
                update[field] = nv
        return obj.model_copy(update=update) if update else obj
    return obj
