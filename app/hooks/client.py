"""The hook's question to the hook server of a running `ccarchive serve`.

A hook process that searched the index itself would spend most of its time before the
search: starting the interpreter, importing the service and Tantivy, opening the index
(~120 ms of a ~200 ms run on a 300 MB archive). `ccarchive serve` already holds all of
that, warm and kept current, for the whole Claude Code session; so the hook sends it the
event and prints what comes back. This module imports next to nothing: the interpreter's
own `_socket` rather than `socket` (whose enums and selectors cost a prompt ~4 ms), and
only once a socket file is there to connect to; the protocol is plain bytes
(`ccarchive.hooks.channel`), no `json`.

Anything short of a well-formed answer in time (no server, a stale socket, a folder or
socket that is not the user's own, a server of another uid, another protocol version, a
timeout) is a reason, and the hook then answers in its own process as it would without
a server (`ccarchive.hooks.main`).
"""

from __future__ import annotations

import os
import time

from ccarchive.hooks.channel import (
    MAX_ANSWER,
    MAX_REQUEST,
    decode_answer,
    encode_request,
    peer_uid,
    read_until_closed,
    socket_path,
    unsafe_socket,
)

CONNECT_TIMEOUT = 0.05
"""Seconds to reach the server: a Unix socket is accepted or refused at once."""

ANSWER_TIMEOUT = 1.5
"""Seconds, from the connection, for the whole answer (Claude Code gives the hook 5 s,
and the hook still has its own way after this)."""


class Answer:
    """What the server printed for the event, and which server it was."""

    __slots__ = ("pid", "stderr", "stdout")

    def __init__(self, stdout: bytes, stderr: str, pid: int) -> None:
        self.stdout, self.stderr, self.pid = stdout, stderr, pid


def ask_server(
    archive_data_dir: str, event_name: str, raw: bytes, *, limit: int, max_chars: int
) -> Answer | str:
    """The hook server's answer to the event JSON `raw`, or why there is none."""
    path = socket_path(archive_data_dir)
    if path is None:
        return "no Unix socket here"
    why = unsafe_socket(path)
    if why is not None:
        return why
    data = encode_request(event_name, raw, limit, max_chars)
    if len(data) > MAX_REQUEST:
        return "the event is too large for the server"
    try:
        got = _exchange(path, data)
    except OSError as exc:  # refused (a stale socket), reset, timed out
        return f"the server at {path}: {exc.strerror or type(exc).__name__}"
    if isinstance(got, str):
        return got
    answer = decode_answer(got)
    if isinstance(answer, str):
        return answer
    pid, stdout, stderr = answer
    return Answer(stdout, stderr, pid)


def _exchange(path: str, data: bytes) -> bytes | str:
    """Send `data` to the socket at `path`, and read until the server closes."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        uid = peer_uid(sock)
        if uid is not None and uid != os.getuid():
            return f"the server runs as uid {uid}"
        deadline = time.monotonic() + ANSWER_TIMEOUT
        sock.settimeout(ANSWER_TIMEOUT)
        sock.sendall(data)
        sock.shutdown(_socket.SHUT_WR)
        got = read_until_closed(sock, deadline, MAX_ANSWER)
        return got if isinstance(got, bytes) else f"the server's answer: {got}"
    finally:
        sock.close()
