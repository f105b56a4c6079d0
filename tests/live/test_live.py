"""Live indexing: appends, new files, deletions, torn lines, rewrites, rebuilds, followers.

Driven deterministically: real lines are appended to a private copy of the demo archive
and `live.run_once(only=[rel])` stands in for the watcher; what was written is then
looked up through `open_service(settings, live=live)`, as the app and the MCP tools do.
The tests with the real watcher (one per event source) poll the service with a timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid as uuidlib
from pathlib import Path

import pytest

from ccarchive.archive import discovery as D
from ccarchive.config import Settings
from ccarchive.index.run_reports import CommitInfo
from ccarchive.live.live_archive import READ_ONLY, WRITER, Batch, LiveArchive
from ccarchive.live.watch import batch_line
from ccarchive.live.writer import watch_mode
from ccarchive.service import open_service
from tests.support.appends import (
    all_ids,
    append,
    assert_no_doubles,
    found,
    main_sessions,
    prompt_line,
    rel,
    wait_for,
    word,
)

# ---- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def live(demo_settings: Settings):
    """The writer over a private demo archive, indexed once, no watcher thread."""
    la = LiveArchive(demo_settings, watch=False)
    assert la._try_become_writer()
    la.run_once()
    yield la
    la.stop()


@pytest.fixture
def commits(live: LiveArchive) -> list[CommitInfo]:
    seen: list[CommitInfo] = []
    live.on_commit(seen.append)
    return seen


# ---- appends --------------------------------------------------------------------------------


def test_appended_lines_are_searchable_after_one_pass(
    live: LiveArchive, commits: list[CommitInfo]
) -> None:
    root = live.root
    path = main_sessions(root)[0]
    w1, w2 = word(), word()
    append(path, prompt_line(path, f"please look at {w1}") + prompt_line(path, f"and {w2}"))
    assert found(open_service(live.settings, live=live), w1) == 0

    report = live.run_once(only=[rel(root, path)])

    assert report is not None and report.files_read == 1 and report.docs_added == 2
    assert found(open_service(live.settings, live=live), w1) == 1
    assert found(open_service(live.settings, live=live), w2) == 1
    info = commits[-1]
    assert rel(root, path) in info.files
    assert path.stem in info.sessions
    assert "prompt" in info.kinds and info.docs == 2
    assert_no_doubles(live.store)


def test_only_pass_does_not_walk_the_archive(
    live: LiveArchive, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_walk(*_a: object, **_k: object) -> None:
        raise AssertionError("a live pass walked the whole archive")

    monkeypatch.setattr(D, "discover", no_walk)
    path = main_sessions(live.root)[0]
    w = word()
    append(path, prompt_line(path, w))
    live.run_once(only=[rel(live.root, path)])
    assert found(open_service(live.settings, live=live), w) == 1


def test_half_written_line_waits_for_its_newline(live: LiveArchive) -> None:
    root = live.root
    path = main_sessions(root)[1]
    r = rel(root, path)
    w = word()
    line = prompt_line(path, f"torn {w}")
    before = path.stat().st_size
    append(path, line[:40])  # Claude Code is in the middle of writing this entry

    live.run_once(only=[r])
    assert found(open_service(live.settings, live=live), w) == 0
    st = live.indexer.states[r]
    assert st.offset == before  # the checkpoint stays before the torn line
    assert st.pending == 40

    append(path, line[40:])
    live.run_once(only=[r])
    assert found(open_service(live.settings, live=live), w) == 1
    assert live.indexer.states[r].offset == before + len(line)
    assert live.indexer.states[r].pending == 0
    live.run_once(only=[r])  # nothing new: nothing doubled
    assert found(open_service(live.settings, live=live), w) == 1
    assert_no_doubles(live.store)


def test_new_files_of_every_kind_and_deletions(
    live: LiveArchive, commits: list[CommitInfo]
) -> None:
    root = live.root
    src = main_sessions(root)[0]
    pdir = src.parent
    sid = str(uuidlib.uuid4())
    words = {k: word() for k in ("session", "agent", "plan", "memory", "history")}

    session = pdir / f"{sid}.jsonl"
    session.write_bytes(prompt_line(src, f"new session {words['session']}", session_id=sid))
    agent = pdir / sid / "subagents" / "agent-a1b2c3d4e5.jsonl"
    agent.parent.mkdir(parents=True)
    agent.write_bytes(prompt_line(src, f"subagent task {words['agent']}", session_id=sid))
    plan = root / "plans" / "quiet-testing-turing.md"
    plan.write_text(f"# Live plan\n\nStep one: {words['plan']}\n")
    memory = pdir / "memory" / "live-notes.md"
    memory.parent.mkdir(exist_ok=True)
    memory.write_text(f"# Notes\n\nremember {words['memory']}\n")
    history = root / "history.jsonl"
    append(
        history,
        json.dumps(
            {
                "display": f"typed {words['history']}",
                "pastedContents": {},
                "timestamp": int(time.time() * 1000),
                "project": "/x",
                "sessionId": sid,
            }
        ).encode()
        + b"\n",
    )
    rels = [rel(root, p) for p in (session, agent, plan, memory, history)]

    live.run_once(only=rels)

    for kind, w in words.items():
        assert found(open_service(live.settings, live=live), w) == 1, kind
    assert set(rels) <= set().union(*(c.files for c in commits))
    assert open_service(live.settings, live=live).session(sid).subagent_count == 1

    # Deleted (Claude Code's 30-day sweep): documents stay, the session is marked gone.
    session.unlink()
    live.run_once(only=[rel(root, session)])
    assert live.indexer.states[rel(root, session)].gone
    assert open_service(live.settings, live=live).session(sid).on_disk is False
    assert found(open_service(live.settings, live=live), words["session"]) == 1

    # An edited memory file replaces its document.
    memory.write_text("# Notes\n\nnothing left\n")
    live.run_once(only=[rel(root, memory)])
    assert found(open_service(live.settings, live=live), words["memory"]) == 0
    assert found(open_service(live.settings, live=live), "nothing left") >= 1
    assert_no_doubles(live.store)


def test_unknown_and_missing_paths_are_ignored(live: LiveArchive) -> None:
    before = len(all_ids(live.store))
    report = live.run_once(
        only=[
            "debug/latest.txt",
            "projects/nope/none.jsonl",
            "projects/x/y/subagents/agent-1.meta.json",
        ]
    )
    assert report is not None and report.files_read == 0 and report.files_gone == 0
    assert len(all_ids(live.store)) == before


def test_sources_for_agrees_with_the_walk(demo_archive: Path) -> None:
    walked = {s.rel: s for s in D.discover(demo_archive)}
    every = [rel(demo_archive, p) for p in demo_archive.rglob("*") if p.is_file()]
    picked = {s.rel: s for s in D.sources_for(demo_archive, every + ["missing.jsonl"])}
    assert picked == walked


# ---- rewrites ------------------------------------------------------------------------------


def test_truncated_and_rewritten_file_is_reindexed_once(live: LiveArchive) -> None:
    root = live.root
    path = main_sessions(root)[0]
    r = rel(root, path)
    old = word()
    append(path, prompt_line(path, f"old {old}"))
    live.run_once(only=[r])
    assert found(open_service(live.settings, live=live), old) == 1
    lines = path.read_bytes().splitlines(keepends=True)

    # 1. Cut back to half and written on (smaller than what was indexed): read again.
    new1 = word()
    with open(path, "r+b") as f:
        f.truncate(sum(len(x) for x in lines[: len(lines) // 2]))
    append(path, prompt_line(path, f"after cut {new1}"))
    assert path.stat().st_size < live.indexer.states[r].offset
    live.run_once(only=[r])
    assert found(open_service(live.settings, live=live), old) == 0
    assert found(open_service(live.settings, live=live), new1) == 1

    # 2. Emptied and rewritten with other content, bigger than before (same inode).
    new2 = word()
    content = prompt_line(path, f"rewritten {new2}") + b"".join(
        prompt_line(path, f"filler {i} " + "x" * 400) for i in range(40)
    )
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(content)
    assert path.stat().st_size > live.indexer.states[r].offset
    live.run_once(only=[r])
    assert found(open_service(live.settings, live=live), new1) == 0
    assert found(open_service(live.settings, live=live), new2) == 1

    # 3. Replaced by a new file (atomic rename, new inode).
    new3 = word()
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(prompt_line(path, f"replaced {new3}") + content[len(content) // 2 :])
    os.replace(tmp, path)
    live.run_once(only=[r])
    assert found(open_service(live.settings, live=live), new2) == 0
    assert found(open_service(live.settings, live=live), new3) == 1

    ids = assert_no_doubles(live.store)
    assert sum(1 for i in ids if i.startswith(f"{r}:")) == live.indexer.states[r].docs


# ---- rebuilds and kills --------------------------------------------------------------------


def test_appends_during_a_full_pass_are_not_lost_or_doubled(demo_settings: Settings) -> None:
    """Lines appended while a (re)build runs: those past the size the walk saw wait for
    the next pass, which the watcher's queued events trigger."""
    live = LiveArchive(demo_settings, watch=False)
    assert live._try_become_writer()
    root = live.root
    sessions = main_sessions(root)
    order = [s.rel for s in D.discover(root)]
    first = min(sessions, key=lambda p: order.index(rel(root, p)))
    last = max(sessions, key=lambda p: order.index(rel(root, p)))
    w_first, w_last = word(), word()
    progress = live._progress
    appended = threading.Event()

    def hook(p: object) -> None:  # after the first file: mid-rebuild
        if not appended.is_set():
            appended.set()
            append(first, prompt_line(first, f"during build {w_first}"))
            append(last, prompt_line(last, f"during build {w_last}"))
        progress(p)

    live._progress = hook  # type: ignore[method-assign]
    try:
        live.run_once()
        assert appended.is_set()
        live.run_once(only=[rel(root, first), rel(root, last)])  # the queued events
        assert found(open_service(live.settings, live=live), w_first) == 1
        assert found(open_service(live.settings, live=live), w_last) == 1
        live.run_once()  # the periodic full pass finds nothing more
        assert found(open_service(live.settings, live=live), w_first) == 1
        assert found(open_service(live.settings, live=live), w_last) == 1
        ids = assert_no_doubles(live.store)
    finally:
        live.stop()
    # The same archive built from scratch holds exactly the same documents.
    fresh = LiveArchive(Settings(root, demo_settings.data_dir / "fresh"), watch=False)
    assert fresh._try_become_writer()
    fresh.run_once()
    assert sorted(all_ids(fresh.store)) == sorted(ids)
    fresh.stop()


