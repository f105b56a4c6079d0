"""Promise: nothing is ever read back from outside the archive.

After indexing, each kind of file (a memory file, a plan, a session transcript, a subagent
transcript, `history.jsonl`) and a project folder is replaced by a symbolic link to a copy
outside the archive. The copy is the attacker's best case: the same bytes at the same
offsets, the same uuids, with words of the texts read back swapped for a canary word of
the same length, so only the symbolic link gives it away. Every surface that reads files
back is then asked for it: the service, the MCP tools through a real client, `ccarchive
show`, and replay's tool-input reads (what the app's export uses). Each refuses, with a
message that says why, and the canary appears nowhere. Before the swap the same calls
succeed, so the refusal is the swap's doing.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from ccarchive.mcp_server.server import build_server
from ccarchive.service.arguments import ServiceError
from ccarchive.service.models import to_jsonable
from tests.conftest import DEMO_NOW, build_index

CANARY = "zqoutsidezqoutsidezqoutside"
SEEN = "zqoutsid"  # every canary word starts so (words of 8 letters or more are swapped)
REFUSED = "symbolic link"


def _poisoned(line: bytes, text: str) -> bytes:
    """`line` with the words of `text` (8+ letters, past its first 64 characters, not a
    JSON key) replaced by canary words of the same length: same offsets, same JSON."""
    out = line
    for word in sorted(set(re.findall(r"[a-z]{8,}", text[64:]))):
        if f'"{word}"'.encode() in line:
            continue
        out = out.replace(word.encode(), CANARY[: len(word)].encode())
    return out


def _outside_copy(path: Path, outside: Path, texts: list[str]) -> Path:
    """A poisoned copy of `path` in `outside`, line for line."""
    lines = path.read_bytes().split(b"\n")
    for text in texts:
        lines = [_poisoned(line, text) for line in lines]
    copy = outside / f"{len(list(outside.iterdir()))}-{path.name}"
    copy.write_bytes(b"\n".join(lines))
    assert copy.stat().st_size == path.stat().st_size
    return copy


def _swap(path: Path, target: Path) -> None:
    path.unlink()
    path.symlink_to(target)


@contextlib.asynccontextmanager
async def _mcp(service: Any) -> AsyncIterator[Client]:
    async with Client(build_server(service, active_minutes=0, clock=lambda: DEMO_NOW)) as c:
        yield c


async def _tool(c: Client, tool: str, **args: Any) -> tuple[bool, str]:
    r = await c.call_tool(tool, args)
    return r.is_error, r.content[0].text if r.content else ""


@pytest.fixture
def world(demo_archive: Path, tmp_path: Path) -> dict[str, Any]:
    data = tmp_path / "data"
    svc = build_index(demo_archive, data)
    outside = tmp_path / "outside"
    outside.mkdir()
    return {"root": demo_archive, "data": data, "svc": svc, "outside": outside}


def _long_entry(svc: Any, session_id: str, agent_id: str | None = None) -> Any:
    page = svc.transcript(session_id, agent_id=agent_id, limit=1000)
    return max(page.entries, key=lambda e: e.text_len)


def _session_with_subagent(svc: Any) -> tuple[Any, Any]:
    for s in svc.sessions(limit=100).sessions:
        info = svc.session(s.session_id)
        for sub in info.subagents:
            if sub.path:
                return info, sub
    raise AssertionError("the demo archive has a subagent transcript")


def _cli(world: dict[str, Any], *args: str) -> Any:
    from ccarchive.cli.main import main

    return CliRunner().invoke(
        main, [*args, "--archive", str(world["root"]), "--data-dir", str(world["data"])]
    )


# ---- each kind of file ---------------------------------------------------------------
async def test_a_memory_file_swapped_for_a_link_is_refused(world: dict[str, Any]) -> None:
    svc, root = world["svc"], world["root"]
    info = next(m for m in svc.memory_files() if m.filename == "MEMORY.md")
    assert svc.memory_file(info.project, info.filename).text  # before: read
    outside = world["outside"] / "passwd"
    outside.write_text(f"root:x:0:0:{CANARY}:/root:/bin/bash\n" * 50)
    _swap(root / info.path, outside)
    with pytest.raises(ServiceError, match=REFUSED) as err:
        svc.memory_file(info.project, info.filename)
    assert info.path in str(err.value) and SEEN not in str(err.value)
    async with _mcp(svc) as c:
        failed, text = await _tool(
            c, "get_memory_file", project=info.project, filename=info.filename
        )
        assert failed and REFUSED in text and SEEN not in text
        for tool, args in (("list_memory_files", {}), ("search", {"query": "root"})):
            failed, text = await _tool(c, tool, **args)
            assert not failed and SEEN not in text


async def test_a_plan_swapped_for_a_link_is_refused(world: dict[str, Any]) -> None:
    svc, root = world["svc"], world["root"]
    plan = svc.plans(limit=50).plans[0]
    assert svc.plan(plan.codename).text
    outside = world["outside"] / "plan.md"
    outside.write_text(f"# {CANARY}\n" * 100)
    _swap(root / plan.path, outside)
    with pytest.raises(ServiceError, match=REFUSED):
        svc.plan(plan.codename)
    async with _mcp(svc) as c:
        failed, text = await _tool(c, "get_plan", codename=plan.codename)
        assert failed and REFUSED in text and SEEN not in text
        failed, text = await _tool(c, "list_plans")
        assert not failed and SEEN not in text


@pytest.mark.parametrize("which", ["session", "subagent", "history"])
async def test_a_jsonl_swapped_for_a_poisoned_link_is_refused(
    world: dict[str, Any], which: str
) -> None:
    svc, root = world["svc"], world["root"]
    agent_id = None
    if which == "history":
        items = svc.history(limit=200).items
        target = max(items, key=lambda i: len(i.text))
        entry_id, rel, session_id = target.id, "history.jsonl", ""
    elif which == "subagent":
        info, sub = _session_with_subagent(svc)
        e = _long_entry(svc, info.session_id, sub.agent_id)
        entry_id, rel, session_id, agent_id = e.id, sub.path, info.session_id, sub.agent_id
    else:
        info, _ = _session_with_subagent(svc)
        e = _long_entry(svc, info.session_id)
        entry_id, rel, session_id = e.id, info.path, info.session_id
    full = svc.entries([entry_id], max_chars=200_000)[0]  # before: read back whole
    # the transcript of the swapped file
    page = svc.transcript(session_id, agent_id=agent_id, limit=1000) if session_id else None
    from ccarchive.service.tool_calls import read_tool_inputs

    calls_ = [x for x in page.entries if x.kind == "tool_call"] if page else []
    assert not calls_ or read_tool_inputs(root, calls_, redact=False)  # before: read
    texts = [full.text] + ([x.text for x in page.entries] if page else [])
    path = root / rel
    copy = _outside_copy(path, world["outside"], texts)
    assert SEEN in copy.read_text(errors="replace")  # the attack has something to show
    _swap(path, copy)

    with pytest.raises(ServiceError, match=REFUSED) as err:
        svc.entries([entry_id], max_chars=200_000)
    assert rel in str(err.value)
    with pytest.raises(ServiceError, match=REFUSED):
        svc.entries([entry_id], max_chars=100, char_offset=50)
    if session_id:  # what the index holds is still shown, never the outside file
        for e in svc.transcript(session_id, agent_id=agent_id, limit=1000).entries:
            assert SEEN not in e.text

    async with _mcp(svc) as c:
        failed, text = await _tool(c, "get_entries", ids=[entry_id], max_chars=100_000)
        assert failed and REFUSED in text and SEEN not in text
        failed, text = await _tool(c, "get_entries", ids=[entry_id], char_offset=100)
        assert failed and REFUSED in text
        calls: list[tuple[str, dict[str, Any]]] = [
            ("context", {"id": entry_id}),
            ("search_history", {"limit": 200}),
        ]
        if session_id:
            calls.append(
                (
                    "get_session",
                    {
                        "session_id": session_id,
                        "limit": 200,
                        "max_chars": 20_000,
                        "agent_id": agent_id,
                    },
                )
            )
        for tool, args in calls:
            failed, text = await _tool(c, tool, **args)
            assert not failed and SEEN not in text, (tool, text[:300])

    out = _cli(world, "show", entry_id)
    assert out.exit_code != 0 and REFUSED in out.output and SEEN not in out.output
    if session_id:
        out = _cli(world, "show", session_id)
        assert SEEN not in out.output

    # replay's tool inputs (what the export writes): drawn from the index instead
    assert read_tool_inputs(root, calls_, redact=False) == {}


async def test_a_project_folder_swapped_for_a_link_is_refused(world: dict[str, Any]) -> None:
    svc, root = world["svc"], world["root"]
    info = next(m for m in svc.memory_files() if m.filename == "MEMORY.md" and not m.session_id)
    folder = root / info.path.split("/memory/")[0]
    sessions = [
        s
        for s in svc.sessions(limit=200).sessions
        if (svc.session(s.session_id).path or "").startswith(
            folder.relative_to(root).as_posix() + "/"
        )
    ]
    assert sessions
    e = _long_entry(svc, sessions[0].session_id)
    texts = [svc.entries([e.id], max_chars=200_000)[0].text]
    moved = world["outside"] / folder.name
    shutil.copytree(folder, moved, symlinks=True)
    for p in moved.rglob("*"):  # the same bytes, canary words in the texts read back
        if p.is_file() and p.suffix == ".jsonl":
            p.write_bytes(_outside_copy(p, world["outside"], texts).read_bytes())
        elif p.is_file() and p.suffix == ".md":
            p.write_text(CANARY + "\n")
    shutil.rmtree(folder)
    folder.symlink_to(moved, target_is_directory=True)

    with pytest.raises(ServiceError, match=f"folder .* is a {REFUSED}"):
        svc.memory_file(info.project, info.filename)
    with pytest.raises(ServiceError, match=REFUSED):
        svc.entries([e.id], max_chars=200_000)
    async with _mcp(svc) as c:
        for tool, args in (
            ("get_memory_file", {"project": info.project}),
            ("get_entries", {"ids": [e.id]}),
        ):
            failed, text = await _tool(c, tool, **args)
            assert failed and REFUSED in text and SEEN not in text
    out = _cli(world, "show", e.id)
    assert out.exit_code != 0 and REFUSED in out.output and SEEN not in out.output


# ---- paths and offsets the index holds are checked against the file ----------------------
def test_a_rewritten_transcript_shows_the_indexed_copy(world: dict[str, Any]) -> None:
    """The file changed under the index (shorter, lines moved, another record in place):
    the read back notices and the indexed text is shown, never a wrong line."""
    svc, root = world["svc"], world["root"]
    info, _ = _session_with_subagent(svc)
    e = _long_entry(svc, info.session_id)
    indexed = svc.transcript(info.session_id, limit=1000)
    shown = next(x for x in indexed.entries if x.id == e.id)
    path = root / info.path
    original = path.read_bytes()
    for rewrite in (
        original[: e.offset + e.length // 2],  # cut inside the line
        b"\n" + original,  # every line one byte later
        original.replace(b'"uuid":"', b'"uuid":"X', 1)
        if e.offset == 0
        else original[: e.offset] + original[e.offset :].replace(b'"uuid":"', b'"uuid":"Y', 1),
    ):  # another record at the offset
        path.write_bytes(rewrite)
        got = svc.entries([e.id], max_chars=200_000)[0]
        assert got.text == shown.text[: len(got.text)] and got.next_char is None
    path.write_bytes(original)
    assert svc.entries([e.id], max_chars=200_000)[0].text_len == e.text_len


def test_forged_index_paths_never_leave_the_archive(tmp_path: Path) -> None:
    from ccarchive.archive.safe_read import UnsafePath, read_line, read_text_page

    root = tmp_path / "claude"
    (root / "projects").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text(CANARY + "\n")
    for rel in (
        "../secret.txt",
        "projects/../../secret.txt",
        str(secret),
        "/etc/passwd",
        "projects//x",
        "projects/./x",
        "projects/x\x00y",
        "",
        ".",
        "projects\\..\\x",
    ):
        with pytest.raises(UnsafePath, match="leaves the archive"):
            read_line(root, rel, 0, 5)
        with pytest.raises(UnsafePath):
            read_text_page(root, rel, 0, 10)
    fifo = root / "projects" / "fifo.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(UnsafePath, match="not a regular file"):
        read_text_page(root, "projects/fifo.jsonl", 0, 10)  # would block if opened
    # the archive root itself may be a link (~/.claude often is)
    link = tmp_path / "link-to-claude"
    link.symlink_to(root, target_is_directory=True)
    (root / "projects" / "a.md").write_text("hello")
    assert read_text_page(link, "projects/a.md", 0, 10)[0] == "hello"


def test_to_jsonable_of_a_refusal_names_the_file(world: dict[str, Any]) -> None:
    """The refusal reads well wherever it goes (the CLI's --json prints the message)."""
    svc, root = world["svc"], world["root"]
    info = next(m for m in svc.memory_files() if m.filename == "MEMORY.md")
    _swap(root / info.path, world["outside"])
    with pytest.raises(ServiceError) as err:
        svc.memory_file(info.project, info.filename)
    msg = str(err.value)
    assert msg.startswith(f"refused to read '{info.path}'") and "inside the archive" in msg
    assert to_jsonable({"error": msg})["error"] == msg
