"""Tool calls as a person reads them: their input read back, and the line that says what
each did.

The index keeps a tool call as a few lines of text (name, description, command or path,
then long inputs; see `ccarchive.archive.record_text.tool_input_text`): enough to search,
not enough to show what the call did. An Edit's old text is not in it, a Grep's pattern
and path are two unlabelled lines, a TodoWrite is capped JSON. Replay reads the call's
`input` object back from the archive line the index points at (one `pread` per line),
only for the tools whose picture needs it, and redacts it as the service redacts texts.

This runs in the replay's page worker thread, never while drawing. A line that is gone,
too long, rewritten or not the call any more gives no input: the entry is then drawn
from its indexed text, as before.

The one-line summary (`tool_line`) names the thing that tells two calls apart: a Grep's
pattern (its path after it), a Bash command (its description after it), an Edit's file
with the lines it added and removed, a TodoWrite's progress. Without the input (the live
tail, a session gone from disk) the indexed text is read with the order
`ccarchive.archive.record_text.tool_input_text` writes it in. Replay draws it, `ccarchive show`
prints it (`tool_summaries`).
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ccarchive.archive.lines import LineStats, decode_line
from ccarchive.archive.safe_read import line_at, open_file
from ccarchive.redact import redact_value

if TYPE_CHECKING:
    from ccarchive.service.models import Entry

INPUT_TOOLS = frozenset(
    {
        "Edit",
        "MultiEdit",
        "Grep",
        "Glob",
        "TodoWrite",
        "Bash",
        "Task",
        "Agent",
        "WebFetch",
        "WebSearch",
        "NotebookEdit",
        "Read",
    }
)
"""Tools whose one-line summary or unfolded body is drawn from their input."""
MAX_LINE_BYTES = 4 << 20
"""Longer source lines are not read back (a call's input is rarely more than a few kB)."""
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Tool calls that spawn a subagent (its transcript opens from the call)."""
EDIT_TOOLS = frozenset({"Edit", "MultiEdit"})
PATH_MAIN_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "LS"})
"""Tools whose main argument is a file path (cut in the middle when too long)."""


def _tool_use(obj: dict[str, Any], tool_use_id: str) -> dict[str, Any] | None:
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if not isinstance(content, list):
        return None
    for block in content:
        if (
            isinstance(block, dict)
            and block.get("type") == "tool_use"
            and block.get("id") == tool_use_id
        ):
            data = block.get("input")
            return data if isinstance(data, dict) else None
    return None


def read_tool_inputs(
    root: Path,
    entries: list[Entry],
    *,
    redact: bool = True,
    identity: Callable[[str], tuple[int, int] | None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Entry id -> the `input` object of each tool call among `entries` that needs one.

    Args:
        root: the archive root (entries' paths are relative to it).
        entries: a page of transcript entries (other kinds are skipped).
        redact: redact credentials in every string of the inputs.
        identity: the (device, inode) each path was indexed as: a file found in its
            place since is not read (`ArchiveService.indexed_identity`).
    """
    out: dict[str, dict[str, Any]] = {}
    lines: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    fds: dict[str, int] = {}  # one open file per transcript, not one per call
    try:
        for e in entries:
            if (
                e.kind != "tool_call"
                or e.tool not in INPUT_TOOLS
                or not e.tool_use_id
                or not e.path
                or not 0 < e.length <= MAX_LINE_BYTES
            ):
                continue
            key = (e.path, e.offset, e.length)
            objs = lines.get(key)
            if objs is None:
                objs = lines[key] = _read_line(root, e, fds, identity)
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


def _read_line(
    root: Path,
    e: Entry,
    fds: dict[str, int],
    identity: Callable[[str], tuple[int, int] | None] | None,
) -> list[dict[str, Any]]:
    """The objects of an entry's source line, opened and checked as every read back is
    (`archive.safe_read`: never out of the archive, the file indexed, the span still a
    line); [] if not."""
    fd = fds.get(e.path)
    if fd is None:
        try:
            fd = open_file(root, e.path, identity(e.path) if identity else None)
        except OSError:  # gone, refused (a link) or replaced: drawn from the index
            fd = -1
        fds[e.path] = fd
    if fd < 0:
        return []
    try:
        return decode_line(line_at(fd, e.path, e.offset, e.length), LineStats())
    except OSError:
        return []


def tool_summaries(entries: list[Entry], inputs: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Entry id -> the one-line summary of each tool call among `entries`, as replay shows
    it (`inputs`: what `read_tool_inputs` read back for them)."""
    out = {}
    for e in entries:
        if e.kind != "tool_call":
            continue
        line = tool_line(e, inputs.get(e.id))
        parts = [" ".join(line.main.split())]
        if line.where:
            parts.append(f"in {line.where}")
        if line.detail:
            parts.append(" ".join(line.detail.split()))
        out[e.id] = " · ".join(p for p in parts if p)
    return out


@dataclass(frozen=True)
class ToolLine:
    """What a tool call's one line says: its name, main argument and a detail."""

    name: str
    main: str = ""
    detail: str = ""
    main_is_path: bool = False
    where: str = ""
    """A path the call looked in (a Grep's or Glob's), shown as `in <path>`."""


def fit_path(path: str, width: int) -> str:
    """`path` in at most `width` cells, cut on the left: the file name stays whole (unless
    it alone is too long: then its middle goes), with as many parent folders as fit."""
    path = one_line(path)
    if len(path) <= width:
        return path
    width = max(width, 5)
    head, sep, name = path.rpartition("/")
    if len(name) + 2 > width:
        if len(name) <= width:
            return name
        back = (width - 1) * 2 // 3
        return name[: width - 1 - back] + "…" + name[len(name) - back :]
    tail = name
    for part in reversed(head.split("/") if sep else []):
        if len(part) + 1 + len(tail) + 2 > width:
            break
        tail = f"{part}/{tail}"
    return f"…/{tail}"


def one_line(text: str) -> str:
    """Whitespace folded to single spaces."""
    return " ".join(str(text).split())


def _counts(inp: dict[str, Any]) -> tuple[int, int]:
    """Lines added and removed by an Edit or MultiEdit."""
    added = removed = 0
    for old, new in edit_pairs(inp):
        for ln in difflib.ndiff(old.splitlines(), new.splitlines()):
            added += ln.startswith("+ ")
            removed += ln.startswith("- ")
    return added, removed


def edit_pairs(inp: dict[str, Any]) -> list[tuple[str, str]]:
    """(old, new) texts of an Edit or of each edit of a MultiEdit."""
    edits = inp.get("edits")
    if isinstance(edits, list):
        return [
            (str(e.get("old_string") or ""), str(e.get("new_string") or ""))
            for e in edits
            if isinstance(e, dict)
        ]
    if "old_string" in inp or "new_string" in inp:
        return [(str(inp.get("old_string") or ""), str(inp.get("new_string") or ""))]
    return []


def todo_items(entry: Entry, inp: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """A TodoWrite's items, from its input or, failing that, its indexed JSON."""
    todos = inp.get("todos") if inp else None
    if todos is None:
        _, _, rest = entry.text.partition("\n")
        try:
            todos = json.loads(rest)
        except ValueError:
            return None
    if not isinstance(todos, list):
        return None
    return [t for t in todos if isinstance(t, dict)]


def _todo_line(items: list[dict[str, Any]]) -> ToolLine:
    done = sum(t.get("status") == "completed" for t in items)
    current = next((t for t in items if t.get("status") == "in_progress"), None)
    detail = f"◐ {one_line(current.get('content', ''))}" if current else ""
    return ToolLine("TodoWrite", f"{done}/{len(items)} done", detail)


def _from_input(name: str, inp: dict[str, Any]) -> ToolLine | None:
    def s(key: str) -> str:
        v = inp.get(key)
        return one_line(str(v)) if isinstance(v, str | int | float) and v != "" else ""

    if name == "Bash":
        return ToolLine(name, s("command"), s("description"))
    if name in ("Grep", "Glob"):
        detail = " · ".join(f"{k} {s(k)}" for k in ("glob", "type") if s(k))
        return ToolLine(name, s("pattern"), detail, where=s("path"))
    if name in EDIT_TOOLS:
        added, removed = _counts(inp)
        detail = f"+{added} −{removed}"
        if name == "MultiEdit":
            detail = f"{len(edit_pairs(inp))} edits · {detail}"
        if inp.get("replace_all"):
            detail += " · all occurrences"
        return ToolLine(name, s("file_path"), detail, main_is_path=True)
    if name == "Read":
        detail = ""
        if s("offset") or s("limit"):
            start = int(inp.get("offset") or 1)
            detail = (
                f"lines {start}–{start + int(inp['limit']) - 1}"
                if s("limit")
                else f"from line {start}"
            )
        return ToolLine(name, s("file_path"), detail, main_is_path=True)
    if name == "NotebookEdit":
        return ToolLine(name, s("notebook_path"), s("edit_mode"), main_is_path=True)
    if name in SUBAGENT_TOOLS:
        return ToolLine(name, s("description"), s("subagent_type"))
    if name == "WebFetch":
        return ToolLine(name, s("url"), s("prompt"))
    if name == "WebSearch":
        return ToolLine(name, s("query"))
    return None


def tool_line(entry: Entry, inp: dict[str, Any] | None = None) -> ToolLine:
    """The one-line parts of a tool call: from its input when there is one."""
    lines = entry.text.split("\n")
    name = entry.tool or (lines[0] if lines else "")
    if name == "TodoWrite":
        items = todo_items(entry, inp)
        if items is not None:
            return _todo_line(items)
    if inp is not None:
        line = _from_input(name, inp)
        if line is not None:
            return line
    args = [ln for ln in lines[1:] if ln.strip()]
    if not args:
        return ToolLine(name)
    if name == "Bash" and len(args) >= 2:
        return ToolLine(name, args[1], args[0])
    if name in ("Grep", "Glob"):  # indexed as [path,] pattern
        if len(args) >= 2 and args[0] in entry.files:
            return ToolLine(name, args[1], where=args[0])
        return ToolLine(name, args[0])
    if name in SUBAGENT_TOOLS:
        return ToolLine(name, args[0], args[1] if len(args) > 1 and len(args[1]) < 60 else "")
    if name == "WebFetch":
        return ToolLine(name, args[0], args[1] if len(args) > 1 else "")
    return ToolLine(name, args[0], "", main_is_path=name in PATH_MAIN_TOOLS)
