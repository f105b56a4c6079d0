"""Small sessions of numbered entries (`<word> message number <i>`, user and assistant in
turn) in one project: the indexer and crash tests append to them and count them back."""

from __future__ import annotations

import json
from pathlib import Path

PROJECT = "-home-me-proj"


def entry(i: int, sid: str, text: str, *, kind: str = "user", parent: str | None = None) -> dict:
    base = {
        "type": kind,
        "uuid": f"{sid[:8]}-u{i}",
        "parentUuid": parent,
        "sessionId": sid,
        "timestamp": f"2026-03-01T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
        "cwd": "/home/me/proj",
        "gitBranch": "main",
        "version": "2.1.40",
    }
    if kind == "user":
        base["message"] = {"role": "user", "content": text}
    else:
        base["message"] = {
            "id": f"msg_{sid[:4]}_{i}",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    return base


def write_session(
    root: Path, sid: str, n: int, word: str = "alpha", *, start: int = 0, mode: str = "w"
) -> Path:
    path = root / "projects" / PROJECT / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode) as f:
        for i in range(start, start + n):
            kind = "user" if i % 2 == 0 else "assistant"
            f.write(json.dumps(entry(i, sid, f"{word} message number {i}", kind=kind)) + "\n")
    return path
