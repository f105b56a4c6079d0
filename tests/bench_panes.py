"""Benchmark: each part-2 pane's first screen on a large archive (target <= 150 ms).

Not a timed test: it measures and prints. Point it at an indexed archive:

    python3 ../shared/corpus/make_archive.py --out /tmp/big/claude --size-mb 1024
    ccarchive index --archive /tmp/big/claude --data-dir /tmp/big/data
    CCARCHIVE_BENCH_ARCHIVE=/tmp/big/claude CCARCHIVE_BENCH_DATA=/tmp/big/data \
        pytest -m benchmark tests/bench_panes.py -s

"First screen" is from `switch_mode` to the pane painted with its data: the screen
composed, its query workers done and the resulting refresh rendered. The clock is set to
the archive's last activity, so the timeline and the live pane have something to show.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import statistics
import time
from datetime import timedelta
from pathlib import Path

import pytest

from app.config import Settings

ARCHIVE = os.environ.get("CCARCHIVE_BENCH_ARCHIVE", "")
DATA = os.environ.get("CCARCHIVE_BENCH_DATA", "")
PANES = ("timeline", "plans", "projects", "prompts", "live")
RUNS = 5
TARGET_MS = 150.0


async def _painted(app, pilot) -> None:  # noqa: ANN001
    """Until the pane's own workers (and those their answers start) are done and the
    screen has refreshed. Other panes' workers (the search pane's) are not waited for."""
    screen = app.screen
    idle = 0
    while idle < 2:
        await asyncio.sleep(0.001)
        running = [w for w in app.workers if w.node is screen and not w.is_finished]
        if running:
            idle = 0
            for w in running:
                with contextlib.suppress(Exception):
                    await w.wait()
        else:
            idle += 1
            await pilot.pause()


@pytest.mark.benchmark
@pytest.mark.skipif(not ARCHIVE or not DATA, reason="set CCARCHIVE_BENCH_ARCHIVE/_DATA")
async def test_first_screen_of_each_pane(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.live.runtime import LiveArchive
    from app.service import live_service
    from app.tui.app import make_app
    from app.tui.widgets import timeline_format as tf

    settings = Settings(Path(ARCHIVE), Path(DATA))
    results: dict[str, list[float]] = {p: [] for p in PANES}
    cpu: dict[str, list[float]] = {p: [] for p in PANES}
    """CPU time of this process (all its threads): the figure that does not depend on
    what else the machine runs."""
    for run in range(RUNS):
        live = LiveArchive(settings, watch=False)  # read the existing index; no indexing
        last = live_service(live).sessions(limit=1).sessions[0].last_activity
        monkeypatch.setattr(tf, "CLOCK", lambda last=last: last + timedelta(minutes=1))
        app = make_app(settings, live=live, start_live=False)
        async with app.run_test(size=(130, 40)) as pilot:
            await pilot.pause()
            for pane in PANES:
                t0, c0 = time.perf_counter(), time.process_time()
                await app.switch_mode(pane)
                await _painted(app, pilot)
                results[pane].append((time.perf_counter() - t0) * 1000)
                cpu[pane].append((time.process_time() - c0) * 1000)
        live.stop()
    print(f"\nfirst screen per pane, ms over {RUNS} runs (first run cold):")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for pane, ms in results.items():
        warm = ms[1:]
        p50 = statistics.median(warm)
        print(f"  {pane:9} wall: cold {ms[0]:6.1f}  p50 {p50:6.1f}  max {max(warm):6.1f}"
              f"   cpu: p50 {statistics.median(cpu[pane][1:]):6.1f}"
              f"   {'ok' if p50 <= TARGET_MS else 'over target'}")
