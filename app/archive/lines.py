"""Streaming, fault-tolerant reading of JSONL files, from any byte offset.

Claude Code's files are messy (docs/format.md §3): two objects glued on one line, a torn last
line, invalid UTF-8, raw U+2028 inside strings, lines of tens of megabytes. This module
turns bytes into JSON objects and never gives up on a file because of one line: each
bad line is skipped and counted under a reason, every good line is kept.

Memory stays bounded by `HUGE_LINE` whatever the file or line size: a line longer than
that is not parsed whole; its first `HUGE_HEAD` bytes are kept so the caller can still
say what it was (see `HugeLine`).

What one line may hold is bounded too, so that nothing parsed here can stop a reader
further on: objects nested deeper than orjson's 1,024 levels are skipped as
`nested_too_deep`; numbers JSON has no room for (beyond 64 bits, `1e400`, `NaN`) as
`number_out_of_range`, as orjson does (the slow path below must not let through what the
fast one refuses); escaped lone surrogates (`"\\ud800"`, which JavaScript writes for a
string cut inside an emoji) are replaced by U+FFFD, since no UTF-8 consumer accepts them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

CHUNK = 4 << 20
"""Read size. Large enough that splitting dominates system calls, small enough to be
irrelevant next to the index writer's heap."""

HUGE_LINE = 32 << 20
"""A line longer than this is not parsed (docs/format.md §15 reports 15 MB lines; a fault
archive holds a 20 MB one, which is still parsed whole)."""

HUGE_HEAD = 256 << 10
"""How much of a huge line is kept, so that it can still be indexed by its head."""

# Skip reasons, as counted in `LineStats.skipped` and shown by `ccarchive status`.
BLANK = "blank"
INVALID_JSON = "invalid_json"
INCOMPLETE_LAST_LINE = "incomplete_last_line"
NOT_AN_OBJECT = "not_an_object"
NESTED_TOO_DEEP = "nested_too_deep"
NUMBER_OUT_OF_RANGE = "number_out_of_range"
# Counted, but the line is kept:
INVALID_UTF8 = "invalid_utf8"
LONE_SURROGATE = "lone_surrogate"
GLUED = "glued"
HUGE = "huge_line"
BOM = "byte_order_mark"
TOO_MANY_OBJECTS = "too_many_objects"

GLUED_CAP = 16
"""Objects one line yields at most (an entry id tells 16 apart: `schema.block_of`); the
rest of a line that glues more is skipped and counted, so that one line of 400,000 tiny
objects costs only itself."""

_BOM = b"\xef\xbb\xbf"

_INT_MIN, _INT_MAX = -(1 << 63), (1 << 64) - 1
"""The integers orjson reads as integers (i64 and u64); larger ones become floats, and
those beyond a float's range are refused."""


class _OutOfRange(ValueError):
    """A number the fast parser refuses; the slow one refuses it too."""


