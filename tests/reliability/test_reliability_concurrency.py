"""The app, `serve` and `index --watch` together on one archive while it is written to.

Three real processes: `ccarchive index --watch` (started first, so the writer), the app
(headless, its own LiveArchive) and `ccarchive serve` over stdio. Lines are appended to a
session while they run. Exactly one of them writes; the others follow; nobody crashes;
and all of them (and a one-shot `ccarchive search --json`) agree on what a search finds.

In the slow tier (`-m slow`), for its three processes: the suite checks the one writer
and the processes that follow it with two (tests/live/test_live_process.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

APP_SCRIPT = r"""
import asyncio, json, sys
from pathlib import Path

import pytest
from ccarchive.config import Settings
from ccarchive.tui.app import make_app

async def main():
    app = make_app(Settings(Path(sys.argv[1]), Path(sys.argv[2])))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        loop = asyncio.get_running_loop()
        print(json.dumps({"ready": True}), flush=True)
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line.strip():
                break
            await pilot.pause()
            page = app.service.search(line.strip(), limit=100)
            print(json.dumps({"ids": sorted(h.id for h in page.hits),
                              "role": app.live.state.role}), flush=True)

asyncio.run(main())
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def _cli_ids(archive: Path, data: Path, word: str) -> list[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ccarchive",
            "search",
            "--archive",
            str(archive),
            "--data-dir",
            str(data),
            "--json",
            "--entries",
            "--limit",
            "100",
            word,
        ],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
    )
    return sorted(h["id"] for h in json.loads(out.stdout)["hits"])


def _append(path: Path, sid: str, word: str, n: int, start: int) -> None:
    with open(path, "a") as f:
        for i in range(start, start + n):
            f.write(
                json.dumps(
                    {
                        "type": "user",
                        "uuid": f"conc-{i}",
                        "parentUuid": None,
                        "sessionId": sid,
                        "timestamp": f"2026-11-20T16:{i % 60:02d}:00.000Z",
                        "cwd": "/home/demo/src/tally",
                        "message": {"role": "user", "content": f"{word} concurrent note {i}"},
                    }
                )
                + "\n"
            )
            f.flush()
            time.sleep(0.05)


@pytest.mark.slow
async def test_app_serve_and_watch_agree_while_the_archive_grows(
    demo_archive: Path, tmp_path: Path
) -> None:
    from mcp import Client, StdioServerParameters

    data = tmp_path / "data"
    word = "zyzzogeton"
    target = max(demo_archive.joinpath("projects").rglob("*.jsonl"), key=lambda p: p.stat().st_size)
    sid = target.stem
    procs: list[subprocess.Popen] = []
    try:
        watch = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "ccarchive",
                "index",
                "--watch",
                "--archive",
                str(demo_archive),
                "--data-dir",
                str(data),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=_env(),
        )
        procs.append(watch)
        assert watch.stdout is not None
        deadline = time.time() + 60
        lines = []
        while time.time() < deadline:
            line = watch.stdout.readline()
            lines.append(line)
            if "full pass" in line:
                break
        assert any("full pass" in x for x in lines), lines

        app = subprocess.Popen(
            [sys.executable, "-c", APP_SCRIPT, str(demo_archive), str(data)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        procs.append(app)
        assert app.stdout is not None and app.stdin is not None
        assert json.loads(app.stdout.readline())["ready"]

        server = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "ccarchive",
                "serve",
                "--archive",
                str(demo_archive),
                "--data-dir",
                str(data),
            ],
            env=_env(),
        )
        async with Client(server) as client:
            total = 0
            for _ in range(4):  # appends land while all three run
                _append(target, sid, word, 5, total)
                total += 5

            def app_search() -> dict:
                app.stdin.write(word + "\n")
                app.stdin.flush()
                return json.loads(app.stdout.readline())

            agreed = None
            deadline = time.time() + 30
            while time.time() < deadline:
                cli = _cli_ids(demo_archive, data, word)
                in_app = app_search()
                res = await client.call_tool(
                    "search",
                    {"query": word, "limit": 50, "include_active": True, "group_by_session": False},
                )
                # the server names entries the short way: compare offset:block
                served = sorted(
                    h["id"].split(":", 1)[1] for h in res.structured_content.get("results", [])
                )
                cli = sorted(":".join(i.rsplit(":", 2)[1:]) for i in cli)
                in_app["ids"] = sorted(":".join(i.rsplit(":", 2)[1:]) for i in in_app["ids"])
                if len(cli) == total and cli == in_app["ids"] == served:
                    agreed = (cli, in_app, served)
                    break
                time.sleep(0.3)
            assert agreed is not None, (len(cli), len(in_app["ids"]), len(served), total)
            assert agreed[1]["role"] == "read-only"  # the watcher came first: it writes
            status = await client.call_tool("status", {})
            assert status.structured_content["role"] != "writer"
        for p in procs:
            assert p.poll() is None, "a process died"
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
