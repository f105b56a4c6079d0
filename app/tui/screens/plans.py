"""Plans pane: the plan tree (by recency or project) beside the selected plan as Markdown.

Typing in the search line narrows the tree to plans matching the query (the service's
query language); Enter on a linked session opens it in replay. A plan found elsewhere (a
search hit) is shown with `reveal`: selected, unfolded and scrolled to.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static, Tree

from ccarchive.service.models import PlanTree as PlanDoc
from ccarchive.tui.format import human_bytes, local, short_project
from ccarchive.tui.messages import IndexUpdated, OpenSession
from ccarchive.tui.screens.pane import PaneScreen
from ccarchive.tui.widgets.key_footer import KeyFooter
from ccarchive.tui.widgets.markdown_view import MarkdownView
from ccarchive.tui.widgets.plan_tree import NodeKey, PlanGroup, PlanTree, group_plans
from ccarchive.tui.widgets.status_header import ArchiveHeader

PLAN_LIMIT = 500
"""Plans listed at most (the service's page cap); a search narrows beyond that."""


class PlansScreen(PaneScreen):
    """What was planned: plans with their agent subplans and sessions, read as Markdown."""

    AUTO_FOCUS = "#plans-tree"
    """Focused on first show."""

    first_frame_complete = True

    BINDINGS = [
        Binding("slash", "focus_search", "Search", tooltip="Search within plans"),
        Binding("g", "toggle_grouping", "By project", tooltip="Group plans by project or not"),
        Binding(
            "o",
            "open_session",
            "Open session",
            tooltip="Open the selected (or the plan's latest) session in replay",
        ),
        Binding(
            "escape",
            "clear_search",
            "Clear",
            show=False,
            tooltip="Empty the search, back to the tree",
        ),
    ]

    @dataclass
    class PlansLoaded(Message):
        request: int
        groups: list[PlanGroup]
        total: int
        warnings: list[str]
        error: str | None = None
        first: tuple[NodeKey, PlanDoc] | None = None
        """The first plan's document, read with the list when the cursor will land on
        it (a first load): shown at once, with no second query and frame."""

    @dataclass
    class PlanLoaded(Message):
        request: int
        key: NodeKey
        doc: PlanDoc | None
        error: str | None = None

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.query_text = ""
        self.by_project = False
        self._list_request = 0
        self._doc_request = 0
        self._shown: NodeKey | None = None
        self._generation = -1
        self._loaded = False
        self._reveal: str | None = None
        """A plan's path to select once the list (cleared of a search) is back."""

    def compose(self) -> ComposeResult:
        yield ArchiveHeader("Plans")
        with Horizontal(id="plans-body"):
            with Vertical(id="plans-left"):
                yield Input(placeholder="search plans…  (/ to focus)", id="plans-search")
                yield Static("", id="plans-count")
                yield PlanTree(id="plans-tree")
            with Vertical(id="plans-right"):
                yield Static("", id="plan-meta")
                with VerticalScroll(id="plan-scroll"):
                    yield MarkdownView(id="plan-markdown")
        yield KeyFooter()

    def on_mount(self) -> None:
        # The first list is read here, before the first frame, rather than in a worker:
        # the query is cheap (~15 ms on the 1 GB archive) next to drawing the pane once
        # empty and again with the list (~20 ms a full frame, and the worker's answer
        # waited behind it). Later reloads (typing, index commits) stay in a worker.
        self._list_request += 1
        self._plans_loaded(self._fetch_plans(self._list_request, "", self.by_project, True))

    # ---- the list ------------------------------------------------------------------
    def reload(self) -> None:
        self._list_request += 1
        cursor = self.query_one(PlanTree).cursor_node
        first_too = cursor is None or cursor.data is None  # the cursor will go to the top
        self._load_plans(self._list_request, self.query_text, self.by_project, first_too)

    @staticmethod
    def _in_tree_order(groups: list[PlanGroup], by_project: bool) -> list[PlanGroup]:
        if by_project:
            return sorted(groups, key=lambda g: short_project(g.plan.project).lower())
        return groups

    @work(thread=True, group="plans", exclusive=True, exit_on_error=False)
    def _load_plans(
        self, request: int, query: str, by_project: bool = False, first_too: bool = False
    ) -> None:
        self.post_message(self._fetch_plans(request, query, by_project, first_too))

    def _fetch_plans(
        self, request: int, query: str, by_project: bool = False, first_too: bool = False
    ) -> PlansLoaded:
        """The list (and with `first_too` the top plan's document) as a message."""
        svc = self.service
        gen = svc.generation
        try:
            # a match in a subplan shows its whole plan
            page = svc.plans(
                include_agent_plans=True,
                limit=PLAN_LIMIT,
                query=query or None,
                whole_plans=bool(query),
            )
            groups = group_plans(page.plans)
            for g in groups:  # titles when a plan is opened, not for every plan now
                g.title_of = lambda sid: svc.session_title(sid)[0]
        except Exception as exc:
            return self.PlansLoaded(request, [], 0, [], str(exc))
        first = None
        if first_too and groups:
            top = self._in_tree_order(groups, by_project)[0].plan
            key = NodeKey("plan", top.codename, top.agent_id, top.project)
            try:
                first = (key, svc.plan(key.ident))
            except Exception:
                first = None  # the cursor's own query will say what went wrong
        self._generation = gen
        return self.PlansLoaded(request, groups, page.total, [], first=first)

    @on(PlansLoaded)
    def _plans_loaded(self, msg: PlansLoaded) -> None:
        if msg.request != self._list_request:
            return
        self._loaded = True
        count = self.query_one("#plans-count", Static)
        if msg.error:
            count.update(f"[b]Error:[/] {msg.error}")
            return
        n = len(msg.groups)
        subs = sum(len(g.subplans) for g in msg.groups)
        what = f"{n} plan{'s' * (n != 1)} · {subs} subplan{'s' * (subs != 1)}"
        if self.query_text:
            what += f" matching [b]{self.query_text}[/]"
        what += "  [dim]by project[/]" if self.by_project else "  [dim]newest first[/]"
        count.update(what)
        tree = self.query_one(PlanTree)
        groups = self._in_tree_order(msg.groups, self.by_project)
        fresh = tree.cursor_node is None or tree.cursor_node.data is None
        # the cursor is on its node when it returns (or on the plan on show)
        tree.show(groups, self.by_project, prefer=self._shown)
        if self._reveal is not None:
            path, self._reveal = self._reveal, None
            if not tree.reveal(path):
                self.notify(
                    "That plan is not in the archive's plan list any more.", severity="warning"
                )
        if not groups:
            self._show_doc(None, None)
        else:
            if msg.first is not None and fresh:
                key, doc = msg.first
                self._shown = key
                self._doc_request += 1  # any query still on its way is older
                self._show_doc(key, doc)
            # a rebuild that keeps the cursor's line posts no NodeHighlighted, so look
            # at the cursor node ourselves
            self._doc_for_cursor()

    def _doc_for_cursor(self) -> None:
        node = self.query_one(PlanTree).cursor_node
        if node is not None:
            self._highlighted(Tree.NodeHighlighted(node))

    # ---- the document ---------------------------------------------------------------
    @on(Tree.NodeHighlighted, "#plans-tree")
    def _highlighted(self, event: Tree.NodeHighlighted[NodeKey]) -> None:
        key = event.node.data
        if key is None:
            return
        if key.kind == "session":
            parent = event.node.parent
            key = parent.data if parent is not None and parent.data else key
        if key.kind != "plan" or key == self._shown:
            return
        self._shown = key
        self._doc_request += 1
        self._load_plan(self._doc_request, key)

    @work(thread=True, group="plan-doc", exclusive=True, exit_on_error=False)
    def _load_plan(self, request: int, key: NodeKey) -> None:
        try:
            doc = self.service.plan(key.ident)
        except Exception as exc:
            self.post_message(self.PlanLoaded(request, key, None, str(exc)))
            return
        self.post_message(self.PlanLoaded(request, key, doc))

    @on(PlanLoaded)
    def _plan_loaded(self, msg: PlanLoaded) -> None:
        if msg.request != self._doc_request:
            return
        if msg.doc is None:
            self.query_one("#plan-meta", Static).update(f"[b]Error:[/] {msg.error}")
            return
        self._show_doc(msg.key, msg.doc)

    def _show_doc(self, key: NodeKey | None, doc: PlanDoc | None) -> None:
        meta = self.query_one("#plan-meta", Static)
        md = self.query_one("#plan-markdown", MarkdownView)
        if doc is None or key is None:
            meta.update("[dim]no plan selected[/]")
            md.update("")
            return
        part = doc
        if key.agent:
            part = next((s for s in doc.subplans if s.plan.agent_id == key.agent), doc)
        p = part.plan
        kind = f"agent subplan [b]{p.agent_id[:10]}[/] of " if p.agent_id else ""
        sessions = ", ".join(s.title or s.session_id[:8] for s in doc.sessions[:3]) or "–"
        meta.update(
            f"[b]{p.title or p.codename}[/]\n"
            f"{kind}[b]{p.codename}[/] · {short_project(p.project)} · "
            f"{local(p.modified, '%d %b %Y %H:%M')} · {human_bytes(p.size)}"
            f"{'  [dim](truncated)[/]' if part.truncated else ''}\n"
            f"[dim]sessions:[/] {sessions}"
        )
        scroll = self.query_one("#plan-scroll", VerticalScroll)
        same = md.source == part.text if hasattr(md, "source") else False
        if not same:
            md.update(part.text)
            scroll.scroll_home(animate=False)

    def reveal(self, path: str, _project: str = "") -> None:
        """Select the plan (or agent subplan) read from `path`, unfold it, show it; a
        search in the pane that hides it is cleared first."""
        tree = self.query_one(PlanTree)
        tree.focus()
        if tree.reveal(path):
            return
        self._reveal = path  # after the list without the search
        search = self.query_one("#plans-search", Input)
        if search.value:
            search.value = ""  # its Changed reloads the list
        else:
            self.reload()

    # ---- events and actions -----------------------------------------------------------
    @on(Input.Changed, "#plans-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self.reload()

    @on(Input.Submitted, "#plans-search")
    def _search_submitted(self) -> None:
        self.query_one(PlanTree).focus()

    @on(Tree.NodeSelected, "#plans-tree")
    def _selected(self, event: Tree.NodeSelected[NodeKey]) -> None:
        key = event.node.data
        if key is not None and key.kind == "session":
            self.post_message(OpenSession(key.ident))

    def action_open_session(self) -> None:
        node = self.query_one(PlanTree).cursor_node
        if node is None or node.data is None:
            return
        key = node.data
        if key.kind == "session":
            self.post_message(OpenSession(key.ident))
            return
        tree = self.query_one(PlanTree)
        group = tree.group_of(node) or tree.group_of(node.parent)
        if group is not None and group.sessions:  # built as nodes or not (a closed plan)
            self.post_message(OpenSession(group.sessions[0][0]))
            return
        self.notify("No session is linked to this plan", severity="warning")

    def action_focus_search(self) -> None:
        self.query_one("#plans-search", Input).focus()

    def action_clear_search(self) -> None:
        search = self.query_one("#plans-search", Input)
        if search.value:
            search.value = ""
        self.query_one(PlanTree).focus()

    def action_toggle_grouping(self) -> None:
        self.by_project = not self.by_project
        self.reload()

    def on_index_updated(self, _msg: IndexUpdated) -> None:
        self._shown = None  # the selected plan may have changed on disk
        self.reload()

    def on_screen_resume(self) -> None:
        if self._loaded and self.service.generation != self._generation:
            self._shown = None
            self.reload()
