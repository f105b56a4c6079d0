"""The structured input of tool calls, read back from their source lines for replay.

The index keeps a tool call as a few lines of text (name, description, command or path,
then long inputs; see `ccarchive.archive.records.tool_input_text`): enough to search,
not enough to show what the call did. An Edit's old text is not in it, a Grep's pattern
and path are two unlabelled lines, a TodoWrite is capped JSON. Replay reads the call's
`input` object back from the archive line the index points at (one `pread` per line),
only for the tools whose picture needs it, and redacts it as the service redacts texts.

This runs in the replay's page worker thread, never while drawing. A line that is gone,
too long, rewritten or not the call any more gives no input: the entry is then drawn
from its indexed text, as before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ccarchive.archive.lines import LineStats, decode_line
from ccarchive.archive.safe_read import line_at, open_file
from ccarchive.redact import redact_value
from ccarchive.service.models import Entry

INPUT_TOOLS = frozenset({"Edit", "MultiEdit", "Grep", "Glob", "TodoWrite", "Bash", "Task",
                         "Agent", "WebFetch", "WebSearch", "NotebookEdit", "Read"})
"""Tools whose one-line summary or unfolded body is drawn from their input."""
MAX_LINE_BYTES = 4 << 20
"""Longer source lines are not read back (a call's input is rarely more than a few kB)."""


def _tool_use(obj: dict[str, Any], tool_use_id: str) -> dict[str, Any] | None:
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, list):
        return None
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_use" \
                and block.get("id") == tool_use_id:
            data = block.get("input")
            return data if isinstance(data, dict) else None
    return None


def read_tool_inputs(root: Path, entries: list[Entry], *,
                     redact: bool = True) -> dict[str, dict[str, Any]]:
    """Entry id -> the `input` object of each tool call among `entries` that needs one.

    Args:
        root: the archive root (entries' paths are relative to it).
        entries: a page of transcript entries (other kinds are skipped).
        redact: redact credentials in every string of the inputs.
    """
    out: dict[str, dict[str, Any]] = {}
    lines: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    fds: dict[str, int] = {}  # one open file per transcript, not one per call
    try:
        for e in entries:
            if e.kind != "tool_call" or e.tool not in INPUT_TOOLS or not e.tool_use_id \
                    or not e.path or not 0 < e.length <= MAX_LINE_BYTES:
                continue
            key = (e.path, e.offset, e.length)
            objs = lines.get(key)
            if objs is None:
                objs = lines[key] = _read_line(root, e, fds)
            for obj in objs:
                data = _tool_use(obj, e.tool_use_id)
                if data is not None:
                    out[e.id] = redact_value(data) if redact else data
                    break
    finally:
        for fd in fds.values():
            if fd >= 0:
                os.close(fd)
    return out


def _read_line(root: Path, e: Entry, fds: dict[str, int]) -> list[dict[str, Any]]:
    """The objects of an entry's source line, opened and checked as every read back is
    (`archive.safe_read`: never out of the archive, the span still a line); [] if not."""
    fd = fds.get(e.path)
    if fd is None:
        try:
            fd = open_file(root, e.path)
        except OSError:  # gone, or refused (a symbolic link): drawn from the index
            fd = -1
        fds[e.path] = fd
    if fd < 0:
        return []
    try:
        return decode_line(line_at(fd, e.path, e.offset, e.length), LineStats())
    except OSError:
        return []


def service_tool_inputs(service: object, entries: list[Entry]) -> dict[str, dict[str, Any]]:
    """`read_tool_inputs` with the archive root and redaction setting of a service."""
    root = getattr(service, "root", None)
    if root is None:
        return {}
    return read_tool_inputs(Path(root), entries,
                            redact=bool(getattr(service, "redact_secrets", True)))


def tool_summaries(svc: Any, entries: list[Any]) -> dict[str, str]:
    """Entry id -> the one-line summary of each tool call, as replay shows it (its input
    read back from the archive where the index keeps too little of it), for `ccarchive show`."""
    from ccarchive.tui.widgets.tool_render import tool_line

    calls = [e for e in entries if e.kind == "tool_call"]
    inputs = service_tool_inputs(svc, calls) if calls else {}
    out = {}
    for e in calls:
        line = tool_line(e, inputs.get(e.id))
        parts = [" ".join(line.main.split())]
        if line.where:
            parts.append(f"in {line.where}")
        if line.detail:
            parts.append(" ".join(line.detail.split()))
        out[e.id] = " · ".join(p for p in parts if p)
    return out
