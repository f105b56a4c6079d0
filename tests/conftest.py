"""Shared fixtures: real archives on disk, real indexes in temp dirs.

The demo archive (what `ccarchive demo` writes) is the common fixture: it holds every
source and record type. Read-only tests share one indexed copy per test session (one per
worker: the suite runs in parallel, `-n auto` in pyproject.toml); tests that append or
delete get their own copy.
"""

from __future__ import annotations

import gc
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ccarchive.config import Settings

# ---- semantic search off for the test session (owned by tests/semantic) -------------
# ccarchive ranks by meaning by default (the static encoder, when its files are here):
# every index a test builds would embed its turns, minutes over the ~600 indexes of the
# suite. So the suite runs with CCARCHIVE_SEMANTIC=0 (subprocesses inherit it), and the
# tests of the default unset it themselves: tests/semantic/test_default_tier.py (the
# default resolves, the off switch on every front end, a real `index` then `search`
# without the variable, nothing downloaded). The tests of --semantic turn it on.
os.environ["CCARCHIVE_SEMANTIC"] = "0"
# ---- end of the semantic block --------------------------------------------------------

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    # One BLAS thread per process: the suite runs a process per core, and the encoder's
    # BLAS threads spinning for a core that another test holds took 2.5x the wall time
    # (and twice the CPU) of a single thread on the 2-core machine (semantic encoder tests).
    # Set before numpy is first imported; subprocesses inherit it.
    os.environ.setdefault(_var, "1")

SHARED = Path(__file__).resolve().parents[2] / "shared"
"""../shared beside the checkout (present in CI): the real corpus and make_archive.py."""
REAL_CORPUS = SHARED / "corpus" / "real"
MAKE_ARCHIVE = SHARED / "corpus" / "make_archive.py"
FIXTURES = Path(__file__).parent / "archive" / "fixtures"

DEMO_NOW = datetime(2026, 11, 20, 16, 30, tzinfo=UTC)
"""A fixed "now" for the demo archive, so snapshots and counts never depend on the day."""


def pytest_configure(config: pytest.Config) -> None:
    """ccarchive's bytecode, compiled once before any worker or command starts.

    The suite starts a hundred-odd processes (`ccarchive serve`, the CLI, hooks), and a
    machine that sets PYTHONDONTWRITEBYTECODE (this project's does) never keeps the
    bytecode an import compiles: each of them compiled the whole package again, ~0.25 CPU-s
    a process. The variable stops an import from writing, not from reading, so the
    compiled files written here are read by every later process (`__pycache__` is
    ignored by git).

    For the same reason pytest never kept the test modules as it rewrites their asserts,
    and each worker rewrote and compiled all of them again: ~8 CPU-s of a worker's 10
    s of collection. Each process of the suite writes them (atomically: pytest writes
    a temporary file and renames it, for parallel runs), and every later run reads
    them, as it would on a machine without the variable."""
    sys.dont_write_bytecode = False
    if hasattr(config, "workerinput"):  # an xdist worker: the controller did it
        return
    import compileall

    import ccarchive

    compileall.compile_dir(Path(ccarchive.__file__).parent, quiet=1)


