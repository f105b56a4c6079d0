"""Where the archive is and where ccarchive keeps its own data.

The archive is read-only to us; everything ccarchive writes (the index) lives in the
user's cache dir, in a folder per archive so that two archives never share an index.

Writing only where we mean to is this module's too: a symbolic link planted in the data
dir (the archive's folder, the index folder, a lock or a temporary file's name) would
send our writes wherever it points, the archive included; a hard link planted there would
be truncated through. So the folders we make are made one component at a time and each
must be a real folder (`private_dir`), the files are created with `O_CREAT | O_EXCL |
O_NOFOLLOW` (`create_private_file`, `replace_file`), what another library writes into a
folder of ours is checked first (`check_own_folder`), and everything must lie outside the
archive once resolved. A refusal is an `UnsafeWrite` that says what and why.

Semantic search has three settings, the same for every front end (`Settings.semantic`):
the default (None) ranks by meaning with the static encoder when its parts are on this
machine, and never downloads anything; `--semantic` or `CCARCHIVE_SEMANTIC=1` (True) asks
for the full model; `--no-semantic` or `CCARCHIVE_SEMANTIC=0` (False) turns it off. The
model's folder comes from `--semantic-model` or `CCARCHIVE_MODEL_DIR` (see
`ccarchive.semantic.model_files` for where it is found otherwise).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field, replace
from pathlib import Path

from ccarchive.locations import archive_key, resolve_places

SEMANTIC_ENV = "CCARCHIVE_SEMANTIC"
MODEL_DIR_ENV = "CCARCHIVE_MODEL_DIR"


_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off")


def semantic_from_env() -> bool | None:
    """`CCARCHIVE_SEMANTIC`: True when 1 (or true, yes, on): the full model; False when 0
    (or false, no, off): words only; None when unset or anything else: the default (the
    static encoder when its parts are here, `ccarchive.semantic.choose`)."""
    value = os.environ.get(SEMANTIC_ENV, "").strip().lower()
    return True if value in _ON else False if value in _OFF else None


def model_dir_from_env() -> Path | None:
    env = os.environ.get(MODEL_DIR_ENV)
    return Path(env).expanduser().resolve() if env else None


@dataclass(frozen=True)
class Settings:
    """The two places ccarchive works with, and whether search is also semantic."""

    archive_root: Path
    data_dir: Path
    semantic: bool | None = field(default_factory=semantic_from_env)
    """Also rank by meaning (an encoder's vectors beside the index, `ccarchive.semantic`):
    None, the default, with the static encoder if its parts are found on this machine
    (never downloaded); True with the full model (downloaded if it must be); False not."""
    model_dir: Path | None = field(default_factory=model_dir_from_env)
    """The encoder's files, when given; else found or downloaded (`semantic.model_files`)."""

    @classmethod
    def resolve(
        cls,
        archive: str | os.PathLike[str] | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        semantic: bool | None = None,
        model_dir: str | os.PathLike[str] | None = None,
    ) -> Settings:
        """`--archive`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`; `--data-dir`, else
        `$CCARCHIVE_HOME`, else the cache dir (`ccarchive.locations`); `--semantic` (True),
        `--no-semantic` (False), else the environment."""
        root, data = resolve_places(archive, data_dir)
        return cls(archive_root=Path(root), data_dir=Path(data)).with_semantic(semantic, model_dir)

    def with_semantic(
        self, semantic: bool | None = None, model_dir: str | os.PathLike[str] | None = None
    ) -> Settings:
        """These settings with semantic search asked for (True: the full model), turned
        off (False), or as they were (None: what the environment says), and the model's
        folder, if given."""
        out = self
        if semantic is not None:
            out = replace(out, semantic=semantic)
        if model_dir:
            out = replace(out, model_dir=Path(model_dir).expanduser().resolve())
        return out

    @property
    def archive_key(self) -> str:
        """A short stable name for this archive's folder under the data dir."""
        return archive_key(str(self.archive_root))

    @property
    def archive_data_dir(self) -> Path:
        return self.data_dir / self.archive_key

    def check_outside_archive(self) -> None:
        """Refuse a data dir inside the archive (as given, or once its links are followed):
        ccarchive never writes there."""
        for path in (self.archive_data_dir, self.data_dir):
            if inside(path, self.archive_root):
                raise ValueError(
                    f"the data dir {self.data_dir} is inside the archive {self.archive_root}"
                    f"{_through(path)}; ccarchive never writes into the archive: choose "
                    "another --data-dir"
                )


# ---- writing only where we mean to ---------------------------------------------------
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class UnsafeWrite(OSError):
    """A write refused: the name is a link (symbolic, or a second name of a file), or it
    lies inside the archive once resolved. The message says which and what to do."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def inside(path: Path, root: Path) -> bool:
    """`path` is `root` or under it once both are resolved (links followed); a path that
    cannot be resolved (a link loop) counts as inside: it is never written."""
    try:
        real, top = path.expanduser().resolve(), root.expanduser().resolve()
    except (OSError, RuntimeError):
        return True
    return real == top or top in real.parents


def _through(path: Path) -> str:
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return " (a link loop)"
    return f" (through a symbolic link: {real})" if real != path.absolute() else ""


def _refuse(path: Path, why: str) -> UnsafeWrite:
    return UnsafeWrite(
        errno.EEXIST,
        f"refused to write {path}: {why}; ccarchive writes only "
        "into folders and files of its own. Remove it and run again.",
    )


def _check_outside(path: Path, archive_root: Path | None) -> None:
    if archive_root is not None and inside(path, archive_root):
        raise _refuse(path, f"it is inside the archive {archive_root}{_through(path)}")


def private_dir(path: Path, *, under: Path, archive_root: Path | None = None) -> Path:
    """Make `path` a folder of ours and return it: `under` (the data dir, created if
    missing) and every folder from it down to `path`, each created (0700) where missing
    and each a real folder, never a symbolic link; and outside `archive_root`.

    Raises:
        UnsafeWrite: a link or a file where a folder belongs, or a folder in the archive.
    """
    _check_outside(under, archive_root)
    under.mkdir(parents=True, exist_ok=True)
    rest = path.relative_to(under).parts
    current = under
    for part in ("", *rest):
        current = current / part if part else current
        if part:
            try:
                os.mkdir(current, 0o700)
            except FileExistsError:
                pass
        try:
            mode = os.lstat(current).st_mode
        except OSError as exc:
            raise _refuse(current, f"it cannot be examined ({exc.strerror})") from None
        if part and stat.S_ISLNK(mode):
            raise _refuse(current, f"it is a symbolic link (to {os.readlink(current)})")
        if not stat.S_ISDIR(mode) and not (not part and stat.S_ISLNK(mode)):
            raise _refuse(current, "it is not a folder")
    _check_outside(path, archive_root)
    return path


def check_own_folder(path: Path) -> None:
    """Refuse a folder of ours that holds a link another library would write through (a
    symbolic link, or a file with a second name): Tantivy opens its lock and its files by
    name, and truncates them.

    Raises:
        UnsafeWrite: what was found, and where.
    """
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        return
    for e in entries:
        try:
            st = e.stat(follow_symlinks=False)
        except FileNotFoundError:
            # gone between the listing and the look: a temporary file of the writer in
            # another process (Tantivy's `.tmpXXXX`), and nothing is left to write through
            continue
        if stat.S_ISLNK(st.st_mode):
            raise _refuse(
                Path(e.path), f"it is a symbolic link (to {os.readlink(e.path)}), planted in {path}"
            )
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            raise _refuse(
                Path(e.path),
                f"it has {st.st_nlink} hard links (another name of "
                f"the same file may be anywhere), planted in {path}",
            )


def _open_new(path: Path, mode: int) -> int:
    """An fd for writing a new file at `path`, created here: never through a link, never
    over a file already there (`O_CREAT | O_EXCL | O_NOFOLLOW`, beside a folder fd)."""
    dfd = os.open(path.parent, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        return os.open(
            path.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode, dir_fd=dfd
        )
    except FileExistsError:
        what = "a symbolic link" if os.path.islink(path) else "already there"
        raise _refuse(path, f"it is {what}") from None
    finally:
        os.close(dfd)


def create_private_file(
    path: Path, data: bytes, *, mode: int = 0o600, archive_root: Path | None = None
) -> None:
    """Write a new file of ours (a token, a marker), refusing any name already taken."""
    _check_outside(path.parent, archive_root)
    fd = _open_new(path, mode)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def open_new_file(path: Path, *, mode: int = 0o600, archive_root: Path | None = None) -> int:
    """`create_private_file` for a writer that streams: the fd of the new file."""
    _check_outside(path.parent, archive_root)
    return _open_new(path, mode)


def replace_file(
    path: Path, data: bytes, *, mode: int = 0o644, archive_root: Path | None = None
) -> None:
    """Write `path` whole: a new temporary file beside it (`.<name>.<pid>.tmp`, created
    exclusively), then renamed over it; a link at `path` is replaced, never followed."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    create_private_file(tmp, data, mode=mode, archive_root=archive_root)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
