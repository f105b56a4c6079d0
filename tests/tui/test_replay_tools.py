"""Replay shows what a tool call did: diffs, patterns, checklists, results under their
calls, paths cut in the middle; time jumps that say where they landed; a Task without
its subagent; exports that never write into the archive.

Most tests run on a small archive written here with real JSONL lines (parallel calls,
a MultiEdit on a long path, a Task whose subagent was not kept); the Edit diff and the
Grep summary are also checked on the demo archive.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ccarchive.config import Settings
from ccarchive.service.models import Entry
from ccarchive.service.tool_calls import fit_path, tool_line
from ccarchive.tui.messages import OpenSession
from ccarchive.tui.screens.replay.screen import ReplayScreen
from ccarchive.tui.screens.replay.time_jump import jump_outcome, parse_jump
from ccarchive.tui.widgets.call_pairs import CallPairs
from ccarchive.tui.widgets.transcript_view import TranscriptView
from tests.tui.conftest import indexed_once
from tests.tui.support import FOLLOWUP_SESSION, SIZE, settle

SID = "00000000-0000-4000-8000-0000000000aa"
CWD = "/home/dev/tools"
T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
LONG_PATH = f"{CWD}/src/very/deeply/nested/module/directory/for/walking/walker_implementation.rs"
SMALL = (80, 24)


class _Session:
    """Writes one session's JSONL lines, chaining uuids and times as Claude Code does."""

    def __init__(self) -> None:
        self.lines: list[dict] = []
        self.n = 0
        self.parent: str | None = None

    def _rec(self, type_: str, message: dict, secs: float, **extra: object) -> dict:
        self.n += 1
        uid = f"aa000000-0000-4000-a000-{self.n:012d}"
        rec = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SID,
            "version": "2.1.100",
            "gitBranch": "main",
            "type": type_,
            "message": message,
            "uuid": uid,
            "timestamp": (T0 + timedelta(seconds=secs)).isoformat().replace("+00:00", "Z"),
            **extra,
        }
        self.parent = uid
        self.lines.append(rec)
        return rec

    def prompt(self, text: str, secs: float) -> None:
        self._rec("user", {"role": "user", "content": text}, secs)

    def say(self, text: str, secs: float, msg: str) -> None:
        self._rec("assistant", self._assistant(msg, {"type": "text", "text": text}), secs)

    def call(self, tid: str, name: str, inp: dict, secs: float, msg: str) -> None:
        block = {"type": "tool_use", "id": tid, "name": name, "input": inp}
        self._rec("assistant", self._assistant(msg, block), secs)

    def result(self, tid: str, text: str, secs: float) -> None:
        block = {"tool_use_id": tid, "type": "tool_result", "content": text}
        self._rec(
            "user", {"role": "user", "content": [block]}, secs, toolUseResult={"stdout": text}
        )

    @staticmethod
    def _assistant(msg: str, block: dict) -> dict:
        return {
            "model": "claude-opus-4-6",
            "id": msg,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 4, "output_tokens": 20},
        }


