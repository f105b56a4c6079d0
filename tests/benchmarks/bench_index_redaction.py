"""Benchmark: what redacting before indexing costs the indexer, against indexing without.

Not run by default. Run it with:

    .venv/bin/python -m pytest tests/benchmarks/bench_index_redaction.py -m benchmark -s

A generated archive (../shared/corpus/make_archive.py, $CCARCHIVE_BENCH_REDACT_MB, 20 MB
by default) is indexed cold, alternately as the indexer does it (every text redacted
whole before it is capped, names by token formats) and, as the baseline of the same run,
with the redaction functions replaced by the identity. Reported: the median wall and
CPU time of each (3 rounds each), and the ratio.

Measured (2-core shared container, 15 MB generated archive, median of 3): without
redaction 1.26 s wall / 0.71 s CPU, with it 3.42 s / 1.99 s (x2.8 CPU). A profile puts
half the indexer's time in the rules, spread over every text (the token table's gates,
the base64/hex runs, the name/value and format contexts): a fixed cost per text more than
a cost per byte.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import MAKE_ARCHIVE, build_index

pytestmark = pytest.mark.benchmark

SIZE_MB = int(os.environ.get("CCARCHIVE_BENCH_REDACT_MB", "20"))
ROUNDS = 3
_PATCHED = (
    ("ccarchive.archive.records", ("redact", "redact_name")),
    ("ccarchive.index.documents", ("redact", "redact_name")),
    ("ccarchive.index.plan_memory_docs", ("redact", "redact_name")),
)


def _identity(text: str, *args: object, **kwargs: object) -> str:
    return text


def _index_once(root: Path, redacted: bool) -> tuple[float, float]:
    import importlib

    saved = []
    if not redacted:
        for mod_name, names in _PATCHED:
            mod = importlib.import_module(mod_name)
            for name in names:
                saved.append((mod, name, getattr(mod, name)))
                setattr(mod, name, _identity)
    data = Path(tempfile.mkdtemp(prefix="bench-redact-"))
    try:
        w0, c0 = time.perf_counter(), time.process_time()
        build_index(root, data)
        return time.perf_counter() - w0, time.process_time() - c0
    finally:
        for mod, name, value in saved:
            setattr(mod, name, value)
        shutil.rmtree(data, ignore_errors=True)


def test_indexing_cost_of_redaction(tmp_path: Path) -> None:
    if not MAKE_ARCHIVE.exists():
        pytest.skip("../shared/corpus/make_archive.py is not present")
    root = tmp_path / "claude"
    subprocess.run(
        [sys.executable, str(MAKE_ARCHIVE), "--out", str(root), "--size-mb", str(SIZE_MB)],
        check=True,
        capture_output=True,
    )
    runs: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for _ in range(ROUNDS):
        for redacted in (False, True):
            runs[redacted].append(_index_once(root, redacted))
    med = {
        k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
        for k, v in runs.items()
    }
    print(f"\narchive {SIZE_MB} MB, cold index, median of {ROUNDS}:")
    print(f"  without redaction: wall {med[False][0]:.2f} s, cpu {med[False][1]:.2f} s")
    print(f"  with redaction:    wall {med[True][0]:.2f} s, cpu {med[True][1]:.2f} s")
    print(
        f"  ratio: wall x{med[True][0] / med[False][0]:.2f}, "
        f"cpu x{med[True][1] / med[False][1]:.2f}"
    )
