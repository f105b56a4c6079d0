"""Promise: no file of the archive, however large, is read whole to be shown.

A 300 MB memory file and a 300 MB plan (multi-byte UTF-8 throughout) are indexed, then
served: through the service and the MCP tools, the first page and a page near the end.
Each step runs in its own process, whose memory is sampled while it works; RSS may grow
by a generous 150 MB at most (a 300 MB file read whole is 300 MB of bytes and as much
again, or four times as much, as text: a server once reached 956 MB); in the slow tier
(`-m slow`), for its size. A 15 MB transcript line, which is normal, is still read back
whole.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import build_index

ROOT = Path(__file__).resolve().parents[2]
MB = 1 << 20
BOUND_MB = 150

SAMPLER = """
import threading, time
from pathlib import Path

def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

class Peak:
    def __init__(self):
        self.base = rss_mb()
        self.peak = self.base
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()
    def run(self):
        while not self.stop:
            self.peak = max(self.peak, rss_mb())
            time.sleep(0.005)
    def done(self):
        self.stop = True
        self.t.join()
        self.peak = max(self.peak, rss_mb())
        return {"base": self.base, "peak": self.peak, "growth": self.peak - self.base}
"""

INDEX = (
    SAMPLER
    + """
import json, sys
from pathlib import Path
from tests.conftest import build_index
import ccarchive.index.indexer, ccarchive.service  # imported before the baseline
p = Peak()
svc = build_index(Path(sys.argv[1]), Path(sys.argv[2]))
out = p.done()
out["documents"] = svc.status().documents
print(json.dumps(out))
"""
)

SERVE = (
    SAMPLER
    + """
import asyncio, json, sys
from pathlib import Path
from mcp import Client
from ccarchive.config import Settings
from ccarchive.index.store import IndexStore
from ccarchive.mcp_server.server import build_server
from ccarchive.service import ArchiveService

root, data = Path(sys.argv[1]), Path(sys.argv[2])
svc = ArchiveService(IndexStore(Settings(root, data).archive_data_dir), root)
mem = max(svc.memory_files(), key=lambda m: m.size)  # the big ones
codename = max(svc.plans(limit=100).plans, key=lambda p: p.size).codename
svc.search("anything")
seen = {}

async def mcp():
    async with Client(build_server(svc, active_minutes=0)) as c:
        await c.call_tool("status", {})  # warm, before the baseline
        p = Peak()
        r = await c.call_tool("get_memory_file", {"project": mem.project,
                                                  "max_chars": 100_000})
        seen["mcp_memory"] = (r.is_error, len(r.structured_content["text"]),
                              r.structured_content["truncated"])
        r = await c.call_tool("get_plan", {"codename": codename, "max_chars": 100_000})
        seen["mcp_plan"] = (r.is_error, len(r.structured_content["text"]))
        return p.done()

p = Peak()
first = svc.memory_file(mem.project, "MEMORY.md", max_chars=100_000)
deep_at = int(mem.size * 0.8)  # characters: fewer than bytes, more than 80% of them
last = svc.memory_file(mem.project, "MEMORY.md", max_chars=100_000, char_offset=deep_at)
plan = svc.plan(codename, max_chars=100_000)
deep = svc.plan(codename, max_chars=100_000, char_offset=deep_at)
service = p.done()
out = {"service": service, "mcp": asyncio.run(mcp()), "seen": seen,
       "memory": [len(first.text), first.truncated, len(last.text), last.truncated,
                  first.text[:20], last.text[-20:]],
       "plan": [len(plan.text), plan.truncated, len(deep.text), deep.truncated]}
print(json.dumps(out))
"""
)


def _run(script: str, *args: str) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _big_text(path: Path, mb: int, head: str) -> int:
    """`mb` MB of Markdown, multi-byte characters on every line; its length in chars."""
    line = "- élan 日本語 ✓ the café’s naïve façade, line of a long memory file\n"
    block = line * (MB // len(line.encode()))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        f.write(head)
        for _ in range(mb):
            f.write(block)
        f.write("THE END\n")
    return len(head) + mb * len(block) + 8


@pytest.mark.slow
@pytest.mark.parametrize("mb", [pytest.param(300, id="300MB")])
def test_a_huge_memory_file_and_plan_are_served_in_bounded_memory(
    demo_archive: Path, tmp_path: Path, mb: int
) -> None:
    """(Read whole, even 100 MB of this text costs 265 MB of bytes and string: over the
    bound.)"""
    mem = next((demo_archive / "projects").glob("*/memory/MEMORY.md"))
    n_mem = _big_text(mem, mb, "# Memory\n")
    plan = next(p for p in sorted((demo_archive / "plans").glob("*.md")) if "-agent-" not in p.name)
    _big_text(plan, mb, "# A long plan\n")
    data = tmp_path / "data"
    indexed = _run(INDEX, str(demo_archive), str(data))
    served = _run(SERVE, str(demo_archive), str(data))
    print(f"\nindexing with two {mb} MB files: {indexed}\nserving them: {served}")
    assert indexed["growth"] < 400, indexed  # the writer's heap, not the files
    assert served["service"]["growth"] < BOUND_MB, served
    assert served["mcp"]["growth"] < BOUND_MB, served
    n, more, n_last, more_last, head, tail = served["memory"]
    assert n == 100_000 and more and head == "# Memory\n- élan 日本語 "
    assert n_last == 100_000 and more_last and n_mem > mb * MB * 0.8  # a page deep in it
    assert "naïve" in tail or "élan" in tail or "café" in tail
    assert served["plan"][:2] == [100_000, True]
    assert served["seen"]["mcp_memory"] == [False, 100_000, True]
    assert served["seen"]["mcp_plan"][0] is False


def test_a_15_mb_line_is_still_read_back_whole(demo_archive: Path, tmp_path: Path) -> None:
    path = next(
        p for p in (demo_archive / "projects").glob("*/*.jsonl") if not p.name.startswith("agent-")
    )
    text = "word " * (3 * MB)  # 15 MB
    line = {
        "type": "user",
        "uuid": "big-line",
        "sessionId": path.stem,
        "timestamp": "2026-11-20T10:00:00Z",
        "message": {"role": "user", "content": text},
    }
    with path.open("a") as f:
        f.write(json.dumps(line) + "\n")
    svc = build_index(demo_archive, tmp_path / "data")
    hit = next(e for e in svc.transcript(path.stem, limit=1000).entries if e.uuid == "big-line")
    got = svc.entries([hit.id], max_chars=200_000, char_offset=len(text) - 100_000)[0]
    assert got.text_len == len(text) and len(got.text) == 100_000 and not got.truncated