def write_tools_archive(root: Path) -> None:
    """A session with parallel Greps and a Glob, a TodoWrite, a MultiEdit on a long path,
    an Edit, a Bash, a WebFetch and a Task whose subagent transcript is not kept."""
    s = _Session()
    s.prompt("Find the walker and fix it", 0)
    s.say("Looking for it.", 2, "msg_1")
    s.call("toolu_g1", "Grep", {"pattern": "fn walk", "path": f"{CWD}/src"}, 3, "msg_2")
    s.call("toolu_g2", "Grep", {"pattern": "struct Walker", "path": f"{CWD}/src"}, 3, "msg_2")
    s.call("toolu_gl", "Glob", {"pattern": "**/*.rs", "path": f"{CWD}/src"}, 3, "msg_2")
    s.result("toolu_g1", "src/walk.rs:12: fn walk(root: &Path) {", 5)
    s.result("toolu_g2", "src/walker.rs:3: struct Walker {", 5)
    s.result("toolu_gl", "src/walk.rs\nsrc/walker.rs", 5)
    s.call(
        "toolu_td",
        "TodoWrite",
        {
            "todos": [
                {"content": "Find the walker", "status": "completed", "activeForm": "Finding it"},
                {"content": "Fix the walker", "status": "in_progress", "activeForm": "Fixing it"},
                {"content": "Run the tests", "status": "pending", "activeForm": "Running them"},
            ]
        },
        6,
        "msg_3",
    )
    s.result("toolu_td", "Todos have been modified successfully.", 7)
    s.call(
        "toolu_me",
        "MultiEdit",
        {
            "file_path": LONG_PATH,
            "edits": [
                {"old_string": "let depth = 0;", "new_string": "let depth = 1;"},
                {"old_string": "max: 8,", "new_string": "max: 16,\nmin: 1,"},
            ],
        },
        8,
        "msg_4",
    )
    s.result("toolu_me", f"Applied 2 edits to {LONG_PATH}", 9)
    s.call(
        "toolu_ed",
        "Edit",
        {
            "file_path": f"{CWD}/src/walk.rs",
            "old_string": "fn walk(root: &Path) {\n    todo!()\n}",
            "new_string": "fn walk(root: &Path) {\n    visit(root)\n}",
        },
        10,
        "msg_5",
    )
    s.result("toolu_ed", f"The file {CWD}/src/walk.rs has been updated.", 11)
    s.call(
        "toolu_ba",
        "Bash",
        {"command": "cargo test --all", "description": "Run the tests"},
        12,
        "msg_6",
    )
    s.result("toolu_ba", "test result: ok. 12 passed", 20)
    s.call(
        "toolu_wf",
        "WebFetch",
        {"url": "https://docs.rs/ignore", "prompt": "How does a parallel walk work?"},
        21,
        "msg_7",
    )
    s.result("toolu_wf", "WalkBuilder::build_parallel runs a visitor per thread.", 24)
    s.call(
        "toolu_ta",
        "Task",
        {
            "description": "Audit unsafe blocks",
            "subagent_type": "Explore",
            "prompt": "Find every unsafe block in src.",
        },
        25,
        "msg_8",
    )
    s.result("toolu_ta", "No unsafe blocks.", 50)
    s.say("Fixed: the walker visits the tree now.", 60, "msg_9")
    folder = root / "projects" / "-home-dev-tools"
    folder.mkdir(parents=True)
    (folder / f"{SID}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in s.lines))


@pytest.fixture(scope="session")
def tools_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tools") / "claude"
    write_tools_archive(root)
    return root.resolve()


@pytest.fixture(scope="session")
def tools_indexed(tools_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_once(tools_root, tmp_path_factory.mktemp("tools-indexed"))


@pytest.fixture
def tools_app(tools_root: Path, tools_indexed: Path, index_copy, live_app):
    """The app over the small tools archive (indexed once per worker, no watcher)."""
    return live_app(index_copy(tools_root, tools_indexed))


@pytest.fixture
def own_tools_app(tmp_path: Path, live_app):
    """The app over a copy of the tools archive of its own: for the exports, which try to
    write into the archive (a hard link to one of its files, had one been left in the
    shared copy, would have changed what every later test reads)."""
    root = tmp_path / "claude"
    write_tools_archive(root)
    return live_app(Settings(archive_root=root.resolve(), data_dir=tmp_path / "data"))


async def open_session(app, pilot, sid: str = SID) -> TranscriptView:
    app.post_message(OpenSession(sid))
    await settle(app, pilot)
    assert isinstance(app.screen, ReplayScreen)
    return app.screen.view


def drawn(view: TranscriptView) -> list[str]:
    """The lines the view draws now, as text."""
    view._build_layout()
    return [view.render_line(y).text.rstrip() for y in range(view.size.height)]


def calls(view: TranscriptView, tool: str) -> list[int]:
    return [
        i
        for i in range(view.total)
        if (e := view.entry(i)) is not None and e.kind == "tool_call" and e.tool == tool
    ]


def recorded(app) -> list[str]:
    """Capture the app's notifications (what the person is told)."""
    said: list[str] = []
    notify = app.notify

    def keep(message: str, **kw: object) -> None:
        said.append(message)
        notify(message, **kw)

    app.notify = keep
    return said


# ---- what a tool call shows ------------------------------------------------------------
async def test_an_unfolded_edit_is_a_coloured_diff(app) -> None:
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot, FOLLOWUP_SESSION)
        edit = calls(view, "Edit")[0]  # walkdir = "2.5" -> ignore = "0.4" in Cargo.toml
        view.move_cursor(edit, context=1)
        await pilot.press("enter")
        strips = view._entry_strips(edit)
        texts = [s.text.strip() for s in strips]
        assert '-walkdir = "2.5"' in texts and '+ignore = "0.4"' in texts
        removed = strips[texts.index('-walkdir = "2.5"')]
        added = strips[texts.index('+ignore = "0.4"')]
        red = view.get_component_rich_style("transcript-view--diff-remove").color
        green = view.get_component_rich_style("transcript-view--diff-add").color
        assert red != green
        assert any(seg.style and seg.style.color == red for seg in removed if "walkdir" in seg.text)
        assert any(seg.style and seg.style.color == green for seg in added if "ignore" in seg.text)


async def test_a_multiedit_is_a_diff_per_edit_on_a_path_cut_in_the_middle(tools_app) -> None:
    app = tools_app
    async with app.run_test(size=SMALL) as pilot:
        view = await open_session(app, pilot)
        me = calls(view, "MultiEdit")[0]
        view.move_cursor(me, context=0)
        await pilot.pause()
        first = next(ln for ln in drawn(view) if "MultiEdit" in ln)
        assert "walker_implementation.rs" in first and "…/" in first
        assert "2 edits" in first and "+3 −2" in first
        await pilot.press("enter")
        texts = [s.text.strip() for s in view._entry_strips(me)]
        for expected in ("-let depth = 0;", "+let depth = 1;", "-max: 8,", "+max: 16,", "+min: 1,"):
            assert expected in texts


async def test_grep_glob_and_others_show_what_tells_them_apart(tools_app) -> None:
    app = tools_app
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot)
        lines = drawn(view)
        greps = [ln for ln in lines if "Grep(" in ln]
        assert len(greps) == 2 and greps[0] != greps[1]
        assert "Grep(fn walk) · in /home/dev/tools/src" in greps[0]
        assert "Grep(struct Walker) · in /home/dev/tools/src" in greps[1]
        assert any("Glob(**/*.rs) · in /home/dev/tools/src" in ln for ln in lines)
        view.move_cursor(view.total - 1)
        await pilot.pause()
        lines = drawn(view)
        assert any("Bash(cargo test --all) · Run the tests" in ln for ln in lines)
        assert any(
            "WebFetch(https://docs.rs/ignore) · How does a parallel walk" in ln for ln in lines
        )
        assert any("Task(Audit unsafe blocks) · Explore" in ln for ln in lines)


