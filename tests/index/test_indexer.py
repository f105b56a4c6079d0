"""Incremental indexing: checkpoints, appends, rewrites, deletions and kills."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import tantivy

from ccarchive.config import Settings
from ccarchive.index import schema as S
from ccarchive.index.indexer import Indexer
from ccarchive.index.store import IndexStore
from ccarchive.service import ArchiveService
from tests.support.numbered_sessions import PROJECT, entry, write_session


def index(root: Path, data: Path) -> tuple[ArchiveService, object]:
    store = IndexStore(Settings(root, data).archive_data_dir)
    ix = Indexer(store, root, store.try_writer())
    try:
        report = ix.run()
    finally:
        ix.close()
    return ArchiveService(store, root, redact_secrets=False), report


def all_ids(svc: ArchiveService) -> list[str]:
    searcher = svc.store.searcher()
    q = tantivy.Query.term_set_query(svc.schema, S.KIND, list(S.SEARCHABLE_KINDS))
    n = searcher.search(q, 1).count
    return sorted(S.doc_id(searcher.doc(a)) for _, a in searcher.search(q, n + 1).hits)


def test_second_run_reads_nothing_and_appends_read_only_new_bytes(tmp_path: Path) -> None:
    root, data = tmp_path / "claude", tmp_path / "data"
    path = write_session(root, "11111111-aaaa", 10)
    svc, r1 = index(root, data)
    assert r1.docs_added == 10 and r1.bytes_read == path.stat().st_size
    _, r2 = index(root, data)
    assert r2.files_read == 0 and r2.docs_added == 0 and r2.bytes_read == 0
    before = path.stat().st_size
    write_session(root, "11111111-aaaa", 4, "omega", start=10, mode="a")
    svc, r3 = index(root, data)
    assert r3.bytes_read == path.stat().st_size - before and r3.docs_added == 4
    assert svc.search("omega").total == 4
    assert len(all_ids(svc)) == 14
    info = svc.session("11111111-aaaa")
    assert info.messages == 14 and info.tokens.input == 70


def test_a_torn_last_line_waits_for_its_newline(tmp_path: Path) -> None:
    root, data = tmp_path / "claude", tmp_path / "data"
    path = write_session(root, "22222222-bbbb", 2)
    line = json.dumps(entry(2, "22222222-bbbb", "zanzibar arrives late"))
    with open(path, "a") as f:
        f.write(line[:25])
    svc, _ = index(root, data)
    assert svc.search("zanzibar").total == 0
    assert svc.status().skipped_by_reason.get("incomplete_last_line") == 1
    with open(path, "a") as f:
        f.write(line[25:] + "\n")
    svc, _ = index(root, data)
    assert svc.search("zanzibar").total == 1
    assert "incomplete_last_line" not in svc.status().skipped_by_reason
    assert len(all_ids(svc)) == 3


def test_a_rewritten_file_is_read_again_without_duplicates(tmp_path: Path) -> None:
    root, data = tmp_path / "claude", tmp_path / "data"
    write_session(root, "33333333-cccc", 8, "before")
    index(root, data)
    write_session(root, "33333333-cccc", 3, "after")  # truncated and rewritten, shorter
    svc, report = index(root, data)
    assert report.files_reset == 1
    assert svc.search("before").total == 0 and svc.search("after").total == 3
    assert len(all_ids(svc)) == 3
    # rewritten in place to a larger size (same inode, other first bytes)
    write_session(root, "33333333-cccc", 12, "again")
    svc, report = index(root, data)
    assert report.files_reset == 1 and len(all_ids(svc)) == 12
    assert svc.search("after").total == 0


def test_a_rewrite_with_the_same_first_bytes_is_not_taken_for_an_append(tmp_path: Path) -> None:
    """Same inode, same first kilobyte, larger: only the bytes before the checkpoint tell
    that what was read is gone (an editor rewriting the file, a tool replacing lines)."""
    root, data = tmp_path / "claude", tmp_path / "data"
    sid = "77777777-abcd"
    path = root / "projects" / PROJECT / f"{sid}.jsonl"
    path.parent.mkdir(parents=True)
    first = json.dumps(entry(0, sid, "opening " + "padding " * 300)) + "\n"  # > 1 kB
    lines = [json.dumps(entry(i, sid, f"original line {i}")) + "\n" for i in (1, 2, 3)]
    path.write_text(first + "".join(lines))
    index(root, data)
    ino = path.stat().st_ino
    swapped = [json.dumps(entry(i, sid, f"replacement line {i}")) + "\n" for i in (1, 2, 3, 4)]
    with open(path, "r+") as f:  # in place: the inode stays
        f.write(first + "".join(swapped))
    assert path.stat().st_ino == ino
    svc, report = index(root, data)
    assert report.files_reset == 1
    assert svc.search("original").total == 0
    assert svc.search("replacement").total == 4 and len(all_ids(svc)) == 5


def test_a_deleted_session_stays_searchable_and_is_marked_gone(tmp_path: Path) -> None:
    root, data = tmp_path / "claude", tmp_path / "data"
    path = write_session(root, "44444444-dddd", 4, "ephemeral")
    write_session(root, "55555555-eeee", 2, "keeper")
    index(root, data)
    path.unlink()
    svc, report = index(root, data)
    assert report.files_gone == 1
    assert svc.search("ephemeral").total == 4
    assert svc.session("44444444-dddd").on_disk is False
    assert svc.session("55555555-eeee").on_disk is True
    assert svc.status().sessions_gone == 1


def test_the_index_never_lives_in_the_archive(tmp_path: Path) -> None:
    settings = Settings(tmp_path / "claude", tmp_path / "claude" / "cache")
    try:
        settings.check_outside_archive()
    except ValueError as exc:
        assert "never writes into the archive" in str(exc)
    else:
        raise AssertionError("a data dir inside the archive was accepted")


KILL_SCRIPT = textwrap.dedent("""
    import sys
    from pathlib import Path
    from ccarchive.config import Settings
    from ccarchive.index.indexer import Indexer
    from ccarchive.index import indexer as I
    from ccarchive.index.store import IndexStore
    I.COMMIT_DOCS = 150  # many small commits, so a kill lands between and inside them
    root, data = Path(sys.argv[1]), Path(sys.argv[2])
    store = IndexStore(Settings(root, data).archive_data_dir)
    ix = Indexer(store, root, store.try_writer())
    print("started", flush=True)
    ix.run()
    ix.close()
