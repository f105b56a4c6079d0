"""Find every file of a Claude Code archive worth indexing, and say what each one is.

The archive is read, never written. Links are not followed (a symlink loop or a link
out of the archive cannot trap or widen the walk), a file with a second name (a hard
link, which may be a file's from outside the archive) is not read, and a directory named
like a transcript is not a transcript. What is passed over is counted by reason, and
the files among it are named (`DiscoveryReport.files`) for `ccarchive status`.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

# Source kinds.
SESSION = "session"  # projects/<p>/<sid>.jsonl
AGENT = "agent"  # projects/<p>/agent-<aid>.jsonl (2.0.x) or <sid>/subagents/**/agent-<aid>.jsonl
PLAN = "plan"  # plans/<slug>.md and plans/<slug>-agent-<aid>.md
MEMORY = "memory"  # projects/<p>/memory/*.md and projects/<p>/<sid>/session-memory/summary.md
HISTORY = "history"  # history.jsonl

TRANSCRIPT_KINDS = frozenset({SESSION, AGENT})

# Why a file was not read (`DiscoveryReport.files`; the same names as `archive.safe_read`'s
# refusals, which can also happen later, when a file is opened).
SYMLINK = "symlink"
HARD_LINK = "hard_link"
NOT_A_FILE = "not_a_file"
UNREADABLE = "unreadable"

_SET_ASIDE = re.compile(r"\.(orphaned-|jsonl\.superseded-)")
_AGENT_PLAN = re.compile(r"^(?P<slug>.+)-agent-(?P<aid>[A-Za-z0-9_-]+)$")


@dataclass(frozen=True, slots=True)
class SourceFile:
    """One file of the archive, with what its place in the tree says about it."""

    path: Path
    rel: str  # posix path relative to the archive root: the key of everything indexed
    kind: str
    project_dir: str = ""  # the encoded directory name under projects/
    session_id: str = ""  # from the file name or folder; "" when only the content knows
    agent_id: str = ""
    size: int = 0
    mtime_ns: int = 0
    ino: int = 0
    dev: int = 0

    @property
    def identity(self) -> tuple[int, int]:
        return (self.dev, self.ino)

    @property
    def seen_as(self) -> tuple[int, int] | None:
        """The identity the walk saw, for `safe_read` to check the file opened against
        (None for a `SourceFile` made by hand, without one)."""
        return (self.dev, self.ino) if self.ino else None


@dataclass
class DiscoveryReport:
    """What the walk passed over, by reason; and the files among it that would have been
    indexed, by archive-relative path (shown by `ccarchive status`)."""

    skipped: dict[str, int]
    files: dict[str, str] = field(default_factory=dict)

    def skip(self, reason: str, rel: str = "") -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if rel:
            self.files[rel] = reason


def archive_exists(root: Path) -> bool:
    """Whether `root` looks like a Claude Code folder (transcripts or prompt history)."""
    return (root / "projects").is_dir() or (root / "history.jsonl").is_file()


def _stat_file(
    path: Path, rel: str, kind: str, report: DiscoveryReport, **kw: str
) -> SourceFile | None:
    try:
        st = path.stat(follow_symlinks=False)
    except FileNotFoundError:
        return None  # gone since it was listed
    except OSError:
        report.skip(UNREADABLE, rel)
        return None
    if stat.S_ISLNK(st.st_mode):
        report.skip(SYMLINK, rel)
        return None
    if not stat.S_ISREG(st.st_mode):
        report.skip(NOT_A_FILE, rel)
        return None
    if st.st_nlink > 1:
        report.skip(HARD_LINK, rel)
        return None
    if not os.access(path, os.R_OK):
        report.skip(UNREADABLE, rel)
        return None
    return SourceFile(
        path=path,
        rel=rel,
        kind=kind,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        ino=st.st_ino,
        dev=st.st_dev,
        **kw,
    )


def _entries(path: Path, report: DiscoveryReport) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        report.skip("unreadable_dir")
        return []


def _is_file(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_file(follow_symlinks=False)
    except OSError:
        return False


def _is_dir(e: os.DirEntry[str]) -> bool:
    try:
        return e.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _plain(e: os.DirEntry[str], rel: str, report: DiscoveryReport) -> bool:
    """Whether an entry with a name that is indexed is a regular file; if it is not, it is
    counted (a symbolic link, a FIFO or a device; a folder by that name is not a file and
    not counted)."""
    try:
        if e.is_symlink():
            report.skip(SYMLINK, rel)
            return False
        if e.is_file(follow_symlinks=False):
            return True
        if not e.is_dir(follow_symlinks=False):
            report.skip(NOT_A_FILE, rel)
    except OSError:
        report.skip(UNREADABLE, rel)
    return False


def _lone(path: Path, rel: str, report: DiscoveryReport) -> bool:
    """`_plain` for a path known by name (history.jsonl, a session's summary.md)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return False
    except OSError:
        report.skip(UNREADABLE, rel)
        return False
    if stat.S_ISLNK(mode):
        report.skip(SYMLINK, rel)
    elif stat.S_ISREG(mode):
        return True
    elif not stat.S_ISDIR(mode):
        report.skip(NOT_A_FILE, rel)
    return False


def discover(root: Path, report: DiscoveryReport | None = None) -> Iterator[SourceFile]:
    """Yield the archive's files: transcripts first, then plans, memory and history.

    Transcripts come first so that by the time plans and memory files are indexed, the
    sessions that name their slugs and projects are known.
    """
    report = report if report is not None else DiscoveryReport({})
    projects = root / "projects"
    later: list[SourceFile] = []
    if projects.is_dir():
        for pdir in _entries(projects, report):
            if not _is_dir(pdir):
                continue
            yield from _project(root, Path(pdir.path), pdir.name, report, later)
    yield from later
    plans = root / "plans"
    if plans.is_dir():
        for e in _entries(plans, report):
            if e.name.endswith(".md") and _plain(e, f"plans/{e.name}", report):
                src = _stat_file(Path(e.path), f"plans/{e.name}", PLAN, report)
                if src:
                    yield src
    hist = root / "history.jsonl"
    if _lone(hist, "history.jsonl", report):
        src = _stat_file(hist, "history.jsonl", HISTORY, report)
        if src:
            yield src


def _project(
    root: Path, pdir: Path, name: str, report: DiscoveryReport, later: list[SourceFile]
) -> Iterator[SourceFile]:
    base = f"projects/{name}"
    for e in _entries(pdir, report):
        if e.is_symlink():
            report.skip(SYMLINK, f"{base}/{e.name}" if e.name.endswith(".jsonl") else "")
            continue
        if (
            e.name.endswith(".jsonl")
            and not _is_dir(e)
            and not _plain(e, f"{base}/{e.name}", report)
        ):
            continue
        if _is_file(e):
            if not e.name.endswith(".jsonl"):
                continue
            if _SET_ASIDE.search(e.name):
                report.skip("set_aside_copy")
                continue
            stem = e.name[: -len(".jsonl")]
            rel = f"{base}/{e.name}"
            if stem.startswith("agent-"):
                src = _stat_file(
                    Path(e.path),
                    rel,
                    AGENT,
                    report,
                    project_dir=name,
                    agent_id=stem[len("agent-") :],
                )
            else:
                src = _stat_file(
                    Path(e.path), rel, SESSION, report, project_dir=name, session_id=stem
                )
            if src:
                yield src
        elif _is_dir(e):
            if e.name == "memory":
                for m in _entries(Path(e.path), report):
                    if m.name.endswith(".md") and _plain(m, f"{base}/memory/{m.name}", report):
                        src = _stat_file(
                            Path(m.path),
                            f"{base}/memory/{m.name}",
                            MEMORY,
                            report,
                            project_dir=name,
                        )
                        if src:
                            later.append(src)
                continue
            yield from _session_dir(Path(e.path), f"{base}/{e.name}", name, e.name, report, later)


def _session_dir(
    sdir: Path, rel: str, project: str, sid: str, report: DiscoveryReport, later: list[SourceFile]
) -> Iterator[SourceFile]:
    """`<sid>/subagents/**/agent-*.jsonl` and `<sid>/session-memory/summary.md`."""
    summary = sdir / "session-memory" / "summary.md"
    if _lone(summary, f"{rel}/session-memory/summary.md", report):
        src = _stat_file(
            summary,
            f"{rel}/session-memory/summary.md",
            MEMORY,
            report,
            project_dir=project,
            session_id=sid,
        )
        if src:
            later.append(src)
    sub = sdir / "subagents"
    if not sub.is_dir() or sub.is_symlink():
        return
    stack = [(sub, f"{rel}/subagents")]
    while stack:
        d, drel = stack.pop()
        for e in _entries(d, report):
            agent = e.name.startswith("agent-") and e.name.endswith(".jsonl")
            if e.is_symlink():
                report.skip(SYMLINK, f"{drel}/{e.name}" if agent else "")
            elif agent and not _is_dir(e) and not _plain(e, f"{drel}/{e.name}", report):
                continue
            elif _is_dir(e):
                stack.append((Path(e.path), f"{drel}/{e.name}"))
            elif _is_file(e) and e.name.startswith("agent-") and e.name.endswith(".jsonl"):
                aid = e.name[len("agent-") : -len(".jsonl")]
                src = _stat_file(
                    Path(e.path),
                    f"{drel}/{e.name}",
                    AGENT,
                    report,
                    project_dir=project,
                    session_id=sid,
                    agent_id=aid,
                )
                if src:
                    yield src


def agent_plan_parts(stem: str) -> tuple[str, str]:
    """`slug-agent-aid` -> (slug, aid); a main plan -> (slug, "")."""
    m = _AGENT_PLAN.match(stem)
    if m:
        return m.group("slug"), m.group("aid")
    return stem, ""


def meta_path(src: SourceFile) -> Path:
    """The `.meta.json` beside a subagent transcript (it may not exist)."""
    return src.path.with_name(src.path.name[: -len(".jsonl")] + ".meta.json")


def sources_for(
    root: Path, rels: Iterable[str], report: DiscoveryReport | None = None
) -> list[SourceFile]:
    """The `SourceFile`s of just these archive-relative paths, classified as `discover`
    would (live updates: no walk of the whole archive).

    A path that does not exist, is not a regular file, lies under a symlink, or is not a
    source `discover` would yield (a `.meta.json`, a set-aside copy) is left out: the
    caller treats a known file that is left out as gone.
    """
    report = report if report is not None else DiscoveryReport({})
    out: list[SourceFile] = []
    for rel in sorted(set(rels)):
        kind_kw = _classify(rel)
        if kind_kw is None:
            continue
        kind, kw = kind_kw
        path = root.joinpath(*rel.split("/"))
        if not _plain_path(root, path, rel, report):
            continue
        src = _stat_file(path, rel, kind, report, **kw)
        if src is not None:
            out.append(src)
    return out


def _plain_path(root: Path, path: Path, rel: str, report: DiscoveryReport) -> bool:
    """A regular file reached without following any symlink below `root` (a file that is
    a link, a FIFO or a device is counted as `discover` counts it)."""
    if not _lone(path, rel, report):
        return False
    p = path.parent
    try:
        while p != root:
            if not stat.S_ISDIR(p.lstat().st_mode):
                return False
            p = p.parent
    except OSError:
        return False
    return True


def _classify(rel: str) -> tuple[str, dict[str, str]] | None:
    """(kind, SourceFile fields) of an archive-relative path, by `discover`'s rules."""
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    if parts == ["history.jsonl"]:
        return HISTORY, {}
    if len(parts) == 2 and parts[0] == "plans" and parts[1].endswith(".md"):
        return PLAN, {}
    if len(parts) < 3 or parts[0] != "projects":
        return None
    project, rest = parts[1], parts[2:]
    name = rest[-1]
    if len(rest) == 1:
        if not name.endswith(".jsonl"):
            return None
        if _SET_ASIDE.search(name):
            return None
        stem = name[: -len(".jsonl")]
        if stem.startswith("agent-"):
            return AGENT, {"project_dir": project, "agent_id": stem[len("agent-") :]}
        return SESSION, {"project_dir": project, "session_id": stem}
    if rest[0] == "memory":
        if len(rest) == 2 and name.endswith(".md"):
            return MEMORY, {"project_dir": project}
        return None
    sid = rest[0]
    if rest[1:] == ["session-memory", "summary.md"]:
        return MEMORY, {"project_dir": project, "session_id": sid}
    if (
        len(rest) >= 3
        and rest[1] == "subagents"
        and name.startswith("agent-")
        and name.endswith(".jsonl")
    ):
        return AGENT, {
            "project_dir": project,
            "session_id": sid,
            "agent_id": name[len("agent-") : -len(".jsonl")],
        }
    return None
