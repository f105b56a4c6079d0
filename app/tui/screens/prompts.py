"""Prompts pane: what was asked (history.jsonl), newest first, searchable and filtered by
project, session and date, growing live; Enter opens the prompt's session at that prompt.

Keys: / the search box, f the project, a the since box, s this session only; Esc clears
the boxes and goes back to the list. Digits switch panes only from the list: typed in a
box (`3d` in the since box) they are text."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Group
from rich.markup import escape
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Select, Static

from ccarchive.service.models import HistoryItem
from ccarchive.tui.format import ago, fit_name, local, short_project
from ccarchive.tui.messages import IndexUpdated, OpenSession
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.prompt_list import PromptTable
from ccarchive.tui.widgets.status_header import ArchiveHeader

PAGE = 200
"""Prompts per query; more load as the cursor nears the end."""
DEBOUNCE = 0.15
"""Seconds of quiet typing before the query runs."""
SELECT_NAME = 16
"""A project's name in the project drop-down at most (it is 22 cells wide at 80
columns)."""


@dataclass(frozen=True)
class PromptFilter:
    query: str = ""
    project: str | None = None
    session: str | None = None
    since: str = ""


class PromptsScreen(PaneScreen):
    """The prompt history, newest first (ranked when searching)."""

    AUTO_FOCUS = "#prompts-table"
    """Focused on first show."""

    first_frame_complete = True

    BINDINGS = [
        Binding("slash", "focus_search", "Search", tooltip="Search the prompts"),
        Binding("f", "focus_project", "Project", tooltip="Filter by project"),
        Binding(
            "a",
            "focus_since",
            "Since",
            tooltip="Only prompts since a date: 7d, 2w, 2026-11-01 (the since box)",
        ),
        Binding(
            "s",
            "toggle_session",
            "This session",
            tooltip="Only the prompts of the selected prompt's session (again: all)",
        ),
        Binding(
            "o",
            "open_session",
            "Open",
            tooltip="Open the prompt's session in replay, at this prompt (or Enter)",
        ),
        Binding(
            "escape",
            "clear",
            "Clear",
            show=False,
            tooltip="Empty the search and since boxes, back to the list",
        ),
    ]

    @dataclass
    class PromptsLoaded(Message):
        request: int
        items: list[HistoryItem]
        total: int
        append: bool = False
        warnings: list[str] = field(default_factory=list)
        error: str | None = None

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.filter = PromptFilter()
        self._request = 0
        self._total = 0
        self._loading_more = False
        self._debounce: Timer | None = None
        self._generation = -1
        self._loaded = False
        self._new_above = 0

    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Prompts")
        with Horizontal(id="prompts-bar"):
            yield Input(placeholder="search prompts…  (/)", id="prompts-search")
            yield Select[str]([], prompt="All projects", id="prompts-project")
            yield Input(placeholder="since: 7d or a date", id="prompts-since")
        yield Static("", id="prompts-status")
        yield PromptTable(id="prompts-table")
        yield Static("", id="prompt-preview")
        yield KeyFooter()

    def on_mount(self) -> None:
        # The first page and the projects are read here, before the first frame,
        # rather than in workers: ~10 ms on the 1 GB archive, next to drawing the pane
        # once empty and again with its rows. Later reloads stay in workers.
        self._request += 1
        self._loaded_prompts(self._fetch(self._request, self.filter, PAGE, 0, False))
        try:
            self._set_projects([p.path for p in self.service.projects()])
        except Exception as exc:  # the filter offers no project; never a crash
            self.notify(f"Projects: {exc}", title="Something went wrong", severity="error")

    # ---- queries -------------------------------------------------------------------
    def reload(self, *, live: bool = False) -> None:
        self._request += 1
        table = self.query_one(PromptTable)
        # a live refresh re-reads everything loaded so far, so nobody loses their page
        limit = min(500, max(PAGE, len(table.items))) if live else PAGE
        self._load(self._request, self.filter, limit, 0, False)

    @work(thread=True, group="prompts", exclusive=True, exit_on_error=False)
    def _load(self, request: int, flt: PromptFilter, limit: int, offset: int, append: bool) -> None:
        self.post_message(self._fetch(request, flt, limit, offset, append))

    def _fetch(
        self, request: int, flt: PromptFilter, limit: int, offset: int, append: bool
    ) -> PromptsLoaded:
        """A page of prompts, as a message."""
        svc = self.service
        gen = svc.generation
        try:  # `since 3d`: the archive's last three days, as the Timeline counts them
            page = svc.history(
                query=flt.query or None,
                project=flt.project,
                session_id=flt.session,
                since=svc.archive_date(flt.since),
                limit=limit,
                offset=offset,
            )
        except Exception as exc:
            return self.PromptsLoaded(request, [], 0, append, [], str(exc))
        if not append:
            self._generation = gen
        return self.PromptsLoaded(request, page.items, page.total, append, page.warnings)

    def _set_projects(self, projects: list[str]) -> None:
        select = self.query_one("#prompts-project", Select)
        with self.prevent(Select.Changed):
            # one line each, cut from the middle (a wrapped `Work/entire/deve` / `nv/cli`
            # read as two projects)
            select.set_options([(fit_name(short_project(p), SELECT_NAME), p) for p in projects])
            if self.filter.project in projects:
                select.value = self.filter.project

    @on(PromptsLoaded)
    def _loaded_prompts(self, msg: PromptsLoaded) -> None:
        if msg.request != self._request:
            return
        self._loaded = True
        status = self.query_one("#prompts-status", Static)
        if msg.error:
            status.update(f"[b]Can't search:[/] {msg.error}")
            return
        table = self.query_one(PromptTable)
        self._total = msg.total
        if msg.append:
            self._loading_more = False
            table.append(msg.items)
        else:
            new = table.show(msg.items)
            self._new_above = new if table.cursor_row > 0 else 0
        self._show_status(msg.warnings)
        self._show_preview()

    def _show_status(self, warnings: list[str] | None = None) -> None:
        table = self.query_one(PromptTable)
        f = self.filter
        parts = [f"[b]{self._total}[/] prompt{'s' * (self._total != 1)}"]
        parts.append("best match first" if f.query else "newest first")
        if f.project:
            parts.append(f"project [b]{short_project(f.project)}[/]")
        if f.session:
            parts.append(f"session [b]{f.session[:8]}[/] [dim](s: all sessions)[/]")
        if f.since:
            parts.append(f"since [b]{f.since}[/]")
        if len(table.items) < self._total:
            parts.append(f"[dim]{len(table.items)} loaded[/]")
        if self._new_above:
            parts.append(f"[reverse] ↑ {self._new_above} new [/]")
        if warnings:
            parts.append(f"[dim]ignored: {'; '.join(warnings)}[/]")
        self.query_one("#prompts-status", Static).update("  ·  ".join(parts))

    def _show_preview(self) -> None:
        it = self.query_one(PromptTable).selected
        preview = self.query_one("#prompt-preview", Static)
        if it is None:
            preview.update("")
            return
        title = self.service.session_title(it.session_id)[0] if it.session_id else ""
        text = it.text.strip()
        when = ago(it.timestamp)  # the date once: the age only when it is not a date
        head = Text.from_markup(
            f"[b]{escape(short_project(it.project))}[/] · "
            f"{local(it.timestamp, '%a %d %b %Y %H:%M')}"
            f"{f' ({when})' if when.endswith('ago') else ''}"
        )
        if it.session_id:  # its title unless the title is this very prompt
            same = title and " ".join(title.split()) == " ".join(text.split())[: len(title)]
            head.append(" · session ")
            if title and not same:
                head.append(title, style="bold")
                head.append(" ")
            head.append(it.session_id[:8], style="dim")
        head.no_wrap, head.overflow = True, "ellipsis"
        preview.update(Group(head, Text(text)))

    # ---- events --------------------------------------------------------------------
    @on(PromptTable.NearEnd)
    def _more(self) -> None:
        table = self.query_one(PromptTable)
        if self._loading_more or len(table.items) >= self._total:
            return
        self._loading_more = True
        self._load(self._request, self.filter, PAGE, len(table.items), True)

    @on(PromptTable.RowHighlighted)
    def _row_highlighted(self, event: PromptTable.RowHighlighted) -> None:
        # the table's current row, not the event's: a rebuild posts a stale row 0
        if self.query_one(PromptTable).cursor_row == 0 and self._new_above:
            self._new_above = 0
            self._show_status()
        self._show_preview()

    @on(PromptTable.Opened)
    def _opened(self, msg: PromptTable.Opened) -> None:
        if msg.item.session_id:
            self._open_at_prompt(msg.item)

    @work(
        thread=True,
        group="prompts-open",
        exclusive=True,
        exit_on_error=False,
        description="Finding the prompt in its session",
    )
    def _open_at_prompt(self, item: HistoryItem) -> None:
        entry = self.service.prompt_entry(item.session_id, item.text, item.timestamp)
        self.post_message(OpenSession(item.session_id, entry_id=entry))

    @on(Input.Changed, "#prompts-search")
    def _query_changed(self, event: Input.Changed) -> None:
        self._set_filter(query=event.value.strip())

    @on(Input.Changed, "#prompts-since")
    def _since_changed(self, event: Input.Changed) -> None:
        self._set_filter(since=event.value.strip())

    def on_key(self, event: events.Key) -> None:
        if event.key == "down" and isinstance(self.focused, Input):
            event.stop()  # ↓ from a filter box to the prompts, as in Search
            self.query_one(PromptTable).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.query_one(PromptTable).focus()

    @on(Select.Changed, "#prompts-project")
    def _project_changed(self, event: Select.Changed) -> None:
        self._set_filter(project=event.value if isinstance(event.value, str) else None)

    def _set_filter(self, **changes: object) -> None:
        self.filter = PromptFilter(**{**self.filter.__dict__, **changes})
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self.reload)

    def on_index_updated(self, _msg: IndexUpdated) -> None:
        self.reload(live=True)

    def on_screen_resume(self) -> None:
        if self._loaded and self.service.generation != self._generation:
            self.reload(live=True)

    # ---- actions ---------------------------------------------------------------------
    def action_focus_search(self) -> None:
        self.query_one("#prompts-search", Input).focus()

    def action_focus_project(self) -> None:
        self.query_one("#prompts-project", Select).focus()

    def action_toggle_session(self) -> None:
        if self.filter.session:
            self._set_filter(session=None)
            return
        it = self.query_one(PromptTable).selected
        if it is not None and it.session_id:
            self._set_filter(session=it.session_id)

    def action_focus_since(self) -> None:
        self.query_one("#prompts-since", Input).focus()

    def action_open_session(self) -> None:
        it = self.query_one(PromptTable).selected
        if it is not None and it.session_id:
            self._open_at_prompt(it)

    def action_clear(self) -> None:
        for sel in ("#prompts-search", "#prompts-since"):
            self.query_one(sel, Input).value = ""
        self.query_one(PromptTable).focus()
