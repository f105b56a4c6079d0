"""Benchmark: what one start of the app costs, against a bare Textual app (not a timed test).

Every app test starts the app under Pilot, so a start's CPU is paid about two hundred
times a suite run, and a user pays it at each `ccarchive`. A start here is: the app built
over a small real index (the demo archive, indexed once), run under Pilot at a terminal
size, until its first pane is ready (the search pane's first results shown and drawn,
nothing in flight), then exited. The baseline is a bare `textual.app.App` holding one `Static`,
started and exited under the same Pilot the same way, in the same run: the ratio to it
is the figure that survives a busy machine.

    pytest -m benchmark tests/benchmarks/bench_app_start.py -s
    CCARCHIVE_BENCH_PROFILE=1 pytest -m benchmark tests/benchmarks/bench_app_start.py -s -k profile

Printed: the median CPU (this process, all its threads) per start over `STARTS` starts in
one process, after a warm-up start, for each size, "ready" (exited as soon as the first
pane is ready) and "settled" (held until the app's start-up timers are spent, as a test
that lasts a moment is: the heap freeze after the first paint, the panes' first-frame
timers); and, in fresh processes, a start's CPU and the process's whole CPU (imports
included). The profile splits a start's own time between Textual, rich, ccarchive and the
rest, with the functions that cost most.
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.benchmark

SIZES = ((80, 24), (160, 50))
STARTS = int(os.environ.get("CCARCHIVE_BENCH_STARTS", "15"))
"""Starts per figure in one process (after one warm-up)."""
FRESH = int(os.environ.get("CCARCHIVE_BENCH_FRESH", "7"))
"""Fresh processes per figure."""
SETTLE = 0.45
"""Seconds a "settled" start is held once ready (past the app's `FREEZE_AFTER` timer)."""
ROOT = Path(__file__).resolve().parents[2]


def _indexed(where: Path) -> tuple[Path, Path]:
    """The demo archive under `where`, with its index (built once)."""
    from ccarchive.config import Settings
    from ccarchive.demo import write_demo_archive
    from ccarchive.live.live_archive import LiveArchive
    from tests.conftest import DEMO_NOW

    archive, data = where / "claude", where / "data"
    if not (data / "done").exists():
        write_demo_archive(archive, now=DEMO_NOW)
        live = LiveArchive(Settings(archive_root=archive, data_dir=data), watch=False).start()
        for t in live._threads:
            t.join(60)
        live.stop()
        (data / "done").write_text("")
    return archive, data


def _drawn(app) -> bool:
    """Everything the screen holds is on the terminal: no layout, repaint or dirty
    region waits for a frame (Textual's own bookkeeping, read, never changed)."""
    screen = app.screen
    return not (
        screen._layout_required
        or screen._repaint_required
        or screen._dirty_widgets
        or screen._compositor._dirty_regions
    )


def _search_ready(app) -> bool:
    """The search pane's first results are shown and drawn, nothing in flight."""
    from ccarchive.tui.screens.search import SearchScreen

    screen = app.screen
    return (
        isinstance(screen, SearchScreen)
        and screen.page is not None
        and screen._in_flight is None
        and not screen._pending
        and not any(not w.is_finished for w in app.workers)
        and _drawn(app)
    )


def _bare_app():
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Static("ready")

    return Bare()


async def start_once(make, ready, size: tuple[int, int], settle: float = 0.0) -> float:
    """CPU seconds of one start: built, run under Pilot until `ready(app)`, held `settle`
    seconds, exited."""
    cpu = time.process_time()
    app = make()
    async with app.run_test(size=size) as pilot:
        while not ready(app):
            await pilot.pause(0.005)
        if settle:
            await pilot.pause(settle)
    return time.process_time() - cpu


class Starter:
    """Makes our app over one started LiveArchive (as the app tests do: a live archive
    driven by hand, `start_live=False`) and the baseline app."""

    def __init__(self, archive: Path, data: Path) -> None:
        from ccarchive.config import Settings
        from ccarchive.live.live_archive import LiveArchive

        self.settings = Settings(archive_root=archive, data_dir=data)
        self.live = LiveArchive(self.settings, watch=False).start()
        for t in self.live._threads:
            t.join(60)

    def ours(self):
        from ccarchive.tui.app import make_app

        return make_app(self.settings, live=self.live, start_live=False)

    async def run(self, which: str, size: tuple[int, int], settle: float = 0.0) -> float:
        if which == "ours":
            return await start_once(self.ours, _search_ready, size, settle)
        return await start_once(_bare_app, _drawn, size, settle)

    def stop(self) -> None:
        self.live.stop()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return _indexed(tmp_path_factory.mktemp("start"))


def _ms(xs: list[float]) -> str:
    return f"{statistics.median(xs) * 1000:6.1f}"


async def test_start_in_one_process(indexed: tuple[Path, Path]) -> None:
    starter = Starter(*indexed)
    try:
        print(f"\nCPU ms per start, median of {STARTS} in one process; {_load()}")
        for settle, label in ((0.0, "ready"), (SETTLE, "settled")):
            for size in SIZES:
                await starter.run("ours", size, settle)  # warm-up: imports, first CSS
                await starter.run("bare", size, settle)
                ours: list[float] = []
                bare: list[float] = []
                for _ in range(STARTS):  # alternated: a busy moment hits both
                    ours.append(await starter.run("ours", size, settle))
                    bare.append(await starter.run("bare", size, settle))
                ratio = statistics.median(ours) / statistics.median(bare)
                print(
                    f"  {label:8} {size[0]:3}x{size[1]:<3} ccarchive {_ms(ours)}  "
                    f"bare {_ms(bare)}  ratio {ratio:5.2f}"
                )
    finally:
        starter.stop()


def test_start_in_fresh_processes(indexed: tuple[Path, Path]) -> None:
    print(f"\nCPU ms per start in fresh processes, median of {FRESH}; {_load()}")
    for size in SIZES:
        rows: dict[str, list[dict[str, float]]] = {"ours": [], "bare": []}
        for _ in range(FRESH):
            for which in rows:
                out = subprocess.run(
                    [sys.executable, __file__, which, *map(str, indexed), *map(str, size)],
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                rows[which].append(json.loads(out.strip().splitlines()[-1]))
        for which, got in rows.items():
            print(
                f"  {size[0]:3}x{size[1]:<3} {which:5} start {_ms([g['start'] for g in got])}  "
                f"whole process {_ms([g['process'] for g in got])}"
            )
        start_ratio = statistics.median(g["start"] for g in rows["ours"]) / statistics.median(
            g["start"] for g in rows["bare"]
        )
        print(f"  {size[0]:3}x{size[1]:<3} ratio of the starts {start_ratio:5.2f}")


@pytest.mark.skipif(not os.environ.get("CCARCHIVE_BENCH_PROFILE"), reason="a profile on demand")
async def test_profile(indexed: tuple[Path, Path]) -> None:
    """Where a start's CPU goes: own time by package, and the costliest functions."""
    starter = Starter(*indexed)
    try:
        await starter.run("ours", SIZES[0], SETTLE)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(STARTS):
            for size in SIZES:
                await starter.run("ours", size, SETTLE)
        profile.disable()
    finally:
        starter.stop()
    stats = pstats.Stats(profile)
    split: dict[str, float] = {}
    for (path, _line, name), (_cc, _nc, own, _cum, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        if "select.epoll" in name or "select.select" in name:
            continue  # the event loop waiting: idle, not work
        split[_package(path)] = split.get(_package(path), 0.0) + own
    total = sum(split.values())
    print(f"\nown time of {2 * STARTS} starts by package ({total:.2f} s profiled, idle left out):")
    for name, own in sorted(split.items(), key=lambda kv: -kv[1]):
        print(f"  {name:12} {own / total:6.1%}")
    stats.sort_stats("cumulative").print_stats(60)
    stats.sort_stats("tottime").print_stats(40)


def _package(path: str) -> str:
    for name in ("textual", "rich", "ccarchive", "tantivy", "asyncio"):
        if f"/{name}/" in path:
            return name
    if "/app/" in path and str(ROOT) in path:
        return "ccarchive"
    if path.startswith("~") or path.startswith("<"):
        return "builtins"
    return "other"


def _load() -> str:
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def _child(which: str, archive: str, data: str, width: str, height: str) -> None:
    """One start in this fresh process; prints its CPU and the process's whole CPU."""
    starter = Starter(Path(archive), Path(data)) if which == "ours" else None

    async def go() -> float:
        size = (int(width), int(height))
        if starter is None:
            return await start_once(_bare_app, _drawn, size)
        return await start_once(starter.ours, _search_ready, size)

    start = asyncio.run(go())
    if starter is not None:
        starter.stop()
    print(json.dumps({"start": start, "process": time.process_time()}))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    _child(*sys.argv[1:6])
