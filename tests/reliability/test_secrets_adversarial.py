"""Promise: no secret is readable on any surface, not even 8 characters of one.

Fake credentials of every common shape (`secret_shapes`: 56 of them, from provider tokens
to PEM blocks, AWS and GCP credential files, connection strings and passwords with
symbols) are planted in every place the archive has text (`secret_archive`: 17 places),
at random offsets, across the index's own cuts and JSON-escaped, with search words
beside them so that snippets are cut through them. A real index is built, and every
surface is read the way its users read it, with the parameters that cut and page texts
(`secret_surfaces`): the service, every MCP tool through an in-process client, the CLI
in text and JSON, the hook, the Markdown export and the TUI's panes through Pilot. Any
8-character window of a planted value in anything shown is a leak.

The check is not vacuous: with redaction off, the same reads show every planted secret.

The suite plants each shape in `PER_SHAPE` places of one seed (112 plantings, every
place holding six or seven shapes, a tool's text cut through half the time): the service
reads every planting; MCP, the CLI and the hooks read each shape's first planting, which
runs through every place too; the export and the TUI read what they show of the
archive. `-m slow` (`test_more_seeds_every_plant_on_every_surface`) plants every shape in
every place (952 plantings) for 4 more seeds and reads every planting on the service,
MCP, the hook and the export (~2 min each): the breadth of shape x place x cut x escape
that the suite's draw samples.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client

from ccarchive.config import Settings
from ccarchive.mcp_server.server import build_server
from tests.conftest import build_index
from tests.support.secret_archive import PLACES, plant_archive
from tests.support.secret_shapes import SHAPES
from tests.support.secret_surfaces import (
    Exposure,
    held_elsewhere,
    read_cli,
    read_export,
    read_hook,
    read_mcp,
    read_service,
)

pytestmark = pytest.mark.long

SEED = int(os.environ.get("CCARCHIVE_SECRETS_SEED", "20261124"))
PER_SHAPE = 2
"""Places each shape is planted in, in the suite's archive (the slow tier: all 17). Two,
as it shares no factor with the 17 places: each shape's first planting then runs
through every place (`secret_archive._spread`)."""
TOTALS: dict[str, int] = {}


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory):
    """Built once for the module, whose tests the suite therefore keeps on one worker
    (tests/conftest.py): spread over two, each built the archive, its index and the
    windows held elsewhere in it (3.4 CPU-s) for itself."""
    out = tmp_path_factory.mktemp("adversarial")
    arc = plant_archive(out / "claude", SEED, per_shape=PER_SHAPE)
    svc = build_index(arc.root, out / "data")
    svc.redact_secrets = True  # what every test but one reads with (it restores it)
    return arc, svc, out


_HELD: dict[int, set[str]] = {}


def exposure(arc) -> Exposure:
    """A checker of everything shown for the secrets planted in ``arc``."""
    ex = Exposure(arc.plants)
    if id(arc) not in _HELD:
        _HELD.clear()
        _HELD[id(arc)] = held_elsewhere(arc.plants, arc.root)
    ex.ignore(_HELD[id(arc)])
    return ex


def _finish(ex: Exposure, what: str) -> None:
    readable = ex.readable()
    TOTALS[what] = sum(ex.calls.values())
    print(
        f"\n{what}: {len(SHAPES)} shapes in {len(PLACES)} places, {len(ex.plants)} plantings,"
        f" {len(ex.calls)} surfaces, {sum(ex.calls.values())} calls, readable = "
        f"{len(readable)} ({ex.ambiguous} windows also held elsewhere in the archive)"
    )
    assert not readable, f"{len(readable)} planted secrets readable:\n{ex.report()}"


def test_service(planted) -> None:
    arc, svc, _ = planted
    svc.redact_secrets = True
    ex = exposure(arc)
    read_service(svc, arc, ex, random.Random(SEED))
    _finish(ex, "service")


INDEX_ONLY = ("custom_title", "ai_title", "agent_name")
"""Places whose text is shown from the index alone (titles): the index is
built from redacted text, so they stay redacted even with redaction off."""


def test_without_redaction_the_same_reads_show_every_secret(planted) -> None:
    """The harness reads what it claims to: with redaction off, every planted secret is
    there whole, in the entries the searches find (read back from the archive); the
    places only the index shows keep theirs redacted all the same."""
    arc, svc, _ = planted
    svc.redact_secrets = False
    try:
        ex = exposure(arc)
        for plant in arc.plants:
            page = svc.search(plant.needle, include_tool_results=True, include_thinking=True)
            ex.show("search", page)
            ids = [
                hit.id
                for hit in page.hits
                if ":" in hit.id and not hit.id.startswith(("plan:", "memory:", "session:"))
            ]
            if ids:
                ex.show("entries", svc.entries(ids[:10], max_chars=200_000))
        for slug in arc.plans:
            ex.show("plan", svc.plan(slug))
        for info in svc.memory_files():
            ex.show("memory", svc.memory_file(info.project, info.path))
        ex.show("sessions", svc.sessions(limit=500))
        ex.show("history", svc.history(limit=500))
        shown = {i for _, i in ex._found}
        missing = [
            (p.shape, p.place)
            for i, p in enumerate(arc.plants)
            if i not in shown and p.place not in INDEX_ONLY
        ]
        assert not missing, f"{len(missing)} plantings never shown: {missing[:20]}"
        index_only = [
            (p.shape, p.place)
            for i, p in enumerate(arc.plants)
            if i in shown and p.place in INDEX_ONLY
        ]
        assert not index_only, f"secrets shown from the index: {index_only[:20]}"
    finally:
        svc.redact_secrets = True


async def test_mcp_tools(planted) -> None:
    arc, svc, _ = planted
    ex = exposure(arc)
    async with Client(build_server(svc, redact_secrets=True, active_minutes=0)) as client:
        await read_mcp(client, arc, ex, random.Random(SEED + 1), arc.first_of_each())
    _finish(ex, "mcp")


def test_cli_text_and_json(planted) -> None:
    from ccarchive.cli.main import main

    arc, svc, out = planted
    where = ["--archive", str(arc.root), "--data-dir", str(out / "data")]
    runner = CliRunner()

    def run(*args: str) -> str:
        r = runner.invoke(main, [*args, *where], env={"COLUMNS": "200"})
        assert r.exit_code == 0, (args, r.output)
        return r.output

    ids = [
        h.id
        for p in arc.first_of_each()[::4]
        for h in svc.search(p.needle, include_tool_results=True, include_thinking=True).hits[:1]
        if ":" in h.id
    ]
    ex = exposure(arc)
    read_cli(run, arc, ex, ids)
    # and once as a process, as a person runs it
    proc = subprocess.run(
        [sys.executable, "-m", "ccarchive", "search", "password", "--all-kinds", "--json", *where],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    ex.show("cli.process", proc.stdout)
    _finish(ex, "cli")


def test_hook_and_export(planted, tmp_path: Path) -> None:
    arc, svc, out = planted
    ex = exposure(arc)
    read_hook(svc, arc, ex, arc.first_of_each())
    read_export(svc, arc, ex, tmp_path)
    event = (
        '{"session_id": "x", "prompt": "password Authorization export BEGIN '
        f'{arc.plants[0].needle}"}}'
    )
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("ccarchive")),
            "hook",
            "user-prompt-submit",
            "--archive",
            str(arc.root),
            "--data-dir",
            str(out / "data"),
        ],
        input=event,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    ex.show("hook.process", proc.stdout)
    _finish(ex, "hook+export")


def _screen_text(app) -> str:
    from ccarchive.tui.textual_tuning import screen_text

    return screen_text(app.screen)


async def test_tui_panes(planted, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import Input

    from ccarchive.live.live_archive import LiveArchive
    from ccarchive.tui.app import make_app
    from ccarchive.tui.screens.search import SearchScreen
    from tests.tui.support import SIZE, searched, settle

    monkeypatch.setattr(SearchScreen, "PREVIEW_DELAY", 0)
    monkeypatch.setattr(SearchScreen, "FACETS_DELAY", 0)
    arc, _svc, out = planted
    settings = Settings(archive_root=arc.root, data_dir=out / "data")
    live = LiveArchive(settings, watch=False).start()
    for t in live._threads:
        t.join(60)
    ex = exposure(arc)
    rng = random.Random(SEED + 2)
    app = make_app(settings, live=live, start_live=False)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            tool_hit = next(p for p in arc.plants if p.place == "tool_result" and p.where == "cut")
            picks = [tool_hit, *rng.sample(arc.plants, 3)]
            for query in [p.needle for p in picks] + ["password"]:
                box = app.screen.query_one("#query", Input)
                box.focus()
                # the query put in whole (a search per keystroke showed nothing read here)
                box.value = query
                await searched(app, pilot, query)
                ex.show("tui.search", _screen_text(app))
                await pilot.press("down")  # the results, the first one previewed
                await settle(app, pilot)
                ex.show("tui.search", _screen_text(app))
            # open a hit in replay, unfold it, move and page through the session
            await pilot.press("enter")
            await settle(app, pilot)
            for key in ("enter", "j", "enter", "pagedown", "G"):
                await pilot.press(key)
                await pilot.pause()
                ex.show("tui.replay", _screen_text(app))
            for mode in ("timeline", "plans", "projects", "prompts", "live"):
                await app.switch_mode(mode)
                await settle(app, pilot)
                ex.show(f"tui.{mode}", _screen_text(app))
                for _ in range(2):
                    await pilot.press("down")
                    await pilot.pause()
                    ex.show(f"tui.{mode}", _screen_text(app))
    finally:
        live.stop()
    _finish(ex, "tui")


def test_counts(planted) -> None:
    """The totals of this run (printed with -s), and the suite's draw covers every kind:
    every shape and every place, and so does the first planting of each shape, which
    the surfaces too costly to read for every planting read; a tool's text is planted
    across the index's cut."""
    arc, _svc, _ = planted
    print(f"\nshapes {len(SHAPES)}, places {len(PLACES)}, calls {TOTALS}, readable = 0")
    assert len(SHAPES) >= 40 and len(PLACES) >= 15
    first = arc.first_of_each()
    assert {p.shape for p in arc.plants} == {p.shape for p in first} == set(SHAPES)
    assert len(first) == len(SHAPES)
    assert {p.place for p in arc.plants} == {p.place for p in first} == set(PLACES)
    assert len(arc.plants) == PER_SHAPE * len(SHAPES)
    for place in ("tool_use", "tool_result"):
        assert any(p.place == place and p.where == "cut" for p in arc.plants), place


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_more_seeds_every_plant_on_every_surface(seed: int, tmp_path: Path) -> None:
    """Every shape in every place, each planting read on the service and MCP, about 60
    on the hook: the full draw of what the suite's tests above check on a spread of
    two places a shape (`test_service`, `test_mcp_tools`, `test_hook_and_export`)."""
    arc = plant_archive(tmp_path / "claude", seed)
    svc = build_index(arc.root, tmp_path / "data")
    ex = exposure(arc)
    rng = random.Random(seed)
    read_service(svc, arc, ex, rng)
    async with Client(build_server(svc, redact_secrets=True, active_minutes=0)) as client:
        await read_mcp(client, arc, ex, rng, arc.plants)
    read_hook(svc, arc, ex)
    read_export(svc, arc, ex, tmp_path)
    _finish(ex, f"seed {seed}")


