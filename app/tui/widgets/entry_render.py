"""Render one transcript entry as Rich renderables: shared by replay and the live tail.

A transcript reads like the conversation it was: the user's prompts stand out, the
assistant's prose is Markdown with highlighted code, tool calls are one line each (the
way Claude Code prints them) and open up to their input and result, thinking is folded,
and compaction boundaries, rewinds and errors are marked.

Nothing here touches a widget: `render_entry` returns a renderable that any widget can
print (a `Static`, a `RichLog`, or `TranscriptView`, which cuts it into strips). Colours
come in an `EntryTheme`; views build one from their component classes so the look stays
in `styles/*.tcss`, and `EntryTheme()` gives sensible defaults for a dark terminal.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.rule import Rule
from rich.style import Style
from rich.text import Text

from ccarchive.service.models import Entry
from ccarchive.service.tool_calls import SUBAGENT_TOOLS, edit_pairs, todo_items, tool_line
from ccarchive.text import clip
from ccarchive.tui.widgets.entry_theme import DEFAULT_THEME, EntryTheme
from ccarchive.tui.widgets.tool_render import capped, diff_lines, tool_body, tool_summary

RESULT_PREVIEW_CHARS = 90
"""A folded tool result shows this much of its first line."""

EXPANDED_MAX_LINES = 400
"""An expanded text stops here with a "… N more lines" marker: one entry must never
cost thousands of strips (the whole text is in the export and in `ccarchive show`)."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_TAGS = re.compile(
    r"</?(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr|"
    r"command-name|command-message|command-args|system-reminder)>"
)


def clean(text: str) -> str:
    """Text as a person reads it: no terminal escapes, no wrapper tags."""
    return _TAGS.sub("", _ANSI.sub("", text))


def one_line(text: str, width: int) -> str:
    flat = " ".join(clean(text).split())
    return clip(flat, width)


def result_summary(entry: Entry) -> str:
    """`12 lines · first line…` for a folded tool result."""
    text = clean(entry.text).strip("\n")
    if not text.strip():
        return "(no output)"
    first = next((ln for ln in text.split("\n") if ln.strip()), "")
    total_lines = text.count("\n") + 1
    size = f"{total_lines} lines · " if total_lines > 1 else ""
    if entry.truncated:
        size = f"{entry.text_len:,} chars · "
    return size + one_line(first, RESULT_PREVIEW_CHARS)


def _time(entry: Entry) -> str:
    ts = entry.timestamp
    return ts.astimezone().strftime("%H:%M:%S") if isinstance(ts, datetime) else ""


def _cap_lines(text: str, limit: int = EXPANDED_MAX_LINES) -> tuple[str, int]:
    lines = text.split("\n")
    if len(lines) <= limit:
        return text, 0
    return "\n".join(lines[:limit]), len(lines) - limit


def _highlighted(text: str, style: Style, terms: tuple[str, ...], theme: EntryTheme) -> Text:
    return _mark_terms(Text(text, style), terms, theme)


def _mark_terms(out: Text, terms: tuple[str, ...], theme: EntryTheme) -> Text:
    for term in terms:
        if len(term) >= 2:
            out.highlight_words([term], theme.match, case_sensitive=False)
    return out


def _flags(entry: Entry, theme: EntryTheme) -> Text:
    out = Text()
    for flag in entry.flags:
        if flag == "rewind":
            out.append(" ↶ rewound", theme.flag)
        elif flag == "error":
            out.append(" ✗ error", theme.error)
        elif flag == "queued":
            out.append(" ⋯ queued", theme.dim)
        elif flag == "compact":
            out.append(" ▼ compacted", theme.flag)
        elif flag != "sidechain":
            out.append(f" [{flag}]", theme.dim)
    return out


