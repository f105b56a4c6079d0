"""Following the archive as Claude Code writes it: file events in, small commits out.

The writer process runs `follow_archive`: watchfiles (inotify) reports changed paths,
bursts are coalesced, and only those files are re-read from their checkpoints. Where the
OS watch is not available (network filesystems, too few inotify watches) it falls back
to polling and says so; polling can miss same-second changes (STACK.md §5), so a
periodic full reconcile runs as well.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from app.config import Settings

if TYPE_CHECKING:
    from app.live.runtime import LiveArchive

log = logging.getLogger(__name__)

RECONCILE_SECONDS = 30.0
"""A full pass now and then catches what an event source missed (polling's blind spots,
events dropped under load)."""
WATCHED_SUFFIXES = (".jsonl", ".md", ".json")


def _relevant(path: str) -> bool:
    return path.endswith(WATCHED_SUFFIXES)


def follow_archive(live: LiveArchive) -> None:
    """Index changes until `live.stopping` is set. Runs in the writer's thread."""
    from watchfiles import watch

    root = live.settings.archive_root
    force_polling = None
    reason = ""
    try:
        os.stat(root)
    except OSError as exc:
        live.state.last_error = f"cannot watch {root}: {exc}"
        return
    live.state.watching = "inotify" if sys.platform.startswith("linux") else "native"
    last_full = time.monotonic()
    while not live.stopping.is_set():
        try:
            for changes in watch(root, stop_event=live.stopping, debounce=100, step=20,
                                 rust_timeout=1000, yield_on_timeout=True,
                                 force_polling=force_polling, poll_delay_ms=250,
                                 watch_filter=lambda _c, p: _relevant(p),
                                 raise_interrupt=False):
                rels = sorted({Path(p).resolve().relative_to(root).as_posix()
                               for _c, p in changes if _is_under(p, root)})
                if rels:
                    live.run_once(only=rels)
                if time.monotonic() - last_full >= RECONCILE_SECONDS:
                    last_full = time.monotonic()
                    live.run_once()
            return
        except OSError as exc:  # inotify limits, unsupported filesystem
            if force_polling:
                raise
            reason = str(exc)
            force_polling = True
            live.state.watching = f"polling ({reason})"
            log.warning("file events unavailable (%s): polling the archive instead", reason)


def _is_under(path: str, root: Path) -> bool:
    try:
        Path(path).resolve().relative_to(root)
    except ValueError:
        return False
    return True


def watch_forever(settings: Settings, *, rebuild: bool = False) -> None:
    """`ccarchive index --watch`: index, then follow the archive, one line per commit."""
    from app.live.runtime import WRITER, LiveArchive

    live = LiveArchive(settings, watch=True)
    start = time.time()

    def line(info: object) -> None:
        st = live.state
        lag = time.time() - start
        print(f"{time.strftime('%H:%M:%S')} commit: {len(getattr(info, 'files', ()))} files, "
              f"{getattr(info, 'docs', 0)} documents, {st.watching or 'initial index'}, "
              f"{lag:.2f}s since start", flush=True)

    live.on_commit(line)
    live.start()
    print(f"watching {settings.archive_root} as {live.state.role}"
          + ("" if live.state.role == WRITER else " (another process indexes; following it)"),
          flush=True)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        live.stop()