def _grep_with_a_path(service) -> tuple[str, str, str]:
    """(session id, pattern, path) of a demo Grep given a path (indexed as path, pattern)."""
    for s in service.sessions(limit=100).sessions:
        for e in service.transcript(s.session_id, limit=500).entries:
            args = e.text.split("\n")[1:]
            if e.kind == "tool_call" and e.tool == "Grep" and len(args) == 2:
                return s.session_id, args[1], args[0]
    raise AssertionError("the demo archive has no Grep with a path")


async def test_grep_shows_its_pattern_on_the_demo_archive(app) -> None:
    sid, pattern, path = _grep_with_a_path(app.service)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot, sid)
        grep = next(i for i in calls(view, "Grep") if view.entry(i).text.endswith(pattern))
        view.move_cursor(grep, context=1)
        await pilot.pause()
        line = next(ln for ln in drawn(view) if f"Grep({pattern})" in ln)
        assert f"Grep({pattern}) · in {path}" in line


async def test_parallel_results_sit_under_their_calls(tools_app) -> None:
    app = tools_app
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot)
        g1, g2 = calls(view, "Grep")
        glob = calls(view, "Glob")[0]
        assert (g1, g2, glob) == (2, 3, 4)  # written as three calls, then three results
        lines = [ln.strip() for ln in drawn(view) if ln.strip()]
        at = lines.index(next(ln for ln in lines if "Grep(fn walk)" in ln))
        assert "fn walk(root: &Path)" in lines[at + 1]
        assert "Grep(struct Walker)" in lines[at + 2]
        assert "struct Walker {" in lines[at + 3]
        assert "Glob(**/*.rs)" in lines[at + 4]
        assert "2 lines · src/walk.rs" in lines[at + 5]
        shown = view.visible_entries()
        assert {5, 6, 7}.isdisjoint(shown)  # the results have no place of their own
        view.move_cursor(g2, context=1)
        await pilot.press("j")
        assert view.cursor == glob
        await pilot.press("j")  # over the three results, to the TodoWrite
        assert view.entry(view.cursor).tool == "TodoWrite"
        await pilot.press("k")
        assert view.cursor == glob
        view.move_cursor(6)  # a search hit or a time on a result: shown at its call
        assert view.cursor == g2
        await pilot.press("enter")  # unfolds the call with its own result
        assert {g2, 6} <= view.expanded and g1 not in view.expanded


