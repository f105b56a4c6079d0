"""Readable terminal output for the CLI commands (rich), kept apart from the commands.

Only formatting lives here: every figure comes from the service's models.
"""

from __future__ import annotations

from datetime import datetime

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ccarchive.service import models as M

KIND_STYLE = {
    "prompt": "bold cyan", "assistant": "green", "thinking": "dim magenta",
    "tool_call": "yellow", "tool_result": "dim yellow", "summary": "blue", "event": "dim",
    "plan": "bold magenta", "memory": "bold blue", "history": "cyan",
}


def when(ts: datetime | None) -> str:
    return ts.astimezone().strftime("%Y-%m-%d %H:%M") if ts else "—"


def snippet_text(snippet: str, spans: list[tuple[int, int]]) -> Text:
    text = Text(snippet)
    for start, end in spans:
        if 0 <= start < end <= len(snippet):
            text.stylize("bold reverse", start, end)
    return text


def short_project(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] if path else "—"


def print_search(console: Console, page: M.SearchPage) -> None:
    for w in page.warnings:
        console.print(f"[yellow]note:[/] {w}")
    if not page.hits:
        console.print(f"no results for [bold]{page.query}[/]")
        return
    console.print(f"[dim]{page.total:,} matches, {page.elapsed_ms:.0f} ms[/]")
    rows = page.groups or [None]
    for group in rows:
        hits = group.hits if group is not None else page.hits
        if group is not None:
            console.print(Text.assemble((group.title or group.session_id[:8], "bold"),
                                        (f"  {short_project(group.project)}", "cyan"),
                                        (f"  {group.hit_count} hits", "dim")))
        for h in hits:
            head = Text.assemble(
                (f"{h.kind:<11}", KIND_STYLE.get(h.kind, "")), (f" {when(h.timestamp)} ", "dim"),
                (short_project(h.project), "cyan"), "  ",
                (h.title[:70] if group is None else "", "bold"))
            console.print(head)
            console.print(Text("  ") + snippet_text(h.snippet, h.highlights))
            console.print(Text(f"  {h.id}", style="dim"))
    if page.next_cursor:
        console.print("[dim]more results: raise --limit[/]")


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
        t.add_row("skipped lines", ", ".join(f"{k} {v:,}" for k, v in
                                             sorted(st.skipped_by_reason.items())))
    if st.repaired_by_reason:
        t.add_row("repaired lines", ", ".join(f"{k} {v:,}" for k, v in
                                              sorted(st.repaired_by_reason.items())))
    t.add_row("last update", when(st.last_update))
    if st.message:
        t.add_row("note", st.message)
    console.print(t)


def print_entry(console: Console, e: M.Entry) -> None:
    head = Text.assemble((e.kind, KIND_STYLE.get(e.kind, "")), f"  {when(e.timestamp)}  ",
                         (e.session_id[:8], "dim"), f"  {e.tool}")
    console.print(head)
    console.print(e.text, markup=False, highlight=False)
    if e.truncated:
        console.print(f"[dim]… {e.text_len - len(e.text):,} more characters[/]")


def print_transcript(console: Console, page: M.TranscriptPage) -> None:
    console.print(Text.assemble((page.title, "bold"), f"  {page.project}  ",
                                (f"{page.total} entries", "dim")))
    for e in page.entries:
        style = KIND_STYLE.get(e.kind, "")
        label = e.tool or e.kind
        first = e.text.strip().splitlines()[0][:160] if e.text.strip() else ""
        marks = " ".join(f"[{f}]" for f in e.flags)
        console.print(Text.assemble((f"{when(e.timestamp)} ", "dim"), (f"{label:<12}", style),
                                    f" {marks} " if marks else " ", first))
    if page.next_cursor:
        console.print(f"[dim]… {page.total - page.start - len(page.entries)} more: raise "
                      f"--limit[/]")


def print_sessions(console: Console, page: M.SessionPage) -> None:
    t = Table(box=None, header_style="bold dim")
    for col in ("last active", "project", "title", "msgs", "tokens", "agents", "id"):
        t.add_column(col)
    for s in page.sessions:
        t.add_row(when(s.last_activity), short_project(s.project), s.title[:60],
                  str(s.messages), f"{s.tokens.total:,}", str(s.subagent_count),
                  s.session_id[:8])
    console.print(t)
