"""Following the archive as Claude Code writes it: file events in, small commits out.

The writer (`LiveArchive`, in live_archive.py) runs `follow_archive`:

1. It starts the OS watch (watchfiles' inotify/FSEvents notifier) *before* anything
   else, so that whatever is written while the catch-up pass runs (a first index of a
   big archive takes minutes) is queued as events, not missed.
2. It runs a full pass (`run_once()`): only what changed since the last commit is read.
3. It loops: wait for changes (a lone append is reported ~20 ms later; a burst is
   grouped for at most `DEBOUNCE_MS`), re-read only the changed files from their
   checkpoints (`run_once(only=...)`), commit, reopen readers. Events that arrive while
   a pass runs queue up in the notifier and form the next batch, so bursts coalesce
   into a few commits instead of one per line.

Where OS events are unavailable (network filesystems, WSL, inotify limits) it polls
and says so in `state.watching`. Polling compares mtimes at one-second resolution and
misses a second change within the same second (with watchfiles 1.3, 8 appends came as
4 batches), so in polling mode the files that changed recently are also re-stat'ed every
`HOT_POLL_SECONDS`, and a full pass runs every `RECONCILE_POLLING` seconds; with OS
events a full pass every `RECONCILE_SECONDS` only guards against dropped events (queue overflow).

This module knows the writer only through the `Followed` protocol below, so that
`live_archive` imports it and it never imports `live_archive` (no import cycle).
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ccarchive.index.indexer import Indexer
    from ccarchive.index.run_reports import RunReport

log = logging.getLogger(__name__)

DEBOUNCE_MS = 100
"""Longest a burst of changes is grouped before it is indexed."""
STEP_MS = 20
"""A batch is ready once no new change arrived for this long."""
TIMEOUT_MS = 1000
"""How long one wait for events lasts before the loop looks at its clocks."""
RECONCILE_SECONDS = 300.0
"""With OS events: a full pass now and then, in case events were dropped."""
RECONCILE_POLLING = 30.0
"""With polling: a full pass this often (polling misses same-second changes)."""
HOT_POLL_SECONDS = 0.5
HOT_KEEP_SECONDS = 600.0
"""Polling mode: files changed in the last 10 minutes are re-stat'ed every 0.5 s."""
POLL_DELAY_MS = 300
NETWORK_FS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb",
        "smb2",
        "smb3",
        "smbfs",
        "afs",
        "ncpfs",
        "9p",
        "fuse.sshfs",
        "sshfs",
        "fuse.rclone",
        "fuse.s3fs",
        "fuse.gcsfuse",
        "davfs",
        "fuse.davfs2",
        "glusterfs",
        "fuse.glusterfs",
        "lustre",
        "ceph",
        "fuse.ceph",
        "v9fs",
        "drvfs",
        "fuse.drvfs",
    }
)
"""Filesystems whose changes made on another machine never reach inotify."""
WATCHED_SUFFIXES = (".jsonl", ".md")
ADDED, DELETED = 1, 3  # watchfiles.Change values


class WatchStatus(Protocol):
    """The part of the writer's state (`live_archive.IndexState`) that following updates."""

    watching: str
    last_error: str | None


class Followed(Protocol):
    """What `follow_archive` drives: `live_archive.LiveArchive` once it is the writer."""

    root: Path
    force_polling: bool | None
    indexer: Indexer | None

    @property
    def state(self) -> WatchStatus: ...

    @property
    def stopping(self) -> threading.Event: ...

    def run_once(self, only: Iterable[str] | None = None) -> RunReport | None: ...


def _relevant(rel: str) -> bool:
    """Under the parts of the archive that are indexed (not debug/, todos/, ...)."""
    return rel.startswith(("projects/", "plans/")) or rel == "history.jsonl"


