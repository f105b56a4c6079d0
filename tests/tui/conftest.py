"""Fixtures of every app test: the demo archive indexed by a hand-driven LiveArchive, the
app over it, and a fixed clock, time zone and archive path, so Pilot tests and snapshots
never depend on the day, the machine or worker timing."""

from __future__ import annotations

import time

import pytest

from ccarchive.live.live_archive import LiveArchive
from ccarchive.tui import format as tf
from ccarchive.tui.widgets import status_header
from tests.conftest import DEMO_NOW


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
