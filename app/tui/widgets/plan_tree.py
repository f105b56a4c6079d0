"""The plan tree: plans by recency or by project, agent subplans and linked sessions beneath.

Rebuilding keeps the reader's place: expanded plans stay expanded and the cursor stays on
the same plan, subplan or session (matched by key, not by line number). A plan's subplans
and sessions become nodes when it is first expanded (harlequin's lazy tree): hundreds of
plans, most never opened, cost one node each.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.binding import Binding
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ccarchive.service.models import PlanInfo
from ccarchive.tui.format import fit_name, local, one_line, short_project

PROJECT_CAP = 24
"""A plan line's project name, at most (cut from its middle)."""


@dataclass
class PlanGroup:
    """A plan and what hangs beneath it."""

    plan: PlanInfo
    subplans: list[PlanInfo] = field(default_factory=list)
    title_of: Callable[[str], str] | None = field(default=None, repr=False, compare=False)
    """A session's title (the service's cached lookup), read when `sessions` is first
    needed: hundreds of plans, most never opened, need none (a first screen of the 1 GB
    archive looked up ~270 titles, 20 ms of the list's query)."""
    _sessions: list[tuple[str, str]] | None = field(default=None, repr=False)

    @property
    def sessions(self) -> list[tuple[str, str]]:
        """(id, title) of the sessions that wrote or used the plan."""
        if self._sessions is None:
            title_of = self.title_of
            self._sessions = [
                (sid, title_of(sid) if title_of else "") for sid in self.plan.sessions
            ]
        return self._sessions


@dataclass(frozen=True)
class NodeKey:
    """What a tree node stands for: ("plan", codename, agent) or ("session", id, "")."""

    kind: str
    ident: str
    agent: str = ""
    project: str = ""


def group_plans(plans: list[PlanInfo]) -> list[PlanGroup]:
    """Main plans in the given order, each with its agent subplans (a subplan whose main
    plan is missing stands in for it)."""
    groups: dict[str, PlanGroup] = {}
    orphans: dict[str, list[PlanInfo]] = defaultdict(list)
    for p in plans:
        if not p.agent_id:
            groups.setdefault(p.codename, PlanGroup(p))
    for p in plans:
        if p.agent_id:
            if p.codename in groups:
                groups[p.codename].subplans.append(p)
            else:
                orphans[p.codename].append(p)
    for code, subs in orphans.items():
        groups[code] = PlanGroup(subs[0], subplans=subs[1:])
    order = {id(g.plan): i for i, g in enumerate(groups.values())}
    return sorted(groups.values(), key=lambda g: order[id(g.plan)])