async def test_todowrite_is_a_checklist_and_the_fold_marker_turns(tools_app) -> None:
    """A TodoWrite reads as a checklist, folded and unfolded; a call's fold marker
    turns (▸, ▾) as it is unfolded and folded again."""
    app = tools_app
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot)
        todo = calls(view, "TodoWrite")[0]
        view.move_cursor(todo, context=1)
        await pilot.pause()
        folded = next(ln for ln in drawn(view) if "TodoWrite" in ln)
        assert "TodoWrite(1/3 done) · ◐ Fix the walker" in folded
        assert '"content"' not in folded and "[{" not in folded
        await pilot.press("enter")
        texts = [s.text.strip() for s in view._entry_strips(todo)]
        assert "☑ Find the walker" in texts
        assert "◐ Fix the walker" in texts
        assert "☐ Run the tests" in texts
        assert not any('"status"' in t for t in texts)

        # the fold marker turns when a call is unfolded, and back
        bash = calls(view, "Bash")[0]
        view.move_cursor(bash, context=1)
        await pilot.pause()
        assert view._entry_strips(bash)[0].text.lstrip().startswith("▸ Bash(")
        await pilot.press("enter")
        assert view._entry_strips(bash)[0].text.lstrip().startswith("▾ Bash(")
        assert any("$ cargo test --all" in s.text for s in view._entry_strips(bash))
        await pilot.press("enter")
        assert view._entry_strips(bash)[0].text.lstrip().startswith("▸ Bash(")


def test_paths_are_cut_in_the_middle_keeping_the_file_name() -> None:
    path = "/home/demo/src/tally/src/walk.rs"
    assert fit_path(path, 60) == path
    assert fit_path(path, 20) == "…/tally/src/walk.rs"
    assert fit_path(path, 10) == "…/walk.rs"
    assert fit_path(path, 7) == "walk.rs"
    cut = fit_path("/x/a_very_long_file_name_that_does_not_fit.py", 20)
    assert len(cut) == 20 and cut.endswith("not_fit.py") and "…" in cut


def test_summaries_without_the_input_read_the_indexed_text() -> None:
    """The live tail (and a session gone from disk) draws from the indexed text only."""
    grep = Entry(id="g", kind="tool_call", tool="Grep", text="Grep\n/src\nfn walk", files=["/src"])
    assert (tool_line(grep).main, tool_line(grep).where) == ("fn walk", "/src")
    alone = Entry(id="g", kind="tool_call", tool="Grep", text="Grep\nfn walk")
    assert (tool_line(alone).main, tool_line(alone).where) == ("fn walk", "")
    todo = Entry(
        id="t",
        kind="tool_call",
        tool="TodoWrite",
        text='TodoWrite\n[{"content":"a","status":"completed"},{"content":"b","status":"pending"}]',
    )
    assert tool_line(todo).main == "1/2 done"


