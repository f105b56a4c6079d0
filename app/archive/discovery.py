"""Find every file of a Claude Code archive worth indexing, and say what each one is.

The archive is read, never written. Links are not followed (a symlink loop or a link
out of the archive cannot trap or widen the walk), and a directory named like a
transcript is not a transcript.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# Source kinds.
SESSION = "session"  # projects/<p>/<sid>.jsonl
AGENT = "agent"  # projects/<p>/agent-<aid>.jsonl (2.0.x) or <sid>/subagents/**/agent-<aid>.jsonl
PLAN = "plan"  # plans/<slug>.md and plans/<slug>-agent-<aid>.md
MEMORY = "memory"  # projects/<p>/memory/*.md and projects/<p>/<sid>/session-memory/summary.md
HISTORY = "history"  # history.jsonl

TRANSCRIPT_KINDS = frozenset({SESSION, AGENT})

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


@dataclass
class DiscoveryReport:
    """What the walk passed over, by reason (shown by `ccarchive status`)."""

    skipped: dict[str, int]

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def default_archive_root() -> Path:
    """`$CLAUDE_CONFIG_DIR`, else `~/.claude` (docs/format.md §1)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".claude"


def archive_exists(root: Path) -> bool:
    """Whether `root` looks like a Claude Code folder (transcripts or prompt history)."""
    return (root / "projects").is_dir() or (root / "history.jsonl").is_file()


def _stat_file(path: Path, rel: str, kind: str, report: DiscoveryReport, **kw: str) -> (
    SourceFile | None
):
    try:
        st = path.stat(follow_symlinks=False)
    except OSError:
        report.skip("unreadable")
        return None
    if not os.access(path, os.R_OK):
        report.skip("unreadable")
        return None
    return SourceFile(path=path, rel=rel, kind=kind, size=st.st_size, mtime_ns=st.st_mtime_ns,
                      ino=st.st_ino, dev=st.st_dev, **kw)


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
            if _is_file(e) and e.name.endswith(".md"):
                src = _stat_file(Path(e.path), f"plans/{e.name}", PLAN, report)
                if src:
                    yield src
    hist = root / "history.jsonl"
    if hist.is_file() and not hist.is_symlink():
        src = _stat_file(hist, "history.jsonl", HISTORY, report)
        if src:
            yield src


def _project(root: Path, pdir: Path, name: str, report: DiscoveryReport,
             later: list[SourceFile]) -> Iterator[SourceFile]:
    base = f"projects/{name}"
    for e in _entries(pdir, report):
        if e.is_symlink():
            report.skip("symlink")
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
                src = _stat_file(Path(e.path), rel, AGENT, report, project_dir=name,
                                 agent_id=stem[len("agent-"):])
            else:
                src = _stat_file(Path(e.path), rel, SESSION, report, project_dir=name,
                                 session_id=stem)
            if src:
                yield src
        elif _is_dir(e):
            if e.name == "memory":
                for m in _entries(Path(e.path), report):
                    if _is_file(m) and m.name.endswith(".md"):
                        src = _stat_file(Path(m.path), f"{base}/memory/{m.name}", MEMORY, report,
                                         project_dir=name)
                        if src:
                            later.append(src)
                continue
            yield from _session_dir(Path(e.path), f"{base}/{e.name}", name, e.name, report, later)


def _session_dir(sdir: Path, rel: str, project: str, sid: str, report: DiscoveryReport,
                 later: list[SourceFile]) -> Iterator[SourceFile]:
    """`<sid>/subagents/**/agent-*.jsonl` and `<sid>/session-memory/summary.md`."""
    summary = sdir / "session-memory" / "summary.md"
    if summary.is_file() and not summary.is_symlink():
        src = _stat_file(summary, f"{rel}/session-memory/summary.md", MEMORY, report,
                         project_dir=project, session_id=sid)
        if src:
            later.append(src)
    sub = sdir / "subagents"
    if not sub.is_dir() or sub.is_symlink():
        return
    stack = [(sub, f"{rel}/subagents")]
    while stack:
        d, drel = stack.pop()
        for e in _entries(d, report):
            if e.is_symlink():
                report.skip("symlink")
            elif _is_dir(e):
                stack.append((Path(e.path), f"{drel}/{e.name}"))
            elif _is_file(e) and e.name.startswith("agent-") and e.name.endswith(".jsonl"):
                aid = e.name[len("agent-"): -len(".jsonl")]
                src = _stat_file(Path(e.path), f"{drel}/{e.name}", AGENT, report,
                                 project_dir=project, session_id=sid, agent_id=aid)
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


def sources_for(root: Path, rels: Iterable[str],
                report: DiscoveryReport | None = None) -> list[SourceFile]:
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
        if not _plain_path(root, path):
            continue
        src = _stat_file(path, rel, kind, report, **kw)
        if src is not None:
            out.append(src)
    return out


def _plain_path(root: Path, path: Path) -> bool:
    """A regular file reached without following any symlink below `root`."""
    import stat as _stat

    p = path
    try:
        if not _stat.S_ISREG(p.lstat().st_mode):
            return False
        p = p.parent
        while p != root:
            if not _stat.S_ISDIR(p.lstat().st_mode):
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
            return AGENT, {"project_dir": project, "agent_id": stem[len("agent-"):]}
        return SESSION, {"project_dir": project, "session_id": stem}
    if rest[0] == "memory":
        if len(rest) == 2 and name.endswith(".md"):
            return MEMORY, {"project_dir": project}
        return None
    sid = rest[0]
    if rest[1:] == ["session-memory", "summary.md"]:
        return MEMORY, {"project_dir": project, "session_id": sid}
    if len(rest) >= 3 and rest[1] == "subagents" and name.startswith("agent-") \
            and name.endswith(".jsonl"):
        return AGENT, {"project_dir": project, "session_id": sid,
                       "agent_id": name[len("agent-"): -len(".jsonl")]}
    return None
