"""The hook server: `ccarchive serve` answering `ccarchive-hook` over a Unix socket.

When the plugin is installed, Claude Code runs `ccarchive serve` for the whole session,
with the index open and kept current; the hook it starts for every prompt asks this
server (`ccarchive.hooks.client`) instead of importing and opening all of that itself.
The answer is computed by the very code the hook runs in its own process
(`ccarchive.hooks.context.hook_output`), over a service of its own beside the serve's:
the same index and live archive, but always redacted (even under `serve --no-redact`)
and never semantic (a prompt must not wait for the encoder or the vectors).

It runs in threads of its own, not on the serve's event loop: the MCP side runs on the
stdio or HTTP loop, and a hook's search (synchronous Tantivy work) must neither wait
behind a tool call nor hold one up; threads serve both modes alike. One thread accepts,
one short-lived thread answers each connection (at most `MAX_CLIENTS` at once; more are
closed at once, and their hooks answer in their own processes). A connection has
`REQUEST_TIMEOUT` for its whole request, `MAX_REQUEST` bytes at most; anything else
(garbage, too much, too slow, another uid) is closed without an answer.

Who serves: several `ccarchive serve` processes may run for one archive (one per Claude
Code session), and the socket has one well-known place (`ccarchive.hooks.channel`). The
server that holds an exclusive `flock` on the socket's folder owns it: it replaces a
socket file left by an owner that died (the lock says so: a dead process holds none),
binds, and removes its socket when it stops. The others try the lock every
`TAKEOVER_RETRY` seconds and one of them takes over when the owner is gone. A file at the
socket's place that is not a socket (a symbolic link, say) is never removed or followed:
that server stays off and says why.
"""

from __future__ import annotations

import logging
import os
import selectors
import socket
import stat
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ccarchive.config import UnsafeWrite, private_dir
from ccarchive.hooks.channel import (
    FOLDER,
    MAX_REQUEST,
    decode_request,
    encode_answer,
    peer_uid,
    read_until_closed,
    socket_path,
    unsafe_folder,
    version_answer,
)
from ccarchive.hooks.context import hook_output
from ccarchive.hooks.main import EVENTS, LIMIT, MAX_CHARS
from ccarchive.index.store import complete_index_exists
from ccarchive.service import ArchiveService, open_service

if TYPE_CHECKING:
    from ccarchive.config import Settings

log = logging.getLogger("ccarchive.hooks.server")

EVENT_NAMES = frozenset(EVENTS.values())
"""The events a request may name: those of the hook's command (its numbers are bounded by
its options' `LIMIT` and `MAX_CHARS`)."""

MAX_CLIENTS = 8
"""Connections answered at once; a hook turned away answers in its own process."""

REQUEST_TIMEOUT = 2.0
"""Seconds a connection has to send its whole request."""

TAKEOVER_RETRY = 1.0
"""Seconds between a waiting server's tries to take the socket over."""