def filesystem_type(path: Path) -> str:
    """The filesystem type of the mount holding `path` (Linux; "" elsewhere)."""
    best, fstype = "", ""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return ""
    target = str(path)
    for line in lines:
        parts = line.split()
        if len(parts) < 3:
            continue
        mnt = parts[1].replace("\\040", " ")
        if (target == mnt or target.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
            best, fstype = mnt, parts[2]
    return fstype


def watch_mode(root: Path, force_polling: bool | None = None) -> tuple[bool, str]:
    """(poll?, why): the caller's choice, then $CCARCHIVE_POLL / $WATCHFILES_FORCE_POLLING,
    then the filesystem type."""
    if force_polling is not None:
        return force_polling, "asked for" if force_polling else ""
    for var in ("CCARCHIVE_POLL", "WATCHFILES_FORCE_POLLING"):
        value = os.environ.get(var, "")
        if value:
            if value.lower() in {"0", "false", "no", "disable", "disabled"}:
                return False, ""
            return True, f"${var} is set"
    fstype = filesystem_type(root)
    if fstype in NETWORK_FS or fstype.startswith("fuse.sshfs"):
        return True, f"{fstype} filesystem: no file events from other machines"
    if "microsoft" in os.uname().release.lower() and str(root).startswith("/mnt/"):
        return True, "a Windows drive under WSL"
    return False, ""


def _open_notify(root: Path, polling: bool):  # -> RustNotify
    from watchfiles._rust_notify import RustNotify

    return RustNotify([str(root)], False, polling, POLL_DELAY_MS, True, True)


class _Hot:
    """Polling mode: files changed recently, re-stat'ed between (unreliable) events."""

    def __init__(self, live: Followed) -> None:
        self.live = live
        self.seen: dict[str, float] = {}
        self.last = 0.0

    def add(self, rels: object) -> None:
        now = time.monotonic()
        for rel in rels:  # type: ignore[attr-defined]
            self.seen[rel] = now

    def add_recent(self) -> None:
        """Files whose checkpoint says they were written in the last minutes."""
        indexer = self.live.indexer
        if indexer is None:
            return
        cutoff = (time.time() - HOT_KEEP_SECONDS) * 1e9
        self.add(
            [
                rel
                for rel, st in list(indexer.states.items())
                if not st.gone and st.mtime_ns >= cutoff
            ]
        )

    def changed(self) -> set[str]:
        now = time.monotonic()
        if now - self.last < HOT_POLL_SECONDS:
            return set()
        self.last = now
        indexer = self.live.indexer
        if indexer is None:
            return set()
        out = set()
        for rel, when in list(self.seen.items()):
            if now - when > HOT_KEEP_SECONDS:
                del self.seen[rel]
                continue
            st = indexer.states.get(rel)
            try:
                s = os.stat(self.live.root / rel)
            except OSError:
                if st is not None and not st.gone:
                    out.add(rel)
                continue
            if st is None or (s.st_size, s.st_mtime_ns, s.st_ino) != (st.size, st.mtime_ns, st.ino):
                out.add(rel)
        return out


def changed_rels(raw: set[tuple[int, str]], live: Followed) -> set[str]:
    """Archive-relative source paths behind a set of raw events.

    A directory that appeared (moved in) stands for the files under it; one that went
    away stands for the indexed files that were under it.
    """
    root = live.root
    prefix = str(root).rstrip("/") + "/"
    rels: set[str] = set()
    for change, path in raw:
        if not path.startswith(prefix):
            continue
        rel = path[len(prefix) :]
        if not _relevant(rel):
            continue
        if rel.endswith(WATCHED_SUFFIXES):
            rels.add(rel)
        elif change == ADDED and os.path.isdir(path):
            for d, dirs, files in os.walk(path):
                dirs[:] = [x for x in dirs if not os.path.islink(os.path.join(d, x))]
                base = d[len(prefix) :]
                rels.update(f"{base}/{f}" for f in files if f.endswith(WATCHED_SUFFIXES))
        elif change == DELETED and not os.path.lexists(path) and live.indexer is not None:
            under = rel + "/"
            rels.update(r for r in list(live.indexer.states) if r.startswith(under))
    return rels


def follow_archive(live: Followed) -> None:
    """Index changes until `live.stopping` is set. Runs in the writer's thread."""
    root = live.root
    if not root.is_dir():
        live.state.last_error = f"cannot watch {root}: not a folder"
        live.run_once()
        return
    polling, reason = watch_mode(root, live.force_polling)
    try:
        notify = _open_notify(root, polling)
    except OSError as exc:  # inotify limits (max_user_watches / instances)
        if polling:
            raise
        polling, reason = True, f"file events unavailable: {exc}"
        notify = _open_notify(root, True)
    if not polling and repr(notify)[:24].startswith("RustNotify(Poll"):
        polling, reason = True, "the OS file watch is not supported here"
    if polling:
        live.state.watching = f"polling ({reason})"
        log.warning("polling %s for changes: %s", root, reason)
    else:
        live.state.watching = "inotify" if sys.platform.startswith("linux") else "native"
    hot = _Hot(live) if polling else None
    reconcile = RECONCILE_POLLING if polling else RECONCILE_SECONDS
    try:
        live.run_once()  # catch up; what is written meanwhile waits in `notify`
        if hot is not None:
            hot.add_recent()
        last_full = time.monotonic()
        while not live.stopping.is_set():
            raw = notify.watch(
                DEBOUNCE_MS,
                STEP_MS,
                int(HOT_POLL_SECONDS * 1000) if hot else TIMEOUT_MS,
                live.stopping,
            )
            if raw == "stop":
                break
            rels = changed_rels(raw, live) if isinstance(raw, set) else set()
            if hot is not None:
                hot.add(rels)
                rels |= hot.changed()
            if rels:
                live.run_once(only=rels)
            if time.monotonic() - last_full >= reconcile and not live.stopping.is_set():
                live.run_once()
                last_full = time.monotonic()
    finally:
        notify.close()
