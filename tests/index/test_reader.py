"""Lines the reader skips without parsing them, and only those."""

from __future__ import annotations

import json

from ccarchive.index.documents import is_noise


def _line(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


ENVELOPE = {
    "parentUuid": "p1",
    "isSidechain": False,
    "cwd": "/home/me/proj",
    "sessionId": "s1",
    "version": "2.1.39",
    "gitBranch": "main",
}


def test_progress_and_snapshot_records_are_noise() -> None:
    progress = _line(
        {
            **ENVELOPE,
            "type": "progress",
            "data": {"type": "hook_progress", "hookEvent": "PostToolUse"},
            "uuid": "u1",
            "timestamp": "2026-01-01T00:00:00Z",
        }
    )
    snapshot = _line(
        {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {"trackedFileBackups": {}}}
    )
    assert is_noise(progress)
    assert is_noise(snapshot)


def test_records_that_only_mention_progress_are_read() -> None:
    # a prompt quoting a progress record: the quotes inside its text are escaped
    quoting = _line(
        {
            **ENVELOPE,
            "type": "user",
            "message": {"role": "user", "content": '{"type":"progress","data":{}}'},
        }
    )
    # a nested "type" before the progress one: not a progress record's own type
    nested = _line({"message": {"type": "message"}, "type": "progress", "data": {}})
    glued = _line({**ENVELOPE, "type": "progress", "data": {}}) + _line(
        {**ENVELOPE, "type": "user", "message": {"role": "user", "content": "hi"}}
    )
    plain = _line({**ENVELOPE, "type": "assistant", "message": {"content": []}})
    for line in (quoting, nested, glued, plain):
        assert not is_noise(line), line[:80]


def test_skipped_records_still_count_as_activity(tmp_path) -> None:
    from ccarchive.archive import discovery as D
    from ccarchive.index.documents import ReadTask, read_chunks

    def progress(ts: str, nested: str) -> dict:
        return {
            **ENVELOPE,
            "isSidechain": True,
            "type": "progress",
            "data": {"type": "agent_progress", "message": {"timestamp": nested}},
            "uuid": f"p{ts[-3:-1]}",
            "timestamp": ts,
        }

    def prompt(ts: str) -> dict:
        return {
            **ENVELOPE,
            "type": "user",
            "uuid": "u1",
            "timestamp": ts,
            "message": {"role": "user", "content": "hello"},
        }

    lines = [
        progress("2026-01-01T10:00:00.000Z", "2026-01-01T09:00:00.000Z"),
        prompt("2026-01-01T10:00:05.000Z"),
        progress("2026-01-01T10:01:30.000Z", "2026-01-01T11:00:00.000Z"),
    ]
    path = tmp_path / "projects" / "p" / "s1.jsonl"  # the archive root is tmp_path
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(_line(o) for o in lines) + b"\n")
    src = D.SourceFile(path, "projects/p/s1.jsonl", D.SESSION, "p", "s1", size=path.stat().st_size)
    chunks = list(read_chunks(ReadTask(src)))
    summary = chunks[-1].summary
    assert sum(len(c.docs) for c in chunks) == 1  # only the prompt is a document
    assert summary["first_ts"] == "2026-01-01T10:00:00.000Z"  # the records' own times,
    assert summary["last_ts"] == "2026-01-01T10:01:30.000Z"  # not the nested ones
    assert summary["entries"] == 3 and summary["sidechain_entries"] == 2
