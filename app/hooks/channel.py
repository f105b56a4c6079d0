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

One request per connection, each side a JSON object, the client's end marked by closing
its side for writing:

    request   {"v": 1, "event": "UserPromptSubmit", "input": "<the hook's stdin>",
               "limit": 3, "max_chars": 1500}
    answer    {"v": 1, "pid": 1234, "stdout": "<hook output>", "stderr": "<a line or empty>"}

`v` is `PROTOCOL`: a server that gets another version answers `{"v": <its own>}` alone
and a client that reads another version ignores the answer, so an old serve and a new
hook never misread each other (the hook then answers in its own process).
"""

from __future__ import annotations

import os
import stat
import sys

from ccarchive.locations import name_digest

PROTOCOL = 1
"""The version of the request and the answer; changed whenever either changes."""

MAX_REQUEST = 1 << 20
"""Bytes a request may take (a prompt of about a million characters); the server closes
a connection that sends more, and the hook answers a larger prompt in its own process."""

MAX_ANSWER = 1 << 20
"""Bytes an answer may take (what the hook prints is at most 10,000 characters)."""

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


def peer_uid(sock: object) -> int | None:
    """The uid of the process at the other end of a Unix socket (Linux's `SO_PEERCRED`);
    None where the system does not say."""
    import socket

    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or not isinstance(sock, socket.socket):
        return None
    import struct

    size = struct.calcsize("3i")
    _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, option, size))
    return int(uid)
