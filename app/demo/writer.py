"""`write_demo_archive`: play the stories and write the files, with their modification times."""

from __future__ import annotations

import datetime as dt
import os
from importlib.resources.abc import Traversable
from pathlib import Path

from ccarchive.demo.builder import ArchiveBuilder
from ccarchive.demo.conventions import iso
from ccarchive.demo.stories import play_stories


def write_demo_archive(
    root: Path, *, now: dt.datetime | None = None, stories: Traversable | None = None
) -> dict:
    """Write the demo archive into `root` and return a summary of what was written.

    `root` must be missing or empty: the demo never mixes with (or overwrites) a real
    archive. `now` anchors every timestamp (default: the current UTC time); the same `now`
    gives byte-identical files. File modification times are set to each file's last
    timestamp, as Claude Code's own appends would leave them. `stories` is another folder
    of stories in the format of `data/README.md` (default: the package's own).
    """
    root = Path(root)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ValueError(f"refusing to write the demo archive into non-empty {root}")
    if now is None:
        now = dt.datetime.now(dt.UTC)
    elif now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    now = now.astimezone(dt.UTC)

    arc = ArchiveBuilder(now)
    played = play_stories(arc, stories)
    arc.render()

    total_bytes = 0
    jsonl_lines = 0
    for rel in sorted(arc.text):
        data = arc.text[rel]
        raw = data.encode("utf-8") if isinstance(data, str) else data
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        ts = arc.mtime[rel].timestamp()
        os.utime(path, (ts, ts))
        total_bytes += len(raw)
        if rel.endswith(".jsonl"):
            jsonl_lines += raw.count(b"\n")

    return {
        "root": str(root),
        "now": iso(now),
        "projects": played["projects"],
        "sessions": arc.counts["sessions"],
        "empty_sessions": played["empty_sessions"],
        "subagents": arc.counts["subagents"],
        "plans": arc.counts["plans"],
        "memory_files": arc.counts["memory_files"],
        "history_lines": len(arc.history),
        "files": len(arc.text),
        "jsonl_lines": jsonl_lines,
        "bytes": total_bytes,
    }
