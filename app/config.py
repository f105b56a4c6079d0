"""Where the archive is and where ccarchive keeps its own data.

The archive is read-only to us; everything ccarchive writes (the index) lives in the
user's cache dir, in a folder per archive so that two archives never share an index.

Semantic search is one switch for every front end: `--semantic` on the commands that
search or index, or `CCARCHIVE_SEMANTIC=1` (the default of every `Settings`), with the
model's folder from `--semantic-model` or `CCARCHIVE_MODEL_DIR` (see
`ccarchive.semantic.model_files` for where it is found otherwise).
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from ccarchive.archive.discovery import default_archive_root

SEMANTIC_ENV = "CCARCHIVE_SEMANTIC"
MODEL_DIR_ENV = "CCARCHIVE_MODEL_DIR"


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


def semantic_from_env() -> bool:
    """`CCARCHIVE_SEMANTIC` set to 1 (or true, yes, on)."""
    return os.environ.get(SEMANTIC_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def model_dir_from_env() -> Path | None:
    env = os.environ.get(MODEL_DIR_ENV)
    return Path(env).expanduser().resolve() if env else None


@dataclass(frozen=True)
class Settings:
    """The two places ccarchive works with, and whether search is also semantic."""

    archive_root: Path
    data_dir: Path
    semantic: bool = field(default_factory=semantic_from_env)
    """Also rank by meaning (an encoder's vectors beside the index): `ccarchive.semantic`."""
    model_dir: Path | None = field(default_factory=model_dir_from_env)
    """The encoder's files, when given; else found or downloaded (`semantic.model_files`)."""

    @classmethod
    def resolve(cls, archive: str | os.PathLike[str] | None = None,
                data_dir: str | os.PathLike[str] | None = None, *,
                semantic: bool | None = None,
                model_dir: str | os.PathLike[str] | None = None) -> Settings:
        """`--archive`, else `$CLAUDE_CONFIG_DIR`, else `~/.claude`; `--data-dir`, else
        `$CCARCHIVE_HOME`, else the cache dir; `--semantic` (True) or the environment."""
        root = Path(archive).expanduser() if archive else default_archive_root()
        data = Path(data_dir).expanduser() if data_dir else default_data_dir()
        return cls(archive_root=root.resolve(), data_dir=data.resolve()).with_semantic(
            semantic, model_dir)

    def with_semantic(self, semantic: bool | None = None,
                      model_dir: str | os.PathLike[str] | None = None) -> Settings:
        """These settings with semantic search turned on (`True`; None or False keep what
        the environment says) and the model's folder, if given."""
        out = self
        if semantic:
            out = replace(out, semantic=True)
        if model_dir:
            out = replace(out, model_dir=Path(model_dir).expanduser().resolve())
        return out

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
