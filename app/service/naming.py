"""How every front end names things: projects by a short name that still tells them
apart (the shortest unique path suffix), and counts with their noun (`plural`).

A project is its working directory. Its last folder alone is ambiguous on a real
archive: nine checkouts named `cli` under different parents, or a repository's
worktrees named `1` to `4`. Every front end shows the name `short_names` gives, computed
over all projects of the archive at once: `work/cli` and `oss/cli`, `cli/.worktrees/3`,
and plain `tally` where one folder of that name is all there is.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable


def _parts(path: str) -> list[str]:
    return [p for p in path.replace("\\", "/").split("/") if p]


def _weak(part: str) -> bool:
    """A folder name that says nothing alone: `3` (a worktree, a run), `.worktrees`."""
    return part.isdigit() or part.startswith(".")


def last_part(path: str) -> str:
    """The last folder of a path, or the path itself ('/' or '')."""
    parts = _parts(path)
    return parts[-1] if parts else path


def home_path(path: str) -> str:
    """A full path as a detail header shows it: the home folder as `~`."""
    home = os.path.expanduser("~").rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home) :]
    return path


def short_names(paths: Iterable[str]) -> dict[str, str]:
    """Path -> its shortest suffix of whole folders that no other path ends with.

    A suffix starts at a folder that names something (not a number, not a dot-folder),
    so a worktree reads `cli/.worktrees/3` rather than `3`. A path that is the tail of
    another one (`/cli` and `/src/cli`) and so has no unique suffix keeps its full path.
    """
    unique = sorted({p for p in paths if p})
    split = {p: _parts(p) for p in unique}
    depth = max((len(v) for v in split.values()), default=0)
    counts: list[Counter[tuple[str, ...]]] = [Counter() for _ in range(depth + 1)]
    for parts in split.values():
        for k in range(1, len(parts) + 1):
            counts[k][tuple(parts[-k:])] += 1
    out: dict[str, str] = {}
    for path, parts in split.items():
        name = path
        for k in range(1, len(parts) + 1):
            tail = tuple(parts[-k:])
            if counts[k][tail] == 1 and not _weak(tail[0]):
                name = "/".join(tail)
                break
        out[path] = name
    return out


def plural(n: int, word: str, many: str | None = None, *, shown: str | None = None) -> str:
    """'1 session', '2 sessions', '0 sessions', '1,200 entries' (`many`: an irregular
    plural; `shown`: the count as it should read, '1.2k'). One helper, so no pane or
    command prints `1 sessions`."""
    return f"{f'{n:,}' if shown is None else shown} {word if n == 1 else many or word + 's'}"
