"""Semantic search end to end: vectors built after the index, kept current as a session
grows, a reworded question found, the switch off leaving search as it was.

Real parts throughout: a private copy of the demo archive, the live writer
(`LiveArchive.run_once` stands in for the watcher), the encoder and its vectors, the
service every front end calls, the `ccarchive` command.
"""

from __future__ import annotations

import json
import uuid as uuidlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from ccarchive.config import SEMANTIC_ENV, Settings
from ccarchive.live.live_archive import LiveArchive
from ccarchive.semantic import texts as T
from ccarchive.semantic.store import VectorStore, dedupe
from ccarchive.service import ArchiveService, open_service
from tests.support.appends import assistant_line, main_sessions, prompt_line, wait_for
from tests.support.encoders import with_graph

SOURDOUGH = (
    "My sourdough starter smells like nail polish remover and barely rises anymore. "
    "What is going on?"
)
SOURDOUGH_ANSWER = (
    "That sharp acetone smell means the yeast has run out of food. Feed the "
    "starter twice a day with equal weights of flour and water, keep it "
    "somewhere warm, and discard most of it before each feeding until it "
    "doubles within six hours again."
)
SOURDOUGH_QUERY = "fermented dough culture has a chemical odour and won't grow"
KAYAK = "Our kayak trip is next weekend; what should we pack in case it rains on the river?"
KAYAK_ANSWER = (
    "Bring dry bags for clothes and phones, a spare paddle, rain shells and a "
    "thermos, and tell someone your route and when you expect to be back."
)
KAYAK_QUERY = "gear list for a wet canoe outing"


def caught_up(live: LiveArchive) -> bool:
    """The vectors are up to date with every commit the index has."""
    store = VectorStore(live.store.path)
    return (
        live.vectors is not None
        and not live.vectors.state.running
        and store.manifest().gen >= T.max_gen(live.store.searcher(), live.store.schema)
    )


def groups(service: ArchiveService, query: str, **kw: object) -> list:
    return service.search(query, limit=5, group_by_session=True, **kw).groups or []


@pytest.fixture
def semantic_live(demo_archive: Path, tmp_path: Path):
    # the graph found written (tests.support.encoders.py): the command line's test
    # below starts without it
    data = with_graph(tmp_path / "data")
    live = LiveArchive(Settings(demo_archive, data, semantic=True), watch=False)
    assert live._try_become_writer()
    live.run_once()
    yield live
    live.stop()


@pytest.mark.slow
def test_vectors_follow_the_index_and_a_reworded_question_finds_the_turn(
    semantic_live: LiveArchive,
) -> None:
    """The writer embeds the whole archive after its first index, from nothing, then keeps
    the vectors current. In the slow tier, for its second embedding of the demo archive
    with the full model (~4.5 CPU-s): the suite's
    `test_the_command_line_embeds_searches_and_reports` keeps every step but the first
    (the same `VectorBuilder` builds from nothing there, run by `ccarchive index`), and
    its writer takes the command line's vectors over and keeps them current."""
    _vectors_follow_the_index(semantic_live)


def _vectors_follow_the_index(live: LiveArchive) -> None:
    """The writer's vectors, current with its index, then a new session, a turn added and
    an answer grown: each embedded after the commit that indexed it, found by meaning
    where words find nothing, and only the changed text embedded again."""
    assert live.vectors is not None
    assert wait_for(lambda: caught_up(live), timeout=300), live.vectors.state
    folder = live.store.path / "vectors"  # inside the index's own folder: dropped with it
    assert (folder / "manifest.json").is_file()
    service = open_service(live.settings, live=live)
    embedded = VectorStore(live.store.path).manifest().vectors
    assert embedded > 20
    assert service.status().semantic.startswith(f"on: {embedded:,} turns and sessions")

    # a new session: its turn is embedded after the commit that indexed it
    path = main_sessions(live.root)[0]
    sid = str(uuidlib.uuid4())
    new = path.parent / f"{sid}.jsonl"
    new.write_bytes(prompt_line(path, SOURDOUGH, sid) + assistant_line(path, SOURDOUGH_ANSWER, sid))
    rel = new.relative_to(live.root).as_posix()
    live.run_once(only=[rel])
    assert wait_for(lambda: caught_up(live), timeout=120)
    found = groups(service, SOURDOUGH_QUERY)
    assert sid in [g.session_id for g in found[:3]], [g.title for g in found]
    hit = next(g for g in found if g.session_id == sid).hits[0]
    assert "sourdough starter" in hit.prompt

    # not a word in common: words alone do not find it
    words_only = ArchiveService(live.store, live.root)
    words_only.use_semantic(Settings(live.root, live.settings.data_dir, semantic=False))
    assert words_only.semantic is None
    assert sid not in [g.session_id for g in groups(words_only, SOURDOUGH_QUERY)]
    # what enters by meaning passes the search's filters like everything else
    assert sid not in [
        g.session_id for g in groups(service, SOURDOUGH_QUERY, exclude_sessions=[sid])
    ]
    assert sid not in [
        g.session_id for g in groups(service, SOURDOUGH_QUERY, project="no-such-project")
    ]
    assert sid not in [g.session_id for g in groups(service, SOURDOUGH_QUERY + " before:2001")]

    # the session grows by a turn: that turn is found by its own rewording
    with new.open("ab") as f:
        f.write(prompt_line(path, KAYAK, sid) + assistant_line(path, KAYAK_ANSWER, sid))
    live.run_once(only=[rel])
    assert wait_for(lambda: caught_up(live), timeout=120)
    found = groups(service, KAYAK_QUERY)
    assert sid in [g.session_id for g in found[:3]], [g.title for g in found]
    shown = next(g for g in found if g.session_id == sid).hits
    assert any("kayak trip" in h.prompt for h in shown), [h.prompt for h in shown]

    # the last turn's answer grows: that one text is embedded again, nothing else
    store = VectorStore(live.store.path)
    before = {
        tuple(k[:2]): k[2]
        for k in dedupe([store.read_chunk(c) for c in store.manifest().chunks]).keys.tolist()
    }
    with new.open("ab") as f:
        f.write(assistant_line(path, "Also pack a first aid kit and sunscreen.", sid))
    live.run_once(only=[rel])
    assert wait_for(lambda: caught_up(live), timeout=120)
    after = {
        tuple(k[:2]): k[2]
        for k in dedupe([store.read_chunk(c) for c in store.manifest().chunks]).keys.tolist()
    }
    changed = [k for k in after if before.get(k) != after[k]]
    assert len(changed) == 1 and live.vectors.state.todo == 1
    assert len(after) == len(before)


