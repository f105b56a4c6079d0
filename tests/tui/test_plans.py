"""Plans pane: the tree with subplans and sessions, the Markdown beside it, search."""

from __future__ import annotations

from ccarchive.tui.messages import OpenSession
from ccarchive.tui.widgets.plan_tree import PlanTree
from tests.tui.support import SIZE, first_frames, settle


def _labels(tree: PlanTree) -> list[str]:
    out = []
    for line in range(tree.last_line + 1):
        node = tree.get_node_at_line(line)
        if node is not None:
            out.append(f"{node.data.kind}:{node.label.plain}")
    return out


async def test_tree_subplans_sessions_and_markdown(app) -> None:
    opened: list[OpenSession] = []
    async with app.run_test(
        size=SIZE, message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("plans")
        await settle(app, pilot)
        tree = app.screen.query_one(PlanTree)
        assert [g.plan.codename for g in tree.groups] == [
            "gentle-mapping-liskov",
            "tidy-racing-lamport",
            "frosty-streaming-backus",
            "mellow-stacking-codd",
        ]
        tidy = tree.groups[1]
        assert [s.agent_id for s in tidy.subplans] == ["a0c2c61f241c7e86f"]
        assert tidy.sessions[0][1] == "Parallelize tally directory walk"
        # the cursor on the second plan shows it as Markdown
        await pilot.press("down", "down")
        await settle(app, pilot)
        md = app.screen.query_one("#plan-markdown")
        assert "Make tally fast on big repositories" in md.source
        # open it, go to its subplan: the subplan's text is shown
        await pilot.press("enter", "down")
        await settle(app, pilot)
        assert (
            "Subplan" in app.screen.query_one("#plan-meta").render().plain
            or "parallel" in md.source.lower()
        )
        await pilot.press("down", "enter")  # the linked session
        await settle(app, pilot)
        assert opened and opened[-1].session_id.startswith("f26dbc60")


async def test_search_and_group_by_project(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("plans")
        await settle(app, pilot)
        await pilot.press("slash", *"incremental")
        await pilot.pause(0.1)
        await settle(app, pilot)
        tree = app.screen.query_one(PlanTree)
        assert [g.plan.codename for g in tree.groups] == ["frosty-streaming-backus"]
        await pilot.press("escape", "g")
        await settle(app, pilot)
        assert tree.by_project and len(tree.groups) == 4
        projects = [n.data.ident for n in tree.root.children]
        assert projects == sorted(projects, key=lambda p: p.rsplit("/", 1)[-1].lower())


def test_snapshot(snap_compare, app) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.switch_mode("plans")
        await settle(pilot.app, pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot.app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


async def test_first_frame_holds_the_list_and_the_first_plan(app) -> None:
    """The pane reads its list before its first frame, and that frame is shown (not
    drawn while Textual holds a mode switch back, then thrown away)."""

    def probe(screen) -> tuple[int, int, bool]:
        tree = screen.query_one(PlanTree)
        return len(tree.groups), tree.cursor_line, bool(screen.query_one("#plan-markdown").source)

    async with app.run_test(size=SIZE) as pilot:
        seen = await first_frames(app, pilot, "plans", probe)  # as F4 does
        # the first frame waited for the layout Textual asks for once the screen is
        # mounted, and saw it come (not the FIRST_FRAME_HOLD timeout)
        assert app.screen.released_by == "layout"
    assert seen, "the pane was drawn"
    assert seen[0] == (0, (4, 0, True))
