"""Projects pane: projects with their figures, their memory files rendered as Markdown.

Session-memory summaries are listed under their project with their session's title;
Enter (or o) on one opens that session in replay. A memory file found elsewhere (a search
hit) is shown with `reveal`: its project and the file selected, the file rendered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.markup import escape
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static

from ccarchive.service.models import MemoryFile, MemoryFileInfo, ProjectInfo
from ccarchive.service.naming import home_path, plural
from ccarchive.tui.format import ago, human_bytes, local, short_project
from ccarchive.tui.messages import IndexUpdated, OpenSession
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.screens.project_sessions import ProjectSessions
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.markdown_view import MarkdownView
from ccarchive.tui.widgets.project_list import MemoryList, ProjectTable
from ccarchive.tui.widgets.status_header import ArchiveHeader


class PathLine:
    """`facts · path` on one line, the path cut on the left to the width it is drawn at,
    so that the file name shows however narrow the pane (`…/session-memory/summary.md`)."""

    def __init__(self, facts: str, path: str) -> None:
        self.facts, self.path = facts, path

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        room = options.max_width - len(self.facts)
        path = self.path if len(self.path) <= room else "…" + self.path[-max(8, room - 1) :]
        yield Text(self.facts + path, style="dim", no_wrap=True, overflow="ellipsis")


class ProjectsScreen(PaneScreen):
    """What was remembered: projects, their memory files and session summaries."""

    AUTO_FOCUS = "#projects-table"
    """Focused on first show."""

    first_frame_complete = True

    BINDINGS = [
        Binding(
            "o",
            "open_session",
            "Open session",
            tooltip="Open the session of a session-memory summary (or the project's "
            "latest session)",
        ),
        Binding(
            "tab",
            "app.focus_next",
            "Next list",
            show=False,
            tooltip="From the projects to their memory files and back",
        ),
    ]

    @dataclass
    class ProjectsLoaded(Message):
        request: int
        projects: list[ProjectInfo]
        memory: dict[str, list[MemoryFileInfo]]
        titles: dict[str, str] = field(default_factory=dict)
        error: str | None = None
        first_file: MemoryFile | None = None
        """The memory file the list will select, read with it: shown at once."""

    @dataclass
    class FileLoaded(Message):
        request: int
        file: MemoryFile | None
        error: str | None = None

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._request = 0
        self._file_request = 0
        self._memory: dict[str, list[MemoryFileInfo]] = {}
        self._titles: dict[str, str] = {}
        self._shown: tuple[str, str] | None = None
        self._prefetched: MemoryFile | None = None
        self._list_for: str | None = None
        """The project whose memory files are listed."""
        self._generation = -1
        self._loaded = False

    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Projects")
        with Horizontal(id="projects-body"):
            with Vertical(id="projects-left"):
                yield Static("Projects", id="projects-caption", classes="caption")
                yield ProjectTable(id="projects-table")
                yield Static("Memory", id="memory-caption", classes="caption")
                yield MemoryList(id="memory-list")
            with Vertical(id="projects-right"):
                yield Static("", id="memory-meta")
                with VerticalScroll(id="memory-scroll"):
                    yield MarkdownView(id="memory-markdown")
        yield KeyFooter()

    def on_mount(self) -> None:
        # The first lists are read here, before the first frame, rather than in a
        # worker: the queries are cheap (~10-15 ms on the 1 GB archive) next to drawing
        # the pane once empty and again with its lists (~20 ms a full frame). Later
        # reloads (index commits) stay in a worker.
        self._request += 1
        self._loaded_projects(self._fetch(self._request))

    def reload(self) -> None:
        self._request += 1
        self._prefetched = None
        selected = self.query_one(MemoryList).selected_file
        self._load(
            self._request,
            self.query_one(ProjectTable).selected,
            selected.path if selected is not None else None,
        )

    @work(thread=True, group="projects", exclusive=True, exit_on_error=False)
    def _load(self, request: int, project: str | None = None, path: str | None = None) -> None:
        self.post_message(self._fetch(request, project, path))

    def _fetch(
        self, request: int, project: str | None = None, path: str | None = None
    ) -> ProjectsLoaded:
        """Projects, memory files and the file the lists will select, as a message."""
        svc = self.service
        gen = svc.generation
        try:
            projects = svc.projects()
            memory: dict[str, list[MemoryFileInfo]] = {}
            for f in svc.memory_files():
                memory.setdefault(f.project, []).append(f)
            titles = {
                f.session_id: svc.session_title(f.session_id)[0]
                for files in memory.values()
                for f in files
                if f.session_id
            }
        except Exception as exc:
            return self.ProjectsLoaded(request, [], {}, {}, str(exc))
        # the file the lists will select (as ProjectTable.show and MemoryList.show keep
        # or reset the selection), read now rather than after another round trip
        first = None
        paths = [p.path for p in projects]
        project = project if project in paths else (paths[0] if paths else None)
        files = memory.get(project or "", [])
        target = next((f for f in files if f.path == path), files[0] if files else None)
        if target is not None:
            try:
                first = svc.memory_file(target.project, target.path)
            except Exception:
                first = None  # its own query will say what went wrong
        self._generation = gen
        return self.ProjectsLoaded(request, projects, memory, titles, first_file=first)

    @on(ProjectsLoaded)
    def _loaded_projects(self, msg: ProjectsLoaded) -> None:
        if msg.request != self._request:
            return
        self._loaded = True
        if msg.error:
            self.query_one("#memory-meta", Static).update(f"[b]Error:[/] {msg.error}")
            return
        self._memory, self._titles = msg.memory, msg.titles
        self._prefetched = msg.first_file
        table = self.query_one(ProjectTable)
        table.show(msg.projects, {k: len(v) for k, v in msg.memory.items()})
        n = len(msg.projects)
        self.query_one("#projects-caption", Static).update(
            f"Projects [dim]{n} · {plural(sum(p.sessions for p in msg.projects), 'session')} · "
            f"{human_bytes(sum(p.archive_bytes for p in msg.projects))}[/]"
        )
        self._show_memory_list()

    def _show_memory_list(self) -> None:
        project = self.query_one(ProjectTable).selected
        self._list_for = project
        files = self._memory.get(project or "", [])
        self.set_class(not files, "-no-memory")  # narrow: no empty file view below
        self.query_one(MemoryList).show(files, self._titles)
        summaries = sum(1 for f in files if f.session_id)
        noun = "summary" if summaries == 1 else "summaries"
        extra = f" · {summaries} session {noun}" if summaries else ""
        self.query_one("#memory-caption", Static).update(
            f"Memory [dim]{home_path(project or '')} · "  # full path: the list has names
            f"{plural(len(files) - summaries, 'file')}{extra}[/]"
        )
        self._load_selected_file(force=True)

    def reveal(self, path: str, project: str = "") -> None:
        """Select the memory file read from `path` (relative to the archive) in its
        project's list, and show it."""
        table = self.query_one(ProjectTable)
        paths = [p.path for p in table.projects]
        owner = (
            project
            if project in paths
            else next(
                (p for p, files in self._memory.items() if any(f.path == path for f in files)), None
            )
        )
        if owner is None or owner not in paths:
            self.notify(
                "That memory file's project is not in the archive any more.", severity="warning"
            )
            return
        table.move_cursor(row=paths.index(owner), animate=False)
        if self._list_for != owner:
            self._show_memory_list()
        memory = self.query_one(MemoryList)
        files = [f.path for f in memory.files]
        if path in files:
            memory.highlighted = files.index(path)
            self._load_selected_file()
        memory.focus()

    @on(ProjectTable.RowHighlighted, "#projects-table")
    def _project_highlighted(self) -> None:
        if self.query_one(ProjectTable).selected != self._list_for:  # not a rebuild's echo
            self._show_memory_list()

    @on(OptionList.OptionHighlighted, "#memory-list")
    def _file_highlighted(self) -> None:
        self._load_selected_file()

    def _load_selected_file(self, force: bool = False) -> None:
        f = self.query_one(MemoryList).selected_file
        if f is None:
            self._shown = None
            project = self.query_one(ProjectTable).selected
            self._show_project_only(project)
            return
        key = (f.project, f.path)
        if key == self._shown and not force:
            return
        self._shown = key
        self._file_request += 1
        pre = self._prefetched
        if pre is not None and (pre.info.project, pre.info.path) == key:
            self._file_loaded(self.FileLoaded(self._file_request, pre))  # read with the list
            return
        self._load_file(self._file_request, f)

    def _show_project_only(self, project: str | None) -> None:
        self.query_one("#memory-meta", Static).update(
            f"[b]{home_path(project or '')}[/]\n[dim]no memory files[/]"
            if project
            else "[dim]no project[/]"
        )
        self.query_one("#memory-markdown", MarkdownView).update("")

    @work(thread=True, group="memory-file", exclusive=True, exit_on_error=False)
    def _load_file(self, request: int, info: MemoryFileInfo) -> None:
        try:
            mf = self.service.memory_file(info.project, info.path)
        except Exception as exc:
            self.post_message(self.FileLoaded(request, None, str(exc)))
            return
        self.post_message(self.FileLoaded(request, mf))

    @on(FileLoaded)
    def _file_loaded(self, msg: FileLoaded) -> None:
        if msg.request != self._file_request:
            return
        meta = self.query_one("#memory-meta", Static)
        if msg.file is None:
            meta.update(f"[b]Error:[/] {msg.error}")
            return
        info = msg.file.info
        where = f"{short_project(info.project)} · {info.filename}"
        if info.session_id:
            title = self._titles.get(info.session_id) or info.session_id[:8]
            where = (
                f"session memory of [b]{escape(title)}[/] ({info.session_id[:8]}) · "
                f"[dim]o opens it[/]"
            )
        heading = (
            "Session memory"
            if info.session_id
            else (info.title.split(": ", 1)[-1] or info.filename)
        )
        facts = (
            f"{human_bytes(info.size)} · changed "
            f"{local(info.modified, '%d %b %Y %H:%M')} ({ago(info.modified)}) · "
        )
        meta.update(
            Group(Text.from_markup(f"[b]{escape(heading)}[/]\n{where}"), PathLine(facts, info.path))
        )
        md = self.query_one("#memory-markdown", MarkdownView)
        if getattr(md, "source", None) != msg.file.text:
            md.update(msg.file.text)
            self.query_one("#memory-scroll", VerticalScroll).scroll_home(animate=False)

    @on(MemoryList.OpenSummarySession)
    def _open_summary(self, msg: MemoryList.OpenSummarySession) -> None:
        self.post_message(OpenSession(msg.session_id))

    def action_open_session(self) -> None:
        f = self.query_one(MemoryList).selected_file
        if f is not None and f.session_id:
            self.post_message(OpenSession(f.session_id))
            return
        project = self.query_one(ProjectTable).selected
        if project:
            self._open_latest(project)

    @on(ProjectTable.RowSelected, "#projects-table")
    def _project_selected(self, event: ProjectTable.RowSelected) -> None:
        """Projects → Enter: the project's sessions as a list, over the pane."""
        event.stop()
        project = self.query_one(ProjectTable).selected
        if project:
            self.app.push_screen(ProjectSessions(project, short_project(project)))

    @work(thread=True, group="projects-open", exclusive=True, exit_on_error=False)
    def _open_latest(self, project: str) -> None:
        page = self.service.sessions(project=project, limit=1)
        if page.sessions:
            self.post_message(OpenSession(page.sessions[0].session_id))

    def on_index_updated(self, _msg: IndexUpdated) -> None:
        self.reload()

    def on_screen_resume(self) -> None:
        if self._loaded and self.service.generation != self._generation:
            self.reload()
