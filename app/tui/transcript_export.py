"""Export a transcript as Markdown, never into the archive.

ccarchive promises never to write under the archive (docs/reliability.md). An export path
is typed by a person, often relative to a working directory that may be the archive
itself (`cd ~/.claude && ccarchive`), or through a symlink into it. So every path is
resolved (symlinks too) and refused when it lands under the archive root, and the
default location is one outside it: the current directory when that is outside, else
~/Downloads, else the home directory, else the temp directory.

No Textual here: the replay screen asks for the path and runs `export_markdown` in a
worker.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from ccarchive.config import UnsafeWrite, open_new_file
from ccarchive.service.models import Entry, SessionInfo
from ccarchive.tui.widgets.entry_render import entry_markdown


class ExportRefused(ValueError):
    """The export path is inside the archive (the message says so and why)."""


def inside(path: Path, root: Path) -> bool:
    """`path` is `root` or under it once both are resolved (symlinks followed); a path
    that cannot be resolved (a symlink loop) counts as inside: it is never written."""
    try:
        real, top = path.expanduser().resolve(), root.expanduser().resolve()
    except (OSError, RuntimeError):
        return True
    return real == top or top in real.parents


def default_export_dir(root: Path, *, cwd: Path | None = None, home: Path | None = None) -> Path:
    """Where an export goes by default: the first of cwd, ~/Downloads, ~ and the temp
    directory that is a directory outside the archive."""
    home = home if home is not None else Path.home()
    for cand in (
        cwd if cwd is not None else Path.cwd(),
        home / "Downloads",
        home,
        Path(tempfile.gettempdir()),
    ):
        if cand.is_dir() and not inside(cand, root):
            return cand
    return Path(tempfile.gettempdir())


def export_name(info: SessionInfo, agent_id: str) -> str:
    """`<title slug>-<session id prefix>[-<agent id prefix>].md`."""
    slug = re.sub(r"[^a-z0-9]+", "-", (info.title or "session").lower()).strip("-")
    name = f"{slug[:40]}-{info.session_id[:8]}"
    if agent_id:
        name += f"-{agent_id[:12]}"
    return f"{name}.md"


def export_target(answer: str, root: Path, name: str) -> Path:
    """The file an answer names (a directory gets `name` in it), absolute.

    Raises:
        ExportRefused: the file would be inside the archive.
    """
    path = Path(answer).expanduser()
    if path.is_dir():
        path = path / name
    path = path.absolute()
    if inside(path, root):
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            real = path
        how = f" (through a symlink: {real})" if real != path else ""
        raise ExportRefused(
            f"Not exported: {path} is inside the archive {root}{how}, and "
            "ccarchive never writes there. Choose a path outside it."
        )
    return path


def export_markdown(
    service: object,
    info: SessionInfo,
    agent_id: str,
    title: str,
    path: Path,
    *,
    archive_root: Path | None = None,
    span: tuple[int, int] | None = None,
) -> int:
    """Write a transcript as Markdown, full texts included; returns the entries written.

    Args:
        service: the `ArchiveService` (typed loosely to keep this callable from tests).
        info: the session; agent_id and title: the subagent's, if it is one.
        path: the file to write.
        archive_root: refuse (`ExportRefused`) a path inside it; checked here again,
            right before anything is created, whatever the caller checked.
        span: only the entries [first, stop) of the transcript (one turn), else all.
    """
    if archive_root is not None and inside(path, archive_root):
        raise ExportRefused(
            f"{path} is inside the archive {archive_root}; ccarchive never writes there."
        )
    svc = service
    lines = [
        f"# {info.title or info.session_id}" + (f" › subagent: {title}" if agent_id else ""),
        "",
    ]
    lines.append(f"- session: `{info.session_id}`" + (f", agent `{agent_id}`" if agent_id else ""))
    lines.append(f"- project: `{info.project}`")
    if info.branches:
        lines.append(f"- branch: `{', '.join(info.branches)}`")
    if info.first_activity:
        lines.append(f"- started: {info.first_activity.isoformat(timespec='seconds')}")
    lines.append(f"- resume: `claude --resume {info.session_id}`")
    lines += ["", "---", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    # written beside it, then renamed over it: an existing file that is a hard link into
    # the archive is replaced, never written through, and a failed export leaves no half.
    # The temporary name is created here, exclusively and never through a link (one
    # planted there would have the export written wherever it points): else refused.
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        fd = open_new_file(partial, mode=0o644, archive_root=archive_root)
    except UnsafeWrite as exc:
        raise ExportRefused(f"Not exported: {exc}") from None
    try:
        n = _write(svc, info, agent_id, lines, fd, span)
        os.replace(partial, path)
    finally:
        if os.path.lexists(partial) and not os.path.islink(partial):
            partial.unlink()
    return n


def _write(
    svc: object,
    info: SessionInfo,
    agent_id: str,
    lines: list[str],
    fd: int,
    span: tuple[int, int] | None = None,
) -> int:
    n = 0
    first, stop = span if span is not None else (0, None)
    with open(fd, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))
        start = first
        while True:
            limit = 500 if stop is None else max(1, min(500, stop - start))
            page = svc.transcript(  # type: ignore[attr-defined]
                info.session_id,
                agent_id=agent_id or None,
                start=start,
                limit=limit,
                max_chars=200_000,
            )
            entries: list[Entry] = page.entries
            inputs = svc.tool_inputs(entries)  # type: ignore[attr-defined]
            full_ids = [e.id for e in entries if e.truncated]
            full = {}
            for i in range(0, len(full_ids), 100):
                for e in svc.entries(full_ids[i : i + 100], max_chars=200_000):  # type: ignore
                    full[e.id] = e
            for e in entries:
                out.write(entry_markdown(full.get(e.id, e), inputs.get(e.id)) + "\n")
                n += 1
            start += len(entries)
            if not entries or start >= page.total or (stop is not None and start >= stop):
                break
    return n
