"""Tool calls as a person reads them: one line that says what the call did, and a body.

The one-line summary names the thing that tells two calls apart: a Grep's pattern (its
path after it), a Bash command (its description after it), an Edit's file with the lines
it added and removed, a TodoWrite's progress. Paths are cut in the middle, never losing
the file name. Unfolded, an Edit is a coloured diff of its old and new text and a
TodoWrite a checklist.

The best picture needs the call's structured `input` (`ccarchive.tui.tool_input` reads it
back); without it (the live tail, a session gone from disk) the indexed text is read
with the order `ccarchive.archive.records.tool_input_text` writes it in.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text

from ccarchive.service.models import Entry
from ccarchive.tui.widgets.entry_theme import EntryTheme

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Tool calls that spawn a subagent (its transcript opens from the call)."""
EDIT_TOOLS = frozenset({"Edit", "MultiEdit"})
TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
"""A todo's status as its checkbox."""
PATH_MAIN_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "LS"})
"""Tools whose main argument is a file path (cut in the middle when too long)."""
BODY_MAX_LINES = 400
"""An unfolded body stops here (the whole input is in the export)."""


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
    path = _one(path)
    if len(path) <= width:
        return path
    width = max(width, 5)
    head, sep, name = path.rpartition("/")
    if len(name) + 2 > width:
        if len(name) <= width:
            return name
        back = (width - 1) * 2 // 3
        return name[: width - 1 - back] + "…" + name[len(name) - back:]
    tail = name
    for part in reversed(head.split("/") if sep else []):
        if len(part) + 1 + len(tail) + 2 > width:
            break
        tail = f"{part}/{tail}"
    return f"…/{tail}"


def _one(text: str) -> str:
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
        return [(str(e.get("old_string") or ""), str(e.get("new_string") or ""))
                for e in edits if isinstance(e, dict)]
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
    detail = f"◐ {_one(current.get('content', ''))}" if current else ""
    return ToolLine("TodoWrite", f"{done}/{len(items)} done", detail)


def _from_input(name: str, inp: dict[str, Any]) -> ToolLine | None:
    def s(key: str) -> str:
        v = inp.get(key)
        return _one(v) if isinstance(v, str | int | float) and v != "" else ""

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
            detail = f"lines {start}–{start + int(inp['limit']) - 1}" if s("limit") \
                else f"from line {start}"
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


def tool_summary(entry: Entry, width: int, theme: EntryTheme,
                 inp: dict[str, Any] | None = None) -> Text:
    """`Grep(print_table) · in …/tally/src`: a tool call on one line, at most `width`.

    The main argument gets the room first (it is what tells two calls apart; a path
    leaves a third to its detail, as it is cut on the left and keeps its file name),
    then the place and the detail get what is left.
    """
    line = tool_line(entry, inp)
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(line.name, theme.subagent if line.name in SUBAGENT_TOOLS else theme.tool)
    room = max(10, width - len(line.name) - 2)
    rest = (len(line.where) + 6 if line.where else 0) + (len(line.detail) + 3
                                                          if line.detail else 0)
    main_w = room - min(rest, room // 3) if line.main_is_path else room
    if line.main:
        out.append("(", theme.dim)
        out.append(fit_path(line.main, main_w) if line.main_is_path
                   else _cut(line.main, main_w), theme.tool_arg)
        out.append(")", theme.dim)
    if line.where and width - out.cell_len - 6 >= 8:
        out.append(" · in " + fit_path(line.where, width - out.cell_len - 6), theme.dim)
    if line.detail and width - out.cell_len - 3 >= 6:
        out.append(" · " + _cut(line.detail, width - out.cell_len - 3), theme.dim)
    return out


def _cut(text: str, width: int) -> str:
    text = _one(text)
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def diff_lines(old: str, new: str, theme: EntryTheme) -> Text:
    """A unified diff of `old` -> `new`, coloured; hunks are parted by `⋯` (an Edit's
    texts are fragments of a file, so hunk line numbers would mean nothing)."""
    out = Text()
    rows = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3))
    for row in rows[2:]:
        if row.startswith("@@"):
            if out:
                out.append("⋯\n", theme.dim)
            continue
        style = theme.diff_add if row.startswith("+") else \
            theme.diff_remove if row.startswith("-") else theme.dim
        out.append(row or " ", style)
        out.append("\n")
    if not rows:
        out.append("(no change)\n", theme.dim)
    out.rstrip()
    return out


def _checklist(items: list[dict[str, Any]], theme: EntryTheme) -> Text:
    out = Text()
    for t in items:
        status = str(t.get("status") or "pending")
        mark = TODO_MARKS.get(status, "☐")
        style = theme.dim if status == "completed" else \
            theme.tool if status == "in_progress" else theme.tool_arg
        out.append(f"{mark} ", style)
        out.append(_one(t.get("content", "")) + "\n", style)
    out.rstrip()
    return out


def _fields(inp: dict[str, Any], theme: EntryTheme) -> Text:
    """Any other input as `key: value` lines (long texts below their key)."""
    out = Text()
    for key, value in inp.items():
        out.append(f"{key}: ", theme.dim)
        if isinstance(value, str) and "\n" in value:
            out.append("\n" + value.strip("\n") + "\n", theme.tool_arg)
        elif isinstance(value, str):
            out.append(value + "\n", theme.tool_arg)
        else:
            out.append(json.dumps(value, ensure_ascii=False) + "\n", theme.tool_arg)
    out.rstrip()
    return out


def tool_body(entry: Entry, inp: dict[str, Any] | None,
              theme: EntryTheme) -> RenderableType | None:
    """What an unfolded call shows under its line, or None to show its indexed text."""
    name = entry.tool
    if name == "TodoWrite":
        items = todo_items(entry, inp)
        return _checklist(items, theme) if items is not None else None
    if inp is None:
        return None
    if name in EDIT_TOOLS and edit_pairs(inp):
        parts = Text(_one(inp.get("file_path", "")) + "\n", theme.dim)
        for i, (old, new) in enumerate(edit_pairs(inp)):
            if i:
                parts.append("\n──\n", theme.dim)
            parts.append_text(diff_lines(old, new, theme))
        return parts
    if name == "Bash":
        out = Text("$ ", theme.dim)
        out.append(str(inp.get("command", "")).strip("\n"), theme.tool_arg)
        rest = {k: v for k, v in inp.items() if k not in ("command", "description")}
        if rest:
            out.append("\n")
            out.append_text(_fields(rest, theme))
        return out
    return _fields(inp, theme)


def capped(body: RenderableType, theme: EntryTheme, indent: int) -> list[RenderableType]:
    """A body padded by `indent`, cut at `BODY_MAX_LINES` with a "… N more lines" mark."""
    if isinstance(body, Text):
        lines = body.split("\n", allow_blank=True)
        if len(lines) > BODY_MAX_LINES:
            cut = len(lines) - BODY_MAX_LINES
            body = Text("\n").join(lines[:BODY_MAX_LINES])
            return [Padding(body, (0, 0, 0, indent)),
                    Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, indent))]
    return [Padding(body, (0, 0, 0, indent))]