def render_entry(
    entry: Entry,
    *,
    expanded: bool = False,
    theme: EntryTheme = DEFAULT_THEME,
    width: int = 100,
    terms: tuple[str, ...] = (),
    show_time: bool = True,
    tool_input: dict[str, Any] | None = None,
) -> RenderableType:
    """One entry as the transcript shows it.

    Args:
        entry: the entry (its text may be capped; `entry.truncated` says so).
        expanded: show a tool call's whole input, a result's whole output, the thinking.
        theme: the styles to draw with.
        width: the width it will be printed at (one-line summaries are cut to it).
        terms: words to highlight (the search that led here).
        show_time: put the entry's time at the end of its first line.
        tool_input: a tool call's structured input, when it was read back
            (`ArchiveService.tool_inputs`): its line and body are drawn from it.

    Returns:
        A Rich renderable.
    """
    kind = entry.kind
    stamp = Text(f"  {_time(entry)}", theme.dim) if show_time and _time(entry) else Text()
    flags = _flags(entry, theme)
    text = clean(entry.text)
    more = (
        Text(
            f"… {entry.text_len - len(entry.text):,} more chars (e: export, or "
            f"ccarchive show {entry.id})",
            theme.dim,
        )
        if entry.truncated
        else None
    )

    if kind == "prompt":
        head = Text.assemble(("❯ ", theme.prompt_mark))
        head.append("subagent task" if entry.role == "agent" else "you", theme.prompt_mark)
        head.append_text(flags)
        head.append_text(stamp)
        body: RenderableType = _highlighted(text.strip("\n"), theme.prompt, terms, theme)
        parts: list[RenderableType] = [head, Padding(body, (0, 0, 0, 2))]
        if more:
            parts.append(Padding(more, (0, 0, 0, 2)))
        return Group(*parts)

    if kind == "assistant":
        head = Text.assemble(("● ", theme.assistant_mark))
        head.append(entry.model or "assistant", theme.assistant_mark)
        head.append_text(flags)
        head.append_text(stamp)
        shown, cut = _cap_lines(text) if not expanded else (text, 0)
        body = Markdown(shown, code_theme=theme.code_theme, inline_code_theme=theme.code_theme)
        parts = [head, Padding(body, (0, 0, 0, 2))]
        if cut:
            parts.append(Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, 2)))
        if more:
            parts.append(Padding(more, (0, 0, 0, 2)))
        return Group(*parts)

    if kind == "thinking":
        if not expanded:
            line = Text.assemble(("∴ Thinking… ", theme.thinking))
            line.append(f"({entry.text_len:,} chars, Enter to unfold)", theme.dim)
            line.append_text(stamp)
            return line
        shown, cut = _cap_lines(text)
        parts = [
            Text.assemble(("∴ Thinking", theme.thinking), stamp),
            Padding(_highlighted(shown, theme.thinking, terms, theme), (0, 0, 0, 2)),
        ]
        if cut:
            parts.append(Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, 2)))
        return Group(*parts)

    if kind == "tool_call":
        is_agent = entry.tool in SUBAGENT_TOOLS
        mark = "◈ " if is_agent else "▾ " if expanded else "▸ "
        line = Text.assemble((mark, theme.subagent if is_agent else theme.tool))
        hint = Text("  o: open subagent", theme.dim) if entry.subagent_id else Text()
        room = width - 2 - stamp.cell_len - hint.cell_len - flags.cell_len
        line.append_text(tool_summary(entry, max(12, room), theme, tool_input))
        line.append_text(hint)
        line.append_text(flags)
        line.truncate(max(10, width - stamp.cell_len), overflow="ellipsis")
        line.append_text(stamp)
        line.no_wrap = True
        if not expanded:
            return line
        drawn = tool_body(entry, tool_input, theme)
        from_text = drawn is None
        if drawn is None:
            args = "\n".join(entry.text.split("\n")[1:])
            drawn = Text(clean(args).strip("\n"), theme.tool_arg)
        if isinstance(drawn, Text):
            _mark_terms(drawn, terms, theme)
        parts = [line, *capped(drawn, theme, 4)]
        if more and from_text:
            parts.append(Padding(more, (0, 0, 0, 4)))
        return Group(*parts)

    if kind == "tool_result":
        style = theme.error if "error" in entry.flags else theme.dim
        if not expanded:
            line = Text.assemble(("  └ ", theme.dim))
            line.append(result_summary(entry), style)
            line.truncate(width, overflow="ellipsis")
            line.no_wrap = True
            return line
        shown, cut = _cap_lines(text.strip("\n"))
        body = _highlighted(
            shown, Style(color=style.color) if style.color else Style(), terms, theme
        )
        label = "result (error)" if "error" in entry.flags else "result"
        parts = [Text.assemble(("  └ ", theme.dim), (label, style)), Padding(body, (0, 0, 0, 4))]
        if cut:
            parts.append(Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, 4)))
        if more:
            parts.append(Padding(more, (0, 0, 0, 4)))
        return Group(*parts)

    if kind == "summary":
        if "compact" in entry.flags or text.startswith("This session is being continued"):
            title = " conversation compacted: summary "
        else:
            title = " summary "
        rule = Rule(title, style=theme.flag, characters="─")
        if not expanded:
            return Group(rule, Text("  " + one_line(text, width - 4), theme.summary))
        return Group(
            rule, Padding(Markdown(_cap_lines(text)[0], code_theme=theme.code_theme), (0, 0, 0, 2))
        )

    if kind == "event":
        if "compact" in entry.flags:
            return Rule(" compaction boundary: the context was summarised ", style=theme.flag)
        style = theme.error if "error" in entry.flags else theme.dim
        line = Text.assemble(("  · ", theme.dim))
        line.append(one_line(text, width - 16) if not expanded else text.strip(), style)
        line.append_text(stamp)
        if not expanded:
            line.no_wrap = True
            line.overflow = "ellipsis"
        return line

    line = Text.assemble((f"{kind}: ", theme.dim))
    line.append(one_line(text, width) if not expanded else text)
    return line


