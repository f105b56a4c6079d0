"""Every pane on a crowded archive (25 projects with worktrees, 21 plans, long and
meaningless titles) at the sizes a terminal user has: 80×24 first.

The demo archive is too small to push a list past its room; these tests use the one
`crowded.py` writes, shaped like the real archive of the second review.
"""

from __future__ import annotations

import re

import pytest

from ccarchive.config import Settings
from ccarchive.live.live_archive import LiveArchive
from ccarchive.tui.format import fit_name
from ccarchive.tui.messages import OpenSession
from tests.tui.crowded import PROJECTS
from tests.tui.support import settle

WORKTREES = [p for p in PROJECTS if "/.worktrees/" in p]


def row_text(table, row: int) -> str:
    """What a LineTable row draws (its cells as cut to their columns)."""
    return "".join(s.text for s in table._render_cells(row, False, False))


def more_sizes(*sizes: tuple[int, int]) -> list:
    """`sizes` as parameters of the slow tier: the suite keeps 80x24 and one wide size of
    each test, the sizes in between (where a layout breakpoint or a list's room could still
    go wrong) run in the slow tier on the same code."""
    return [pytest.param(s, marks=pytest.mark.slow, id=f"{s[0]}x{s[1]}") for s in sizes]


# ---- Plans: the plan stays on screen however many plans there are -------------------------
@pytest.mark.parametrize(
    "size",
    [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
    + more_sizes((80, 40), (99, 30)),
)
async def test_plans_show_the_plan_text_with_many_plans(crowded_app, size) -> None:
    """The plan's text keeps rows on screen under a long list of plans: 80x24 and 120x40 in
    the suite, a tall narrow and a just-narrow terminal (80x40, 99x30) in the slow tier."""
    app = crowded_app
    async with app.run_test(size=size) as pilot:
        await app.switch_mode("plans")
        await settle(app, pilot)
        await pilot.press("down", "down")
        await settle(app, pilot)
        scroll = app.screen.query_one("#plan-scroll")
        region = scroll.region
        assert region.height >= 5, f"plan text gets {region.height} rows at {size}"
        assert region.bottom <= size[1] - 1  # above the footer
        markdown = app.screen.query_one("#plan-markdown")
        assert "## Step 1" in markdown.source
        assert markdown.region.height >= 3


# ---- Projects ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "size",
    [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
    + more_sizes((200, 50)),
)
async def test_projects_fill_the_height_and_keep_every_figure(crowded_app, size) -> None:
    """Every project's row keeps its figures and the list takes the pane's height: 80x24
    and 120x40 in the suite, a big terminal (200x50) in the slow tier."""
    from ccarchive.tui.format import human_count
    from ccarchive.tui.widgets.project_list import ProjectTable

    app = crowded_app
    async with app.run_test(size=size) as pilot:
        await app.switch_mode("projects")
        await settle(app, pilot)
        table = app.screen.query_one(ProjectTable)
        assert len(table.projects) == 25
        # the list takes the rows the pane has (no memory files: no empty file view)
        assert table.region.height >= size[1] - 8
        # no column is cut off: the table fits its width, so no horizontal scrolling
        assert table.virtual_size.width <= table.content_region.width
        for row, p in enumerate(table.projects):
            line = row_text(table, row)
            assert line.rstrip().endswith(human_count(p.tokens)), line
        # a month-old project reads with its year, and names are not cut at 16
        lines = [row_text(table, r) for r in range(len(table.projects))]
        assert any(re.search(r"\d\d \w{3} 2026", line) for line in lines)
        names = [line.split("  ")[0].strip() for line in lines]
        assert len(set(names)) == len(names)
        assert any(len(n) > 16 for n in names)


async def test_projects_enter_lists_the_projects_sessions(crowded_app) -> None:
    """Enter on a project lists its sessions (Esc closes the list); Enter on one opens it
    in Replay, and Esc there comes back to the projects, the project still selected."""
    from ccarchive.tui.screens.project_sessions import ProjectSessionList, ProjectSessions
    from ccarchive.tui.widgets.project_list import ProjectTable

    app = crowded_app
    opened: list[OpenSession] = []
    async with app.run_test(
        size=(80, 24), message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("projects")
        await settle(app, pilot)
        table = app.screen.query_one(ProjectTable)
        await pilot.press("down", "down")
        project = table.selected
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ProjectSessions)
        await pilot.press("escape")  # closes the list: the projects again
        await settle(app, pilot)
        assert not isinstance(app.screen, ProjectSessions)
        assert app.current_mode == "projects" and table.selected == project
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ProjectSessions)
        listed = app.screen.query_one(ProjectSessionList)
        expected = app.service.sessions(project=project, limit=50).sessions
        assert [s.session_id for s in listed.sessions] == [s.session_id for s in expected]
        assert len(listed.sessions) >= 2
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert opened and opened[-1].session_id == expected[1].session_id
        assert app.current_mode == "replay"
        await pilot.press("escape")  # back to the projects, the project still selected
        await settle(app, pilot)
        assert app.current_mode == "projects"
        assert app.screen.query_one(ProjectTable).selected == project


