"""The demo archive's live session, carried on as Claude Code writes it: a turn appended
to the session and to history.jsonl, or a new session started (the Live and Prompts
panes' tests watch these arrive)."""

from __future__ import annotations

import json
from pathlib import Path

SESSION = "097b4589-ae10-47e5-83a2-4051f38639c1"
SESSION_FILE = "projects/-home-demo-src-pantry-api/097b4589-ae10-47e5-83a2-4051f38639c1.jsonl"
NEW_SESSION = "5e55e5e5-0000-4000-8000-000000000001"
NEW_FILE = f"projects/-home-demo-src-tally/{NEW_SESSION}.jsonl"


def _line(
    session: str,
    kind: str,
    text: str,
    ts: str,
    uuid: str,
    parent: str | None,
    cwd: str = "/home/demo/src/pantry-api",
    branch: str = "feat/login-rate-limit",
) -> str:
    base = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "entrypoint": "cli",
        "cwd": cwd,
        "sessionId": session,
        "version": "2.1.281",
        "gitBranch": branch,
        "type": kind,
        "uuid": uuid,
        "timestamp": ts,
    }
    if kind == "user":
        base["message"] = {"role": "user", "content": text}
    else:
        base["message"] = {
            "model": "claude-opus-4-7",
            "id": f"msg_{uuid[:8]}",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 3, "output_tokens": 20},
        }
    return json.dumps(base) + "\n"


def append_turn(root: Path, n: int) -> list[str]:
    """Append a prompt and an answer to the live demo session (and history.jsonl), as
    Claude Code writes them; returns the archive-relative paths written."""
    ts = f"2026-11-20T16:29:{10 + 2 * n:02d}.000Z"
    prompt = f"follow-up number {n}: also log the blocked attempts"
    with (root / SESSION_FILE).open("a") as f:
        f.write(
            _line(
                SESSION,
                "user",
                prompt,
                ts,
                f"aaaaaaaa-0000-4000-8000-{n:012d}",
                "d8464fda-2ecf-4fb1-bef6-9fadd38cc6f4",
            )
        )
        f.write(
            _line(
                SESSION,
                "assistant",
                f"Logged blocked attempt number {n} at WARNING.",
                ts.replace(":29:", ":29:").replace(".000Z", ".500Z"),
                f"bbbbbbbb-0000-4000-8000-{n:012d}",
                f"aaaaaaaa-0000-4000-8000-{n:012d}",
            )
        )
    with (root / "history.jsonl").open("a") as f:
        f.write(
            json.dumps(
                {
                    "display": prompt,
                    "pastedContents": {},
                    "timestamp": 1795192150000 + n * 2000,
                    "project": "/home/demo/src/pantry-api",
                    "sessionId": SESSION,
                }
            )
            + "\n"
        )
    return [SESSION_FILE, "history.jsonl"]


def start_new_session(root: Path) -> list[str]:
    """Start another session in the demo's tally project; returns the path written."""
    (root / NEW_FILE).write_text(
        _line(
            NEW_SESSION,
            "user",
            "bump the MSRV to 1.80 and fix the clippy lints",
            "2026-11-20T16:29:40.000Z",
            "cccccccc-0000-4000-8000-000000000001",
            None,
            cwd="/home/demo/src/tally",
            branch="chore/msrv",
        )
    )
    return [NEW_FILE]