def _fenced(text: str, lang: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{lang}\n{text}\n{fence}"


def _call_markdown(entry: Entry, tool_input: dict[str, Any] | None, flags: str) -> str:
    line = tool_line(entry, tool_input)
    what = one_line(line.main, 200) + (f" in {line.where}" if line.where else "")
    head = f"**Tool: {line.name}** `{what}`" + (f" · {line.detail}" if line.detail else "")
    items = todo_items(entry, tool_input) if entry.tool == "TodoWrite" else None
    if items is not None:
        body = "\n".join(
            f"- [{'x' if t.get('status') == 'completed' else ' '}] "
            f"{one_line(str(t.get('content', '')), 300)}"
            + (" _(in progress)_" if t.get("status") == "in_progress" else "")
            for t in items
        )
        return f"{head}{flags}\n\n{body}\n"
    if tool_input is not None and edit_pairs(tool_input):
        diff = "\n\n".join(
            diff_lines(old, new, DEFAULT_THEME).plain for old, new in edit_pairs(tool_input)
        )
        body = _fenced(diff, "diff")
    else:
        body = _fenced("\n".join(entry.text.split("\n")[1:]))
    return f"{head}{flags}\n\n<details><summary>input</summary>\n\n{body}\n\n</details>\n"


def entry_markdown(entry: Entry, tool_input: dict[str, Any] | None = None) -> str:
    """One entry as Markdown, for the export (a tool call drawn from its input if given)."""
    text = clean(entry.text).rstrip()
    when = entry.timestamp.isoformat(timespec="seconds") if entry.timestamp else ""
    flags = f" _({', '.join(entry.flags)})_" if entry.flags else ""
    if entry.kind == "prompt":
        quoted = "\n".join("> " + ln for ln in text.split("\n"))
        return (
            f"### 🧑 {'Subagent task' if entry.role == 'agent' else 'User'}"
            f" · {when}{flags}\n\n{quoted}\n"
        )
    if entry.kind == "assistant":
        return f"### 🤖 Assistant · {when}{flags}\n\n{text}\n"
    if entry.kind == "thinking":
        return f"<details><summary>Thinking</summary>\n\n{text}\n\n</details>\n"
    if entry.kind == "tool_call":
        return _call_markdown(entry, tool_input, flags)
    if entry.kind == "tool_result":
        fence = "````" if "```" in text else "```"
        return (
            f"<details><summary>result{' (error)' if 'error' in entry.flags else ''}: "
            f"{_escape_html(result_summary(entry))}</summary>\n\n{fence}\n{text}\n{fence}"
            f"\n\n</details>\n"
        )
    if entry.kind == "summary":
        return f"---\n\n**Summary**\n\n{text}\n\n---\n"
    if entry.kind == "event":
        if "compact" in entry.flags:
            return "---\n\n_Conversation compacted_\n\n---\n"
        return f"_{one_line(text, 300)}_{flags}\n"
    return f"{text}\n"


def _escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
