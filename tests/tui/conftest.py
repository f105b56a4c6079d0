"""Fixtures of every app test: the demo archive indexed by a hand-driven LiveArchive, the
app over it, and a fixed clock, time zone and archive path, so Pilot tests and snapshots
never depend on the day, the machine or worker timing.

No pane writes to the archive, so the app tests share one copy of each archive per worker
and index it once (`indexed_once`); each test gets a copy of that index (`index_copy`: a
few files, some milliseconds) instead of indexing the archive again (a quarter of a second
of CPU a test), and fails if the shared archive changed under it.
The index records each file's inode, so a copied index only fits the very same archive:
a test that appends to its archive asks for `demo_archive` and gets the app over its own
copy, indexed afresh."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ccarchive.config import Settings
from ccarchive.live.live_archive import LiveArchive
from ccarchive.tui import format as tf
from ccarchive.tui.widgets import status_header
from tests.conftest import DEMO_NOW
from tests.tui.crowded import write_crowded_archive


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch):
    """The demo archive's "now", times shown in UTC and a fixed archive path."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(tf, "CLOCK", lambda: DEMO_NOW)
    monkeypatch.setattr(tf, "_LOCAL", False)
    monkeypatch.setattr(status_header, "short_path", lambda _p: "~/.claude")
    yield
    monkeypatch.undo()
    time.tzset()


def started(settings: Settings) -> LiveArchive:
    """A LiveArchive over `settings` (no watcher), its first indexing pass done."""
    live = LiveArchive(settings, watch=False).start()
    for t in live._threads:
        t.join(60)
    return live


def indexed_once(archive: Path, data_dir: Path) -> Path:
    """`data_dir` with the index of `archive`, written by a LiveArchive that then stopped."""
    started(Settings(archive_root=archive, data_dir=data_dir)).stop()
    return data_dir


def fingerprint(archive: Path) -> dict[str, tuple[int, int, int, int]]:
    """What a write to `archive` would change: each entry's inode, links, size and mtime."""
    out = {}
    for path in sorted(archive.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(archive))] = (st.st_ino, st.st_nlink, st.st_size, st.st_mtime_ns)
    return out


@pytest.fixture
def index_copy(tmp_path: Path) -> Iterator:
    """`index_copy(archive, indexed)`: settings over a shared `archive` with a private copy
    of its index (`indexed_once`), so the test may write to its data dir (the theme, the
    writer lock). The test fails if the shared archive changed: every later test on this
    worker would read the change (and the copied index would no longer fit it)."""
    shared: list[tuple[Path, dict]] = []

    def copy(archive: Path, indexed: Path) -> Settings:
        data = tmp_path / "data"
        # the files' contents only: copying their modes, times and extended attributes
        # too (`copy2`, the default) was half the copy's CPU (23-29 ms against 9-16 ms)
        shutil.copytree(indexed, data, symlinks=True, copy_function=shutil.copyfile)
        shared.append((archive, fingerprint(archive)))
        return Settings(archive_root=archive, data_dir=data)

    yield copy
    for archive, before in shared:
        assert fingerprint(archive) == before, f"the test changed the shared archive {archive}"


@pytest.fixture
def live_app(fixed_clock) -> Iterator:
    """`live_app(settings)`: the app over a started LiveArchive of `settings` (stopped after
    the test)."""
    from ccarchive.tui.app import make_app

    lives: list[LiveArchive] = []

    def make(settings: Settings):
        lives.append(started(settings))
        return make_app(settings, live=lives[-1], start_live=False)

    yield make
    for live in lives:
        live.stop()


@pytest.fixture(scope="session")
def demo_indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data dir of the shared demo archive, indexed once per worker (copy it to use it)."""
    return indexed_once(demo_archive_ro, tmp_path_factory.mktemp("demo-indexed"))


@pytest.fixture
def tui_settings(
    request: pytest.FixtureRequest, demo_archive_ro: Path, demo_indexed: Path, index_copy
) -> Settings:
    """The settings of an app test: the shared demo archive and a copy of its index; a
    test that asks for `demo_archive` (to append to it) gets its own copy, not indexed yet."""
    if "demo_archive" in request.fixturenames:
        return request.getfixturevalue("demo_settings")
    return index_copy(demo_archive_ro, demo_indexed)


@pytest.fixture
def live(tui_settings: Settings, fixed_clock):
    """The demo archive's LiveArchive, driven by hand (no watcher), its first pass done."""
    live = started(tui_settings)
    yield live
    live.stop()


@pytest.fixture
def app(live, tui_settings):
    from ccarchive.tui.app import make_app

    return make_app(tui_settings, live=live, start_live=False)


@pytest.fixture(scope="session")
def crowded_root(tmp_path_factory):
    """The archive `crowded.py` writes: 25 projects with worktrees, 21 plans, long titles.
    Session-scoped rather than per module: its tests spread over the workers."""
    root = tmp_path_factory.mktemp("crowded") / "claude"
    write_crowded_archive(root, DEMO_NOW)
    return root


@pytest.fixture(scope="session")
def crowded_indexed(crowded_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_once(crowded_root, tmp_path_factory.mktemp("crowded-indexed"))


@pytest.fixture
def crowded_app(crowded_root, crowded_indexed, index_copy, live_app):
    """The app over the crowded archive, indexed before it starts."""
    return live_app(index_copy(crowded_root, crowded_indexed))