def test_rebuild_option_drops_and_rereads(demo_settings: Settings) -> None:
    live = LiveArchive(demo_settings, watch=False)
    assert live._try_become_writer()
    live.run_once()
    n = len(all_ids(live.store))
    live.stop()
    again = LiveArchive(demo_settings, watch=False, rebuild=True)
    assert again._try_become_writer()
    assert len(all_ids(again.store)) == 0
    again.run_once()
    assert len(assert_no_doubles(again.store)) == n
    again.stop()


def test_stop_interrupts_a_pass_and_the_next_writer_resumes(demo_settings: Settings) -> None:
    live = LiveArchive(demo_settings, watch=False)
    assert live._try_become_writer()
    progress = live._progress
    calls = 0

    def hook(p: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            live.stopping.set()
        progress(p)

    live._progress = hook  # type: ignore[method-assign]
    assert live.run_once() is None  # stopped between files, nothing committed
    live.stop()
    nxt = LiveArchive(demo_settings, watch=False)
    assert nxt._try_become_writer()
    nxt.run_once()
    ids = assert_no_doubles(nxt.store)
    nxt.stop()
    fresh = LiveArchive(
        Settings(demo_settings.archive_root, demo_settings.data_dir / "f"), watch=False
    )
    assert fresh._try_become_writer()
    fresh.run_once()
    assert sorted(all_ids(fresh.store)) == sorted(ids)
    fresh.stop()


# ---- one writer, followers -----------------------------------------------------------------


def test_second_instance_follows_read_only_and_takes_over(demo_settings: Settings) -> None:
    writer = LiveArchive(demo_settings, watch=False)
    assert writer._try_become_writer()
    writer.run_once()
    follower = LiveArchive(demo_settings, watch=False)
    assert not follower._try_become_writer()
    assert follower.state.role == READ_ONLY
    assert open_service(follower.settings, live=follower).role == READ_ONLY
    assert follower.state.writer_pid == os.getpid()
    seen: list[CommitInfo] = []
    follower.on_commit(seen.append)
    assert not follower.poll_commits()

    path = main_sessions(writer.root)[0]
    w = word()
    append(path, prompt_line(path, f"followed {w}"))
    writer.run_once(only=[rel(writer.root, path)])

    assert follower.poll_commits()
    assert found(open_service(follower.settings, live=follower), w) == 1
    info = seen[-1]
    assert rel(writer.root, path) in info.files
    assert path.stem in info.sessions
    assert "prompt" in info.kinds and info.docs >= 1

    writer.stop()  # exits: the lock is free
    assert follower._try_become_writer()
    assert follower.state.role == WRITER
    assert open_service(follower.settings, live=follower).role == WRITER
    w2 = word()
    append(path, prompt_line(path, f"after takeover {w2}"))
    follower.run_once(only=[rel(writer.root, path)])
    assert found(open_service(follower.settings, live=follower), w2) == 1
    assert found(open_service(follower.settings, live=follower), w) == 1
    assert_no_doubles(follower.store)
    follower.stop()


def test_commit_callback_errors_do_not_stop_indexing(live: LiveArchive) -> None:
    def broken(_info: CommitInfo) -> None:
        raise RuntimeError("a view's bug")

    batches: list[Batch] = []
    live.on_commit(broken)
    live.on_batch(batches.append)
    path = main_sessions(live.root)[0]
    w = word()
    append(path, prompt_line(path, w))
    live.run_once(only=[rel(live.root, path)])
    assert found(open_service(live.settings, live=live), w) == 1
    b = batches[-1]
    assert b.docs == 1 and b.files == (rel(live.root, path),) and not b.full
    assert b.lag is not None and 0 <= b.lag < 60
    assert "+1 documents  1 file  lag" in batch_line(b)


# ---- the real watcher ----------------------------------------------------------------------


def _started(settings: Settings, **kw: object) -> tuple[LiveArchive, threading.Event]:
    live = LiveArchive(settings, watch=True, **kw)  # type: ignore[arg-type]
    full_done = threading.Event()
    live.on_batch(lambda b: full_done.set() if b.full else None)
    return live, full_done


def test_watcher_end_to_end(demo_settings: Settings) -> None:
    """The real watcher: lines written during the first build and after it are found."""
    live, full_done = _started(demo_settings)
    root = live.root
    path = main_sessions(root)[0]
    w_during, w_after = word(), word()
    progress = live._progress
    wrote = threading.Event()

    def hook(p: object) -> None:  # runs in the indexer thread, mid-build
        if not wrote.is_set():
            wrote.set()
            append(path, prompt_line(path, f"while building {w_during}"))
        progress(p)

    live._progress = hook  # type: ignore[method-assign]
    live.start()
    try:
        assert live.state.role == WRITER
        assert full_done.wait(60)
        assert live.state.watching in ("inotify", "native") or live.state.watching.startswith(
            "polling"
        )
        assert wait_for(lambda: found(open_service(live.settings, live=live), w_during) == 1)
        t0 = time.monotonic()
        append(path, prompt_line(path, f"just typed {w_after}"))
        assert wait_for(lambda: found(open_service(live.settings, live=live), w_after) == 1)
        assert time.monotonic() - t0 < 10
        # A burst of appends is coalesced into few commits.
        n0 = live.state.commits
        burst = [word() for _ in range(30)]
        for w in burst:
            append(path, prompt_line(path, f"burst {w}"))
        assert wait_for(lambda: found(open_service(live.settings, live=live), burst[-1]) == 1)
        assert all(found(open_service(live.settings, live=live), w) == 1 for w in burst)
        assert live.state.commits - n0 < 30
        new = path.parent / f"{uuidlib.uuid4()}.jsonl"
        w_new = word()
        new.write_bytes(prompt_line(path, f"new file {w_new}"))
        assert wait_for(lambda: found(open_service(live.settings, live=live), w_new) == 1)
    finally:
        live.stop()
    assert_no_doubles(live.store)


def test_polling_fallback_says_so_and_sees_same_second_appends(demo_settings: Settings) -> None:
    live, full_done = _started(demo_settings, force_polling=True)
    live.start()
    try:
        assert full_done.wait(60)
        assert live.state.watching.startswith("polling (")
        path = main_sessions(live.root)[0]
        w1, w2 = word(), word()
        append(path, prompt_line(path, w1))
        assert wait_for(lambda: found(open_service(live.settings, live=live), w1) == 1)
        append(path, prompt_line(path, w2))  # most likely within the same second
        assert wait_for(lambda: found(open_service(live.settings, live=live), w2) == 1, timeout=10)
    finally:
        live.stop()


def test_watch_mode_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WATCHFILES_FORCE_POLLING", raising=False)
    monkeypatch.setenv("CCARCHIVE_POLL", "1")
    assert watch_mode(tmp_path) == (True, "$CCARCHIVE_POLL is set")
    monkeypatch.setenv("CCARCHIVE_POLL", "0")
    assert watch_mode(tmp_path) == (False, "")
    assert watch_mode(tmp_path, force_polling=True)[0]


def test_deleted_folder_marks_its_files_gone(live: LiveArchive) -> None:
    from ccarchive.live.writer import changed_rels

    root = live.root
    agents = [r for r, st in live.indexer.states.items() if "/subagents/" in r and not st.gone]
    if not agents:
        pytest.skip("the demo archive has no nested subagents")
    sdir = root / agents[0].split("/subagents/")[0]
    shutil.rmtree(sdir)
    rels = changed_rels({(3, str(sdir))}, live)
    assert agents[0] in rels
    live.run_once(only=rels)
    assert live.indexer.states[agents[0]].gone


# ---- a first pass that waits for its front end ----------------------------------------------


def test_the_first_pass_waits_for_begin_and_the_role_is_taken_at_once(
    demo_settings: Settings,
) -> None:
    """`serve` answers the handshake before indexing: the writer's role is settled when
    `start` returns (so the service says "indexing: 0 %", never "another process"),
    nothing is indexed until `begin` is set, then the whole pass runs."""
    begin = threading.Event()
    live = LiveArchive(demo_settings, watch=False).start(begin=begin)
    try:
        svc = open_service(demo_settings, live=live)
        assert live.is_writer
        time.sleep(0.5)
        assert not live.store.complete and svc.document_count() == 0
        note = svc.indexing_note()
        assert note is not None and note.startswith("indexing: 0 % of the archive")
        begin.set()
        assert wait_for(lambda: live.store.complete, timeout=60)
        assert svc.indexing_note() is None and svc.document_count() > 0
    finally:
        live.stop()


def test_the_first_pass_begins_after_wait_without_begin(demo_settings: Settings) -> None:
    live = LiveArchive(demo_settings, watch=False).start(begin=threading.Event(), wait=0.2)
    try:
        assert wait_for(lambda: live.store.complete, timeout=60)
    finally:
        live.stop()


def test_a_live_archive_stopped_while_waiting_to_begin_stops_at_once(
    demo_settings: Settings,
) -> None:
    live = LiveArchive(demo_settings, watch=False).start(begin=threading.Event())
    t0 = time.monotonic()
    live.stop()
    assert time.monotonic() - t0 < 2 and not live.store.complete
    assert not any(t.is_alive() for t in live._threads)


def test_a_follower_counts_the_index_whole_only_once_it_has_read_the_last_commit(
    demo_settings: Settings,
) -> None:
    """The writer marks the index complete after its last commit; a follower that has not
    reloaded since still searches a part of it, and must go on saying so."""
    follower = LiveArchive(demo_settings, watch=False)  # not started: polled by hand
    writer = LiveArchive(demo_settings, watch=False)
    try:
        assert writer._try_become_writer()
        writer.run_once()
        svc = open_service(demo_settings, live=follower)
        assert follower.store.complete and not follower.searches_whole_index
        note = svc.indexing_note()
        assert note is not None and "another ccarchive process" in note
        assert follower.poll_commits()
        assert follower.searches_whole_index and svc.indexing_note() is None
        assert svc.document_count() == open_service(demo_settings, live=writer).document_count()
    finally:
        writer.stop()
        follower.stop()