class HookServer:
    """Answers the hooks of one archive while `ccarchive serve` runs (`start`, `stop`).

    Args:
        service: the serve's service (its index and live archive are shared; its
            redaction and semantic switches are not).
        settings: the serve's settings: where the socket goes.
        retry: seconds between tries to take the socket over.
        request_timeout: seconds a connection has to send its whole request.
    """

    def __init__(
        self,
        service: ArchiveService,
        settings: Settings,
        *,
        retry: float = TAKEOVER_RETRY,
        request_timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.service = open_service(
            replace(settings, semantic=False), live=service.live, store=service.store
        )
        self.settings = settings
        self.path = socket_path(str(settings.archive_data_dir))
        self.retry, self.request_timeout = retry, request_timeout
        self.answered = 0
        """Requests answered (what the tests read)."""
        self.owner = threading.Event()
        """Set while this server holds the socket."""
        self._stopping = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._clients = threading.BoundedSemaphore(MAX_CLIENTS)
        self._count = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> HookServer:
        """Serve in the background (or wait to take the socket over)."""
        if self.path is None:
            log.info("no hook server: no Unix socket on this system")
            return self
        self._thread = threading.Thread(target=self._run, name="ccarchive-hook-server", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop serving: the socket is removed and the folder's lock released."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                return  # still closing: its pipe stays open until it does
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> HookServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- owning the socket -----------------------------------------------------------
    def _run(self) -> None:
        try:
            folder = self._folder()
        except (OSError, UnsafeWrite) as exc:
            log.warning("no hook server: %s", exc)
            return
        while not self._stopping.is_set():
            lock = _try_lock(folder)
            if lock is not None:
                try:
                    self._own(lock)
                finally:
                    os.close(lock)  # releases the lock: another serve may take over
                return
            self._stopping.wait(self.retry)

    def _folder(self) -> Path:
        """The socket's folder, made if missing: a private folder of the user's."""
        assert self.path is not None
        folder = Path(self.path).parent
        data = self.settings.archive_data_dir
        if folder == data / FOLDER:
            private_dir(
                folder, under=self.settings.data_dir, archive_root=self.settings.archive_root
            )
        else:  # the short place (channel.short_base): made here, checked as the hook checks it
            try:
                os.mkdir(folder, 0o700)
            except FileExistsError:
                pass
        why = unsafe_folder(str(folder))
        if why is not None:
            raise UnsafeWrite(0, f"{why}: the hook server's folder must be the user's own")
        return folder

    def _own(self, lock: int) -> None:
        """Serve on the socket while this process holds `lock` (its folder's flock)."""
        assert self.path is not None
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            pass
        else:
            if not stat.S_ISSOCK(st.st_mode):
                log.warning(
                    "no hook server: %s is not a socket (left as it is; remove it to let "
                    "the hooks ask ccarchive serve)",
                    self.path,
                )
                return
            os.unlink(self.path)  # the last owner's: it died without removing it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
            os.chmod(self.path, 0o600)
            mine = os.lstat(self.path)
            listener.listen(16)
            self.owner.set()
            log.info("hook server on %s", self.path)
            try:
                self._accept(listener)
            finally:
                self.owner.clear()
                _remove_if_same(self.path, mine)
        except OSError as exc:
            log.warning("no hook server on %s: %s", self.path, exc)
        finally:
            listener.close()

    def _accept(self, listener: socket.socket) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(listener, selectors.EVENT_READ)
            selector.register(self._wake_r, selectors.EVENT_READ)
            while not self._stopping.is_set():
                ready = {key.fd for key, _ in selector.select()}
                if self._wake_r in ready or self._stopping.is_set():
                    return
                try:
                    conn, _ = listener.accept()
                except OSError:
                    continue
                if not self._clients.acquire(blocking=False):
                    conn.close()  # too many at once: that hook answers in its own process
                    continue
                threading.Thread(
                    target=self._answer_one,
                    args=(conn,),
                    name="ccarchive-hook-answer",
                    daemon=True,
                ).start()

    # ---- one request -----------------------------------------------------------------
    def _answer_one(self, conn: socket.socket) -> None:
        try:
            with conn:
                uid = peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    log.warning("hook server: refused a client of uid %s", uid)
                    return
                data = _read_request(conn, self.request_timeout)
                reply = self.answer(data) if data is not None else None
                if reply is None:
                    return
                conn.settimeout(self.request_timeout)
                conn.sendall(reply)
                with self._count:
                    self.answered += 1
        except OSError:
            pass  # the client went away: nothing to do
        except Exception:  # a bug here must not end the serve: that hook answers by itself
            log.exception("hook server: a request failed")
        finally:
            self._clients.release()

    def answer(self, data: bytes) -> bytes | None:
        """The answer to one request (`ccarchive.hooks.channel`); None for what is not a
        sound request, which is closed unanswered."""
        got = decode_request(data)
        if isinstance(got, int):
            return version_answer()
        if got is None:
            return None
        event, raw, limit, max_chars = got
        if event not in EVENT_NAMES:
            return None
        for value, (low, high, _default) in ((limit, LIMIT), (max_chars, MAX_CHARS)):
            if not low <= value <= high:
                return None
        stdout, stderr = hook_output(
            event, raw, self._service_for, limit=limit, max_chars=max_chars
        )
        return encode_answer(os.getpid(), stdout, stderr)

    def _service_for(self) -> ArchiveService | None:
        """The hooks' service once the index is complete (as a hook in its own process
        finds it); None while the first build runs."""
        if not complete_index_exists(self.settings.archive_data_dir):
            return None
        return self.service


def _try_lock(folder: Path) -> int | None:
    """An fd of `folder` holding its exclusive flock, or None if another process has it."""
    import fcntl

    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _remove_if_same(path: str, mine: os.stat_result) -> None:
    """Remove the socket this server bound, and nothing put in its place since."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino):
        os.unlink(path)


def _read_request(conn: socket.socket, timeout: float) -> bytes | None:
    """The request's bytes, or None: too large, or too slow (`timeout` for all of it)."""
    got = read_until_closed(conn, time.monotonic() + timeout, MAX_REQUEST)
    return got if isinstance(got, bytes) else None


def start_hook_server(service: ArchiveService, settings: Settings) -> HookServer | None:
    """The hook server of `ccarchive serve`, started; None where there are no Unix
    sockets (the hooks then answer in their own processes)."""
    if not hasattr(socket, "AF_UNIX"):
        return None
    server = HookServer(service, settings).start()
    if threading.current_thread() is threading.main_thread():
        _stop_before_terminating(server)
    return server


def _stop_before_terminating(server: HookServer) -> None:
    """On SIGTERM, stop `server` (its socket removed, the lock released for another
    serve), then let the signal do what it did before. SIGTERM is how a client ends a
    stdio serve and how uvicorn ends an HTTP one (it raises the signal again once it has
    shut down): by default it ends the process without running the serve's `finally`."""
    import signal

    previous = signal.getsignal(signal.SIGTERM)

    def on_terminate(signum: int, frame: object) -> None:
        server.stop()
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, on_terminate)
