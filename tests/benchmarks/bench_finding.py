"""Benchmark: finding sessions (the default search) against single-entry search, same run.

    .venv/bin/python -m pytest -m benchmark -s tests/benchmarks/bench_finding.py

Builds the eval harness's archive at `CCARCHIVE_BENCH_FIND_MB` (default 400 MB, seed 4)
under `$CCARCHIVE_BENCH_DIR` (default /tmp/ccarchive-bench), indexes it, then runs every
query of the harness (hand-written and planted questions) alternately as a session search
and as an entry search, three rounds, and the CLI as a whole process. Prints medians and
p99 and the ratio to the entry search measured in the same run (the machine is shared:
absolute figures move from run to run, ratios less).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MAKE_ARCHIVE, build_index
from tests.eval import harness

pytestmark = pytest.mark.benchmark


def _pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


@pytest.mark.skipif(not MAKE_ARCHIVE.exists(), reason="needs ../shared/corpus")
def test_finding_latency() -> None:
    size = int(os.environ.get("CCARCHIVE_BENCH_FIND_MB", "400"))
    base = Path(os.environ.get("CCARCHIVE_BENCH_DIR", "/tmp/ccarchive-bench")) / f"find{size}"
    root, manifest, answers = harness.build_archive(4, base, size)
    t0 = time.perf_counter()
    svc = build_index(root, base / "data")
    build_s = time.perf_counter() - t0
    queries = [q.q for q in harness.load_queries(manifest, answers)]
    sessions: list[float] = []
    entries: list[float] = []
    for _round in range(3):
        for q in queries:
            for grouped, out in ((True, sessions), (False, entries)):
                t = time.perf_counter()
                svc.search(q, limit=10, group_by_session=grouped)
                out.append((time.perf_counter() - t) * 1000)
    exe = [
        sys.executable,
        "-m",
        "ccarchive",
        "search",
        "--archive",
        str(root),
        "--data-dir",
        str(base / "data"),
        "--json",
        "--limit",
        "10",
    ]
    cli = []
    for q in queries[:15]:
        t = time.perf_counter()
        subprocess.run([*exe, q], check=True, capture_output=True)
        cli.append((time.perf_counter() - t) * 1000)
    report = {
        "archive_mb": size,
        "queries": len(queries),
        "index_build_s": round(build_s, 1),
        "sessions_p50_ms": round(statistics.median(sessions), 2),
        "sessions_p99_ms": round(_pct(sessions, 0.99), 2),
        "entries_p50_ms": round(statistics.median(entries), 2),
        "entries_p99_ms": round(_pct(entries, 0.99), 2),
        "ratio_p50": round(statistics.median(sessions) / statistics.median(entries), 2),
        "cli_p50_ms": round(statistics.median(cli), 1),
        "load": os.getloadavg()[0],
    }
    print("\n" + json.dumps(report, indent=1))
    assert report["sessions_p50_ms"] > 0
