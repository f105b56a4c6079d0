"""The hook server of `ccarchive serve` (`ccarchive.hooks.server`) and the hook's way to it
(`ccarchive.hooks.client`): a hook answered by a running serve says exactly what it would
say in its own process, loads neither the service nor Tantivy, and anything short of a
sound server of the user's own (none, stale, planted, another uid, another version, too
slow) leaves the hook to answer in its own process; the server survives what a client
sends it."""

from __future__ import annotations

import argparse
import json
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from ccarchive.config import Settings
from ccarchive.hooks.channel import (
    MAX_REQUEST,
    decode_answer,
    encode_request,
    socket_path,
    version_answer,
)
from ccarchive.hooks.client import Answer, ask_server
from ccarchive.hooks.context import hook_output
from ccarchive.hooks.main import EVENTS, _quick, existing_service, parser
from ccarchive.hooks.server import MAX_CLIENTS, HookServer
from tests.conftest import free_port, serve_env
from tests.support.serve_process import CCARCHIVE, indexed_copy, stdio_params

BIN = Path(sys.executable).parent
HOOK = str(BIN / "ccarchive-hook")
ME = "11111111-2222-3333-4444-555555555555"


@pytest.fixture(scope="module")
def indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The demo archive indexed in a data dir of its own (the socket goes there)."""
    data = indexed_copy(demo_archive_ro, tmp_path_factory.mktemp("hook-server"), tmp_path_factory)
    return Settings(demo_archive_ro.resolve(), data.resolve(), semantic=False)


@pytest.fixture(scope="module")
def local(indexed: Settings) -> Any:
    """A service over the index, as a hook in its own process opens it."""
    service = existing_service(indexed)
    assert service is not None
    return service


def _events(service: Any) -> list[tuple[str, dict[str, Any]]]:
    """Events of each kind: a question the past answers, an unrelated one, a request for
    new work (quiet), and the session start in a project."""
    flaky = next(s for s in service.sessions(limit=50).sessions if "flaky" in s.title.lower())
    base = {"session_id": ME, "cwd": flaky.project}
    return [
        ("UserPromptSubmit", {**base, "prompt": "which flaky test was expiring?"}),
        ("UserPromptSubmit", {**base, "prompt": "how long should I boil an egg for a runny yolk"}),
        ("UserPromptSubmit", {**base, "prompt": "add pagination to the users list endpoint"}),
        ("SessionStart", {**base, "source": "startup"}),
    ]


def _expected(local: Any, event_name: str, raw: bytes, limit: int = 3, chars: int = 1500) -> bytes:
    """What the hook prints in its own process for this event."""
    out, err = hook_output(event_name, raw, lambda: local, limit=limit, max_chars=chars)
    assert err == ""
    return out


def _ask(settings: Settings, event_name: str, raw: bytes) -> Answer | str:
    return ask_server(str(settings.archive_data_dir), event_name, raw, limit=3, max_chars=1500)


@contextmanager
def _server(local: Any, settings: Settings, **options: Any) -> Iterator[HookServer]:
    server = HookServer(local, settings, **options).start()
    try:
        yield server
    finally:
        server.stop()


def _hook(
    args: list[str], event_name: str, event: Any, *python: str
) -> subprocess.CompletedProcess[bytes]:
    """The installed `ccarchive-hook` as Claude Code runs it, saying who answered."""
    name = next(k for k, v in EVENTS.items() if v == event_name)
    stdin = event if isinstance(event, bytes) else json.dumps(event).encode()
    return subprocess.run(
        [*python, HOOK, name, *args],
        input=stdin,
        capture_output=True,
        timeout=30,
        env={**os.environ, "CCARCHIVE_HOOK_TRACE": "1"},
    )


def _args(settings: Settings) -> list[str]:
    return ["--archive", str(settings.archive_root), "--data-dir", str(settings.data_dir)]


def _imported(stderr: bytes) -> set[str]:
    lines = stderr.decode().splitlines()
    return {ln.rsplit("|", 1)[1].strip() for ln in lines if ln.startswith("import time:")}


# ---- through a real `ccarchive serve` ---------------------------------------------------
def _answered_by(settings: Settings, local: Any, not_by: int = 0) -> int:
    """The pid of the serve that answers the hook (other than `not_by`), waited for; its
    answer checked against the hook's own."""
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    deadline = time.monotonic() + 30
    while True:
        answer = _ask(settings, event_name, raw)
        if isinstance(answer, Answer) and answer.pid != not_by:
            assert answer.stdout == _expected(local, event_name, raw) != b""
            return answer.pid
        assert time.monotonic() < deadline, answer
        time.sleep(0.02)