class PlanTree(Tree[NodeKey]):
    """Plans, their agent subplans and the sessions that wrote or used them."""

    COMPONENT_CLASSES = Tree.COMPONENT_CLASSES | {
        "plan-tree--meta",
        "plan-tree--agent",
        "plan-tree--session",
        "plan-tree--project",
    }

    BINDINGS = [
        Binding(
            "enter",
            "select_cursor",
            "Open",
            show=False,
            tooltip="Unfold a plan (its subplans and sessions); on a session: open it",
        ),
    ]

    _building = False
    """Adding nodes in bulk (`show`): the tree is invalidated once, at the end."""
    _frame_style: Style | None = None
    """The widget's style while a frame's lines are drawn."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("plans", id=id, classes=classes)
        self.show_root = False
        self.guide_depth = 3
        self.by_project = False
        self.groups: list[PlanGroup] = []
        self._group_of: dict[NodeKey, PlanGroup] = {}
        """Each plan node's group (its subplans and sessions, whether built or not)."""
        self._styles: dict[str, Style] = {}

    def _invalidate(self) -> None:
        # Tree invalidates (caches cleared, a layout asked for) on every node added:
        # ~350 times for one rebuild of the 1 GB archive's list.
        if not self._building:
            super()._invalidate()

    def process_label(self, label: str | Text) -> Text:
        if isinstance(label, Text) and "\n" not in label.plain:
            return label  # one line already (Tree splits every label into lines)
        return super().process_label(label)

    def render_lines(self, crop: Region) -> list[Strip]:
        # Tree reads `rich_style` (a walk up the DOM blending backgrounds) for every
        # line: once a frame is enough (~3 ms of the tree's ~7 ms first draw)
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None

    def render_line(self, y: int) -> Strip:
        style = self._frame_style
        if style is None:
            return super().render_line(y)
        scroll_x, scroll_y = self.scroll_offset
        return self._render_line(y + scroll_y, scroll_x, scroll_x + self.size.width, style)

    def get_label_width(self, node: TreeNode[NodeKey]) -> int:
        # Tree renders every label (a copy, styled, the icon prepended) to measure it,
        # for every line of every rebuild: ~350 lines, ~5 ms of the first screen
        icon = (
            (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE)
            if node.allow_expand
            else ""
        )
        label = node.label
        return cell_len(icon) + (cell_len(label) if isinstance(label, str) else label.cell_len)

    def _on_resize(self, event: events.Resize) -> None:
        # Tree rebuilds its lines on every resize, but its lines are measured by their
        # labels and its line cache is keyed by width: only an empty tree (as wide as
        # the widget) depends on the size. The first one came after the first frame.
        if self._tree_lines:
            self._line_cache.grow(event.size.height)
            event.prevent_default()

    def _style(self, name: str) -> Style:
        """A component's colour and weight only, so the cursor line keeps its background."""
        if name not in self._styles:
            st = self.get_component_rich_style(f"plan-tree--{name}")
            self._styles[name] = Style(color=st.color, bold=st.bold, italic=st.italic)
        return self._styles[name]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = {}

    def _line_width(self) -> int:
        """The cells a plan's line has: the tree's width once laid out; before its first
        layout, the width its pane's styles give it (the list over the plan below 100
        columns, a side column of 62-72 cells beside it)."""
        width = self.size.width
        if not width:
            screen = self.app.size.width
            width = screen - 4 if screen < 100 else min(72, max(62, screen * 45 // 100)) - 2
        return max(40, width - 2)

    def _plan_label(self, p: PlanInfo, subs: int, sessions: int) -> Text:
        # the project's short name whole where there is room (cut from its middle,
        # which keeps `cli/.worktrees/3` apart from `…/4`), the title the rest
        meta = f"  {local(p.modified, '%d %b')}"
        if not self.by_project:
            name = short_project(p.project)
            meta += f" · {fit_name(name, min(len(name), PROJECT_CAP))}"
        room = self._line_width() - 4 - len(meta) - (4 if self.by_project else 0)
        label = Text(one_line(p.title or p.codename, max(16, room)), style="bold")
        label.append(meta, style=self._style("meta"))
        return label

    def group_of(self, node: TreeNode[NodeKey] | None) -> PlanGroup | None:
        """The plan group a plan node stands for (None for other nodes)."""
        if node is None or node.data is None:
            return None
        return self._group_of.get(node.data)

    def _fill(self, node: TreeNode[NodeKey]) -> None:
        """Add a plan node's subplans and sessions, once."""
        g = self.group_of(node)
        if g is None or node.children:
            return
        for sp in g.subplans:
            node.add_leaf(
                Text.assemble(
                    ("◆ ", self._style("agent")),
                    one_line(sp.title.removeprefix("Subplan: ") or sp.agent_id, 40),
                    ("  subplan", self._style("meta")),
                ),
                data=NodeKey("plan", sp.codename, sp.agent_id, sp.project),
            )
        for sid, title in g.sessions:
            node.add_leaf(
                Text.assemble(
                    ("▶ ", self._style("session")),
                    one_line(title or sid, 40),
                    (f"  {sid[:8]}", self._style("meta")),
                ),
                data=NodeKey("session", sid, "", g.plan.project),
            )

    @on(Tree.NodeExpanded)
    def _expanded(self, event: Tree.NodeExpanded[NodeKey]) -> None:
        self._fill(event.node)  # the event goes on to the screen

    def show(
        self, groups: list[PlanGroup], by_project: bool, prefer: NodeKey | None = None
    ) -> None:
        """Rebuild the tree, keeping expanded plans and the cursor's node; when that
        node is gone (a project's line, after `g` back to the flat list), the cursor goes
        to `prefer` (the plan on show), not to whatever line took its place."""
        keep = self.cursor_node.data if self.cursor_node is not None else None
        expanded = {n.data for n in self._tree_nodes.values() if n.is_expanded and n.data}
        first = not self.groups
        self.groups = groups
        self.by_project = by_project
        self.clear()
        self._building = True
        try:
            self._add_groups(groups, by_project, expanded, first)
        finally:
            self._building = False
        self._invalidate()
        target = self._find(keep) if keep is not None else None
        if target is None and prefer is not None:
            target = self._find(prefer)
        if target is None and keep is None:
            plans = [n for n in self._tree_nodes.values() if n.data and n.data.kind == "plan"]
            target = plans[0] if plans else None
        if target is not None:
            self._move_to(target)

    def _add_groups(
        self, groups: list[PlanGroup], by_project: bool, expanded: set[NodeKey], first: bool
    ) -> None:
        self._group_of = {}
        parent_for: dict[str, TreeNode[NodeKey]] = {}
        for g in groups:
            parent: TreeNode[NodeKey] = self.root
            if by_project:
                proj = g.plan.project or "(no project)"
                if proj not in parent_for:
                    pk = NodeKey("project", proj)
                    parent_for[proj] = self.root.add(
                        Text(short_project(proj), style=self._style("project")),
                        data=pk,
                        expand=True,
                    )
                parent = parent_for[proj]
            key = NodeKey("plan", g.plan.codename, g.plan.agent_id, g.plan.project)
            self._group_of[key] = g
            node = parent.add(
                self._plan_label(g.plan, len(g.subplans), len(g.plan.sessions)),
                data=key,
                expand=key in expanded or (first and not expanded and g is groups[0]),
            )
            if node.is_expanded:
                self._fill(node)

    def reveal(self, path: str) -> bool:
        """Put the cursor on the plan or subplan read from `path` (relative to the
        archive), its plan unfolded and the line scrolled into view; False if the tree
        does not hold it."""
        for g in self.groups:
            plan_key = NodeKey("plan", g.plan.codename, g.plan.agent_id, g.plan.project)
            sub = next((sp for sp in g.subplans if sp.path == path), None)
            if g.plan.path != path and sub is None:
                continue
            node = self._find(plan_key)
            if node is None:
                return False
            if node.parent is not None and node.parent is not self.root:
                node.parent.expand()  # its project, when grouped by project
            self._fill(node)
            node.expand()
            if sub is not None:
                node = self._find(NodeKey("plan", sub.codename, sub.agent_id, sub.project)) or node
            self._move_to(node)
            self.call_after_refresh(self._scroll_to_cursor)
            return True
        return False

    def _find(self, key: NodeKey) -> TreeNode[NodeKey] | None:
        for n in self._tree_nodes.values():
            if n.data == key:
                return n
        return None

    def _move_to(self, node: TreeNode[NodeKey]) -> None:
        """The cursor to a node, now (in the frame that shows the rebuilt tree)."""
        self._tree_lines  # noqa: B018  (numbers the lines)
        if node.line < 0:
            return
        if self.size.height:
            self.move_cursor(node, animate=False)
        else:  # not laid out yet (a first show): scroll once it is, if need be
            self.cursor_line = node.line
            self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        top = self.scroll_offset.y
        if not top <= self.cursor_line < top + self.scrollable_content_region.height:
            self.scroll_to_line(self.cursor_line, animate=False)
