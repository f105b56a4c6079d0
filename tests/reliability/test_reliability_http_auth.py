"""Promise: loopback is not a trust boundary, and no client can hold the server.

A real `ccarchive serve --http` on a loopback port:

* with no token given, it makes one (the data dir's `http-token`, mode 0600) and prints
  the `claude mcp add ... --header "Authorization: Bearer ..."` line to use; another local
  user (uid 65534, through `setpriv`) gets 401 and cannot read the token file; the same
  user is answered when the server was started with `--no-auth`, so the 401 is the token's
  doing;
* links planted at the token file's name are refused, never followed;
* under a slowloris (more slow sockets than the process has file descriptors) real
  requests are still answered, and the log stays small.
"""

from __future__ import annotations

import asyncio
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from ccarchive.cli.http_guard import http_token
from tests.conftest import free_port
from tests.reliability.http_flood import flood
from tests.support.serve_process import indexed_copy, serving_http

CCARCHIVE = str(Path(sys.executable).with_name("ccarchive"))
NOBODY = 65534
CLIENT = """
import json, sys, urllib.request, urllib.error
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "other-user", "version": "0"}}}).encode()
req = urllib.request.Request(sys.argv[1], data=body, headers={
    "content-type": "application/json", "accept": "application/json, text/event-stream"})
try:
    print(urllib.request.urlopen(req, timeout=20).status)
except urllib.error.HTTPError as e:
    print(e.code)
"""


@pytest.fixture(scope="module")
def indexed(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return indexed_copy(demo_archive_ro, tmp_path_factory.mktemp("auth") / "data", tmp_path_factory)


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "CCARCHIVE_TOKEN"}


def _serve(
    archive: Path, data: Path, log: Path, *options: str, nofile: int | None = None
) -> AbstractContextManager[tuple[str, subprocess.Popen[bytes]]]:
    """A read-only `serve --http` without the tests' token (it makes its own), with at
    most `nofile` file descriptors if given."""

    def limit() -> None:
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return serving_http(
        "--read-only",
        "--archive",
        str(archive),
        "--data-dir",
        str(data),
        *options,
        log=log,
        env=_env(),
        preexec_fn=limit,
    )