# ---- project names: as wide as there is room, cut to stay distinct -------------------------
@pytest.mark.parametrize("width", [6, 8, 10, 12, 16])
def test_fit_name_keeps_worktrees_apart(width: int) -> None:
    names = [
        "cli/.worktrees/1",
        "cli/.worktrees/2",
        "cli/.worktrees/3",
        "cli/.worktrees/4",
        "devenv/cli",
        "Repositories/cli",
        "wks/cli",
    ]
    cut = [fit_name(n, width) for n in names]
    assert all(len(c) <= width for c in cut)
    assert len(set(cut[:4])) == 4, cut  # the worktrees differ however narrow
    assert all(c == n for c, n in zip(cut, names, strict=True) if len(n) <= width)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_prompts_and_timeline_tell_worktrees_apart(crowded_app, size) -> None:
    from ccarchive.tui.format import short_project
    from ccarchive.tui.widgets.prompt_list import PromptTable

    app = crowded_app
    async with app.run_test(size=size) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        table = app.screen.query_one(PromptTable)
        column = table.columns[1]
        seen: dict[str, str] = {}
        for row, item in enumerate(table.items):
            name = short_project(item.project)
            cell = row_text(table, row)[15 : 15 + column.width + 2].strip()
            assert seen.setdefault(cell, name) == name, (cell, name, seen[cell])
        shown = {short_project(i.project) for i in table.items}
        assert sum("worktrees/" in n for n in shown) >= 3
        # the prompt keeps most of the width
        assert table.columns[-1].width >= size[0] * 45 // 100


# ---- Search -----------------------------------------------------------------------------
async def test_search_at_80_columns_gives_the_results_the_width(crowded_app) -> None:
    from ccarchive.tui.widgets.hit_preview import HitPreview
    from ccarchive.tui.widgets.result_list import ResultList
    from tests.tui.support import pasted

    app = crowded_app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "nolint")
        results = app.screen.query_one(ResultList)
        preview = app.screen.query_one(HitPreview)
        assert not preview.display and results.region.width >= 76
        lines = [results.render_line(y).text for y in range(results.region.height - 2)]
        evidence = [ln for ln in lines if " you " in ln or " claude " in ln]
        assert evidence and max(len(ln.strip()) for ln in evidence) >= 60
        await pilot.press("ctrl+o")  # the preview on, beside the results
        await settle(app, pilot)
        assert preview.display and preview.region.width >= 20
        await pilot.press("ctrl+o")
        await settle(app, pilot)
        assert not preview.display


async def test_search_keys_in_the_results(crowded_app) -> None:
    from textual.widgets import Input

    from ccarchive.tui.widgets.result_list import ResultList
    from tests.tui.support import pasted, searched

    app = crowded_app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        query = app.screen.query_one("#query", Input)
        await pasted(app, pilot, "checkpoint")  # the keys below are the subject
        results = app.screen.query_one(ResultList)
        assert results.option_count >= 3
        await pilot.press("down")
        assert app.focused is results and results.highlighted == 0
        await pilot.press("j", "j", "k")  # vim keys move, they are not typed
        assert results.highlighted == 1 and query.value == "checkpoint"
        await pilot.press("3")  # a digit is typed into the query, the pane stays
        assert app.current_mode == "search" and query.value == "checkpoint3"
        await pilot.press("backspace")
        await searched(app, pilot, "checkpoint")
        await pilot.press("down", "slash")  # back to the query, its text kept
        assert app.focused is query
        await pilot.press(*" gemini")
        assert query.value == "checkpoint gemini"
        await pilot.press("escape", "x")  # Esc does not select the text either
        assert query.value == "checkpoint geminix"


def test_a_history_line_repeating_the_prompt_gives_its_row_away(crowded_root, tmp_path) -> None:
    from tests.conftest import build_index

    svc = build_index(crowded_root, tmp_path / "data")
    page = svc.search("lint failing nolint", group_by_session=True, hits_per_group=2, limit=20)
    assert page.groups
    for g in page.groups:
        assert 1 <= len(g.hits) <= 2
        prompts = [h.snippet for h in g.hits if h.kind == "prompt"]
        for h in g.hits:
            if h.kind == "history":
                assert not any(h.snippet.strip("…") in p for p in prompts), g
    # the history lines are still found on their own
    assert svc.search("nolint", kind="history", limit=5).hits