def _parse_int(text: str) -> int | float:
    if len(text) > 400:  # beyond a float's range (and int() refuses 4,300 digits)
        raise _OutOfRange(text[:20])
    value = int(text)
    if _INT_MIN <= value <= _INT_MAX:
        return value
    return _parse_float(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _OutOfRange(text[:20])
    return value


def _parse_constant(name: str) -> float:
    raise _OutOfRange(name)  # NaN, Infinity, -Infinity: not JSON


_TOO_DEEP = "depth limit exceeded"
"""How orjson says a line is nested deeper than it reads (1,024 levels)."""

_decoder = json.JSONDecoder(
    parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
)


@dataclass(slots=True)
class HugeLine:
    """A line too long to parse: its length and its first bytes."""

    head: bytes
    length: int


@dataclass(slots=True)
class LineStats:
    """What a read saw; `skipped` and `repaired` are counted by reason."""

    lines: int = 0
    objects: int = 0
    skipped: Counter[str] | None = None
    repaired: Counter[str] | None = None

    def skip(self, reason: str, n: int = 1) -> None:
        if self.skipped is None:
            self.skipped = Counter()
        self.skipped[reason] += n

    def repair(self, reason: str, n: int = 1) -> None:
        if self.repaired is None:
            self.repaired = Counter()
        self.repaired[reason] += n


def iter_raw_lines(
    f: BinaryIO, start: int, end: int | None = None
) -> Iterator[tuple[int, bytes | HugeLine]]:
    """Yield `(offset, line)` for every complete (newline-terminated) line from `start`.

    A trailing piece without a newline is not yielded: it is either being written right
    now (a live file) or was torn by a crash. The caller's checkpoint stays before it, so
    it is read again, whole, once its newline arrives.

    Args:
        f: a file opened in binary mode.
        start: byte offset to start at; must be the start of a line.
        end: stop at this offset (the size seen when the read began), so that bytes
            appended during the read wait for the next pass instead of racing it.
    """
    f.seek(start)
    pos = start
    carry: list[bytes] = []
    carry_len = 0
    huge: HugeLine | None = None
    remaining = None if end is None else max(0, end - start)
    while remaining is None or remaining > 0:
        size = CHUNK if remaining is None else min(CHUNK, remaining)
        chunk = f.read(size)
        if not chunk:
            break
        if remaining is not None:
            remaining -= len(chunk)
        parts = chunk.split(b"\n")
        last = parts.pop()
        for i, part in enumerate(parts):
            if i == 0 and (carry or huge is not None):
                if huge is not None:
                    huge.length += len(part)
                    line: bytes | HugeLine = huge
                    length = huge.length
                    huge = None
                else:
                    carry.append(part)
                    line = b"".join(carry)
                    length = len(line)
                carry, carry_len = [], 0
            else:
                line, length = part, len(part)
            yield pos, line
            pos += length + 1
        if last:
            if huge is not None:
                huge.length += len(last)
            elif carry_len + len(last) > HUGE_LINE:
                head = b"".join([*carry, last])[:HUGE_HEAD]
                huge = HugeLine(head=head, length=carry_len + len(last))
                carry, carry_len = [], 0
            else:
                carry.append(last)
                carry_len += len(last)


def decode_line(line: bytes, stats: LineStats) -> list[dict[str, Any]]:
    """Parse one line into the JSON objects it holds (usually one).

    Returns an empty list for a line that holds nothing usable, after counting why.
    Invalid UTF-8 is replaced (U+FFFD) rather than losing the line; a UTF-8 byte order
    mark before it (an editor saved the file) is dropped rather than losing the line; two
    or more objects glued on one line are returned, up to `GLUED_CAP`.
    """
    stats.lines += 1
    if line.startswith(_BOM):
        line = line[3:]
        stats.repair(BOM)
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith(_TOO_DEEP):  # the slow parser's limit is the stack's
            stats.skip(NESTED_TOO_DEEP)
            return []
        return _decode_slow(line, stats)
    if isinstance(obj, dict):
        stats.objects += 1
        return [obj]
    stats.skip(NOT_AN_OBJECT)
    return []


def _decode_slow(line: bytes, stats: LineStats) -> list[dict[str, Any]]:
    """The rare paths: blank, invalid UTF-8, glued objects, or plain broken JSON."""
    if not line.strip():
        stats.skip(BLANK)
        return []
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
        try:
            obj = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        else:
            if isinstance(obj, dict):
                stats.repair(INVALID_UTF8)
                stats.objects += 1
                return [obj]
            stats.skip(NOT_AN_OBJECT)
            return []
    objects: list[dict[str, Any]] = []
    idx, n = 0, len(text)
    try:
        while idx < n:
            while idx < n and text[idx] in " \t\r":
                idx += 1
            if idx >= n:
                break
            obj, idx = _decoder.raw_decode(text, idx)
            if not isinstance(obj, dict):
                raise ValueError("not an object")
            objects.append(obj)
    except RecursionError:  # Python's parser stops below orjson's 1,024 levels
        stats.skip(NESTED_TOO_DEEP)
        return []
    except _OutOfRange:
        stats.skip(NUMBER_OUT_OF_RANGE)
        return []
    except ValueError:
        stats.skip(INVALID_JSON)
        return []
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):
        try:
            repaired = [_no_lone_surrogates(o) for o in objects]
        except RecursionError:
            stats.skip(NESTED_TOO_DEEP)
            return []
        if repaired != objects:
            objects = repaired
            stats.repair(LONE_SURROGATE)
    if len(objects) > GLUED_CAP:
        stats.skip(TOO_MANY_OBJECTS, len(objects) - GLUED_CAP)
        del objects[GLUED_CAP:]
    if len(objects) > 1:
        stats.repair(GLUED, len(objects) - 1)
    if "\ufffd" in text and objects:
        stats.repair(INVALID_UTF8)
    stats.objects += len(objects)
    return objects


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A surrogate escape somewhere in the line: rare, and the only way one gets in."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def _no_lone_surrogates(value: Any) -> Any:
    """`value` with every string's lone surrogates replaced by U+FFFD (escaped pairs were
    already joined by the parser into one character); keys too."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_no_lone_surrogates(k): _no_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_lone_surrogates(v) for v in value]
    return value
