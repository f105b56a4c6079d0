"""Promise: killing the indexer (SIGKILL) at any moment loses and doubles nothing.

The indexer is killed at random moments (seeded, printed) during a full build and
during live indexing while lines are being appended. After every kill the index opens
and holds no document twice; after a resumed run it holds exactly the documents of a
clean build of the same archive (the same id set), and every session's figures match.

In the slow tier (`-m slow`): 20 kills during a build and 20 during live indexing. The
suite keeps a case of each: a build killed at five moments (tests/index/test_indexer.py)
and a live writer killed mid-batch (tests/live/test_live_process.py).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import orjson
import pytest
import tantivy

from ccarchive.config import Settings
from ccarchive.index import schema as S
from ccarchive.index.store import IndexStore
from tests.conftest import build_index
from tests.support.numbered_sessions import entry, write_session

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
SEED = int(os.environ.get("CCARCHIVE_CRASH_SEED", "8"))

BUILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from ccarchive.config import Settings
    from ccarchive.index import indexer as I
    from ccarchive.index.store import IndexStore
    I.COMMIT_DOCS = 60  # many commits: a kill lands before, inside and after them
    s = Settings(Path(sys.argv[1]), Path(sys.argv[2]))
    store = IndexStore(s.archive_data_dir)
    ix = I.Indexer(store, s.archive_root, store.try_writer())
    print("started", flush=True)
    ix.run()
    ix.close()
    store.mark_complete()
    print("done", flush=True)
""")

LIVE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from ccarchive.config import Settings
    from ccarchive.index import indexer as I
    from ccarchive.live.live_archive import LiveArchive
    I.COMMIT_DOCS = 60
    s = Settings(Path(sys.argv[1]), Path(sys.argv[2]))
    live = LiveArchive(s, watch=True, force_polling=False).start()
    print("started", flush=True)
    while True:
        time.sleep(1)
""")


def documents(settings: Settings) -> tuple[list[str], dict[str, tuple]]:
    """Every document id (entries, sessions, checkpoints) and each session's figures."""
    store = IndexStore(settings.archive_data_dir)
    searcher = store.searcher()
    n = searcher.num_docs
    ids: list[str] = []
    sessions: dict[str, tuple] = {}
    for _s, addr in searcher.search(tantivy.Query.all_query(), n + 1).hits:
        doc = searcher.doc(addr)
        ids.append(S.doc_id(doc))
        if doc.get_first(S.KIND) == S.SESSION_DOC:
            b = orjson.loads(doc.get_first(S.BLOB))
            sessions[b["session_id"]] = (
                b["title"],
                b["messages"],
                b["prompts"],
                b["tool_calls"],
                b["tokens"]["total"],
                b["subagent_count"],
                b["first_ts"],
                b["last_ts"],
            )
    return ids, sessions


def _check_after_kill(settings: Settings) -> list[str]:
    ids, _ = documents(settings)  # opens
    assert len(ids) == len(set(ids)), "a document is doubled"
    return ids


def _archive(root: Path, demo: Path) -> None:
    import shutil

    shutil.copytree(demo, root, symlinks=True)
    for i in range(10):
        write_session(root, f"{i:08d}-crash", 90, f"w{i}")


def _kills(n: int) -> int:
    return n