async def test_serves_answer_the_hook_as_it_would_and_hand_the_socket_over(
    indexed: Settings, local: Any
) -> None:
    """Real serves and the real hook process. A `ccarchive serve --no-redact` over stdio
    (the MCP SDK's client): for every event the very bytes (and stderr line) the hook
    prints in its own process, answered by that serve, redacted although the serve is
    not; the hook's fast path imports neither the service, nor Tantivy, nor the
    settings; garbage and a client that never finishes cost MCP nothing. A second serve,
    over HTTP, waits while the first answers and takes over when it exits; ended by
    SIGTERM (as uvicorn and stdio clients end a serve), it removes the socket, and the
    hook answers alone again, the same bytes."""
    params = stdio_params("--no-redact", *_args(indexed))
    path = str(socket_path(str(indexed.archive_data_dir)))
    second = None
    try:
        async with Client(params) as c:
            first = _answered_by(indexed, local)
            second = subprocess.Popen(
                [CCARCHIVE, "serve", "--http", "--port", str(free_port()), "--read-only"]
                + _args(indexed),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=serve_env(),
            )
            spoke = 0
            for event_name, event in _events(local):
                raw = json.dumps(event).encode()
                proc = _hook(_args(indexed), event_name, raw)
                assert proc.returncode == 0
                assert proc.stdout == _expected(local, event_name, raw), event
                trace = proc.stderr.decode()
                assert f"answered by the hook server of ccarchive serve (pid {first})" in trace
                spoke += bool(proc.stdout)
            assert spoke == 2
            bad = b"not json \xff"  # said alike too: the same line on stderr
            proc = _hook(_args(indexed), "UserPromptSubmit", bad)
            out, err = hook_output("UserPromptSubmit", bad, lambda: local, limit=3, max_chars=1500)
            assert proc.returncode == 0 and proc.stdout == out == b"" and err
            trace, *said = proc.stderr.decode().splitlines()
            assert trace.startswith("ccarchive-hook: answered by the hook server"), trace
            assert said == [err]
            fast = _hook(
                _args(indexed), *_events(local)[0], sys.executable, "-X", "importtime"
            )  # the hook's fast path, through the server
            assert fast.stdout and b"answered by the hook server" in fast.stderr
            heavy = {"tantivy", "orjson", "ccarchive.service", "ccarchive.config", "argparse"}
            assert not heavy & _imported(fast.stderr), sorted(heavy & _imported(fast.stderr))
            # a client that sends garbage, and one that never finishes, cost MCP nothing
            with socket.socket(socket.AF_UNIX) as slow:
                slow.connect(path)
                slow.sendall(b"ccarchive-hook/1 UserPromptSubmit")
                assert _send(path, b"\x00garbage\xff" * 1000) == b""
                found = await c.call_tool("search", {"query": "flaky expiring"})
                assert not found.is_error and found.structured_content
            assert second.poll() is None and _answered_by(indexed, local) == first
        # the first serve is gone (its client closed its stdin): the second takes over
        assert _answered_by(indexed, local, not_by=first) == second.pid
        second.terminate()
        assert second.wait(10) != 0  # ended by the signal, as it always was
        assert not os.path.exists(path)
    finally:
        if second is not None and second.poll() is None:
            second.kill()
            second.wait(10)
    proc = _hook(_args(indexed), *_events(local)[0])
    assert b"answered in this process" in proc.stderr
    assert proc.stdout == _expected(
        local, "UserPromptSubmit", json.dumps(_events(local)[0][1]).encode()
    )


