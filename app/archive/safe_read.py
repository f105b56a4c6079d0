"""Reading a file of the archive back, without ever leaving the archive, in bounded memory.

The index names each source by its path relative to the archive root, and everything
shown in full is read back from that file later, when the file may have changed: replaced
by a symbolic link to a file outside the archive (`/etc/passwd`), its folder replaced by
one, rewritten shorter, or grown to hundreds of megabytes. Every read back goes through
here, and here:

* the path must stay inside the archive: relative, no `..`, no empty part, no NUL;
* the file is opened one path component at a time from the archive root's real path
  (`openat`-style, `dir_fd`), each with `O_NOFOLLOW`: a symbolic link anywhere below the
  root is refused, never followed, and nothing can be swapped between a check and the
  open (the root itself may be a link: `~/.claude` often is);
* it must be a regular file (a FIFO would block, a device never ends) with one link: a
  second name means the same bytes are reachable from outside the archive, and a hard
  link to `/etc/passwd` or `~/.aws/credentials` is what anyone who can write to the
  archive could plant (a symbolic link is refused for the same reason);
* when the caller knows which file it indexed (`identity`: device and inode), the file
  opened must be that one, checked with `fstat` after the open and before any read: a
  file swapped since is read again as new by the indexer, never served as the old one;
* every read is bounded by what the caller shows: a span of bytes the index pointed at,
  checked against the file (inside it, on line boundaries), or a page of text.

A refusal raises `UnsafePath` (an `OSError`, whose message says what was refused and
why, and whose `reason` counts it); a swapped file raises `FileSwapped`; a file that is
gone or changed raises another `OSError`, and callers fall back on the indexed copy.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_WALK = bool(_NOFOLLOW) and os.open in os.supports_dir_fd

PAGE_CHUNK = 1 << 20
"""Bytes decoded at a time when paging through a text."""


# Why a file was refused (`UnsafePath.reason`), as counted by `ccarchive status`.
SYMLINK = "symlink"
HARD_LINK = "hard_link"
NOT_A_FILE = "not_a_file"
OUTSIDE = "outside_archive"
SWAPPED = "swapped"


class UnsafePath(OSError):
    """A read refused because it would leave the archive (or read what is not a file).
    The message is for people: what was refused, and why; `reason` is for counting."""

    reason: str = OUTSIDE

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class FileChanged(OSError):
    """The file no longer holds what the index says it does (shorter, or the span is not
    a line any more): the indexed copy is what there is."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class FileSwapped(OSError):
    """The path now names another file than the one indexed (another device or inode):
    what the index holds of it is not this file's, and this file is not served for it."""

    reason = SWAPPED

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def _refuse(rel: str, why: str, reason: str = OUTSIDE) -> UnsafePath:
    exc = UnsafePath(
        errno.EACCES,
        f"refused to read {rel!r} from the archive: {why}; "
        "ccarchive reads only regular files inside the archive, each with one link",
    )
    exc.reason = reason
    return exc


def _parts(rel: str) -> list[str]:
    parts = rel.split("/")
    if (
        not rel
        or rel.startswith("/")
        or "\x00" in rel
        or "\\" in rel
        or any(p in ("", ".", "..") for p in parts)
    ):
        raise _refuse(rel, "the path leaves the archive or is not a plain relative path")
    return parts


def open_file(
    root: str | os.PathLike[str], rel: str, identity: tuple[int, int] | None = None
) -> int:
    """An fd for reading `root/rel`, a regular file of one link reached without any
    symbolic link, and the file `identity` (device, inode) names when given.

    Raises:
        UnsafePath: a link on the way, a path out of the archive, not a regular file,
            more than one link.
        FileSwapped: another file than `identity`.
        OSError: the file is gone or unreadable.
    """
    parts = _parts(rel)
    top = os.path.realpath(root)
    fd = _open_walk(top, parts, rel) if _WALK else _open_checked(top, parts, rel)
    try:
        check_fd(fd, rel, identity)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_fd(fd: int, rel: str, identity: tuple[int, int] | None = None) -> os.stat_result:
    """What `open_file` checks of the file it opened (for an fd opened otherwise)."""
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(rel, "it is not a regular file", NOT_A_FILE)
    if st.st_nlink > 1:
        raise _refuse(
            rel,
            f"it has {st.st_nlink} hard links (its bytes may be a file's from outside the archive)",
            HARD_LINK,
        )
    if identity is not None and (st.st_dev, st.st_ino) != tuple(identity):
        raise FileSwapped(
            errno.ESTALE,
            f"{rel} is another file than the one indexed "
            "(replaced since): it is indexed again as a new file",
        )
    return st


def _open_walk(top: str, parts: list[str], rel: str) -> int:
    dfd = os.open(top, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (_NONBLOCK if last else _DIRECTORY)
            try:
                fd = os.open(part, flags, dir_fd=dfd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and _is_link(part, dfd):
                    where = "it is" if last else f"its folder {'/'.join(parts[: i + 1])!r} is"
                    raise _refuse(rel, f"{where} a symbolic link", SYMLINK) from None
                raise
            if last:
                return fd
            os.close(dfd)
            dfd = fd
    finally:
        os.close(dfd)
    raise AssertionError("unreachable")  # pragma: no cover


def _is_link(name: str, dfd: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dfd).st_mode)
    except OSError:
        return False


def _open_checked(top: str, parts: list[str], rel: str) -> int:
    """Where `dir_fd` is missing: check every component, then open (a narrow race)."""
    path = top
    for i, part in enumerate(parts):
        path = os.path.join(path, part)
        if os.path.islink(path):
            where = (
                "it is" if i == len(parts) - 1 else f"its folder {'/'.join(parts[: i + 1])!r} is"
            )
            raise _refuse(rel, f"{where} a symbolic link", SYMLINK)
    if os.path.commonpath([os.path.realpath(path), top]) != top:
        raise _refuse(rel, "it resolves outside the archive")
    return os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)