# ---- titles: every pane shows the service's title ------------------------------------------
async def test_every_pane_shows_the_services_titles_never_only_a_redaction_mark(
    crowded_app,
) -> None:
    """Search, the Timeline and a project's session list show the title the service
    gives each session; one whose only prompt is `CheckpointSummary` (a name a detector
    may take for a cut token) has a readable title, not only a redaction mark."""
    from ccarchive.tui.screens.project_sessions import ProjectSessionList
    from ccarchive.tui.widgets.result_list import ResultList
    from ccarchive.tui.widgets.timeline_sessions import DaySessions
    from tests.tui.support import pasted

    only_mark = re.compile(r"\s*(\[REDACTED[^\]]*\]\s*)+")
    app = crowded_app
    svc = app.service
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pasted(app, pilot, "checkpointsummary")
        results = app.screen.query_one(ResultList)
        groups = [c.group for c in results._cards if c.group is not None]
        assert groups
        for g in groups:
            assert g.title == svc.session_title(g.session_id)[0]
        titles = [g.title for g in groups]
        assert not any(only_mark.fullmatch(t) for t in titles), titles
        sid, project = groups[0].session_id, groups[0].project

        await app.switch_mode("timeline")
        await settle(app, pilot)
        table = app.screen.query_one(DaySessions)
        for row, s in enumerate(table.sessions):
            title = svc.session_title(s.session_id)[0] or s.first_prompt
            assert title[:20] in row_text(table, row)

        await app.switch_mode("projects")
        await settle(app, pilot)
        table = app.screen.query_one("#projects-table")
        table.move_cursor(row=[p.path for p in table.projects].index(project))
        await pilot.press("enter")
        await settle(app, pilot)
        listed = app.screen.query_one(ProjectSessionList)
        row = [s.session_id for s in listed.sessions].index(sid)
        assert not only_mark.fullmatch(row_text(listed, row).split("  ", 1)[1].strip()[:18])


