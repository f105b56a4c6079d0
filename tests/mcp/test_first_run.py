"""The first `ccarchive serve` on an archive with no index: it answers at once and, while
the index is built, every answer says so. An agent that reads "0 sessions" must also
read that the archive is still being read."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.eval.harness import MAKE_ARCHIVE

CCARCHIVE = str(Path(sys.executable).with_name("ccarchive"))


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("first-run") / "claude"
    subprocess.run(
        [
            sys.executable,
            str(MAKE_ARCHIVE),
            "--out",
            str(root),
            "--seed",
            "3",
            "--size-mb",
            "25",
            "--force",
            "--manifest",
            str(root.parent / "m.jsonl"),
        ],
        check=True,
        capture_output=True,
    )
    return root


@pytest.mark.long
async def test_every_answer_says_it_is_indexing_until_complete(
    archive: Path, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=CCARCHIVE,
        args=["serve", "--archive", str(archive), "--data-dir", str(tmp_path / "data")],
    )
    seen_note, answers = False, []
    async with Client(params) as c:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status = (await c.call_tool("status", {})).structured_content
            projects = (await c.call_tool("list_projects", {})).structured_content
            found = (await c.call_tool("search", {"query": "test"})).structured_content
            answers.append((status, projects, found))
            if "indexing" not in status:
                break
            seen_note = True
            assert "% of the archive searched so far" in status["indexing"]
            # the build may end between two calls: a later answer of the same round can
            # be complete, and is then checked below as a final one
        final = (await c.call_tool("status", {})).structured_content
        final_projects = (await c.call_tool("list_projects", {})).structured_content
        final_found = (await c.call_tool("search", {"query": "test"})).structured_content
    assert "indexing" not in final and final["documents"] > 0
    # what was answered without the note was the whole archive, never a part of it
    for status, projects, found in answers:
        if "indexing" not in status:
            assert status["documents"] == final["documents"]
        if "indexing" not in projects:
            assert projects["total"] == final_projects["total"]
        if "indexing" not in found:
            assert found["total"] == final_found["total"]
    assert seen_note, "the first answers came before the index was built"
