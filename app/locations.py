"""Where the archive is, where ccarchive keeps its data, and the folder of one archive's
data under it: the one home of these rules, in the standard library alone.

`Settings` (`ccarchive.config`) is built on them, and so is `ccarchive-hook`'s first step:
Claude Code starts the hook for every prompt, and before it knows whether a running
`ccarchive serve` answers for it (`ccarchive.hooks.client`) it must find that archive's
folder. Importing `ccarchive.config` for that would cost each prompt ~20 ms (pathlib,
dataclasses, the archive's discovery); these functions cost nothing to import.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from hashlib import sha1
else:
    try:  # the interpreter's own SHA-1: hashlib loads OpenSSL (~4 ms) for the same digest
        from _sha1 import sha1
    except ImportError:  # an interpreter built without it
        from hashlib import sha1


def default_archive_root() -> str:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude` (docs/format.md §1)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    if env:
        return os.path.expanduser(env)
    return os.path.join(os.path.expanduser("~"), ".claude")


def default_data_dir() -> str:
    """`$CCARCHIVE_HOME`, else the platform cache dir (XDG on Linux)."""
    env = os.environ.get("CCARCHIVE_HOME")
    if env:
        return os.path.expanduser(env)
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(home, "Library", "Caches", "ccarchive")
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = os.path.expanduser(xdg) if xdg else os.path.join(home, ".cache")
    return os.path.join(base, "ccarchive")


def resolve_places(
    archive: str | os.PathLike[str] | None, data_dir: str | os.PathLike[str] | None
) -> tuple[str, str]:
    """(archive root, data dir), absolute with their links followed: `--archive`, else
    `$CLAUDE_CONFIG_DIR`, else `~/.claude`; `--data-dir`, else `$CCARCHIVE_HOME`, else the
    cache dir."""
    root = os.path.expanduser(os.fspath(archive)) if archive else default_archive_root()
    data = os.path.expanduser(os.fspath(data_dir)) if data_dir else default_data_dir()
    return os.path.realpath(root), os.path.realpath(data)


def name_digest(data: bytes) -> str:
    """The SHA-1 of `data` in hex: a folder's name made from a path (not a security
    measure)."""
    return sha1(data).hexdigest()


def archive_key(archive_root: str) -> str:
    """A short stable name for this archive's folder under the data dir (the archive
    root given resolved)."""
    return f"{os.path.basename(archive_root) or 'root'}-{name_digest(archive_root.encode())[:10]}"


def archive_data_dir(archive_root: str, data_dir: str) -> str:
    """This archive's folder under the data dir: its index, and the hook server's socket."""
    return os.path.join(data_dir, archive_key(archive_root))
