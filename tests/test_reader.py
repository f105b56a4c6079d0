"""Lines the reader skips without parsing them, and only those."""

from __future__ import annotations

import json

from app.index.reader import _is_noise


def _line(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


ENVELOPE = {"parentUuid": "p1", "isSidechain": False, "cwd": "/home/me/proj",
            "sessionId": "s1", "version": "2.1.39", "gitBranch": "main"}


def test_progress_and_snapshot_records_are_noise() -> None:
    progress = _line({**ENVELOPE, "type": "progress",
                      "data": {"type": "hook_progress", "hookEvent": "PostToolUse"},
                      "uuid": "u1", "timestamp": "2026-01-01T00:00:00Z"})
    snapshot = _line({"type": "file-history-snapshot", "messageId": "m1",
                      "snapshot": {"trackedFileBackups": {}}})
    assert _is_noise(progress)
    assert _is_noise(snapshot)


def test_records_that_only_mention_progress_are_read() -> None:
    # a prompt quoting a progress record: the quotes inside its text are escaped
    quoting = _line({**ENVELOPE, "type": "user", "message": {
        "role": "user", "content": '{"type":"progress","data":{}}'}})
    # a nested "type" before the progress one: not a progress record's own type
    nested = _line({"message": {"type": "message"}, "type": "progress", "data": {}})
    glued = _line({**ENVELOPE, "type": "progress", "data": {}}) + \
        _line({**ENVELOPE, "type": "user", "message": {"role": "user", "content": "hi"}})
    plain = _line({**ENVELOPE, "type": "assistant", "message": {"content": []}})
    for line in (quoting, nested, glued, plain):
        assert not _is_noise(line), line[:80]