def test_pairs_follow_pages_arriving_in_any_order_and_leaving() -> None:
    """Blocks of three parallel calls then their three results, across page edges."""
    size = 10

    def page(p: int) -> list[Entry]:
        return [
            Entry(
                id=str(n),
                kind="tool_call" if n % 6 < 3 else "tool_result",
                tool_use_id=f"t{n // 6}-{n % 3}",
            )
            for n in range(p * size, p * size + size)
        ]

    pairs, pages = CallPairs(), {}
    for p in (3, 0, 5, 1, 4, 2):
        pages[p] = page(p)
        pairs.page_added(pages, p, size)
    assert pairs.call_of == {n: n - 3 for n in range(60) if n % 6 >= 3}
    assert pairs.shown(10) == 7 and pairs.hidden(10) and not pairs.hidden(7)
    del pages[2]
    pairs.page_dropped(2, size)  # every pair with an end in entries 20-29 goes
    assert pairs.call_of == {
        n: n - 3 for n in range(60) if n % 6 >= 3 and not (20 <= n < 30 or 20 <= n - 3 < 30)
    }
    pages[2] = page(2)
    pairs.page_added(pages, 2, size)  # the page read again: paired again
    assert pairs.call_of == {n: n - 3 for n in range(60) if n % 6 >= 3}


# ---- jump to a time ----------------------------------------------------------------------
async def jump(app, pilot, text: str) -> None:
    await pilot.press("t")
    await pilot.pause()
    app.screen.query_one("#ask-input").value = text
    await pilot.press("enter")
    await settle(app, pilot)


async def test_time_jumps_say_where_they_landed(tools_app) -> None:
    app = tools_app
    said = recorded(app)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot)
        last = view.pairs.shown(view.total - 1)
        view.move_cursor(5)

        await jump(app, pilot, "03:00")  # the session ran 10:00-10:01
        assert view.cursor == 0
        assert (
            "03:00:00 is before this transcript starts (10:00:00): at the first entry." in said[-1]
        )

        await jump(app, pilot, "+999h")
        assert view.cursor == last
        assert said[-1].startswith("+999h is past the end: this transcript lasts 1 min.")

        await jump(app, pilot, "2026-05-03 12:00")  # a date before the session's day
        assert view.cursor == 0
        assert said[-1].startswith(
            "2026-05-03 12:00:00 is before this transcript starts (2026-05-04 10:00:00)"
        )

        await jump(app, pilot, "2026-05-05")
        assert view.cursor == last and "is after this transcript ends" in said[-1]

        await jump(app, pilot, "2026-05-04 10:00:12")  # the Bash call
        assert view.entry(view.cursor).tool == "Bash"
        assert said[-1].startswith(f"Jumped to entry {view.cursor + 1}")
        assert "2026-05-04 10:00:12" in said[-1]

        await jump(app, pilot, "+21s")  # the WebFetch, 21 s after the start
        assert view.entry(view.cursor).tool == "WebFetch"
        assert "+21s (10:00:21)" in said[-1] and "Jumped" in said[-1]


def test_jump_wording_never_claims_a_jump_outside_the_transcript() -> None:
    first, last = T0, T0 + timedelta(hours=2)
    when = parse_jump("+999h", None, first)
    out = jump_outcome(when, 40, None, 41, first, last)
    assert out.moved_to_end and out.index == 40 and "past the end" in out.message
    when = parse_jump("09:59", T0, first)
    out = jump_outcome(when, 0, first, 41, first, last)
    assert out.moved_to_end and out.index == 0 and "before this transcript starts" in out.message
    when = parse_jump("11:00", T0, first)
    out = jump_outcome(when, 20, T0 + timedelta(hours=1), 41, first, last)
    assert not out.moved_to_end and out.message.startswith("Jumped to entry 21 (11:00:00)")
    with pytest.raises(ValueError, match="not a time"):
        parse_jump("tea time", T0, first)


