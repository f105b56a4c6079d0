"""A generated archive copied from an earlier run (`tests/support/generated.py`) is the one
make_archive.py writes: the same files, bytes and mtimes, and the files beside it name
the folder it was copied to.

It asks for the archive tests/service/test_service.py generates (the same arguments), so a
run that keeps archives generates it once for both."""

from __future__ import annotations

import json
import os
import shutil
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


def test_a_kept_archive_copied_to_another_checkout_names_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/.cache copied to another checkout (a worktree, a second clone): what it
    kept still names the folder each copy is made in, never the first checkout's."""
    first, copied = tmp_path / "first", tmp_path / "copied"
    generated.generate(first, _args(first))
    key = generated.archive_key(_args(Path("<out>")))
    elsewhere = tmp_path / "other-checkout" / ".cache" / "generated"
    shutil.copytree(generated.KEPT / key, elsewhere / key, symlinks=True)
    monkeypatch.setattr(generated, "KEPT", elsewhere)
    generated.generate(copied, _args(copied))
    assert (elsewhere / key).is_dir()  # copied from there, not made again
    answers = json.loads((copied / "answers.json").read_text())
    assert answers["archive"] == str(copied / "claude")
    for side in copied.iterdir():
        if side.is_file():
            text = side.read_text(errors="replace")
            assert str(generated.KEPT) not in text and str(elsewhere) not in text, side.name
            assert "<out>" not in text, side.name


def test_kept_archives_unused_for_a_month_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = tmp_path / "generated"
    monkeypatch.setattr(generated, "KEPT", kept)
    day = 86_400
    now = 1_800_000_000.0

    def made(name: str, used_days_ago: float, done: bool = True) -> Path:
        folder = kept / name
        folder.mkdir(parents=True)
        (folder / "claude").mkdir()
        stamp = folder / ".complete" if done else folder
        if done:
            stamp.write_text("")
        os.utime(stamp, (now - used_days_ago * day,) * 2)
        return folder

    fresh = made("a" * 24, generated.UNUSED_DAYS - 1)
    stale = made("b" * 24, generated.UNUSED_DAYS + 1)
    racing = made(".c.123", 0.5, done=False)  # a worker still generating
    abandoned = made(".d.456", 2, done=False)  # a worker killed while generating
    unmarked = made("e" * 24, 400, done=False)  # no marker: not judged
    assert sorted(generated._prune(now)) == sorted([stale, abandoned])
    assert fresh.is_dir() and racing.is_dir() and unmarked.is_dir()
    assert not stale.exists() and not abandoned.exists()


def test_using_a_kept_archive_keeps_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    generated.generate(out, _args(out))
    done = generated.KEPT / generated.archive_key(_args(Path("<out>"))) / ".complete"
    old = done.stat().st_mtime - 40 * 86_400
    os.utime(done, (old, old))
    generated.generate(tmp_path / "again", _args(tmp_path / "again"))
    assert done.stat().st_mtime > old + 39 * 86_400