def _as_nobody(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["setpriv", "--reuid", str(NOBODY), "--regid", str(NOBODY), "--clear-groups", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("setpriv"),
    reason="runs a client as another user (root and setpriv)",
)


@pytest.mark.long
@needs_root
def test_another_local_user_gets_401_and_cannot_read_the_token(
    demo_archive_ro: Path, indexed: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two serves (the token's, then `--no-auth`); the token kept is read back by
    `http_token`, which a serve calls to get it. A third serve that prints the kept token
    again is `test_a_second_start_prints_the_same_token`, in the slow tier."""
    data, token = _another_local_user(demo_archive_ro, indexed, tmp_path, request)
    assert http_token(data) == (token, data / "http-token")


@pytest.mark.slow
@needs_root
def test_a_second_start_prints_the_same_token(
    demo_archive_ro: Path, indexed: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """`test_another_local_user_gets_401_and_cannot_read_the_token` with a serve more (~2
    CPU-s), started again on its data dir: it prints the same token."""
    data, token = _another_local_user(demo_archive_ro, indexed, tmp_path, request)
    with _serve(demo_archive_ro, data, tmp_path / "again.log"):
        assert token in (tmp_path / "again.log").read_text()


def _another_local_user(
    demo_archive_ro: Path, indexed: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> tuple[Path, str]:
    """A serve with no token given makes one, private, and prints the line to add it;
    another local user gets 401 and cannot read it, and is answered by a `--no-auth`
    serve. The data dir and the token."""
    # the other user may walk to the data dir, as to ~/.cache (pytest's own temp folders
    # are closed to others, which would make the token file's mode beside the point)
    data = Path(tempfile.mkdtemp(prefix="ccarchive-auth-"))
    request.addfinalizer(lambda: shutil.rmtree(data, ignore_errors=True))
    shutil.copytree(indexed, data, dirs_exist_ok=True)
    os.chmod(data, 0o755)
    (data / "readable").write_text("anyone\n")
    (data / "readable").chmod(0o644)
    python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
    assert _as_nobody("cat", str(data / "readable")).stdout == "anyone\n"  # it can walk there
    with _serve(demo_archive_ro, data, tmp_path / "serve.log") as (url, _):
        token_file = data / "http-token"
        mode = stat.S_IMODE(token_file.stat().st_mode)
        token = token_file.read_text().strip()
        printed = (tmp_path / "serve.log").read_text()
        assert mode == 0o600 and len(token) >= 32
        assert (
            f"claude mcp add --transport http ccarchive {url} --header "
            f'"Authorization: Bearer {token}"'
        ) in printed
        other = _as_nobody(python, "-c", CLIENT, url)
        assert other.stdout.strip() == "401", other.stderr
        peek = _as_nobody("cat", str(token_file))
        assert peek.returncode != 0 and token not in peek.stdout
    with _serve(demo_archive_ro, data, tmp_path / "open.log", "--no-auth") as (url, _):
        other = _as_nobody(python, "-c", CLIENT, url)
        assert other.stdout.strip() == "200", other.stderr  # the 401 was the token's doing
    return data, token


@pytest.mark.parametrize("planted", ["symlink", "hard_link", "loose_mode"])
def test_a_token_file_that_is_not_ours_is_refused(
    demo_archive_ro: Path, tmp_path: Path, planted: str
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    known = tmp_path / "known-token"
    known.write_text("attacker-chosen-token-0123456789\n")
    known.chmod(0o600)
    token_file = data / "http-token"
    if planted == "symlink":
        token_file.symlink_to(known)
    elif planted == "hard_link":
        os.link(known, token_file)
    else:
        shutil.copy(known, token_file)
        token_file.chmod(0o644)
    run = subprocess.run(
        [
            CCARCHIVE,
            "serve",
            "--http",
            "--port",
            str(free_port()),
            "--archive",
            str(demo_archive_ro),
            "--data-dir",
            str(data),
        ],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert re.search(
        r"refused the token file .*http-token: (it is a symbolic link|it has 2"
        r" links|others can read)",
        run.stderr,
    ), run.stderr
    assert known.read_text() == "attacker-chosen-token-0123456789\n"


@pytest.mark.long
def test_real_requests_are_answered_during_a_slowloris(
    demo_archive_ro: Path, indexed: Path, tmp_path: Path
) -> None:
    """300 slow sockets against a server with 256 file descriptors, for 3 seconds: the
    server keeps a bounded number of connections, closing the slowest to admit the new;
    then 20, as many as it holds: it cuts the requests that take more than
    --request-timeout (1 s) to arrive."""
    log = tmp_path / "serve.log"
    with _serve(demo_archive_ro, indexed, log, "--request-timeout", "1", nofile=256) as (url, proc):
        token = (indexed / "http-token").read_text().strip()
        res = asyncio.run(flood(url, token, seconds=3, sockets=300))
        assert proc.poll() is None, "the server died"
        print(f"\n{res}; log {log.stat().st_size} bytes")
        assert res.opened > 300  # the flood got in, was cut, came back
        # a real request may be the one being sent longest when the table is full, and be
        # closed to admit the next: one such loss in the run, never the service (before the
        # guard, 4 of 9 went unanswered)
        assert res.asked >= 3 and res.answered >= res.asked - 1, res.statuses
        assert res.closed_by_server > 100
        # fewer sockets than the server holds: none is closed to admit another, so each
        # is cut by the request timeout (the flood above only ever met the first guard)
        few = asyncio.run(flood(url, token, seconds=2.5, sockets=20))
        assert few.closed_by_server >= 20 and few.answered >= few.asked - 1, few
    text = log.read_text()
    assert log.stat().st_size < 4_000, text[-2000:]
    assert "Traceback" not in text
    assert text.count("connection flood") <= 3  # once, and the counts at the end
    assert "requests too slow to arrive, closed" in text
