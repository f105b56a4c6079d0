"""Promise: only the archive's own bytes are read, indexed or served.

A hard link is a second name for a file: `ln ~/.aws/credentials ~/.claude/projects/p/x.jsonl`
needs no privilege, and unlike a symbolic link nothing in the path gives it away. Each
kind of file (a memory file, a plan, a session, a subagent transcript, `history.jsonl`)
is made a hard link to a file outside the archive, once before indexing and once while a
service is serving it; a file is also replaced by another one (a rename over it: same
bytes and offsets, other words), and by a FIFO. Every surface that reads or indexes is
asked: search, get_entries, context, get_memory_file, get_plan, `ccarchive show` and
`status`. None shows a word of the outside file; the refusals are counted by reason.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from ccarchive.archive import discovery as D
from ccarchive.archive.safe_read import FileSwapped, UnsafePath, open_file
from ccarchive.cli.main import main as cli_main
from ccarchive.config import Settings
from ccarchive.index.indexer import Indexer
from ccarchive.index.store import IndexStore
from ccarchive.mcp_server.server import build_server
from ccarchive.service import ArchiveService
from ccarchive.service.arguments import ServiceError
from tests.conftest import DEMO_NOW, build_index

CANARY = "zqoutsidezqoutsidezqoutside"
SEEN = "zqoutsid"
KINDS = ("memory", "plan", "session", "subagent", "history")


def _index(root: Path, data: Path, only: list[str] | None = None) -> ArchiveService:
    """Index (again: the whole archive, or `only` these files as the live writer does on
    their events) and return a fresh service: what a new `serve` would answer."""
    store = IndexStore(Settings(root, data).archive_data_dir)
    indexer = Indexer(store, root, store.try_writer())
    try:
        indexer.run(only=only)
    finally:
        indexer.close()
    store.mark_complete()
    return ArchiveService(store, root)


def _targets(svc: Any) -> dict[str, str]:
    """One archive-relative path of each kind of file, from what the index knows."""
    memory = next(m for m in svc.memory_files() if m.filename == "MEMORY.md").path
    plan = svc.plans(limit=50).plans[0].path
    for s in svc.sessions(limit=100).sessions:
        info = svc.session(s.session_id)
        sub = next((a for a in info.subagents if a.path), None)
        if sub is not None:
            return {
                "memory": memory,
                "plan": plan,
                "session": info.path,
                "subagent": sub.path,
                "history": "history.jsonl",
            }
    raise AssertionError("the demo archive has a subagent transcript")


def _poisoned_copy(path: Path, outside: Path) -> Path:
    """`path`'s bytes outside the archive with its longer words swapped for canary words
    of the same length (JSON keys left alone): same size, same offsets, same uuids."""
    raw = path.read_bytes()
    for word in sorted(set(re.findall(rb"[a-z]{8,}", raw))):
        if b'"' + word + b'"' not in raw:
            raw = raw.replace(word, CANARY.encode()[: len(word)])
    copy = outside / f"{len(os.listdir(outside))}-{path.name}"
    copy.write_bytes(raw)
    assert SEEN.encode() in raw and copy.stat().st_size == path.stat().st_size
    return copy


def _hard_link(path: Path, target: Path) -> None:
    path.unlink()
    os.link(target, path)


async def _served(svc: Any, root: Path, data: Path, targets: dict[str, str]) -> list[str]:
    """Every answer of every reading surface about the planted files (errors included)."""
    out: list[str] = []
    async with Client(build_server(svc, active_minutes=0, clock=lambda: DEMO_NOW)) as c:

        async def call(tool: str, **args: Any) -> None:
            r = await c.call_tool(tool, args)
            text = r.content[0].text if r.content else ""
            out.append(re.sub(r'"query":"[^"]*"', "", text))  # the query echoed

        for q in (SEEN, f"{SEEN}*", CANARY):
            await call(
                "search",
                query=q,
                include_active=True,
                include_tool_results=True,
                group_by_session=False,
                limit=50,
            )
        ids = [h.id for h in svc.search("", limit=200).hits if h.path in targets.values()]
        for i in range(0, len(ids), 50):
            await call("get_entries", ids=ids[i : i + 50], max_chars=100_000)
        for eid in ids[:40]:
            await call("context", id=eid)
        for m in svc.memory_files():
            await call("get_memory_file", project=m.project, filename=m.filename)
        for p in svc.plans(limit=50).plans:
            await call("get_plan", codename=p.codename)
        await call("search_history", limit=500)
    out += [
        CliRunner()
        .invoke(cli_main, ["show", eid, "--archive", str(root), "--data-dir", str(data)])
        .output
        for eid in ids[:20]
    ]
    return out


@pytest.fixture
def world(demo_archive: Path, tmp_path: Path) -> dict[str, Any]:
    outside = tmp_path / "outside"
    outside.mkdir()
    return {"root": demo_archive, "data": tmp_path / "data", "outside": outside}


async def test_hard_links_planted_before_indexing_are_not_indexed(world: dict[str, Any]) -> None:
    root, data, outside = world["root"], world["data"], world["outside"]
    probe = build_index(root, world["data"].with_name("probe"))
    targets = _targets(probe)
    for rel in targets.values():
        _hard_link(root / rel, _poisoned_copy(root / rel, outside))
    svc = _index(root, data)
    answers = await _served(svc, root, data, targets)
    assert not [a for a in answers if SEEN in a]
    assert svc.search(SEEN, include_tool_results=True).total == 0
    st = svc.status()
    assert st.unreadable_by_reason == {"hard_link": len(KINDS)}
    out = CliRunner().invoke(
        cli_main,
        ["status", "--archive", str(root), "--data-dir", str(data)],
    )
    assert "hard_link 5" in out.output
    # the link removed (the file is the archive's own again): indexed, and no longer counted
    for rel in targets.values():
        p = root / rel
        raw = p.read_bytes()
        p.unlink()
        p.write_bytes(raw.replace(SEEN.encode(), b"zqinside"))
    svc = _index(root, data)
    assert svc.status().unreadable_by_reason == {}
    assert svc.search("zqinside*", include_tool_results=True).total > 0


async def test_hard_links_swapped_in_while_serving_are_refused(world: dict[str, Any]) -> None:
    root, data, outside = world["root"], world["data"], world["outside"]
    svc = build_index(root, data)
    targets = _targets(svc)
    before = await _served(svc, root, data, targets)
    assert not [a for a in before if SEEN in a] and len(before) > 20
    for rel in targets.values():
        _hard_link(root / rel, _poisoned_copy(root / rel, outside))
    answers = await _served(svc, root, data, targets)
    assert not [a for a in answers if SEEN in a]
    assert any("hard links" in a for a in answers)  # the refusal says why
    with pytest.raises(ServiceError, match="2 hard links"):
        svc.memory_file(
            *next(
                (m.project, m.filename) for m in svc.memory_files() if m.path == targets["memory"]
            )
        )
    assert svc.status().refused_reads_by_reason.get("hard_link", 0) > 0
    # the live writer's run on the files' events, then a full one: refused, counted, and
    # nothing of them indexed
    for only in (list(targets.values()), None):
        svc = _index(root, data, only)
        assert svc.search(SEEN, include_tool_results=True).total == 0
        assert svc.status().unreadable_by_reason == {"hard_link": len(KINDS)}


async def test_a_file_replaced_since_indexing_is_read_as_new_never_as_the_old(
    world: dict[str, Any],
) -> None:
    """A rename over a file (same size, same offsets, same uuids, other words): read back
    it is not the file indexed, so the indexed copy is shown; the next run reads it as
    the new file it is."""
    root, data, outside = world["root"], world["data"], world["outside"]
    svc = build_index(root, data)
    targets = _targets(svc)
    for rel in targets.values():
        copy = _poisoned_copy(root / rel, outside)
        os.replace(copy, root / rel)  # a new inode, one link, inside the archive
    answers = await _served(svc, root, data, targets)
    assert not [a for a in answers if SEEN in a]
    assert svc.status().refused_reads_by_reason.get("swapped", 0) > 0
    svc = _index(root, data)
    assert svc.status().unreadable_by_reason == {}
    assert svc.search(f"{SEEN}*", include_tool_results=True).total > 0  # read as new


def test_a_fifo_in_place_of_a_session_never_hangs_indexing(world: dict[str, Any]) -> None:
    """A FIFO renamed over a session: the walk passes it over, and if the swap comes
    after the walk, opening it refuses (O_NONBLOCK, a regular file or nothing)."""
    root, data = world["root"], world["data"]
    svc = build_index(root, data)
    rel = _targets(svc)["session"]
    sources = {s.rel: s for s in D.discover(root)}
    fifo = world["outside"] / "fifo"
    os.mkfifo(fifo)
    os.replace(fifo, root / rel)
    with pytest.raises(UnsafePath, match="not a regular file"):
        os.close(open_file(root, rel, sources[rel].seen_as))
    done: list[Any] = []
    t = threading.Thread(target=lambda: done.append(_index(root, data)), daemon=True)
    t.start()
    t.join(60)
    assert done, "indexing hung on a FIFO"
    assert done[0].status().unreadable_by_reason == {"not_a_file": 1}


def test_open_file_checks_links_and_identity(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    (root / "projects").mkdir(parents=True)
    f = root / "projects" / "a.jsonl"
    f.write_text("{}\n")
    st = f.stat()
    os.close(open_file(root, "projects/a.jsonl", (st.st_dev, st.st_ino)))
    with pytest.raises(FileSwapped):
        open_file(root, "projects/a.jsonl", (st.st_dev, st.st_ino + 1))
    os.link(f, tmp_path / "second-name")
    with pytest.raises(UnsafePath, match="2 hard links") as err:
        open_file(root, "projects/a.jsonl")
    assert err.value.reason == "hard_link"