async def test_plans_grouping_and_back_keeps_the_plan_and_o_opens_its_session(crowded_app) -> None:
    from ccarchive.tui.widgets.plan_tree import PlanTree

    app = crowded_app
    opened: list[OpenSession] = []
    async with app.run_test(
        size=(80, 24), message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("plans")
        await settle(app, pilot)
        tree = app.screen.query_one(PlanTree)
        await pilot.press(*["down"] * 6)
        await settle(app, pilot)
        shown = app.screen._shown
        assert tree.cursor_node.data == shown and shown.kind == "plan"
        await pilot.press("g")
        await settle(app, pilot)
        assert tree.cursor_node.data == shown
        for _ in range(12):  # onto a project's line: the plan on show stays the same
            await pilot.press("down")
            await settle(app, pilot)
            if tree.cursor_node.data.kind == "project":
                break
        assert tree.cursor_node.data.kind == "project"
        shown = app.screen._shown
        await pilot.press("g")
        await settle(app, pilot)
        assert tree.cursor_node.data == shown
        await pilot.press("o")
        await settle(app, pilot)
        group = tree.group_of(tree._find(shown))
        assert opened and opened[-1].session_id == group.sessions[0][0]


async def test_a_query_entirely_ignored_says_so_and_a_long_title_keeps_the_header(
    crowded_app,
) -> None:
    """At 80x24: a query entirely ignored says so and lists the recent activity; a hit of
    a session with a long title opens Replay with a header that keeps the project and the
    branch on its second line."""
    from textual.widgets import Input

    from ccarchive.tui.format import short_project
    from ccarchive.tui.widgets.result_list import ResultList
    from tests.tui.support import searched

    app = crowded_app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        recent = [c.group.session_id for c in app.screen.query_one(ResultList)._cards]
        app.screen.query_one("#query", Input).value = "?? !!"
        await searched(app, pilot, "?? !!")
        status = str(app.screen.query_one("#search-status").render())
        assert "nothing to search for" in status and "matching" not in status
        shown = [c.group.session_id for c in app.screen.query_one(ResultList)._cards]
        assert shown == recent

        # Replay's header keeps the project and the branch under a long title
        app.screen.query_one("#query", Input).value = "nolint formatter"
        await searched(app, pilot, "nolint formatter")
        await pilot.press("enter")
        await settle(app, pilot)
        screen = app.screen
        info = screen.place.info
        assert len(info.title) > 80
        title = screen.query_one("#tx-title")
        assert title.region.height == 2
        lines = [
            "".join(s.text for s in strip)
            for strip in title.render_lines(title.region.reset_offset)
        ]
        assert lines[0].rstrip().endswith("…")
        assert lines[1].strip().startswith(short_project(info.project))
        assert f"branch {info.branches[0]}"[:14] in lines[1]


async def test_sessions_gone_from_disk_are_marked_in_search_replay_and_lists(
    crowded_root, tmp_path, fixed_clock
) -> None:
    import shutil

    from ccarchive.tui.app import make_app
    from ccarchive.tui.screens.project_sessions import ProjectSessionList
    from ccarchive.tui.widgets.result_list import ResultList
    from tests.conftest import build_index
    from tests.tui.support import pasted

    root = tmp_path / "claude"
    shutil.copytree(crowded_root, root)
    data = tmp_path / "data"
    svc = build_index(root, data)
    victim = svc.sessions(limit=1).sessions[0]
    files = list(root.glob(f"projects/*/{victim.session_id}.jsonl"))
    assert len(files) == 1
    files[0].unlink()
    svc = build_index(root, data)
    assert not svc.session(victim.session_id).on_disk
    settings = Settings(archive_root=root, data_dir=data)
    live = LiveArchive(settings, watch=False).start()
    for t in live._threads:
        t.join(60)
    app = make_app(settings, live=live, start_live=False)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(app, pilot)
            results = app.screen.query_one(ResultList)  # the recent activity: it is first
            card = next(c for c in results._cards if c.group.session_id == victim.session_id)
            assert not card.group.on_disk
            line = results.render_line(results._starts[results._cards.index(card)]).text
            assert line.strip().startswith("gone ")
            words = " ".join(victim.title.split()[:3])
            await pasted(app, pilot, words)
            groups = {c.group.session_id: c.group for c in results._cards}
            assert not groups[victim.session_id].on_disk
            assert all(g.on_disk for sid, g in groups.items() if sid != victim.session_id)
            app.post_message(OpenSession(victim.session_id))
            await settle(app, pilot)
            header = str(app.screen.query_one("#tx-title").render())
            assert "gone from disk" in header
            await app.switch_mode("projects")
            await settle(app, pilot)
            table = app.screen.query_one("#projects-table")
            table.move_cursor(row=[p.path for p in table.projects].index(victim.project))
            await pilot.press("enter")
            await settle(app, pilot)
            listed = app.screen.query_one(ProjectSessionList)
            row = [s.session_id for s in listed.sessions].index(victim.session_id)
            assert "gone " in row_text(listed, row)
    finally:
        live.stop()


async def test_the_project_drop_downs_keep_names_apart_and_since_counts_back(
    crowded_app,
) -> None:
    """The Timeline's and Prompts' project drop-downs keep each name on one line and
    apart; Prompts' `since 3d` counts back from the archive's last activity (not from
    today) and leaves older prompts out."""
    from datetime import UTC, datetime, timedelta

    from textual.widgets import Input, Select

    from ccarchive.tui.screens.prompts import SELECT_NAME
    from ccarchive.tui.widgets.prompt_list import PromptTable

    app = crowded_app
    last = app.service.last_activity()
    bound = app.service.archive_date("3d")
    if last < datetime.now(UTC):  # an archive quiet since: its own last three days
        assert bound == (last - timedelta(days=3)).replace(
            hour=0, minute=0, second=0, microsecond=0
        )
    async with app.run_test(size=(80, 24)) as pilot:
        for mode, select_id in (("timeline", "#timeline-project"), ("prompts", "#prompts-project")):
            await app.switch_mode(mode)
            await settle(app, pilot)
            select = app.screen.query_one(select_id, Select)
            labels = [
                str(label) for label, value in select._options if isinstance(value, str)
            ]  # not the blank choice
            assert len(labels) == 25 and len(set(labels)) == 25, labels
            assert all(len(label) <= SELECT_NAME for label in labels)

        # in Prompts (on show): `since 3d` counts back from the archive's last activity
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press("down")  # ↓ from the search box to the list
        table = app.screen.query_one(PromptTable)
        assert app.focused is table
        await pilot.press("a", "3", "d")
        await pilot.pause(0.4)
        await settle(app, pilot)
        assert table.items, "since 3d shows the archive's last days"
        assert all(it.timestamp >= bound for it in table.items)
        older = app.service.history(limit=500).items
        assert any(it.timestamp < bound for it in older)  # the filter left some out