# ---- a Task whose subagent was not kept ----------------------------------------------
async def test_o_on_a_task_without_its_subagent_says_so(tools_app) -> None:
    app = tools_app
    said = recorded(app)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_session(app, pilot)
        view.move_cursor(calls(view, "Task")[0])
        await pilot.press("o")
        assert said[-1].startswith("This Task call's subagent transcript is not in the archive")
        assert len(app.screen.stack) == 1
        view.move_cursor(calls(view, "Bash")[0])
        await pilot.press("o")
        assert said[-1].startswith("Not a subagent call")


# ---- export never writes into the archive ----------------------------------------------
def listing(root: Path) -> set[tuple[str, int]]:
    return {
        (str(p.relative_to(root)), p.stat().st_size if p.is_file() else -1) for p in root.rglob("*")
    }


async def export_dialog(app, pilot) -> str:
    await pilot.press("e")
    await pilot.pause()
    return app.screen.query_one("#ask-input").value


async def answer(app, pilot, value: str) -> None:
    app.screen.query_one("#ask-input").value = value
    await pilot.press("enter")
    await settle(app, pilot)


async def test_export_from_inside_the_archive_goes_outside_it(
    own_tools_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = own_tools_app
    root = app.service.root
    home = tmp_path / "home"
    (home / "Downloads").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(root / "projects")  # started with the archive as working directory
    before = listing(root)
    said = recorded(app)
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        default = Path(await export_dialog(app, pilot))
        assert default.parent == home / "Downloads"
        assert default.name.endswith(f"-{SID[:8]}.md")
        await answer(app, pilot, "out.md")  # relative: would land in the archive
        assert "inside the archive" in said[-1] and "never writes there" in said[-1]
        assert app.screen.query_one("#ask-input").value == str(default)  # offered instead
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, ReplayScreen)
    assert listing(root) == before
    text = default.read_text()
    assert text.startswith("# Find the walker and fix it")
    assert "```diff\n-let depth = 0;\n+let depth = 1;" in text
    assert "- [x] Find the walker" in text and "**Tool: Grep** `fn walk in" in text


async def test_export_refuses_paths_into_the_archive_and_symlinks_to_it(
    own_tools_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = own_tools_app
    root = app.service.root
    outside = tmp_path / "work"
    outside.mkdir()
    monkeypatch.chdir(outside)
    (outside / "link").symlink_to(root / "projects", target_is_directory=True)
    before = listing(root)
    said = recorded(app)
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        default = Path(await export_dialog(app, pilot))
        assert default.parent == outside  # the working directory, outside the archive
        for inside in (
            str(root / "exports" / "x.md"),
            str(root),
            str(root / "[b]x[/oops] [link].md"),
            "link/x.md",
            str(outside / "link"),
        ):
            await answer(app, pilot, inside)
            assert "inside the archive" in said[-1], inside
            assert app.screen.query_one("#ask-input").value == str(default)
        assert "through a symlink" in said[-1]
        await pilot.press("escape")
        await settle(app, pilot)
    assert listing(root) == before
    assert not os.path.exists(default)


async def test_export_over_a_hard_link_into_the_archive_leaves_the_archive_alone(
    own_tools_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = own_tools_app
    root = app.service.root
    transcript = next(root.rglob("*.jsonl"))
    original = transcript.read_bytes()
    monkeypatch.chdir(tmp_path)
    os.link(transcript, tmp_path / "same-inode.md")  # outside by path, inside by inode
    async with app.run_test(size=SIZE) as pilot:
        await open_session(app, pilot)
        await export_dialog(app, pilot)
        await answer(app, pilot, "same-inode.md")
    assert transcript.read_bytes() == original
    assert (tmp_path / "same-inode.md").read_text().startswith("# Find the walker")
    assert not list(tmp_path.glob(".*.partial"))