def test_switched_off_search_is_lexical_and_status_says_how_to_turn_it_on(
    demo_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SEMANTIC_ENV, "0")
    settings = Settings(demo_archive, tmp_path / "data")
    assert settings.semantic is False
    with LiveArchive(settings, watch=False) as live:
        assert live._try_become_writer()
        live.run_once()
        assert live.vectors is None
        assert not (live.store.path / "vectors").exists()
        service = open_service(live.settings, live=live)
        assert service.semantic is None
        line = service.status().semantic
        assert line.startswith("off") and "--semantic" in line and "CCARCHIVE_SEMANTIC=1" in line
        assert groups(service, "flaky test")  # words still find what they find
    monkeypatch.setenv(SEMANTIC_ENV, "1")  # the environment asks for the model everywhere
    assert Settings(demo_archive, tmp_path / "data").semantic is True
    assert Settings.resolve(demo_archive, tmp_path / "data").semantic is True
    monkeypatch.delenv(SEMANTIC_ENV)  # unset: the default (tests/semantic/test_default_tier.py)
    assert Settings.resolve(demo_archive, tmp_path / "data").semantic is None


@pytest.mark.long
def test_the_command_line_embeds_searches_and_reports(
    demo_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ccarchive index --semantic` from nothing (the graph written, the archive
    embedded), `status` under each setting, `search --semantic` by meaning and by words
    when the model cannot load; then the live writer opens that data dir, finds its
    vectors current and keeps them so as sessions grow
    (`test_vectors_follow_the_index_and_a_reworded_question_finds_the_turn`, in the slow
    tier, has the writer embed from nothing instead)."""
    from ccarchive.cli.main import main

    monkeypatch.delenv(SEMANTIC_ENV, raising=False)
    where = ["--archive", str(demo_archive), "--data-dir", str(tmp_path / "data")]
    runner = CliRunner()
    res = runner.invoke(main, ["index", "--semantic", "--json", *where])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["embedded"] > 20
    res = runner.invoke(main, ["status", "--json", *where], env={SEMANTIC_ENV: "0"})
    assert json.loads(res.stdout)["semantic"].startswith("off")
    res = runner.invoke(main, ["status", "--json", *where])  # the default: static, not these
    line = json.loads(res.stdout)["semantic"]
    assert "(static)" in line and "of another encoder (all-MiniLM-L6-v2)" in line, line
    res = runner.invoke(main, ["status", "--json", *where], env={SEMANTIC_ENV: "1"})
    assert json.loads(res.stdout)["semantic"].startswith("on: ")
    res = runner.invoke(
        main,
        [
            "search",
            "--semantic",
            "--json",
            *where,
            "why",
            "does",
            "the",
            "daily",
            "forecast",
            "job",
            "take",
            "so",
            "long",
        ],
    )
    assert res.exit_code == 0, res.output
    titles = [g["title"] for g in json.loads(res.stdout)["groups"]][:3]
    assert any("slow" in t for t in titles), titles
    # a model that cannot load: the search says so and answers by words
    empty = tmp_path / "no-model"
    empty.mkdir()
    query = ["search", "--semantic", "--semantic-model", str(empty), *where, "forecast job"]
    res = runner.invoke(main, [*query, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["groups"], res.output

    # the writer takes the vectors the command line made over, and keeps them current
    settings = Settings(demo_archive, tmp_path / "data", semantic=True)
    with LiveArchive(settings, watch=False) as live:
        assert live._try_become_writer()
        live.run_once()
        _vectors_follow_the_index(live)


async def test_the_mcp_status_tool_says_whether_it_is_on(
    demo_service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.mcp_client import call, connect

    monkeypatch.delenv(SEMANTIC_ENV, raising=False)
    async with connect(demo_service) as c:
        line = (await call(c, "status"))["semantic"]
    assert line.startswith("off") and "CCARCHIVE_SEMANTIC=1" in line and "--semantic" in line
    on = ArchiveService(demo_service.store, demo_service.root)  # as `serve --semantic` has it
    on.use_semantic(Settings(demo_service.root, tmp_path / "data", semantic=True))
    async with connect(on) as c:
        line = (await call(c, "status"))["semantic"]
    assert line.startswith("on: no vectors yet") and "model from the package" in line
