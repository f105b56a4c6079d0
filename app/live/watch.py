"""`ccarchive index --watch`: index, then follow the archive in the foreground.

`watch_forever` opens a `LiveArchive` (live_archive.py) and prints a line per batch it
indexes, or, while another process is the writer, a line per commit it sees. How the
writer follows the archive's file events is `ccarchive.live.writer`.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from ccarchive.config import Settings
from ccarchive.index.run_reports import CommitInfo
from ccarchive.live.live_archive import WRITER, Batch, LiveArchive
from ccarchive.text import clip


def _fmt_files(files: tuple[str, ...], width: int = 60) -> str:
    if not files:
        return ""
    names = []
    for f in files:
        name = f.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0]
        names.append(stem[:8] if len(stem) == 36 and stem.count("-") == 4 else name)
    shown = ", ".join(names[:2]) + (f" +{len(names) - 2}" if len(names) > 2 else "")
    return clip(shown, width)


def batch_line(batch: Batch) -> str:
    """One line per pass, as `index --watch` prints it."""
    stamp = time.strftime("%H:%M:%S")
    if batch.full:
        r = batch.report
        return (
            f"{stamp}  full pass: {r.files_read:,} of {r.files_seen:,} files read, "
            f"{batch.docs:,} documents, {batch.bytes / 1e6:,.1f} MB in "
            f"{batch.seconds:.1f}s" + (f", {batch.gone} gone" if batch.gone else "")
        )
    lag = f"lag {batch.lag * 1000:,.0f} ms" if batch.lag is not None else "lag ?"
    gone = f", {batch.gone} gone" if batch.gone else ""
    return (
        f"{stamp}  +{batch.docs:,} documents  {len(batch.files)} file"
        f"{'' if len(batch.files) == 1 else 's'}{gone}  {lag}  "
        f"({batch.seconds * 1000:,.0f} ms)  {_fmt_files(batch.files)}"
    )


def follower_line(info: CommitInfo) -> str:
    stamp = time.strftime("%H:%M:%S")
    return (
        f"{stamp}  seen commit {info.opstamp}: +{info.docs:,} documents  "
        f"{len(info.files)} file{'' if len(info.files) == 1 else 's'}  "
        f"{_fmt_files(tuple(sorted(info.files)))}"
    )


def watch_forever(
    settings: Settings, *, rebuild: bool = False, force_polling: bool | None = None
) -> None:
    """`ccarchive index --watch`: index, then follow the archive, one line per batch.

    Stays in the foreground until Ctrl-C or SIGTERM. If another process is the writer,
    follows its commits (a line per commit seen) and takes over when it goes away.
    """
    live = LiveArchive(settings, watch=True, force_polling=force_polling, rebuild=rebuild)
    out_lock = threading.Lock()

    def say(text: str) -> None:
        with out_lock:
            print(text, flush=True)

    full_passes = 0

    def on_batch(batch: Batch) -> None:
        nonlocal full_passes
        if batch.full:
            full_passes += 1
            if full_passes > 1 and not (batch.docs or batch.files or batch.gone):
                return  # a periodic check that found nothing
        say(batch_line(batch))

    def on_commit(info: CommitInfo) -> None:
        if not live.is_writer:
            say(follower_line(info))

    def on_role(role: str) -> None:
        if started.is_set():
            say(
                f"{time.strftime('%H:%M:%S')}  the writer went away: this process "
                f"(pid {os.getpid()}) now indexes"
            )

    started = threading.Event()
    live.on_batch(on_batch)
    live.on_commit(on_commit)
    live.on_role(on_role)
    stop = threading.Event()

    def on_term(_signum: int, _frame: object) -> None:
        stop.set()

    old_term = signal.signal(signal.SIGTERM, on_term)
    live.start()
    started.set()
    if live.state.role == WRITER:
        say(
            f"indexing {settings.archive_root} (pid {os.getpid()}, writer); "
            "a line per batch: documents added, files, lag from write to searchable"
        )
    else:
        pid = live.state.writer_pid
        say(
            f"following {settings.archive_root} read-only: another process "
            f"{f'(pid {pid}) ' if pid else ''}indexes it; taking over if it stops"
        )
    shown_mode = ""
    try:
        while not stop.wait(0.5):
            if live.state.watching and live.state.watching != shown_mode:
                shown_mode = live.state.watching
                say(f"{time.strftime('%H:%M:%S')}  watching with {shown_mode}")
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, old_term)
        live.stop()
        say(f"{time.strftime('%H:%M:%S')}  stopped ({live.state.commits} commits)")
