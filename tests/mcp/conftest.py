"""The `ccarchive serve` processes that the MCP tests share: one over stdio, started as the
plugin's `.mcp.json` starts it, and one over HTTP, each with a copy of the demo archive's
index. A test that only asks a server questions asks one of these; a test that checks a
start, a stop, a crash, a flag or an environment starts its own
(tests/support/serve_process.py). And the clients of these tests compile each output
schema's validator once (`validators_compiled_once`)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client.stdio import stdio_client

from tests.support.mcp_client import ThreadedClient, validators_compiled_once
from tests.support.serve_process import (
    SharedServe,
    data_args,
    indexed_copy,
    serving_http,
    stdio_params,
)

PLUGIN = Path(__file__).resolve().parents[2] / ".claude-plugin" / "ccarchive"
SHARED = frozenset({"shared_stdio", "shared_http"})
GROUP = "ccarchive-serve"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests of the shared serves run on one worker (`--dist loadgroup`), which starts
    each serve once: spread over the workers, each worker started its own, no fewer
    processes than a serve a test. Put first among the item's marks: a module's group
    (tests/conftest.py) gives way to it."""
    for item in items:
        if SHARED & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group(GROUP), append=False)


@pytest.fixture(autouse=True)
def _validators_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    validators_compiled_once(monkeypatch)


@pytest.fixture(scope="session")
def shared_stdio(
    demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedServe]:
    """`ccarchive serve` over stdio, spawned exactly as the plugin's `.mcp.json` says, with
    the archive and the data dir in the environment as Claude Code gives them
    (`CLAUDE_CONFIG_DIR`, `CCARCHIVE_HOME`) and the venv's ccarchive first on PATH; one
    SDK client connected to it for the whole run (stdio serves one client)."""
    (cfg,) = json.loads((PLUGIN / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"].values()
    home = tmp_path_factory.mktemp("shared-stdio")
    data = indexed_copy(demo_archive_ro, home / "data", tmp_path_factory)
    env = {
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        "CLAUDE_CONFIG_DIR": str(demo_archive_ro.resolve()),
        "CCARCHIVE_HOME": str(data),
    }
    params = stdio_params(env=env, cwd=home)
    params.command, params.args = cfg["command"], cfg.get("args", [])
    log = home / "stderr"
    with log.open("a", encoding="utf-8") as errlog:
        client = ThreadedClient(stdio_client(params, errlog=errlog))
        try:
            yield SharedServe(log=log, client=client.relay, params=params)
        finally:
            client.close()


@pytest.fixture(scope="session")
def shared_http(
    demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedServe]:
    """`ccarchive serve --http` on a free loopback port, the tests' token
    (`tests.conftest.SERVE_TOKEN`) in its environment."""
    home = tmp_path_factory.mktemp("shared-http")
    data = indexed_copy(demo_archive_ro, home / "data", tmp_path_factory)
    log = home / "stderr"
    with serving_http(*data_args(demo_archive_ro, data), log=log) as (url, _proc):
        yield SharedServe(log=log, url=url)
