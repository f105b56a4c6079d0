"""`ccarchive serve` processes as the tests start them: over stdio (through the MCP SDK's
client) and over HTTP (on a free loopback port), with the suite's environment, and the
demo archive's index copied into their data dirs rather than built again.

Each `serve` costs about 2 CPU-s before it answers (most of it importing the MCP SDK), so
the tests that only ask a server questions share one (tests/mcp/conftest.py); a test keeps
a process of its own where it checks a start, a stop, a flag or an environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters

from tests.conftest import build_index, free_port, serve_env, wait_for_port

CCARCHIVE = str(Path(sys.executable).with_name("ccarchive"))


def stdio_params(
    *args: str, env: dict[str, str] | None = None, **more: Any
) -> StdioServerParameters:
    """`ccarchive serve ARGS` for the SDK's stdio client, in the test's environment (and
    `env` over it). The SDK gives a server it spawns only a few variables of its own
    (HOME, PATH, ...): without the suite's `CCARCHIVE_SEMANTIC=0` (tests/conftest.py),
    every serve ranked by meaning, copied the static encoder (45 MB) into its data dir and
    embedded the archive, ~0.9 CPU-s more for the demo archive alone."""
    return StdioServerParameters(
        command=CCARCHIVE, args=["serve", *args], env={**os.environ, **(env or {})}, **more
    )


_INDEXED: dict[Path, Path] = {}
"""Each archive's index, built once per test process: archive -> the data dir holding it."""


def indexed_copy(archive: Path, data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`data`, a data dir holding a copy of `archive`'s index, built once per test process
    and copied: a few milliseconds, not the quarter of a CPU-second an index of the demo
    archive takes. The index records the archive's files as they are (their inodes too),
    so it fits that archive only, unchanged: a test that writes to its archive indexes
    its own copy."""
    built = _INDEXED.get(archive)
    if built is None:
        built = tmp_path_factory.mktemp("indexed")
        build_index(archive, built)
        _INDEXED[archive] = built
    shutil.copytree(built, data, symlinks=True, dirs_exist_ok=True)
    return data


def data_args(archive: Path, data: Path) -> list[str]:
    return ["--archive", str(archive), "--data-dir", str(data)]


@contextmanager
def serving_http(
    *args: str,
    log: Path,
    env: dict[str, str] | None = None,
    preexec_fn: Any = None,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`ccarchive serve --http ARGS` on a free loopback port, its stderr to `log` (a file:
    a pipe nobody reads would block it once full); the MCP url and the process, ended
    (SIGTERM) after. The environment: `serve_env()` (the tests' token), unless given."""
    port = free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [CCARCHIVE, "serve", "--http", "--port", str(port), *args],
            env=serve_env() if env is None else env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=out,
            preexec_fn=preexec_fn,
        )
    try:
        wait_for_port(proc, port, why=log.read_text)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@dataclass
class SharedServe:
    """A `ccarchive serve` that several tests ask questions (tests/mcp/conftest.py): over
    HTTP at `url`, or over stdio through `client` (a `ThreadedClient`'s relay) started
    with `params`, its stderr in `log`. What a test may not do to it: end it, or change
    its archive."""

    log: Path
    url: str = ""
    client: Any = None
    params: StdioServerParameters | None = None

    def stderr(self) -> str:
        """All the server wrote to stderr since it started."""
        return self.log.read_text(encoding="utf-8", errors="replace")
