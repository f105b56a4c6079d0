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
from dataclasses import dataclass, field
from datetime import datetime

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.padding import Padding
from rich.rule import Rule
from rich.style import Style
from rich.text import Text

from ccarchive.service.models import Entry

SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
"""Tool calls that spawn a subagent (its transcript opens from the call)."""

RESULT_PREVIEW_CHARS = 90
"""A folded tool result shows this much of its first line."""

EXPANDED_MAX_LINES = 400
"""An expanded text stops here with a "… N more lines" marker: one entry must never
cost thousands of strips (the whole text is in the export and in `ccarchive show`)."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_TAGS = re.compile(r"</?(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr|"
                   r"command-name|command-message|command-args|system-reminder)>")


@dataclass(frozen=True)
class EntryTheme:
    """The styles an entry is drawn with (views fill it from their component classes)."""

    prompt: Style = field(default_factory=lambda: Style(color="#f0c674", bold=True))
    prompt_mark: Style = field(default_factory=lambda: Style(color="#f0c674", bold=True))
    assistant_mark: Style = field(default_factory=lambda: Style(color="#81a2be", bold=True))
    tool: Style = field(default_factory=lambda: Style(color="#8abeb7", bold=True))
    tool_arg: Style = field(default_factory=lambda: Style(color="#c5c8c6"))
    dim: Style = field(default_factory=lambda: Style(color="#7f848e"))
    thinking: Style = field(default_factory=lambda: Style(color="#8c8c9c", italic=True))
    error: Style = field(default_factory=lambda: Style(color="#e06c75", bold=True))
    flag: Style = field(default_factory=lambda: Style(color="#c678dd", bold=True))
    summary: Style = field(default_factory=lambda: Style(color="#b294bb"))
    subagent: Style = field(default_factory=lambda: Style(color="#c678dd", bold=True))
    match: Style = field(default_factory=lambda: Style(color="#1d1f21", bgcolor="#f0c674",
                                                       bold=True))
    code_theme: str = "monokai"


DEFAULT_THEME = EntryTheme()


def clean(text: str) -> str:
    """Text as a person reads it: no terminal escapes, no wrapper tags."""
    return _TAGS.sub("", _ANSI.sub("", text))


def one_line(text: str, width: int) -> str:
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


def tool_parts(entry: Entry) -> tuple[str, str, str]:
    """(tool name, main argument, description) of a tool call, from its indexed text.

    The indexer writes a call as its name, then (each on its own line when present) the
    description, the command or path or pattern, then the long inputs (see
    `ccarchive.archive.records.tool_input_text`).
    """
    lines = entry.text.split("\n")
    name = entry.tool or (lines[0] if lines else "")
    args = [ln for ln in lines[1:] if ln.strip()]
    if not args:
        return name, "", ""
    if name == "Bash" and len(args) >= 2:
        return name, args[1], args[0]
    if name in SUBAGENT_TOOLS:
        return name, args[0], args[1] if len(args) > 1 and len(args[1]) < 60 else ""
    return name, args[0], ""


def tool_summary(entry: Entry, width: int = 100, theme: EntryTheme = DEFAULT_THEME) -> Text:
    """`Bash(uv run pytest) · run the tests`: a tool call on one line."""
    name, main, desc = tool_parts(entry)
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(name, theme.subagent if name in SUBAGENT_TOOLS else theme.tool)
    if main:
        out.append("(", theme.dim)
        out.append(one_line(main, max(10, width - len(name) - 4)), theme.tool_arg)
        out.append(")", theme.dim)
    if desc:
        out.append(" · " + one_line(desc, 60), theme.dim)
    return out


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
    out = Text(text, style)
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


def render_entry(entry: Entry, *, expanded: bool = False, theme: EntryTheme = DEFAULT_THEME,
                 width: int = 100, terms: tuple[str, ...] = (),
                 show_time: bool = True) -> RenderableType:
    """One entry as the transcript shows it.

    Args:
        entry: the entry (its text may be capped; `entry.truncated` says so).
        expanded: show a tool call's whole input, a result's whole output, the thinking.
        theme: the styles to draw with.
        width: the width it will be printed at (one-line summaries are cut to it).
        terms: words to highlight (the search that led here).
        show_time: put the entry's time at the end of its first line.

    Returns:
        A Rich renderable.
    """
    kind = entry.kind
    stamp = Text(f"  {_time(entry)}", theme.dim) if show_time and _time(entry) else Text()
    flags = _flags(entry, theme)
    text = clean(entry.text)
    more = Text(f"… {entry.text_len - len(entry.text):,} more chars (e: export, or "
                f"ccarchive show {entry.id})", theme.dim) if entry.truncated else None

    if kind == "prompt":
        head = Text.assemble(("❯ ", theme.prompt_mark))
        head.append("subagent task" if entry.role == "agent" else "you", theme.prompt_mark)
        head.append_text(flags)
        head.append_text(stamp)
        body = _highlighted(text.strip("\n"), theme.prompt, terms, theme)
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
        parts = [Text.assemble(("∴ Thinking", theme.thinking), stamp),
                 Padding(_highlighted(shown, theme.thinking, terms, theme), (0, 0, 0, 2))]
        if cut:
            parts.append(Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, 2)))
        return Group(*parts)

    if kind == "tool_call":
        name, _main, _desc = tool_parts(entry)
        line = Text.assemble(("▸ " if name not in SUBAGENT_TOOLS else "◈ ",
                              theme.subagent if name in SUBAGENT_TOOLS else theme.tool))
        line.append_text(tool_summary(entry, width - 14, theme))
        if entry.subagent_id:
            line.append("  o: open subagent", theme.dim)
        line.append_text(flags)
        line.truncate(max(10, width - stamp.cell_len), overflow="ellipsis")
        line.append_text(stamp)
        line.no_wrap = True
        if not expanded:
            return line
        args = "\n".join(entry.text.split("\n")[1:])
        shown, cut = _cap_lines(clean(args))
        parts = [line, Padding(_highlighted(shown, theme.tool_arg, terms, theme), (0, 0, 0, 4))]
        if cut:
            parts.append(Padding(Text(f"… {cut} more lines", theme.dim), (0, 0, 0, 4)))
        if more:
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
        body = _highlighted(shown, Style(color=style.color) if style.color else Style(), terms,
                            theme)
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
        return Group(rule, Padding(Markdown(_cap_lines(text)[0],
                                            code_theme=theme.code_theme), (0, 0, 0, 2)))

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


def entry_markdown(entry: Entry) -> str:
    """One entry as Markdown, for the export."""
    text = clean(entry.text).rstrip()
    when = entry.timestamp.isoformat(timespec="seconds") if entry.timestamp else ""
    flags = f" _({', '.join(entry.flags)})_" if entry.flags else ""
    if entry.kind == "prompt":
        quoted = "\n".join("> " + ln for ln in text.split("\n"))
        return f"### 🧑 {'Subagent task' if entry.role == 'agent' else 'User'}" \
               f" · {when}{flags}\n\n{quoted}\n"
    if entry.kind == "assistant":
        return f"### 🤖 Assistant · {when}{flags}\n\n{text}\n"
    if entry.kind == "thinking":
        return f"<details><summary>Thinking</summary>\n\n{text}\n\n</details>\n"
    if entry.kind == "tool_call":
        name, main, _desc = tool_parts(entry)
        args = "\n".join(entry.text.split("\n")[1:])
        return (f"**Tool: {name}** `{one_line(main, 100)}`{flags}\n\n"
                f"<details><summary>input</summary>\n\n```\n{args}\n```\n\n</details>\n")
    if entry.kind == "tool_result":
        fence = "````" if "```" in text else "```"
        return (f"<details><summary>result{' (error)' if 'error' in entry.flags else ''}: "
                f"{_escape_html(result_summary(entry))}</summary>\n\n{fence}\n{text}\n{fence}"
                f"\n\n</details>\n")
    if entry.kind == "summary":
        return f"---\n\n**Summary**\n\n{text}\n\n---\n"
    if entry.kind == "event":
        if "compact" in entry.flags:
            return "---\n\n_Conversation compacted_\n\n---\n"
        return f"_{one_line(text, 300)}_{flags}\n"
    return f"{text}\n"


def _escape_html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