@contextmanager
def archive_file(
    root: str | os.PathLike[str], rel: str, identity: tuple[int, int] | None = None
) -> Iterator[tuple[int, int]]:
    """`(fd, size)` of `root/rel`, opened as `open_file` does, closed on exit."""
    fd = open_file(root, rel, identity)
    try:
        yield fd, os.fstat(fd).st_size
    finally:
        os.close(fd)


def read_line(
    root: str | os.PathLike[str],
    rel: str,
    offset: int,
    length: int,
    identity: tuple[int, int] | None = None,
) -> bytes:
    """The line the index points at (`offset`, `length`), checked against the file: inside
    it, and a whole line (a newline, or the start of the file, before it; a newline, or the
    end of the file, after it).

    Raises:
        UnsafePath: as `open_file`.
        FileChanged: the span is not a line of the file as it is now.
    """
    with archive_file(root, rel, identity) as (fd, _):
        return line_at(fd, rel, offset, length)


def line_at(fd: int, rel: str, offset: int, length: int) -> bytes:
    """`read_line` on a file already opened by `open_file` (to read many lines of it)."""
    if offset < 0 or length <= 0:
        raise FileChanged(errno.EINVAL, f"{rel}: no line at offset {offset}")
    size = os.fstat(fd).st_size
    if offset + length > size:
        raise FileChanged(errno.EINVAL, f"{rel} is shorter than when it was indexed")
    start = max(0, offset - 1)
    raw = os.pread(fd, offset + length + 1 - start, start)
    if offset and raw[:1] != b"\n":
        raise FileChanged(errno.EINVAL, f"{rel}: offset {offset} is not a line start now")
    line = raw[offset - start : offset - start + length]
    after = raw[offset - start + length :]
    if after not in (b"", b"\n") or len(line) != length or b"\n" in line:
        raise FileChanged(errno.EINVAL, f"{rel}: the line at {offset} has changed")
    return line


def fingerprint(fd: int, length: int, start: int = 0) -> str:
    """A short hash of `length` bytes of an open file from `start` ("" for none): how the
    indexer tells a file rewritten in place from one appended to."""
    if length <= 0:
        return ""
    import hashlib

    return hashlib.blake2b(os.pread(fd, length, start), digest_size=8).hexdigest()


def read_text_page(
    root: str | os.PathLike[str],
    rel: str,
    char_offset: int,
    max_chars: int,
    identity: tuple[int, int] | None = None,
) -> tuple[str, bool, int]:
    """Characters [char_offset, char_offset + max_chars) of a UTF-8 text file (invalid
    bytes replaced, a byte order mark left out), whether more follow, and the file's size
    in bytes.

    Memory is bounded by `max_chars` and `PAGE_CHUNK` whatever the file's size: the text is
    decoded a chunk at a time, and what comes before the page is counted, not kept.
    """
    if char_offset < 0 or max_chars < 0:
        raise ValueError("char_offset and max_chars must be 0 or more")
    decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    skip = char_offset
    kept: list[str] = []
    want = max_chars
    more = False
    with archive_file(root, rel, identity) as (fd, size):
        pos = 0
        while True:
            chunk = os.pread(fd, PAGE_CHUNK, pos)
            pos += len(chunk)
            text = decoder.decode(chunk, final=not chunk)
            if skip:
                cut = min(skip, len(text))
                text, skip = text[cut:], skip - cut
            if text and want <= 0:
                more = True
                break
            if text:
                kept.append(text[:want])
                if len(text) > want:
                    more = True
                    break
                want -= len(text)
            if not chunk:
                break
    return "".join(kept), more, size


def text_head_tail(
    root: str | os.PathLike[str],
    rel: str,
    head_chars: int,
    tail_chars: int,
    identity: tuple[int, int] | None = None,
) -> tuple[str, str, int, int]:
    """(head, tail, length in characters, size in bytes) of a UTF-8 text file, read in
    bounded memory: for indexing a whole file by its head and tail (as `cap` keeps them).
    `tail` is "" when the head holds the whole text. Opened as `open_file` does; a byte
    order mark is not text.
    """
    with archive_file(root, rel, identity) as (fd, _):
        return fd_head_tail(fd, head_chars, tail_chars)


def fd_head_tail(fd: int, head_chars: int, tail_chars: int) -> tuple[str, str, int, int]:
    """`text_head_tail` of a file already opened (and checked) by `open_file`."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
    head: list[str] = []
    head_len = 0
    tail = ""
    total = 0
    pos = 0
    while True:
        chunk = os.pread(fd, PAGE_CHUNK, pos)
        pos += len(chunk)
        text = decoder.decode(chunk, final=not chunk)
        total += len(text)
        if head_len < head_chars:
            piece = text[: head_chars - head_len]
            head.append(piece)
            head_len += len(piece)
        if tail_chars and text:
            tail = (tail + text)[-tail_chars:]
        if not chunk:
            break
    return "".join(head), tail if total > head_chars else "", total, pos


def root_of(path: str | os.PathLike[str], rel: str) -> Path:
    """The archive root of a source file known by its full path and its `rel`."""
    return Path(path).parents[rel.count("/")]
