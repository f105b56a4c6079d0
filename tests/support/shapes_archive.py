"""A small archive shaped like the real one a reviewer tried (273 sessions, "the app as a
person meets it"): checkouts that share a folder name, numbered worktrees, a session
started from an accepted plan, a session of hundreds of entries that would fill a page of
recent entries alone, and nothing newer than months before the tests' "now".

Written as real JSONL transcripts, indexed for real by the tests that use it.
"""

from __future__ import annotations

import json
from itertools import count
from pathlib import Path

PLAN_PROMPT = (
    "Implement the following plan:\n\n# Plan: Retry backoff for **fetch**\n\n"
    "## Context\n\nThe fetch loop gives up after one try; retry with backoff.\n\n"
    "## Steps\n\n1. Add `retry()`\n2. Test it\n"
)
"""The first prompt Claude Code writes when a plan is accepted with a fresh context."""

PLAN_SESSION = "a1f0c2d3-0000-4000-8000-000000000001"
OSS_SESSION = "b2e1d3c4-0000-4000-8000-000000000002"
TREE3_SESSION = "c0ffee03-0000-4000-8000-000000000003"
TREE4_SESSION = "c1ab0004-0000-4000-8000-000000000004"
OLD_SESSION = "d4000005-0000-4000-8000-000000000005"
BIG_SESSION = "e5000006-0000-4000-8000-000000000006"
BIG_TURNS = 130
"""Prompt/answer pairs of the big session: 260 entries, newer than everything else."""

PROJECTS = {
    "/home/u/work/cli": "work/cli",
    "/home/u/oss/cli": "oss/cli",
    "/home/u/oss/cli/.worktrees/3": "cli/.worktrees/3",
    "/home/u/oss/cli/.worktrees/4": "cli/.worktrees/4",
    "/home/u/src/tally": "tally",
}
"""Each project's path and the short name every front end should show for it."""

LAST_DAY = "2026-08-20"
"""The day of the last activity (the tests' clock says 2026-11-20)."""

COMMAND = "git commit --no-verify -m 'retry with backoff'"


class _Session:
    def __init__(self, sid: str, cwd: str) -> None:
        self.sid, self.cwd = sid, cwd
        self.lines: list[dict] = []
        self.n = count()
        self.parent: str | None = None

    def _base(self, kind: str, ts: str) -> dict:
        uuid = f"{self.sid[:8]}-{next(self.n):04d}"
        rec = {
            "type": kind,
            "uuid": uuid,
            "parentUuid": self.parent,
            "sessionId": self.sid,
            "cwd": self.cwd,
            "timestamp": ts,
            "gitBranch": "main",
            "version": "2.1.40",
        }
        self.parent = uuid
        return rec

    def user(self, ts: str, text: str) -> None:
        rec = self._base("user", ts)
        rec["message"] = {"role": "user", "content": text}
        self.lines.append(rec)

    def assistant(self, ts: str, text: str) -> None:
        rec = self._base("assistant", ts)
        rec["message"] = {
            "id": f"msg_{rec['uuid']}",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        self.lines.append(rec)

    def tool(self, ts: str, name: str, inp: dict, result: str) -> None:
        tid = f"toolu_{self.sid[:4]}{len(self.lines)}"
        rec = self._base("assistant", ts)
        rec["message"] = {
            "id": f"msg_{rec['uuid']}",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        self.lines.append(rec)
        res = self._base("user", ts)
        res["message"] = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tid, "content": result}],
        }
        self.lines.append(res)

    def write(self, root: Path) -> None:
        folder = root / "projects" / self.cwd.replace("/", "-").replace(".", "-")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{self.sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in self.lines))


def write_shapes_archive(root: Path) -> Path:
    """Write the archive under `root` (a `~/.claude`-like folder) and return it."""
    plan = _Session(PLAN_SESSION, "/home/u/work/cli")
    plan.user("2026-08-10T09:00:00Z", PLAN_PROMPT)
    plan.assistant("2026-08-10T09:00:05Z", "Reading the fetch loop first.")
    plan.tool(
        "2026-08-10T09:00:10Z",
        "Read",
        {"file_path": "/home/u/work/cli/src/fetch.py"},
        "def fetch(): ...",
    )
    plan.tool(
        "2026-08-10T09:00:20Z",
        "Grep",
        {"pattern": "def retry", "path": "/home/u/work/cli"},
        "No matches",
    )
    plan.tool(
        "2026-08-10T09:01:00Z",
        "Bash",
        {"command": COMMAND, "description": "Commit without the hooks"},
        "[main 1a2b3c4] retry with backoff",
    )
    plan.assistant("2026-08-10T09:01:05Z", "Committed the retry loop.")

    oss = _Session(OSS_SESSION, "/home/u/oss/cli")
    oss.user("2026-08-12T10:00:00Z", "fix the **flaky** `test_retry` in the [cli](http://x/cli)")
    oss.assistant("2026-08-12T10:00:05Z", "The flaky test sleeps on a real clock.")

    tree3 = _Session(TREE3_SESSION, "/home/u/oss/cli/.worktrees/3")
    tree3.user("2026-08-14T11:00:00Z", "worktree three: port the retry loop")
    tree3.assistant("2026-08-14T11:00:05Z", "Ported.")

    tree4 = _Session(TREE4_SESSION, "/home/u/oss/cli/.worktrees/4")
    tree4.user("2026-08-15T11:00:00Z", "worktree four: benchmark the retry loop")
    tree4.assistant("2026-08-15T11:00:05Z", "Benchmarked.")

    old = _Session(OLD_SESSION, "/home/u/src/tally")
    old.user("2026-06-01T08:00:00Z", "count the lines of every file in the tally repo")
    old.assistant("2026-06-01T08:00:05Z", "Counted.")

    big = _Session(BIG_SESSION, "/home/u/src/tally")
    for i in range(BIG_TURNS):
        minute = f"{i // 60:02d}:{i % 60:02d}"
        big.user(f"2026-08-20T12:{minute}.000Z", f"step {i} of the long refactor")
        big.assistant(f"2026-08-20T12:{minute}.500Z", f"done with step {i}")

    for s in (plan, oss, tree3, tree4, old, big):
        s.write(root)
    (root / "history.jsonl").write_text("")
    return root
