"""A generated archive copied from an earlier run (`tests/support/generated.py`) is the one
make_archive.py writes: the same files, bytes and mtimes, and the files beside it name
the folder it was copied to.

It asks for the archive tests/service/test_service.py generates (the same arguments), so a
run that keeps archives generates it once for both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MAKE_ARCHIVE
from tests.support import generated

pytestmark = pytest.mark.skipif(not MAKE_ARCHIVE.exists(), reason="needs ../shared/corpus")


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _args(out: Path, sessions: str = "40") -> list[str]:
    """tests/service/test_service.py's archive."""
    return [
        "--out", str(out / "claude"), "--sessions", sessions, "--needles", "20",
        "--answers", str(out / "answers.json"),
    ]  # fmt: skip


def test_a_kept_archive_is_what_make_archive_writes(tmp_path: Path) -> None:
    first, copied = tmp_path / "first", tmp_path / "copied"
    generated.generate(first, _args(first))
    kept = generated.KEPT / generated.archive_key(_args(Path("<out>")))
    made = kept.stat().st_mtime_ns
    generated.generate(copied, _args(copied))
    assert kept.stat().st_mtime_ns == made  # copied, not made again
    # make_archive.py wrote `kept` itself (into a folder then renamed)
    assert _files(copied / "claude") == _files(first / "claude") == _files(kept / "claude")
    assert json.loads((copied / "answers.json").read_text())["archive"] == str(copied / "claude")
    assert json.loads((first / "answers.json").read_text())["archive"] == str(first / "claude")
    # other arguments make another archive
    assert generated.archive_key(_args(Path("<out>"), "41")) != kept.name
