"""Promise: ccarchive writes only where it means to, never through a planted link.

At each name ccarchive writes (the archive's folder in the data dir, the index folder,
Tantivy's lock and meta files in it, the `complete` marker, `writer.json` and its
temporary file, the export's `.<name>.<pid>.partial`, the data dir itself) a symbolic link
into the archive is planted, and at the files a hard link to an archive file. Then the
archive is indexed, served (the live writer) and exported from. Every write either goes
elsewhere or is refused with a message that names the link; not one byte of the archive
changes, and nothing new appears in it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccarchive.cli.main import main
from ccarchive.config import Settings, UnsafeWrite
from ccarchive.index import schema as S
from ccarchive.index.store import IndexStore
from ccarchive.live.live_archive import WRITER_FILE, LiveArchive
from tests.conftest import build_index


def _snapshot(root: Path) -> dict[str, str]:
    """Every file of the archive (not following links) and a hash of its bytes."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[p.relative_to(root).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


INDEX = f"index-v{S.SCHEMA_VERSION}"
NAMES = {  # where, below the archive's folder in the data dir; "" is that folder itself
    "archive folder": "",
    "index folder": INDEX,
    "writer lock": f"{INDEX}/.tantivy-writer.lock",
    "meta lock": f"{INDEX}/.tantivy-meta.lock",
    "meta.json": f"{INDEX}/meta.json",
    "complete marker": f"{INDEX}/complete",
    "writer.json": WRITER_FILE,
    "writer.json's temporary": f".{WRITER_FILE}.{os.getpid()}.tmp",
}


def _plant(at: Path, target: Path, how: str) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    if how == "symlink":
        at.symlink_to(target, target_is_directory=target.is_dir())
    else:
        os.link(target, at)


def _write_everything(settings: Settings) -> bool:
    """What a front end writes: the index (built), writer.json, the complete marker.
    True if writer.json was then a file of its own (one link, not a symbolic one)."""
    live = LiveArchive(settings, watch=False)
    try:
        live.start()
        for t in live._threads:  # one pass (watch=False), then the thread ends
            t.join(60)
        assert live.store.complete and live.state.last_error is None
        info = settings.archive_data_dir / WRITER_FILE
        return info.is_file() and not info.is_symlink() and info.stat().st_nlink == 1
    finally:
        live.stop()


@pytest.mark.parametrize("how", ["symlink", "hard_link"])
@pytest.mark.parametrize("name", sorted(NAMES))
def test_a_link_planted_where_we_write_is_refused(
    demo_archive: Path, tmp_path: Path, name: str, how: str
) -> None:
    rel = NAMES[name]
    if how == "hard_link" and rel in ("", INDEX):
        pytest.skip("folders have no hard links")
    settings = Settings(demo_archive, tmp_path / "data")
    base = settings.archive_data_dir
    target = demo_archive / "projects" if rel in ("", INDEX) else demo_archive / "history.jsonl"
    before = _snapshot(demo_archive)
    _plant(base / rel if rel else base, target, how)
    own_writer_file = False
    try:
        own_writer_file = _write_everything(settings)
        refused = None
    except UnsafeWrite as exc:
        refused = str(exc)
    assert _snapshot(demo_archive) == before, "the archive changed"
    if rel in ("", INDEX) or rel.startswith(INDEX):
        assert refused is not None and "refused to write" in refused
        assert ("symbolic link" if how == "symlink" else "hard links") in refused
    else:  # writer.json and its temporary file: replaced (never written through), or refused
        assert refused is not None or own_writer_file
    # the command line says so in a sentence, not a traceback
    if refused is not None:
        r = CliRunner().invoke(
            main, ["index", "--archive", str(demo_archive), "--data-dir", str(tmp_path / "data")]
        )
        if rel.startswith(INDEX) or rel in ("", INDEX):
            assert r.exit_code == 1, r.output
            assert "refused to write" in r.output or "inside the archive" in r.output
    assert _snapshot(demo_archive) == before


def test_a_data_dir_that_is_a_link_into_the_archive_is_refused(
    demo_archive: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.symlink_to(demo_archive / "projects", target_is_directory=True)
    before = _snapshot(demo_archive)
    r = CliRunner().invoke(main, ["index", "--archive", str(demo_archive), "--data-dir", str(data)])
    assert r.exit_code == 1 and "inside the archive" in r.output
    assert _snapshot(demo_archive) == before


def test_the_export_never_writes_through_a_planted_partial(
    demo_archive: Path, tmp_path: Path
) -> None:
    from ccarchive.tui.transcript_export import ExportRefused, export_markdown

    svc = build_index(demo_archive, tmp_path / "data")
    info = svc.session(svc.sessions(limit=1).sessions[0].session_id)
    out = tmp_path / "out"
    out.mkdir()
    path = out / "t.md"
    before = _snapshot(demo_archive)
    for how in ("symlink", "hard_link"):
        partial = out / f".t.md.{os.getpid()}.partial"
        _plant(partial, demo_archive / "history.jsonl", how)
        with pytest.raises(ExportRefused, match="refused to write"):
            export_markdown(svc, info, "", info.title, path, archive_root=demo_archive)
        assert _snapshot(demo_archive) == before and not path.exists()
        partial.unlink()
    assert export_markdown(svc, info, "", info.title, path, archive_root=demo_archive) > 0
    assert path.read_text().startswith("# ")


def test_own_folders_are_created_private_and_checked(tmp_path: Path) -> None:
    from ccarchive.config import private_dir

    archive = tmp_path / "claude"
    (archive / "projects").mkdir(parents=True)
    made = private_dir(tmp_path / "data" / "a" / "b", under=tmp_path / "data", archive_root=archive)
    assert made.is_dir() and (made.stat().st_mode & 0o777) == 0o700
    (tmp_path / "data" / "c").symlink_to(archive / "projects", target_is_directory=True)
    with pytest.raises(UnsafeWrite, match="symbolic link"):
        private_dir(tmp_path / "data" / "c" / "d", under=tmp_path / "data")
    with pytest.raises(UnsafeWrite, match="inside the archive"):
        private_dir(archive / "projects" / "x", under=archive / "projects", archive_root=archive)
    assert not (archive / "projects" / "x").exists()
    with pytest.raises(UnsafeWrite, match="inside the archive"):
        IndexStore(archive / "projects" / "idx", archive_root=archive)
    assert not (archive / "projects" / "idx").exists()
    shutil.rmtree(tmp_path / "data")


def test_a_file_gone_between_listing_and_look_is_not_a_planting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process's writer makes and removes temporary files (Tantivy's `.tmpXXXX`) in
    the index folder while we check it: one that vanishes between the listing and the stat
    is skipped, while a link listed beside it is still refused."""
    from ccarchive.config import check_own_folder

    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "meta.json").write_text("{}")
    listed = os.scandir

    def listing_then_a_commit(path: Path):  # type: ignore[no-untyped-def]
        (folder / ".tmpABCDEF").write_text("x")
        entries = list(listed(path))
        (folder / ".tmpABCDEF").unlink()  # the other writer renamed it away meanwhile
        return iter(entries)

    monkeypatch.setattr(os, "scandir", listing_then_a_commit)
    check_own_folder(folder)  # no refusal, no FileNotFoundError
    outside = tmp_path / "outside"
    outside.write_text("secret")
    os.link(outside, folder / "meta.lock")
    with pytest.raises(UnsafeWrite, match="hard links"):
        check_own_folder(folder)