SUITE_GC_THRESHOLDS = (20_000, 20, 50)
"""The collector's thresholds in a test process once its tests are collected: those the
app sets once it is up (`GC_THRESHOLDS` in app/tui/app.py)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """What a process holds once its tests are collected (every test module, Textual, the
    MCP SDK, hypothesis, tantivy) lives until it exits: frozen, the collector's full
    passes no longer walk it, and larger thresholds run fewer passes over the many small
    objects a search or a frame makes and drops. The app does the same once its first
    screen is up (`_freeze_heap`), for the same reason. Measured on tests/service,
    tests/archive, tests/cli and tests/live in one process, three alternating pairs:
    53-59 CPU-s against 60-65 (the collector's own passes 2.1-2.5 against 3.2-4.7)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SUITE_GC_THRESHOLDS)


# ---- running in parallel (pytest-xdist) -----------------------------------------------
@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Benchmarks run one at a time: two sharing the cores would time each other."""
    markexpr = getattr(config.option, "markexpr", "") or ""
    if re.search(r"(?<!not )\bbenchmark\b", markexpr) and hasattr(config.option, "numprocesses"):
        config.option.numprocesses = 0
        config.option.dist = "no"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` starts a worker more than there are cores. Many tests wait (a server's
    timeout, a process being killed, an app going idle): with a worker a core, a core
    sat idle for each of those waits. With 3 workers on 2 cores the suite took 453 s
    against 559 s with 2, in the same hour on the same shared machine, for no more CPU
    (440 against 454 CPU-s). `PYTEST_XDIST_AUTO_NUM_WORKERS` still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) + 1


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of a module that share a module-scoped fixture (an archive generated and
    indexed once for them) run on one worker (`--dist loadgroup`), which builds it once;
    every other test goes wherever a worker is free.

    Tests marked `long`, and then the grouped modules, are handed out first: workers take
    the work in collection order (`--no-loadscope-reorder` in pyproject.toml keeps it), and
    a test of a minute collected last (mypy, the evaluations) kept one worker busy for that
    minute after the other had run out of work. First, the short tests fill in around it.
    A group goes where its first test goes, so a module holding a long test starts at once.

    First of the hooks (`tryfirst`): xdist's own hook (`--dist loadgroup`) reads the
    `xdist_group` marks into the test ids as the workers collect; after it, the marks
    added here grouped nothing, and a module's fixture was built on both workers."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        scopes = {defs[-1].scope for defs in info.name2fixturedefs.values() if defs}
        if scopes & {"module", "class", "package"}:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    items.sort(  # stable: within each part, the order of collection
        key=lambda item: (
            item.get_closest_marker("long") is None,
            item.get_closest_marker("xdist_group") is None,
        )
    )


IDLE_PROBE_S = 0.005
"""How long Pilot sleeps between its idle probes in the tests (Textual's own is 20 ms)."""
IDLE_SHARE = 0.10
"""The share of a core under which a probe finds the app idle (Textual's own is 5%)."""


@pytest.fixture(autouse=True)
def quick_idle_probes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pilot waits for the app to go idle after every key and pause by sleeping and
    comparing the process's CPU time with the clock (`textual._wait.wait_for_idle`): at
    least one 20 ms sleep a probe, two or more a key. That wait, not the app's work, was
    most of an app test's time. The tests probe every 5 ms, and a probe finds the app
    idle under 10% of a core in use: on these machines (a small VM) waking from an
    asyncio sleep costs the process ~0.23 ms of CPU by itself (4.6% of a 5 ms probe,
    up to 5.6% at p90), so under Textual's 5% a quiet app often failed a probe and
    an idle `settle` took 74 ms instead of 37 (14 ms of CPU instead of 10). An app at
    work (a frame, a search on its thread) uses the whole core, so a pause still ends
    only once the app and its threads are quiet. Benchmarks keep Textual's own probes:
    their figures are the users'. tests/tui/test_textual_tuning.py fails if Textual
    drops the two names."""
    if request.node.get_closest_marker("benchmark"):
        return
    from textual import _wait

    monkeypatch.setattr(_wait, "SLEEP_GRANULARITY", IDLE_PROBE_S)
    monkeypatch.setattr(_wait, "SLEEP_IDLE", IDLE_PROBE_S * IDLE_SHARE)


def build_index(archive: Path, data_dir: Path):  # -> ArchiveService
    """Index `archive` into `data_dir` and return a service over it (writer released)."""
    from ccarchive.index.indexer import Indexer
    from ccarchive.index.store import IndexStore
    from ccarchive.service import open_service

    settings = Settings(archive, data_dir, semantic=False)
    store = IndexStore(settings.archive_data_dir)
    indexer = Indexer(store, archive, store.try_writer())
    try:
        indexer.run()
    finally:
        indexer.close()
    store.mark_complete()
    return open_service(settings, store=store)


@pytest.fixture(scope="session")
def demo_archive_ro(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo archive, shared by read-only tests (do not write to it)."""
    from ccarchive.demo import write_demo_archive

    root = tmp_path_factory.mktemp("demo") / "claude"
    write_demo_archive(root, now=DEMO_NOW)
    return root


@pytest.fixture(scope="session")
def demo_service(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory):
    """A service over the indexed demo archive, shared by read-only tests."""
    return build_index(demo_archive_ro, tmp_path_factory.mktemp("demo-data"))


@pytest.fixture
def demo_archive(demo_archive_ro: Path, tmp_path: Path) -> Path:
    """A private copy of the demo archive, safe to append to or delete from."""
    dst = tmp_path / "claude"
    shutil.copytree(demo_archive_ro, dst, symlinks=True)
    return dst


@pytest.fixture
def demo_settings(demo_archive: Path, tmp_path: Path) -> Settings:
    return Settings(archive_root=demo_archive, data_dir=tmp_path / "data")


@pytest.fixture
def make_archive(tmp_path_factory: pytest.TempPathFactory):
    """Run ../shared/corpus/make_archive.py; skips where ../shared is absent."""
    import subprocess
    import sys

    if not MAKE_ARCHIVE.exists():
        pytest.skip("../shared/corpus/make_archive.py is not present")

    def make(*args: str) -> Path:
        out = tmp_path_factory.mktemp("gen")
        root = out / "claude"
        subprocess.run(
            [sys.executable, str(MAKE_ARCHIVE), "--out", str(root), *args],
            check=True,
            capture_output=True,
        )
        return root

    return make


@pytest.fixture
def wait_for_workers():
    """Wait until an app's workers are done (cancelled exclusive workers included)."""
    from textual.worker import WorkerCancelled

    async def wait(app) -> None:
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:
            pass

    return wait


SERVE_TOKEN = "test-serve-token-0123456789abcdef"
"""The bearer token the tests give `ccarchive serve --http` (`serve_env`): it asks for one."""
SERVE_AUTH = {"authorization": f"Bearer {SERVE_TOKEN}"}


def serve_env() -> dict[str, str]:
    """The environment for a `ccarchive serve --http` a test starts: `SERVE_TOKEN`."""
    import os

    return {**os.environ, "CCARCHIVE_TOKEN": SERVE_TOKEN}


def free_port() -> int:
    """A free TCP port on loopback, for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(
    proc: subprocess.Popen, port: int, *, timeout: float = 30, why=lambda: ""
) -> None:
    """Wait until `proc` accepts connections on `port`; fail (with `why()`) if it exits
    or the time runs out."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            assert proc.poll() is None, why()
            assert time.monotonic() < deadline, f"nothing listens on {port}: {why()}"
            time.sleep(0.05)


# ---- where the suite's CPU goes (only with CCARCHIVE_TEST_CPU_LOG set) -----------------
_CPU_LOG = os.environ.get("CCARCHIVE_TEST_CPU_LOG")


if _CPU_LOG:

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
        """Record each test's CPU (this process's, and its waited-for children's) with its
        setup and teardown, one tab-separated line a test appended to the file named by
        CCARCHIVE_TEST_CPU_LOG: the suite's budget is CPU, and wall time hides which
        test spent it while another waited."""
        before = os.times()
        wall = time.monotonic()
        yield
        after = os.times()
        own = (after.user - before.user) + (after.system - before.system)
        kids = (after.children_user - before.children_user) + (
            after.children_system - before.children_system
        )
        with open(_CPU_LOG, "a", encoding="utf-8") as log:
            log.write(f"{item.nodeid}\t{own:.3f}\t{kids:.3f}\t{time.monotonic() - wall:.3f}\n")
