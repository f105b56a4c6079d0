"""Live indexing across processes: one writer, read-only followers, takeover, kill -9.

These spawn real processes (`ccarchive index --watch`, `python -c ...`) on a private copy
of the demo archive and check what they print and what the index then holds.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ccarchive.config import Settings
from ccarchive.index.store import IndexStore
from ccarchive.live.live_archive import LiveArchive
from ccarchive.service import ArchiveService, open_service
from tests.support.appends import (
    all_ids,
    append,
    assert_no_doubles,
    found,
    main_sessions,
    prompt_line,
    rel,
    word,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


class Proc:
    """A child process whose output lines are read in the background."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        self.p = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, bufsize=1
        )
        self.lines: list[str] = []
        self._q: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.p.stdout is not None
        for line in self.p.stdout:
            self._q.put(line.rstrip("\n"))

    def expect(self, text: str, timeout: float = 30.0) -> str:
        """Wait for a line containing `text` (lines before it are kept in `lines`)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no line with {text!r} within {timeout}s; got:\n" + "\n".join(self.lines)
                )
            try:
                line = self._q.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.p.poll() is not None and self._q.empty():
                    raise AssertionError(
                        f"exited ({self.p.returncode}) before {text!r}:\n" + "\n".join(self.lines)
                    ) from None
                continue
            self.lines.append(line)
            if text in line:
                return line

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(15)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


def _cli(settings: Settings) -> list[str]:
    exe = Path(sys.executable).with_name("ccarchive")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ccarchive"]
    return [
        *cmd,
        "index",
        "--watch",
        "--archive",
        str(settings.archive_root),
        "--data-dir",
        str(settings.data_dir),
    ]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def _reader(settings: Settings) -> ArchiveService:
    """This test's own read-only view of the index."""
    store = IndexStore(settings.archive_data_dir)
    service = ArchiveService(store, settings.archive_root)
    return service


def test_second_process_follows_then_takes_over_after_kill(demo_settings: Settings) -> None:
    first = Proc(_cli(demo_settings), _env())
    second: Proc | None = None
    try:
        first.expect("(pid", timeout=30)
        assert "writer" in first.lines[0]
        first.expect("full pass", timeout=60)
        second = Proc(_cli(demo_settings), _env())
        line = second.expect("following", timeout=30)
        assert f"pid {first.p.pid}" in line  # it knows who writes

        root = demo_settings.archive_root
        path = main_sessions(root)[0]
        w1 = word()
        append(path, prompt_line(path, f"first writer {w1}"))
        first.expect("+1 documents", timeout=30)
        seen = second.expect("seen commit", timeout=30)  # the follower saw the commit
        assert path.name[:8] in seen
        reader = _reader(demo_settings)
        reader.refresh()
        assert found(reader, w1) == 1

        first.p.send_signal(signal.SIGKILL)
        first.p.wait(10)
        second.expect("now indexes", timeout=30)
        second.expect("full pass", timeout=60)  # caught up; watching
        w2 = word()
        append(path, prompt_line(path, f"second writer {w2}"))
        second.expect("+1 documents", timeout=30)
        reader.refresh()
        assert found(reader, w2) == 1
        assert found(reader, w1) == 1
    finally:
        first.stop()
        if second is not None:
            second.stop()
    assert_no_doubles(IndexStore(demo_settings.archive_data_dir))


_KILL_MID_BATCH = r"""
import os, signal, sys
from pathlib import Path
from ccarchive.config import Settings
from ccarchive.index.indexer import Indexer
from ccarchive.live.live_archive import LiveArchive

settings = Settings(Path(sys.argv[1]), Path(sys.argv[2]))
rels = sys.argv[3:]
live = LiveArchive(settings, watch=False)
assert live._try_become_writer()
live.run_once()
print("indexed", flush=True)
sys.stdin.readline()  # the test appends, then says go

real_commit = Indexer._commit
def die_before_commit(self, report):
    if self._pending_docs:  # documents added to the writer, not yet committed
        print("dying", self._pending_docs, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    real_commit(self, report)
Indexer._commit = die_before_commit
live.run_once(only=rels)
print("survived", flush=True)
"""


def test_writer_killed_mid_batch_loses_and_doubles_nothing(demo_settings: Settings) -> None:
    root = demo_settings.archive_root
    paths = main_sessions(root)[:2]
    rels = [rel(root, p) for p in paths]
    child = subprocess.Popen(
        [sys.executable, "-c", _KILL_MID_BATCH, str(root), str(demo_settings.data_dir), *rels],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    assert child.stdout is not None and child.stdin is not None
    assert child.stdout.readline().strip() == "indexed"
    words = [word() for _ in paths]
    for p, w in zip(paths, words, strict=True):
        append(p, prompt_line(p, f"before the kill {w}") + prompt_line(p, f"more {w}"))
    child.stdin.write("go\n")
    child.stdin.flush()
    out, err = child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL, (out, err)
    assert out.startswith("dying")

    reader = _reader(demo_settings)
    assert all(found(reader, w) == 0 for w in words)  # never committed

    nxt = LiveArchive(demo_settings, watch=False)
    assert nxt._try_become_writer()  # the dead writer's lock is free
    nxt.run_once(only=rels)  # what the watcher reports on start
    nxt.run_once()  # the catch-up pass
    assert all(found(open_service(nxt.settings, live=nxt), w) == 2 for w in words)
    ids = assert_no_doubles(nxt.store)
    nxt.stop()

    fresh = LiveArchive(Settings(root, demo_settings.data_dir / "fresh"), watch=False)
    assert fresh._try_become_writer()
    fresh.run_once()
    assert sorted(all_ids(fresh.store)) == sorted(ids)
    fresh.stop()
