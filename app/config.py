"""Where the archive is and where ccarchive keeps its own data.

The archive is read-only to us; everything ccarchive writes (the index) lives in the
user's cache dir, in a folder per archive so that two archives never share an index.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ccarchive.archive.discovery import default_archive_root


def default_data_dir() -> Path:
    """`$CCARCHIVE_HOME`, else the platform cache dir (XDG on Linux)."""
    env = os.environ.get("CCARCHIVE_HOME")
    if env:
        return Path(env).expanduser()
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "ccarchive"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ccarchive"


@dataclass(frozen=True)
class Settings:
    """The two places ccarchive works with."""

    archive_root: Path
    data_dir: Path

    @classmethod
    def resolve(cls, archive: str | os.PathLike[str] | None = None,
                data_dir: str | os.PathLike[str] | None = None) -> Settings:
        """`--archive`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`; `--data-dir`, else
        `$CCARCHIVE_HOME`, else the cache dir."""
        root = Path(archive).expanduser() if archive else default_archive_root()
        data = Path(data_dir).expanduser() if data_dir else default_data_dir()
        return cls(archive_root=root.resolve(), data_dir=data.resolve())

    @property
    def archive_key(self) -> str:
        """A short stable name for this archive's folder under the data dir."""
        digest = hashlib.sha1(str(self.archive_root).encode()).hexdigest()[:10]
        return f"{self.archive_root.name or 'root'}-{digest}"

    @property
    def archive_data_dir(self) -> Path:
        return self.data_dir / self.archive_key

    def check_outside_archive(self) -> None:
        """Refuse a data dir inside the archive: ccarchive never writes there."""
        try:
            self.archive_data_dir.relative_to(self.archive_root)
        except ValueError:
            return
        raise ValueError(
            f"the data dir {self.data_dir} is inside the archive {self.archive_root}; "
            "ccarchive never writes into the archive: choose another --data-dir"
        )
