"""Readable terminal output for the CLI commands (rich), kept apart from the commands.

Only formatting lives here: every figure comes from the service's models, and project
names from the service (`ArchiveService.project_name`), so the CLI names a project as the
app does. Output is one line per row with nothing cut that a script needs (entry and
session ids are whole); the console decides whether long lines wrap (see `cli._console`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ccarchive.service import models as M
from ccarchive.service.naming import home_path, last_part, plural
from ccarchive.text import clip

Namer = Callable[[str], str]
"""Project path -> the name to print (the service's `project_name`)."""

KIND_STYLE = {
    "prompt": "bold cyan",
    "assistant": "green",
    "thinking": "dim magenta",
    "tool_call": "yellow",
    "tool_result": "dim yellow",
    "summary": "blue",
    "event": "dim",
    "plan": "bold magenta",
    "memory": "bold blue",
    "history": "cyan",
}


def when(ts: datetime | None) -> str:
    return ts.astimezone().strftime("%Y-%m-%d %H:%M") if ts else "—"


def snippet_text(snippet: str, spans: list[tuple[int, int]]) -> Text:
    text = Text(snippet)
    for start, end in spans:
        if 0 <= start < end <= len(snippet):
            text.stylize("bold reverse", start, end)
    return text


def short_project(path: str, name: Namer = last_part) -> str:
    return (name(path) or path) if path else "—"


def one_line(text: str, width: int) -> str:
    """`text` on one line, cut with an ellipsis at `width`."""
    return clip(" ".join(text.split()), width)


def print_search(console: Console, page: M.SearchPage, name: Namer = last_part) -> None:
    for w in page.warnings:
        console.print(f"[yellow]note:[/] {w}")
    if not page.hits:
        console.print(f"no results for [bold]{page.query}[/]")
        return
    console.print(f"[dim]{page.total:,} matches, {page.elapsed_ms:.0f} ms[/]")
    rows: list[M.SessionGroup | None] = list(page.groups or []) or [None]
    for group in rows:
        hits = group.hits if group is not None else page.hits
        if group is not None:
            console.print(
                Text.assemble(
                    (one_line(group.title, 70) or group.session_id[:8], "bold"),
                    (f"  {short_project(group.project, name)}", "cyan"),
                    (f"  {plural(group.hit_count, 'hit')}", "dim"),
                )
            )
        for h in hits:
            head = Text.assemble(
                (f"{h.kind:<11}", KIND_STYLE.get(h.kind, "")),
                (f" {when(h.timestamp)} ", "dim"),
                (short_project(h.project, name), "cyan"),
                "  ",
                (one_line(h.title, 70) if group is None else "", "bold"),
            )
            console.print(head)
            console.print(Text("  ") + snippet_text(h.snippet, h.highlights))
            console.print(Text(f"  {h.id}", style="dim"))


def print_status(console: Console, st: M.Status) -> None:
    t = Table.grid(padding=(0, 2))
    t.add_column(style="dim")
    t.add_column()
    t.add_row("archive", st.archive)
    t.add_row("index", f"{st.index_path} ({st.index_bytes / 1e6:,.1f} MB, {st.role})")
    t.add_row("projects", f"{st.projects:,}")
    gone = f" ({st.sessions_gone:,} gone from disk)" if st.sessions_gone else ""
    t.add_row("sessions", f"{st.sessions:,}{gone}")
    t.add_row("files", f"{st.files:,} ({st.archive_bytes / 1e6:,.1f} MB)")
    t.add_row("documents", f"{st.documents:,}")
    for kind, n in st.documents_by_kind.items():
        t.add_row("", Text.assemble((f"{kind:<12}", KIND_STYLE.get(kind, "")), f"{n:>10,}"))
    if st.skipped_by_reason:
        t.add_row(
            "skipped lines",
            ", ".join(f"{k} {v:,}" for k, v in sorted(st.skipped_by_reason.items())),
        )
    if st.repaired_by_reason:
        t.add_row(
            "repaired lines",
            ", ".join(f"{k} {v:,}" for k, v in sorted(st.repaired_by_reason.items())),
        )
    if st.unreadable_by_reason:
        t.add_row(
            "files not read",
            ", ".join(f"{k} {v:,}" for k, v in sorted(st.unreadable_by_reason.items())),
        )
    if st.refused_reads_by_reason:
        t.add_row(
            "reads refused",
            ", ".join(f"{k} {v:,}" for k, v in sorted(st.refused_reads_by_reason.items())),
        )
    t.add_row("last update", when(st.last_update))
    if st.semantic:
        t.add_row("semantic", Text(st.semantic))  # its `[semantic]` is not markup
    if st.message:
        t.add_row("note", st.message)
    console.print(t)


def print_entry(console: Console, e: M.Entry) -> None:
    head = Text.assemble(
        (e.kind, KIND_STYLE.get(e.kind, "")),
        f"  {when(e.timestamp)}  ",
        (e.session_id[:8], "dim"),
        f"  {e.tool}",
    )
    console.print(head)
    console.print(e.text, markup=False, highlight=False)
    if e.truncated:
        console.print(f"[dim]… {e.text_len - len(e.text):,} more characters[/]")


def print_transcript(
    console: Console, page: M.TranscriptPage, tool_lines: dict[str, str] | None = None
) -> None:
    """The session's title, full project path and id, then each entry on a line (a
    tool call as its one-line summary: the command, path or pattern) and its id beneath,
    to pass to `ccarchive show`."""
    tool_lines = tool_lines or {}
    console.print(
        Text.assemble(
            (page.title, "bold"),
            f"  {home_path(page.project)}  ",
            (f"{page.session_id}  {plural(page.total, 'entry', 'entries')}", "dim"),
        )
    )
    for e in page.entries:
        style = KIND_STYLE.get(e.kind, "")
        label = e.tool or e.kind
        if e.kind == "tool_call":
            first = tool_lines.get(e.id) or _args_line(e)
        else:
            first = one_line(e.text.strip().splitlines()[0], 160) if e.text.strip() else ""
        marks = " ".join(f"[{f}]" for f in e.flags)
        console.print(
            Text.assemble(
                (f"{when(e.timestamp)} ", "dim"),
                (f"{label:<12}", style),
                f" {marks} " if marks else " ",
                first,
            )
        )
        console.print(Text(f"  {e.id}", style="dim"))


def _args_line(e: M.Entry) -> str:
    """A tool call's first argument from its indexed text (`Name`, then its inputs)."""
    args = [ln for ln in e.text.splitlines()[1:] if ln.strip()]
    return one_line(args[0], 160) if args else ""


def print_sessions(console: Console, page: M.SessionPage, name: Namer = last_part) -> None:
    t = Table(box=None, header_style="bold dim")
    for col in ("last active", "project", "title", "msgs", "tokens", "agents", "id"):
        t.add_column(col, no_wrap=True)
    for s in page.sessions:
        t.add_row(
            when(s.last_activity),
            short_project(s.project, name),
            one_line(s.title, 60),
            str(s.messages),
            f"{s.tokens.total:,}",
            str(s.subagent_count),
            s.session_id[:8],
        )
    console.print(t)