# ---- the server in this process: its socket, its owner, what it survives --------------
def test_the_socket_is_private_and_removed_when_the_server_stops(
    indexed: Settings, local: Any
) -> None:
    with _server(local, indexed) as server:
        assert server.owner.wait(5)
        path = Path(str(server.path))
        assert path.parent == indexed.archive_data_dir / "hook"
        sock, folder = path.lstat(), path.parent.lstat()
        assert stat.S_ISSOCK(sock.st_mode) and stat.S_IMODE(sock.st_mode) == 0o600
        assert stat.S_ISDIR(folder.st_mode) and stat.S_IMODE(folder.st_mode) == 0o700
        assert sock.st_uid == folder.st_uid == os.getuid()
        assert not Path(indexed.archive_root, "hook").exists()  # never in the archive
        event_name, event = _events(local)[0]
        raw = json.dumps(event).encode()
        answer = _ask(indexed, event_name, raw)
        assert isinstance(answer, Answer) and answer.pid == os.getpid()
        assert answer.stdout == _expected(local, event_name, raw) != b""
        assert server.answered == 1
    assert not path.exists()
    assert "No such file" in str(_ask(indexed, event_name, raw))


def test_two_servers_one_answers_and_the_other_takes_over(indexed: Settings, local: Any) -> None:
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    first = HookServer(local, indexed, retry=0.02).start()
    try:
        assert first.owner.wait(5)
        with _server(local, indexed, retry=0.02) as second:
            assert isinstance(_ask(indexed, event_name, raw), Answer)
            assert (first.answered, second.answered) == (1, 0)
            assert not second.owner.is_set()
            first.stop()
            assert second.owner.wait(5)
            assert isinstance(_ask(indexed, event_name, raw), Answer)
            assert (first.answered, second.answered) == (1, 1)
    finally:
        first.stop()


