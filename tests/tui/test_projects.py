"""Projects pane: projects with figures, memory files as Markdown, session summaries."""

from __future__ import annotations

from ccarchive.tui.messages import OpenSession
from ccarchive.tui.widgets.project_list import MemoryList, ProjectTable
from tests.tui.support import SIZE, first_frames, settle


async def test_projects_and_memory_files(app) -> None:
    """The projects with their memory files, a file shown as Markdown, the project and
    the file kept when the index is updated, a session summary opening its session."""
    from ccarchive.index.run_reports import CommitInfo
    from ccarchive.tui.messages import IndexUpdated

    opened: list[OpenSession] = []
    async with app.run_test(
        size=SIZE, message_hook=lambda m: isinstance(m, OpenSession) and opened.append(m)
    ) as pilot:
        await app.switch_mode("projects")
        await settle(app, pilot)
        table = app.screen.query_one(ProjectTable)
        assert [p.path.rsplit("/", 1)[-1] for p in table.projects] == [
            "pantry-api",
            "tally",
            "dotfiles",
            "weather_etl",
        ]
        mem = app.screen.query_one(MemoryList)
        assert [f.filename for f in mem.files] == ["MEMORY.md", "testing.md"]
        md = app.screen.query_one("#memory-markdown")
        assert "pantry-api" in md.source.lower() or md.source
        # tally: MEMORY.md, a topic file and a session-memory summary of its session
        await pilot.press("down")
        await settle(app, pilot)
        assert [f.filename for f in mem.files] == ["MEMORY.md", "benchmarking.md", "summary.md"]
        mem.focus()
        await pilot.press("down")
        await settle(app, pilot)
        assert "Benchmark" in md.source or "bench" in md.source.lower()
        # a refresh keeps the project and the file
        app.post_message(IndexUpdated(CommitInfo(1, 0, frozenset(), frozenset(), frozenset())))
        await settle(app, pilot)
        assert table.selected.endswith("/tally")
        assert mem.selected_file.filename == "benchmarking.md"
        await pilot.press("down", "enter")
        await settle(app, pilot)
        assert opened and opened[-1].session_id.startswith("f26dbc60")


def test_snapshot(snap_compare, app) -> None:
    async def run_before(pilot) -> None:
        await pilot.app.switch_mode("projects")
        await settle(pilot.app, pilot)
        await pilot.press("down")
        await settle(pilot.app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)


async def test_first_frame_holds_the_lists_and_the_file(app) -> None:
    """The pane reads its lists before its first frame, and that frame is shown."""

    def probe(screen) -> tuple[int, int, bool]:
        return (
            len(screen.query_one(ProjectTable).projects),
            len(screen.query_one(MemoryList).files),
            bool(screen.query_one("#memory-markdown").source),
        )

    async with app.run_test(size=SIZE) as pilot:
        seen = await first_frames(app, pilot, "projects", probe)  # as F5 does
        # the first frame waited for the layout Textual asks for once the screen is
        # mounted, and saw it come (not the FIRST_FRAME_HOLD timeout)
        assert app.screen.released_by == "layout"
    assert seen, "the pane was drawn"
    assert seen[0] == (0, (4, 2, True))