def test_the_hook_server_of_a_serve_without_redaction_shows_no_secret(planted) -> None:
    """`ccarchive serve --no-redact` reads without redaction, and its hook server answers
    the hooks over its socket: asked every question `read_hook` asks in the suite (each
    shape's first planting's needle and words, and every project's session start),
    through the socket as the hook asks it, it shows none of the planted secrets. Two
    layers keep them out (the index is built from redacted text; the server reads with
    redaction on whatever the serve's switch, `test_hook_server.py`): this reads the
    surface as a hook does, whichever layer fails."""
    import json

    from ccarchive.hooks.client import Answer, ask_server
    from ccarchive.hooks.server import HookServer
    from ccarchive.service import open_service

    arc, _svc, out = planted
    settings = Settings(arc.root.resolve(), (out / "data").resolve(), semantic=False)
    served = open_service(settings, redact_secrets=False)  # the serve's own service
    server = HookServer(served, settings).start()
    try:
        assert server.owner.wait(10), "the hook server never took its socket"
        ex = exposure(arc)
        events = [
            ("UserPromptSubmit", {"session_id": "x", "prompt": f"{p.needle} {' '.join(p.words)}"})
            for p in arc.first_of_each()
        ] + [("SessionStart", {"cwd": cwd}) for cwd in arc.projects]
        for name, event in events:
            answer = ask_server(
                str(settings.archive_data_dir),
                name,
                json.dumps(event).encode(),
                limit=3,
                max_chars=1500,
            )
            assert isinstance(answer, Answer), answer
            ex.show(f"hook-server.{name}", answer.stdout.decode())
        assert server.answered == len(events)
    finally:
        server.stop()
    _finish(ex, "hook server")
