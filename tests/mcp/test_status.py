"""The MCP `status` tool tells an agent what `ccarchive status` tells a person: files not
read and why, reads back refused and why, lines skipped, sessions gone, and (while the
first index is built) how far it got. Planted for real: a hard link, a torn line."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from mcp import Client

from ccarchive.cli.main import main as cli_main
from ccarchive.config import Settings
from ccarchive.index.indexer import Indexer
from ccarchive.index.store import IndexStore
from ccarchive.mcp_server.server import build_server
from ccarchive.service import ArchiveService
from tests.conftest import DEMO_NOW, build_index

FIGURES = (
    "sessions",
    "sessions_gone",
    "documents",
    "files",
    "skipped_by_reason",
    "repaired_by_reason",
    "unreadable_by_reason",
    "refused_reads_by_reason",
)


def _reindex(root: Path, data: Path) -> ArchiveService:
    store = IndexStore(Settings(root, data).archive_data_dir)
    indexer = Indexer(store, root, store.try_writer())
    try:
        indexer.run()
    finally:
        indexer.close()
    store.mark_complete()
    return ArchiveService(store, root)


async def _status(svc: ArchiveService, *calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    async with Client(build_server(svc, active_minutes=0, clock=lambda: DEMO_NOW)) as c:
        for name, args in calls:
            await c.call_tool(name, args)
        r = await c.call_tool("status", {})
    assert not r.is_error
    return dict(r.structured_content or {})


def _cli_status(root: Path, data: Path) -> dict[str, Any]:
    out = CliRunner().invoke(
        cli_main, ["status", "--json", "--archive", str(root), "--data-dir", str(data)]
    )
    assert out.exit_code == 0, out.output
    return dict(json.loads(out.output))


async def test_status_counts_what_was_not_read_and_what_was_refused(
    demo_archive: Path, tmp_path: Path
) -> None:
    root, data = demo_archive, tmp_path / "data"
    svc = build_index(root, data)
    hits = [
        h
        for h in svc.search("the", include_tool_results=True, limit=50).hits
        if h.id.startswith("projects/") and ".jsonl:" in h.id
    ]
    linked = hits[0].id.split(".jsonl:")[0] + ".jsonl"
    torn = next(h.id.split(".jsonl:")[0] + ".jsonl" for h in hits if linked not in h.id)
    clean = await _status(svc)
    for key in ("unreadable_by_reason", "refused_reads_by_reason"):
        assert key not in clean  # nothing to report: left out, as every empty field is

    # a hard link to a file outside the archive: a read back of it is refused and counted
    os.link(root / linked, tmp_path / "outside")
    refused = await _status(svc, ("get_entries", {"ids": [hits[0].id]}))
    assert refused["refused_reads_by_reason"] == {"hard_link": 1}

    # indexed again: the linked file is not read (counted by why), the torn line skipped
    with (root / torn).open("ab") as f:
        f.write(b'{"type": "user", "message": {"content": "never closed"\n')
    svc = _reindex(root, data)
    st = await _status(svc)
    assert st["unreadable_by_reason"] == {"hard_link": 1}
    assert st["skipped_by_reason"], st
    cli = _cli_status(root, data)
    for key in FIGURES:  # a field left out holds its default (0, or nothing by reason)
        assert st.get(key, type(cli[key])()) == cli[key], key