def test_a_stale_socket_is_replaced(indexed: Settings, local: Any) -> None:
    """A socket file left by a serve that died (nothing listens: connection refused)."""
    path = str(socket_path(str(indexed.archive_data_dir)))
    Path(path).parent.mkdir(mode=0o700, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(path)
    dead.close()
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    assert "refused" in str(_ask(indexed, event_name, raw))
    with _server(local, indexed) as server:
        assert server.owner.wait(5)
        assert isinstance(_ask(indexed, event_name, raw), Answer)
    assert not Path(path).exists()


def _wait_for_log(caplog: pytest.LogCaptureFixture, text: str) -> None:
    """Wait until a server says `text` in its log: it tried, and refused."""
    deadline = time.monotonic() + 10
    while text not in caplog.text:
        assert time.monotonic() < deadline, caplog.text
        time.sleep(0.01)


def test_a_planted_link_is_neither_followed_nor_removed(
    indexed: Settings, local: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A symbolic link at the socket's place, to a file or to a live socket elsewhere:
    the server leaves it and its target alone and does not serve; the hook does not
    connect through it (it answers in its own process)."""
    path = Path(str(socket_path(str(indexed.archive_data_dir))))
    path.parent.mkdir(mode=0o700, exist_ok=True)
    target = tmp_path / "precious"
    target.write_text("keep me")
    elsewhere = socket.socket(socket.AF_UNIX)
    elsewhere.bind(str(tmp_path / "s"))
    elsewhere.listen(1)
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    try:
        for pointed in (target, tmp_path / "s"):
            path.symlink_to(pointed)
            try:
                caplog.clear()
                server = HookServer(local, indexed, retry=0.02).start()
                _wait_for_log(caplog, "is not a socket (left as it is")
                server.stop()
                assert not server.owner.is_set()
                assert path.is_symlink() and os.readlink(path) == str(pointed)
                assert "not a socket" in str(_ask(indexed, event_name, raw))
            finally:
                path.unlink()
        assert target.read_text() == "keep me"
        elsewhere.settimeout(0.1)
        with pytest.raises(TimeoutError):
            elsewhere.accept()  # nobody connected through the link
    finally:
        elsewhere.close()


def test_a_folder_open_to_others_is_not_used(
    indexed: Settings, local: Any, caplog: pytest.LogCaptureFixture
) -> None:
    folder = indexed.archive_data_dir / "hook"
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    with _server(local, indexed) as server:
        assert server.owner.wait(5)
        folder.chmod(0o755)
        try:
            assert "open to others" in str(_ask(indexed, event_name, raw))
        finally:
            folder.chmod(0o700)
        assert isinstance(_ask(indexed, event_name, raw), Answer)
    folder.chmod(0o711)
    try:  # and a server does not serve there either
        server = HookServer(local, indexed).start()
        _wait_for_log(caplog, "is open to others (mode 711)")
        server.stop()
        assert not server.owner.is_set()
    finally:
        folder.chmod(0o700)


def _send(path: str, data: bytes, *, close_write: bool = True) -> bytes:
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(path)
        try:
            s.sendall(data)
            if close_write:
                s.shutdown(socket.SHUT_WR)
            return s.recv(1 << 20)
        except (BrokenPipeError, ConnectionResetError):
            return b""


def test_bad_requests_are_closed_and_good_ones_still_answered(
    indexed: Settings, local: Any
) -> None:
    """Garbage, a request too large, another protocol version, wrong fields, a client that
    never finishes, too many at once: each closed (or told the version) without an answer,
    while a sound request at the same time is answered."""
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    with _server(local, indexed, request_timeout=0.3) as server:
        assert server.owner.wait(5)
        path = str(server.path)
        slow = socket.socket(socket.AF_UNIX)
        slow.connect(path)
        slow.sendall(b"ccarchive-hook/1 UserPromptSubmit 3 ")  # and then nothing
        assert _send(path, b"not a request at all") == b""
        assert _send(path, b"\x00\xff" * 1000) == b""
        assert _send(path, b'{"v": 1}\n' + raw) == b""
        assert _send(path, b"x" * (MAX_REQUEST + 10)) == b""
        assert _send(path, encode_request(event_name, raw * 50_000, 3, 1500)) == b""
        assert _send(path, b"ccarchive-hook/9 Anything at all\n") == version_answer()
        for wrong in (
            b"ccarchive-hook/1 PreToolUse 3 1500\n",
            b"ccarchive-hook/1 UserPromptSubmit 3\n",
            b"ccarchive-hook/1 UserPromptSubmit 0 1500\n",
            b"ccarchive-hook/1 UserPromptSubmit 3 100000000\n",
            b"ccarchive-hook/1 UserPromptSubmit three 1500\n",
            b"ccarchive-hook/1 UserPromptSubm\xc3\xa9t 3 1500\n",
            b"ccarchive-hook/x UserPromptSubmit 3 1500\n",
        ):
            assert _send(path, wrong + raw) == b"", wrong
        sound = decode_answer(_send(path, encode_request(event_name, raw, 3, 1500)))
        assert not isinstance(sound, str) and sound[1] == _expected(local, event_name, raw) != b""
        slow.settimeout(2)
        assert slow.recv(100) == b""  # closed when its time ran out
        slow.close()
    # the crowd holds its places for 30 s, not 0.3 (a loaded machine once let them time
    # out before the next client came, and that client was answered)
    with _server(local, indexed, request_timeout=30) as server:
        assert server.owner.wait(5)
        path = str(server.path)
        crowd = [socket.socket(socket.AF_UNIX) for _ in range(MAX_CLIENTS + 2)]
        for s in crowd:
            s.connect(path)
        time.sleep(0.05)
        assert not isinstance(_ask(indexed, event_name, raw), Answer)  # turned away
        for s in crowd:
            s.close()
        deadline = time.monotonic() + 10  # their threads see the end, free their places
        while not isinstance(answer := _ask(indexed, event_name, raw), Answer):
            assert time.monotonic() < deadline, answer
            time.sleep(0.05)
        assert server.answered >= 1


def test_the_server_redacts_and_never_ranks_by_meaning(
    demo_archive_ro: Path, indexed: Settings
) -> None:
    """Its own service over the serve's index: redacted and words-only, whatever the
    serve's switches (`serve --no-redact --semantic`), which stay as they were."""
    from dataclasses import replace

    from ccarchive.service import open_service

    served = open_service(indexed, redact_secrets=False)
    server = HookServer(served, replace(indexed, semantic=True))
    assert server.service.redact_secrets and server.service.semantic is None
    assert served.redact_secrets is False
    assert server.service.store is served.store


def test_an_old_server_is_not_misread(indexed: Settings, local: Any) -> None:
    """A serve speaking another protocol version at the socket: the real hook process
    answers in its own process, the same bytes."""
    path = str(socket_path(str(indexed.archive_data_dir)))
    Path(path).parent.mkdir(mode=0o700, exist_ok=True)
    old = socket.socket(socket.AF_UNIX)
    old.bind(path)
    old.listen(4)

    def answer_as_an_old_server() -> None:
        conn, _ = old.accept()
        with conn:
            conn.recv(1 << 20)
            conn.sendall(b"ccarchive-hook/0 1 14\nsomething else")

    thread = threading.Thread(target=answer_as_an_old_server, daemon=True)
    thread.start()
    try:
        event_name, event = _events(local)[0]
        raw = json.dumps(event).encode()
        proc = _hook(_args(indexed), event_name, raw)
        assert b"another protocol version" in proc.stderr, proc.stderr
        assert proc.stdout == _expected(local, event_name, raw)
    finally:
        thread.join(5)
        old.close()
        os.unlink(path)


def _as_nobody(path: str, request: bytes) -> str:
    """What another user (nobody, 65534) gets asking the socket: an error's name, or
    the bytes it read. A forked child that drops root (no interpreter to exec: the
    venv may be where nobody can read)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        out = "?"
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX)
            s.settimeout(3)
            try:
                s.connect(path)
                s.sendall(request)
                s.shutdown(socket.SHUT_WR)
                out = repr(s.recv(1 << 20))
            except OSError as exc:
                out = type(exc).__name__
            os.write(w, out.encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        got = f.read().decode()
    os.waitpid(pid, 0)
    return got


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another uid needs root")
def test_another_user_cannot_ask(
    indexed: Settings, local: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Another uid is stopped by the folder's mode; with the folder and the socket opened
    to everyone, the server still refuses it (its uid, from SO_PEERCRED)."""
    event_name, event = _events(local)[0]
    request = encode_request(event_name, json.dumps(event).encode(), 3, 1500)
    with _server(local, indexed) as server:
        assert server.owner.wait(5)
        path = str(server.path)
        assert _as_nobody(path, request) == "PermissionError"
        # nobody may pass through every folder down to the socket, and write to it
        modes = {d: stat.S_IMODE(d.stat().st_mode) for d in Path(path).parents}
        for d, mode in modes.items():
            d.chmod(mode | 0o011)
        os.chmod(path, 0o666)
        try:
            # it reached the server, which closed it unanswered
            assert _as_nobody(path, request) in ("b''", "ConnectionResetError", "BrokenPipeError")
        finally:
            os.chmod(path, 0o600)
            for d, mode in modes.items():
                d.chmod(mode)
        assert server.answered == 0
        assert "refused a client of uid 65534" in caplog.text
        assert isinstance(_ask(indexed, event_name, json.dumps(event).encode()), Answer)


def test_a_long_data_dir_puts_the_socket_in_a_short_private_place(
    indexed: Settings, tmp_path: Path, local: Any
) -> None:
    """A socket path longer than `sun_path` takes: the socket goes to the runtime (or
    temp) dir, in a private folder named for the user and the archive's data dir, and
    the hook finds it there."""
    data = tmp_path / ("d" * 60) / ("e" * 60)
    data.parent.mkdir()
    data.symlink_to(indexed.data_dir)  # the same index, by a long name
    settings = Settings(indexed.archive_root, data, semantic=False)
    path = socket_path(str(settings.archive_data_dir))
    assert path is not None and len(path) <= 107
    assert f"ccarchive-{os.getuid()}-" in path and not path.startswith(str(data))
    event_name, event = _events(local)[0]
    raw = json.dumps(event).encode()
    with _server(local, settings) as server:
        assert server.owner.wait(5)
        folder = Path(path).parent.lstat()
        assert stat.S_IMODE(folder.st_mode) == 0o700 and folder.st_uid == os.getuid()
        answer = ask_server(
            str(settings.archive_data_dir), event_name, raw, limit=3, max_chars=1500
        )
        assert isinstance(answer, Answer) and answer.stdout == _expected(local, event_name, raw)
    assert not Path(path).exists()
    os.rmdir(Path(path).parent)


# ---- the hook's command line without argparse ----------------------------------------
_token = st.sampled_from(
    [
        "user-prompt-submit",
        "session-start",
        "--archive",
        "--data-dir",
        "--limit",
        "--max-chars",
        "--limit=3",
        "--max-chars=200",
        "--max-chars=10001",
        "--lim",
        "-h",
        "--",
        "3",
        "0",
        "11",
        "x",
        "/tmp/a",
        "-1",
        "--archive=/x",
        "--data-dir=",
        " 7",
        "1_0",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_token, max_size=7))
def test_the_plain_command_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    """Whatever the quick reader accepts, argparse reads the same way; everything else is
    left to argparse (which reads it or says what is wrong)."""
    quick = _quick(argv)
    if quick is None:
        return
    try:
        args = parser().parse_args(argv)
    except SystemExit:
        raise AssertionError(f"argparse refuses {argv}, the quick reader took it") from None
    assert isinstance(args, argparse.Namespace)
    got = (quick.event, quick.archive, quick.data_dir, quick.limit, quick.max_chars)
    assert got == (args.event, args.archive, args.data_dir, args.limit, args.max_chars)


def test_the_plugins_command_line_is_read_quickly() -> None:
    for argv in (["user-prompt-submit"], ["session-start", "--limit", "2", "--max-chars=900"]):
        assert _quick(argv) is not None


# ---- the hook and the serve find the same folder --------------------------------------
@pytest.mark.parametrize(
    ("archive", "data", "env"),
    [
        (None, None, {}),
        (None, None, {"CLAUDE_CONFIG_DIR": "~/elsewhere/claude", "CCARCHIVE_HOME": "~/d"}),
        (None, None, {"XDG_CACHE_HOME": "rel/cache"}),
        ("~/x/../claude", "data/./here", {}),
        ("/", "link/data", {}),
    ],
)
def test_the_hook_finds_the_folder_the_serve_uses(
    archive: str | None,
    data: str | None,
    env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`ccarchive.locations` (all the hook imports) gives the folder `Settings` gives the
    serve, and the folder's name is the one indexes have always had (a SHA-1 of the
    resolved archive path): given paths, the environment, `~`, relative paths, links."""
    import hashlib

    from ccarchive.locations import archive_data_dir, resolve_places

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("CLAUDE_CONFIG_DIR", "CCARCHIVE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    settings = Settings.resolve(archive, data)
    root, data_dir = resolve_places(archive, data)
    assert Path(archive_data_dir(root, data_dir)) == settings.archive_data_dir
    digest = hashlib.sha1(str(settings.archive_root).encode()).hexdigest()[:10]
    assert settings.archive_key == f"{settings.archive_root.name or 'root'}-{digest}"
    assert "link" not in str(settings.data_dir)
