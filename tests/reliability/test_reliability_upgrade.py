"""Promise: a schema change rebuilds the index on its own, keeping the old index until the
new one is complete; a damaged index is detected, moved aside and rebuilt, with a message.

Damage is done for real to a built index: each kind of index file truncated, garbled
(its footer too, or only its middle) and deleted, and `meta.json` removed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ccarchive.config import Settings
from ccarchive.index import schema as S
from ccarchive.index.store import IndexStore
from tests.conftest import build_index

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
PARTS = [".term", ".store", ".idx", ".pos", ".fast", ".fieldnorm", ".del"]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ccarchive", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
    )


def search_total(settings: Settings, query: str = "flaky") -> tuple[int, str]:
    r = cli(
        "search",
        "--archive",
        str(settings.archive_root),
        "--data-dir",
        str(settings.data_dir),
        "--json",
        query,
    )
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return json.loads(r.stdout)["total"], r.stderr


@pytest.fixture(scope="module")
def built(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    data = tmp_path_factory.mktemp("upgrade-clean")
    build_index(demo_archive_ro, data)
    return Settings(demo_archive_ro, data)


def _copy(built: Settings, tmp_path: Path) -> Settings:
    data = tmp_path / "data"
    shutil.copytree(built.data_dir, data)
    return Settings(built.archive_root, data)


def _damage(index: Path, part: str, how: str, rng: random.Random) -> int:
    files = [
        f
        for f in index.iterdir()
        if f.is_file() and (f.name == part if part == "meta.json" else f.suffix == part)
    ]
    for f in files:
        if how == "delete":
            f.unlink()
            continue
        raw = bytearray(f.read_bytes())
        if how == "truncate":
            raw = raw[: len(raw) // 2]
        elif how == "garble":  # anywhere, the footer included
            for _ in range(max(1, len(raw) // 50)):
                raw[rng.randrange(len(raw))] = rng.randrange(256)
        elif how == "middle":  # the footer (and its checksum) left whole
            for i in range(len(raw) // 4, len(raw) // 2):
                raw[i] ^= 0x5A
        f.write_bytes(bytes(raw))
    return len(files)


def test_schema_change_rebuilds_and_keeps_the_old_index_until_complete(
    demo_archive: Path, tmp_path: Path
) -> None:
    """The index of the previous schema (index-v<N-1>) is kept while index-v<N> is built,
    also when that build is killed, and removed once the new one is complete."""
    settings = Settings(demo_archive, tmp_path / "data")
    build_index(demo_archive, settings.data_dir)
    base = settings.archive_data_dir
    current = base / f"index-v{S.SCHEMA_VERSION}"
    old = base / f"index-v{S.SCHEMA_VERSION - 1}"
    current.rename(old)  # what an older release left behind
    old_files = sorted(p.name for p in old.iterdir())
    # a build of the new schema, killed before it completes: the old one stays
    script = textwrap.dedent("""
        import sys
        from pathlib import Path
        from ccarchive.config import Settings
        from ccarchive.index import indexer as I
        from ccarchive.index.store import IndexStore
        I.COMMIT_DOCS = 20
        s = Settings(Path(sys.argv[1]), Path(sys.argv[2]))
        store = IndexStore(s.archive_data_dir)
        ix = I.Indexer(store, s.archive_root, store.try_writer())
        orig = ix._commit
        def slow(report):
            orig(report)
            print("commit", flush=True)
            import time; time.sleep(0.05)
        ix._commit = slow
        ix.run()
        print("done", flush=True)
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(demo_archive), str(settings.data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "commit"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert current.is_dir() and not (current / "complete").exists()
    assert sorted(p.name for p in old.iterdir()) == old_files  # untouched
    # the next command finishes the new index, then drops the old one
    total, _ = search_total(settings)
    assert total == 3
    assert (current / "complete").exists() and not old.exists()
    assert [p.name for p in base.iterdir() if p.name.startswith("index-v")] == [current.name]


def test_schema_version_bump_in_process(
    demo_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same with SCHEMA_VERSION itself raised: a store of version N+1 opens a new
    folder; version N stays complete and searchable until N+1 is marked complete."""
    settings = Settings(demo_archive, tmp_path / "data")
    svc = build_index(demo_archive, settings.data_dir)
    want = svc.search("flaky").total
    v_now = settings.archive_data_dir / f"index-v{S.SCHEMA_VERSION}"
    monkeypatch.setattr(S, "SCHEMA_VERSION", S.SCHEMA_VERSION + 1)
    store = IndexStore(settings.archive_data_dir)
    assert store.path.name == f"index-v{S.SCHEMA_VERSION}" and not store.complete
    assert (v_now / "complete").exists()
    from ccarchive.index.indexer import Indexer
    from ccarchive.service import ArchiveService

    ix = Indexer(store, demo_archive, store.try_writer())
    ix.run()
    ix.close()
    assert v_now.exists()  # not complete yet: the old one is still there
    store.mark_complete()
    assert not v_now.exists()
    assert ArchiveService(store, demo_archive).search("flaky").total == want


CASES = [(part, how) for part in PARTS for how in ("truncate", "garble", "delete")] + [
    ("meta.json", "truncate"),
    ("meta.json", "garble"),
    ("meta.json", "delete"),
    (".managed.json", "garble"),
]
CLI_CASES = {(".store", "truncate"), (".pos", "delete"), ("meta.json", "delete")}


@pytest.mark.parametrize(("part", "how"), CASES)
def test_damaged_index_is_detected_and_rebuilt_when_opened(
    built: Settings, tmp_path: Path, part: str, how: str
) -> None:
    settings = _copy(built, tmp_path)
    index = settings.archive_data_dir / f"index-v{S.SCHEMA_VERSION}"
    if not _damage(index, part, how, random.Random(f"{part}{how}")):
        pytest.skip(f"this index has no {part} file")
    store = IndexStore(settings.archive_data_dir)
    assert store.recovered and "could not be opened" in store.recovered
    assert "being rebuilt" in store.recovered and len(store.recovered) < 600
    assert list(settings.archive_data_dir.glob("index-v*.broken-*"))  # kept for a look
    assert not store.complete
    del store
    if (part, how) in CLI_CASES:  # the CLI rebuilds it and answers in full
        total, _ = search_total(settings)
        assert total == 3


def test_damage_behind_a_whole_footer_is_found_by_ccarchive_index(
    built: Settings, tmp_path: Path
) -> None:
    """Tantivy opens such an index and fails (or panics) at the first search that reads
    the damaged bytes; `ccarchive index` checks every file's checksum and rebuilds."""
    from ccarchive.service import ArchiveService

    for part in (".term", ".store", ".fast", ".idx", ".pos", ".fieldnorm"):
        settings = _copy(built, tmp_path / part)
        _damage(
            settings.archive_data_dir / f"index-v{S.SCHEMA_VERSION}",
            part,
            "middle",
            random.Random(0),
        )
        store = IndexStore(settings.archive_data_dir, verify=True)
        assert "checksum mismatch" in (store.recovered or ""), part
        # the service says so too: the app's status line and the MCP status tool
        msg = ArchiveService(store, built.archive_root).status().message or ""
        assert "being rebuilt" in msg
    settings = _copy(built, tmp_path / "cli")
    _damage(
        settings.archive_data_dir / f"index-v{S.SCHEMA_VERSION}",
        ".store",
        "middle",
        random.Random(0),
    )
    r = cli("index", "--archive", str(settings.archive_root), "--data-dir", str(settings.data_dir))
    assert r.returncode == 0, r.stderr
    assert "checksum mismatch" in r.stderr and "being rebuilt" in r.stderr, r.stderr
    total, _ = search_total(settings)
    assert total == 3


def test_a_healthy_index_passes_the_checks(built: Settings, tmp_path: Path) -> None:
    settings = _copy(built, tmp_path)
    t0 = time.perf_counter()
    store = IndexStore(settings.archive_data_dir, verify=True)
    assert store.recovered is None and store.complete
    assert time.perf_counter() - t0 < 5
