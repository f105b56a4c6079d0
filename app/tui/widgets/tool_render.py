"""Tool calls as a person reads them: one line that says what the call did, and a body.

The one-line summary names the thing that tells two calls apart: a Grep's pattern (its
path after it), a Bash command (its description after it), an Edit's file with the lines
it added and removed, a TodoWrite's progress. Paths are cut in the middle, never losing
the file name. Unfolded, an Edit is a coloured diff of its old and new text and a
TodoWrite a checklist.

The one line's parts and the structured `input` they are best drawn from come from the
service (`ccarchive.service.tool_calls`); this module draws them.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from rich.console import RenderableType
from rich.padding import Padding
from rich.text import Text

from ccarchive.service.models import Entry
from ccarchive.service.tool_calls import (
    EDIT_TOOLS,
    SUBAGENT_TOOLS,
    edit_pairs,
    fit_path,
    one_line,
    todo_items,
    tool_line,
)
from ccarchive.text import clip
from ccarchive.tui.widgets.entry_theme import EntryTheme

TODO_MARKS = {"completed": "☑", "in_progress": "◐", "pending": "☐"}
"""A todo's status as its checkbox."""
BODY_MAX_LINES = 400
"""An unfolded body stops here (the whole input is in the export)."""


def tool_summary(
    entry: Entry, width: int, theme: EntryTheme, inp: dict[str, Any] | None = None
) -> Text:
    """`Grep(print_table) · in …/tally/src`: a tool call on one line, at most `width`.

    The main argument gets the room first (it is what tells two calls apart; a path
    leaves a third to its detail, as it is cut on the left and keeps its file name),
    then the place and the detail get what is left.
    """
    line = tool_line(entry, inp)
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(line.name, theme.subagent if line.name in SUBAGENT_TOOLS else theme.tool)
    room = max(10, width - len(line.name) - 2)
    rest = (len(line.where) + 6 if line.where else 0) + (len(line.detail) + 3 if line.detail else 0)
    main_w = room - min(rest, room // 3) if line.main_is_path else room
    if line.main:
        out.append("(", theme.dim)
        out.append(
            fit_path(line.main, main_w) if line.main_is_path else clip(line.main, main_w),
            theme.tool_arg,
        )
        out.append(")", theme.dim)
    if line.where and width - out.cell_len - 6 >= 8:
        out.append(" · in " + fit_path(line.where, width - out.cell_len - 6), theme.dim)
    if line.detail and width - out.cell_len - 3 >= 6:
        out.append(" · " + clip(line.detail, width - out.cell_len - 3), theme.dim)
    return out


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
        style = (
            theme.diff_add
            if row.startswith("+")
            else theme.diff_remove
            if row.startswith("-")
            else theme.dim
        )
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
        style = (
            theme.dim
            if status == "completed"
            else theme.tool
            if status == "in_progress"
            else theme.tool_arg
        )
        out.append(f"{mark} ", style)
        out.append(one_line(t.get("content", "")) + "\n", style)
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


def tool_body(entry: Entry, inp: dict[str, Any] | None, theme: EntryTheme) -> RenderableType | None:
    """What an unfolded call shows under its line, or None to show its indexed text."""
    name = entry.tool
    if name == "TodoWrite":
        items = todo_items(entry, inp)
        return _checklist(items, theme) if items is not None else None
    if inp is None:
        return None
    if name in EDIT_TOOLS and edit_pairs(inp):
        parts = Text(one_line(inp.get("file_path", "")) + "\n", theme.dim)
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
            return [
                Padding(body, (0, 0, 0, indent)),
                Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, indent)),
            ]
    return [Padding(body, (0, 0, 0, indent))]
