"""Fixtures of every app test: the demo archive indexed by a hand-driven LiveArchive, the
app over it, and a fixed clock, time zone and archive path, so Pilot tests and snapshots
never depend on the day, the machine or worker timing."""

from __future__ import annotations

import time

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


@pytest.fixture
def live(demo_settings, fixed_clock):
    """The demo archive copy, indexed once by a LiveArchive driven by hand (no watcher)."""
    live = LiveArchive(demo_settings, watch=False).start()
    for t in live._threads:
        t.join(60)
    yield live
    live.stop()


@pytest.fixture
def app(live, demo_settings):
    from ccarchive.tui.app import make_app

    return make_app(demo_settings, live=live, start_live=False)


@pytest.fixture(scope="module")
def crowded_root(tmp_path_factory):
    """The archive `crowded.py` writes: 25 projects with worktrees, 21 plans, long titles."""
    root = tmp_path_factory.mktemp("crowded") / "claude"
    write_crowded_archive(root, DEMO_NOW)
    return root


@pytest.fixture
def crowded_app(crowded_root, tmp_path, fixed_clock):
    """The app over the crowded archive, indexed before it starts."""
    from ccarchive.tui.app import make_app

    settings = Settings(archive_root=crowded_root, data_dir=tmp_path / "data")
    live = LiveArchive(settings, watch=False).start()
    for t in live._threads:
        t.join(60)
    yield make_app(settings, live=live, start_live=False)
    live.stop()