""")


def test_kill_minus_9_at_any_moment_loses_and_doubles_nothing(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    for i in range(12):
        write_session(root, f"{i:08d}-kill", 120, f"w{i}")
    clean_svc, _ = index(root, tmp_path / "clean")
    expected = all_ids(clean_svc)
    data = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    delays = [0.05, 0.15, 0.3, 0.45, 0.6]
    for delay in delays:
        proc = subprocess.Popen(
            [sys.executable, "-c", KILL_SCRIPT, str(root), str(data)],
            stdout=subprocess.PIPE,
            env=env,
        )
        assert proc.stdout is not None
        proc.stdout.readline()
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # the index opens after every kill, with no document twice
        store = IndexStore(Settings(root, data).archive_data_dir)
        ids = all_ids(ArchiveService(store, root))
        assert len(ids) == len(set(ids))
        assert set(ids) <= set(expected)
        del store
    svc, _ = index(root, data)
    assert all_ids(svc) == expected


def test_files_left_by_a_killed_writer_do_not_break_the_next_one(tmp_path: Path) -> None:
    """A writer killed after writing a segment's delete file but before committing leaves
    `<segment>.<opstamp>.del`; the next writer reaches the same opstamp and would collide."""
    import shutil

    root, data = tmp_path / "claude", tmp_path / "data"
    write_session(root, "66666666-ffff", 6, "first")
    write_session(root, "77777777-ffff", 6, "bystander")  # keeps the segment alive
    index(root, data)
    index_dir = IndexStore(Settings(root, data).archive_data_dir).path
    snapshot = tmp_path / "snapshot"
    shutil.copytree(index_dir, snapshot)
    write_session(root, "66666666-ffff", 3, "second")  # rewritten: its documents deleted
    index(root, data)
    left = [
        f for f in index_dir.iterdir() if f.suffix == ".del" and not (snapshot / f.name).exists()
    ]
    assert left, "the rewrite should have written a delete file"
    shutil.rmtree(index_dir)
    shutil.copytree(snapshot, index_dir)
    for f in left:  # what the killed writer left behind, uncommitted
        f.write_bytes(b"garbage from a killed writer")
    svc, _ = index(root, data)
    assert svc.search("second").total == 3 and svc.search("first").total == 0


def test_a_summary_record_titles_the_session_its_leaf_uuid_ends(tmp_path: Path) -> None:
    """Summary records sit at the top of a later file and name the conversation whose
    last entry is their `leafUuid`. The uuid is found through its first characters
    (`S.UKEY`), shared here by every entry of two sessions: only the exact one counts."""
    root, data = tmp_path / "claude", tmp_path / "data"
    a, b = "aaaa1111-0000-4000-8000-000000000001", "aaaa2222-0000-4000-8000-000000000002"
    write_session(root, a, 6)
    write_session(root, b, 6)
    svc, _ = index(root, data)
    assert svc.session(b).title == "alpha message number 0"
    later = "cccc3333-0000-4000-8000-000000000003"
    path = root / "projects" / PROJECT / f"{later}.jsonl"
    with open(path, "w") as f:
        for leaf, text in (
            (f"{b[:8]}-u5", "Fixing the parser"),
            ("aaaa9999-u1", "A conversation no longer on disk"),
        ):
            f.write(json.dumps({"type": "summary", "summary": text, "leafUuid": leaf}) + "\n")
        f.write(json.dumps(entry(0, later, "gamma")) + "\n")
    svc, _ = index(root, data)
    assert svc.session(b).title == "Fixing the parser"
    assert svc.session(a).title == "alpha message number 0"
    assert svc.session(later).title == "gamma"
