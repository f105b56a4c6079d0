"""Live pane: active sessions, the followed tail, "+N new" when scrolled up, End."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tui.support import SIZE, settle

SESSION = "097b4589-ae10-47e5-83a2-4051f38639c1"
SESSION_FILE = "projects/-home-demo-src-pantry-api/097b4589-ae10-47e5-83a2-4051f38639c1.jsonl"
NEW_SESSION = "5e55e5e5-0000-4000-8000-000000000001"
NEW_FILE = f"projects/-home-demo-src-tally/{NEW_SESSION}.jsonl"


def _line(session: str, kind: str, text: str, ts: str, uuid: str, parent: str | None,
          cwd: str = "/home/demo/src/pantry-api", branch: str = "feat/login-rate-limit") -> str:
    base = {"parentUuid": parent, "isSidechain": False, "userType": "external",
            "entrypoint": "cli", "cwd": cwd, "sessionId": session, "version": "2.1.281",
            "gitBranch": branch, "type": kind, "uuid": uuid, "timestamp": ts}
    if kind == "user":
        base["message"] = {"role": "user", "content": text}
    else:
        base["message"] = {"model": "claude-opus-4-7", "id": f"msg_{uuid[:8]}",
                           "type": "message", "role": "assistant",
                           "content": [{"type": "text", "text": text}],
                           "stop_reason": "end_turn",
                           "usage": {"input_tokens": 3, "output_tokens": 20}}
    return json.dumps(base) + "\n"


def append_turn(root: Path, n: int) -> list[str]:
    """Append a prompt and an answer to the live demo session (and history.jsonl), as
    Claude Code writes them; returns the archive-relative paths written."""
    ts = f"2026-11-20T16:29:{10 + 2 * n:02d}.000Z"
    prompt = f"follow-up number {n}: also log the blocked attempts"
    with (root / SESSION_FILE).open("a") as f:
        f.write(_line(SESSION, "user", prompt, ts, f"aaaaaaaa-0000-4000-8000-{n:012d}",
                      "d8464fda-2ecf-4fb1-bef6-9fadd38cc6f4"))
        f.write(_line(SESSION, "assistant", f"Logged blocked attempt number {n} at WARNING.",
                      ts.replace(":29:", ":29:").replace(".000Z", ".500Z"),
                      f"bbbbbbbb-0000-4000-8000-{n:012d}", f"aaaaaaaa-0000-4000-8000-{n:012d}"))
    with (root / "history.jsonl").open("a") as f:
        f.write(json.dumps({"display": prompt, "pastedContents": {},
                            "timestamp": 1795192150000 + n * 2000,
                            "project": "/home/demo/src/pantry-api", "sessionId": SESSION}) + "\n")
    return [SESSION_FILE, "history.jsonl"]


def start_new_session(root: Path) -> list[str]:
    (root / NEW_FILE).write_text(_line(
        NEW_SESSION, "user", "bump the MSRV to 1.80 and fix the clippy lints",
        "2026-11-20T16:29:40.000Z", "cccccccc-0000-4000-8000-000000000001", None,
        cwd="/home/demo/src/tally", branch="chore/msrv"))
    return [NEW_FILE]


from ccarchive.tui.widgets.prompt_list import PromptTable  # noqa: E402
from ccarchive.tui.widgets.tail_sessions import ActiveSessions  # noqa: E402
from ccarchive.tui.widgets.tail_view import TailView  # noqa: E402


async def test_appended_lines_appear_in_tail_and_prompts(app, live, demo_archive) -> None:  # noqa: ANN001
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("prompts")
        await settle(app, pilot)
        await app.switch_mode("live")
        await settle(app, pilot)
        screen = app.screen
        sessions = screen.query_one(ActiveSessions)
        assert [s.session_id for s in sessions.sessions] == [SESSION]
        view = screen.query_one(TailView)
        assert view.follow and view.entries
        before = len(view.entries)

        live.run_once(only=append_turn(demo_archive, 1))
        await settle(app, pilot)
        texts = [e.text for e in view.entries]
        assert len(view.entries) == before + 2
        assert "follow-up number 1" in texts[-2] and "blocked attempt number 1" in texts[-1]
        assert view.follow and view.scroll_y == view.max_scroll_y

        # a new session shows up on its own
        live.run_once(only=start_new_session(demo_archive))
        await settle(app, pilot)
        assert NEW_SESSION in [s.session_id for s in sessions.sessions]
        assert screen.session_id == SESSION  # the followed session stays

        # ...and the prompt list grew at the top
        await app.switch_mode("prompts")
        await settle(app, pilot)
        table = app.screen.query_one(PromptTable)
        assert table.items[0].text.startswith("follow-up number 1")


async def test_scrolling_up_pauses_and_end_resumes(app, live, demo_archive) -> None:  # noqa: ANN001
    async with app.run_test(size=SIZE) as pilot:
        await app.switch_mode("live")
        await settle(app, pilot)
        view = app.screen.query_one(TailView)
        view.focus()
        assert view.max_scroll_y > 5
        await pilot.press("up", "up", "up")
        await settle(app, pilot)
        assert not view.follow
        y = view.scroll_y
        live.run_once(only=append_turn(demo_archive, 2))
        await settle(app, pilot)
        assert view.pending == 2 and view.scroll_y == y
        marker = app.screen.query_one("#live-pending")
        assert "+2 new" in str(marker.render())
        await pilot.press("end")
        await settle(app, pilot)
        assert view.follow and view.pending == 0 and view.scroll_y == view.max_scroll_y
        assert "following" in str(marker.render())


def test_snapshot(snap_compare, app) -> None:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.app.switch_mode("live")
        await settle(pilot.app, pilot)

    assert snap_compare(app, run_before=run_before, terminal_size=SIZE)
