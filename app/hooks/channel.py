"""Where `ccarchive-hook` meets the hook server of a running `ccarchive serve`, and what
they say to each other: the standard library alone, because the hook imports it on every
prompt before it knows whether a server answers.

The place is one well-known Unix-domain socket per archive, `<archive data dir>/hook/
socket` (the data dir is ccarchive's, never the archive), in a folder of mode 0700 owned
by the user, the socket itself 0600. A socket path must fit `sun_path` (107 bytes on
Linux, 103 on macOS and the BSDs); when that one is longer, the socket is
`<$XDG_RUNTIME_DIR, else the temp dir>/ccarchive-<uid>-<hash of the archive data dir>/
socket`, under the same rules. Where there is no `AF_UNIX` (Windows) there is no place,
and the hook answers in its own process.

One request per connection. The client sends a line that names the protocol, the event and
the two numbers, then the hook's stdin exactly as Claude Code wrote it, and closes its
side for writing; the server answers with a line that names the protocol, its pid and
the length of the hook's stdout, then that stdout, then the hook's stderr line (UTF-8):

    request   ccarchive-hook/1 UserPromptSubmit 3 1500\n<the event's JSON>
    answer    ccarchive-hook/1 1234 517\n<517 bytes of hook output><stderr line, or nothing>

Plain bytes rather than JSON: the hook then needs no `json` (with the `re` it imports,
~8 ms of a prompt where nothing else loads it), and the event reaches the server's
`hook_output` byte for byte as it would reach the hook's own. The `1` is `PROTOCOL`: a
server that gets another version answers `ccarchive-hook/<its own>\n` alone, and a client
that reads another version ignores the answer, so an old serve and a new hook never
misread each other (the hook then answers in its own process).
"""

from __future__ import annotations

import os
import stat
import sys
import time

from ccarchive.locations import name_digest

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms a prompt)
if TYPE_CHECKING:
    from typing import Any

PROTOCOL = 1
"""The version of the request and the answer; changed whenever either changes."""

MAX_REQUEST = 1 << 20
"""Bytes a request may take (a prompt of about a million characters); the server closes
a connection that sends more, and the hook answers a larger prompt in its own process."""

MAX_ANSWER = 1 << 20
"""Bytes an answer may take (what the hook prints is at most 10,000 characters)."""

MAGIC = b"ccarchive-hook/"
"""How each side's first line begins, the protocol's version after it."""

FOLDER = "hook"
SOCKET = "socket"

MAX_PATH = 103 if sys.platform == "darwin" or "bsd" in sys.platform else 107
"""The longest socket path `bind` and `connect` accept, in bytes (`sun_path` less its NUL)."""


def socket_path(archive_data_dir: str) -> str | None:
    """The hook server's socket for this archive; None where there can be none (no
    `AF_UNIX`, or a path too long even in the short place)."""
    if sys.platform == "win32" or not hasattr(os, "getuid"):
        return None
    path = os.path.join(archive_data_dir, FOLDER, SOCKET)
    if len(os.fsencode(path)) <= MAX_PATH:
        return path
    path = os.path.join(short_base(), short_folder(archive_data_dir), SOCKET)
    return path if len(os.fsencode(path)) <= MAX_PATH else None


def short_base() -> str:
    """Where a socket whose path would be too long goes: the user's runtime dir, else the
    temp dir."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        return runtime
    import tempfile

    return tempfile.gettempdir()


def short_folder(archive_data_dir: str) -> str:
    """The socket's own folder in the short place: the user and the archive in its name."""
    digest = name_digest(os.fsencode(archive_data_dir))[:16]
    return f"ccarchive-{os.getuid()}-{digest}"


def unsafe_folder(path: str) -> str | None:
    """Why the socket's folder may not be used (a link, not a folder, another owner, open
    to others), or None when it is the user's own private folder."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"{path}: {exc.strerror}"
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a folder"
    if st.st_uid != os.getuid():
        return f"{path} belongs to uid {st.st_uid}"
    if st.st_mode & 0o077:
        return f"{path} is open to others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def unsafe_socket(path: str) -> str | None:
    """Why the file at `path` is not a socket of the user's to talk to, or None."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"{path}: {exc.strerror}"
    if not stat.S_ISSOCK(st.st_mode):
        return f"{path} is not a socket"
    if st.st_uid != os.getuid():
        return f"{path} belongs to uid {st.st_uid}"
    return unsafe_folder(os.path.dirname(path))


def peer_uid(sock: Any) -> int | None:
    """The uid of the process at the other end of a Unix socket (Linux's `SO_PEERCRED`:
    three C ints, pid, uid and gid); None where the system does not say."""
    import _socket

    option = getattr(_socket, "SO_PEERCRED", None)
    if option is None:
        return None
    creds = sock.getsockopt(_socket.SOL_SOCKET, option, 12)
    return int.from_bytes(creds[4:8], sys.byteorder, signed=True)


def read_until_closed(sock: Any, deadline: float, cap: int) -> bytes | str:
    """What the other end sends until it closes its side, or why not: more than `cap`
    bytes, or not all of it by `deadline` (`time.monotonic()`). Both ends read this way:
    the server a request, the hook an answer. A socket error raises (`OSError`)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "not in time"
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > cap:
            return f"more than {cap} bytes"
        chunks.append(chunk)


def encode_request(event_name: str, raw: bytes, limit: int, max_chars: int) -> bytes:
    """The request for the event JSON `raw`."""
    return b"%s%d %s %d %d\n%s" % (MAGIC, PROTOCOL, event_name.encode(), limit, max_chars, raw)


def decode_request(data: bytes) -> tuple[str, bytes, int, int] | int | None:
    """(event name, event JSON, limit, max_chars) of a request; its version when it is
    not `PROTOCOL`; None when it is not a request at all."""
    head, newline, raw = data.partition(b"\n")
    parts = head.split(b" ")
    if not newline or not parts[0].startswith(MAGIC):
        return None
    try:
        version = int(parts[0][len(MAGIC) :])
        if version != PROTOCOL:
            return version
        if len(parts) != 4:
            return None
        return parts[1].decode("ascii"), raw, int(parts[2]), int(parts[3])
    except ValueError:  # not a number, not ASCII
        return None


def encode_answer(pid: int, stdout: bytes, stderr: str) -> bytes:
    """The answer: what the hook prints on stdout and on stderr."""
    return b"%s%d %d %d\n%s%s" % (MAGIC, PROTOCOL, pid, len(stdout), stdout, stderr.encode())


def version_answer() -> bytes:
    """The answer to a request of another version: this one's, alone."""
    return b"%s%d\n" % (MAGIC, PROTOCOL)


def decode_answer(data: bytes) -> tuple[int, bytes, str] | str:
    """(server pid, stdout, stderr) of an answer, or why it is not one to use."""
    head, newline, rest = data.partition(b"\n")
    parts = head.split(b" ")
    if not newline or not parts[0].startswith(MAGIC):
        return "the server's answer is not one"
    if parts[0] != b"%s%d" % (MAGIC, PROTOCOL):
        return "the server speaks another protocol version"
    try:
        pid, size = int(parts[1]), int(parts[2])
    except (IndexError, ValueError):
        return "the server's answer is malformed"
    if len(parts) != 3 or not 0 <= size <= len(rest):
        return "the server's answer is malformed"
    return pid, rest[:size], rest[size:].decode("utf-8", "replace")