@pytest.mark.slow
@pytest.mark.parametrize("kills", [pytest.param(20, id="20-kills")])
def test_sigkill_during_a_build_loses_and_doubles_nothing(
    demo_archive_ro: Path, tmp_path: Path, kills: int
) -> None:
    root = tmp_path / "claude"
    _archive(root, demo_archive_ro)
    clean = Settings(root, tmp_path / "clean")
    build_index(root, clean.data_dir)
    want_ids, want_sessions = documents(clean)
    killed = Settings(root, tmp_path / "killed")
    rng = random.Random(SEED)
    # how long a whole run takes here, to spread the kills over it
    t0 = time.monotonic()
    subprocess.run(
        [sys.executable, "-c", BUILD, str(root), str(tmp_path / "timing")],
        check=True,
        capture_output=True,
        env=ENV,
    )
    span = time.monotonic() - t0
    delays, survived = [], 0
    for _ in range(kills):
        proc = subprocess.Popen(
            [sys.executable, "-c", BUILD, str(root), str(killed.data_dir)],
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        assert proc.stdout is not None
        proc.stdout.readline()
        delay = rng.uniform(0, span * 0.6)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        delays.append(round(delay, 3))
        ids = _check_after_kill(killed)
        assert set(ids) <= set(want_ids)
        survived += 1
    r = subprocess.run(
        [sys.executable, "-c", BUILD, str(root), str(killed.data_dir)],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert "done" in r.stdout, r.stderr
    got_ids, got_sessions = documents(killed)
    assert sorted(got_ids) == sorted(want_ids)
    assert got_sessions == want_sessions
    print(
        f"\nbuild: {survived} SIGKILLs survived (seed {SEED}, delays {delays}); "
        f"{len(want_ids)} documents, none lost, none doubled"
    )


def _appender(root: Path, stop: threading.Event, counter: list[int]) -> None:
    """Append to three sessions (and start a new one) until told to stop."""
    rng = random.Random(SEED + 1)
    sids = [f"{i:08d}-crash" for i in range(3)]
    n = 1000
    while not stop.is_set():
        sid = rng.choice(sids)
        path = root / "projects" / "-home-me-proj" / f"{sid}.jsonl"
        kind = "user" if n % 2 == 0 else "assistant"
        with open(path, "a") as f:
            f.write(json.dumps(entry(n, sid, f"appended line {n}", kind=kind)) + "\n")
        if n % 50 == 0:
            write_session(root, f"{n:08d}-new", 5, f"fresh{n}")
        n += 1
        counter[0] = n
        time.sleep(rng.uniform(0.001, 0.02))


@pytest.mark.slow
@pytest.mark.parametrize("kills", [pytest.param(20, id="20-kills")])
def test_sigkill_during_live_indexing_with_appends(
    demo_archive_ro: Path, tmp_path: Path, kills: int
) -> None:
    root = tmp_path / "claude"
    _archive(root, demo_archive_ro)
    killed = Settings(root, tmp_path / "killed")
    rng = random.Random(SEED + 2)
    stop = threading.Event()
    counter = [0]
    writer = threading.Thread(target=_appender, args=(root, stop, counter), daemon=True)
    writer.start()
    delays, survived = [], 0
    try:
        for _ in range(kills):
            proc = subprocess.Popen(
                [sys.executable, "-c", LIVE, str(root), str(killed.data_dir)],
                stdout=subprocess.PIPE,
                text=True,
                env=ENV,
            )
            assert proc.stdout is not None
            proc.stdout.readline()
            delay = rng.uniform(0.05, 1.5)
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            delays.append(round(delay, 3))
            _check_after_kill(killed)
            survived += 1
    finally:
        stop.set()
        writer.join(10)
    # resume: one more run on the archive as it now stands, then compare with a clean one
    r = subprocess.run(
        [sys.executable, "-c", BUILD, str(root), str(killed.data_dir)],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert "done" in r.stdout, r.stderr
    clean = Settings(root, tmp_path / "clean")
    build_index(root, clean.data_dir)
    want_ids, want_sessions = documents(clean)
    got_ids, got_sessions = documents(killed)
    assert len(got_ids) == len(set(got_ids))
    missing, extra = set(want_ids) - set(got_ids), set(got_ids) - set(want_ids)
    assert not missing and not extra, (sorted(missing)[:5], sorted(extra)[:5])
    assert got_sessions == want_sessions
    print(
        f"\nlive: {survived} SIGKILLs survived while {counter[0] - 1000} lines were "
        f"appended (seed {SEED}, delays {delays}); {len(want_ids)} documents match"
    )
