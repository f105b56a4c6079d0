"""Appending to an archive while it is indexed, as Claude Code appends: a prompt shaped
like the transcript's own lines, and what the index holds afterwards (live, semantic and
multi-process tests)."""

from __future__ import annotations

import copy
import json
import time
import uuid as uuidlib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import tantivy

from ccarchive.index import schema as S


def main_sessions(root: Path) -> list[Path]:
    """Main session transcripts (`projects/<p>/<uuid>.jsonl`), biggest first."""
    files = [
        p
        for p in (root / "projects").glob("*/*.jsonl")
        if not p.name.startswith("agent-") and len(p.stem) == 36 and _has_envelope(p)
    ]
    return sorted(files, key=lambda p: (-p.stat().st_size, p.name))


def _has_envelope(path: Path) -> bool:
    try:
        envelope(path)
    except AssertionError:
        return False
    return True


def rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def envelope(path: Path) -> dict:
    """The last entry of the file that carries a session envelope (a real line's shape)."""
    for raw in reversed(path.read_bytes().splitlines()):
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if (
            isinstance(obj, dict)
            and obj.get("sessionId")
            and obj.get("cwd")
            and obj.get("type") in ("user", "assistant")
        ):
            return obj
    raise AssertionError(f"no entry with an envelope in {path}")


def prompt_line(path: Path, text: str, session_id: str | None = None) -> bytes:
    """A user prompt entry for this transcript, as Claude Code writes it (with newline)."""
    env = envelope(path)
    obj = {
        k: copy.deepcopy(v)
        for k, v in env.items()
        if k in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch")
    }
    obj.update(
        {
            "parentUuid": env.get("uuid"),
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": str(uuidlib.uuid4()),
            "timestamp": datetime.now(UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
        }
    )
    if session_id:
        obj["sessionId"] = session_id
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def found(service, word: str) -> int:
    """How many entries a search for `word` finds."""
    return service.search(word, limit=50).total


def all_ids(store) -> list[str]:
    """The `id` of every document in the index (checkpoints and session docs included)."""
    store.reload()
    searcher = store.searcher()
    n = searcher.num_docs
    res = searcher.search(tantivy.Query.all_query(), max(n, 1), count=False)
    return [S.doc_id(searcher.doc(addr)) for _s, addr in res.hits]


def assert_no_doubles(store) -> list[str]:
    ids = all_ids(store)
    doubled = {k: n for k, n in Counter(ids).items() if n > 1}
    assert not doubled, f"documents indexed twice: {list(doubled.items())[:5]}"
    return ids


def wait_for(cond, timeout: float = 15.0, every: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(every)
    return bool(cond())


def word() -> str:
    """A made-up word that no archive contains."""
    return "zq" + uuidlib.uuid4().hex[:10]


def assistant_line(path: Path, text: str, session_id: str) -> bytes:
    """An assistant answer for this transcript, shaped as Claude Code writes it."""
    env = envelope(path)
    obj = {
        k: copy.deepcopy(v)
        for k, v in env.items()
        if k in ("isSidechain", "userType", "cwd", "version", "gitBranch")
    }
    obj.update(
        {
            "sessionId": session_id,
            "parentUuid": None,
            "type": "assistant",
            "uuid": str(uuidlib.uuid4()),
            "message": {
                "id": f"msg_{uuidlib.uuid4().hex[:20]}",
                "role": "assistant",
                "model": "claude-sonnet-4-5",
                "type": "message",
                "content": [{"type": "text", "text": text}],
            },
            "timestamp": datetime.now(UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
        }
    )
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"
