"""The static encoder end to end (`CCARCHIVE_ENCODER=static`): a reworded question found on a
real index that words alone miss, the vectors rebuilt when the encoder changes, and the
status naming the encoder in use.

Real parts: the demo archive with a session appended as JSONL, a real Tantivy index, the
vector builder and store, the service every front end calls.
"""

from __future__ import annotations

import shutil
import uuid as uuidlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ccarchive.config import Settings
from ccarchive.semantic import BACKEND_ENV, STATIC, backend, load_encoder, vector_space
from ccarchive.semantic.builder import VectorBuilder
from ccarchive.semantic.model_files import MODEL_NAME
from ccarchive.semantic.store import VectorStore, dedupe
from ccarchive.service import ArchiveService
from tests.conftest import build_index
from tests.support.appends import assistant_line, main_sessions, prompt_line
from tests.support.encoders import with_static

BALCONY = (
    "The basil and tomato plants on my balcony got yellow leaves with brown spots since "
    "the heatwave. Should I water them more?"
)
BALCONY_ANSWER = (
    "Yellowing with brown spots after hot weather is usually scorch and uneven watering. "
    "Water deeply early in the morning, mulch the pots, and move them where they get "
    "shade in the afternoon."
)
BALCONY_QUERY = "potted herbs fading in the summer heat"
MOVING = "We are moving flats on Saturday; how do I pack the kitchen so nothing breaks?"
MOVING_ANSWER = (
    "Wrap plates upright in paper, fill the gaps with towels, label each box by room, and "
    "keep one box of essentials, kettle and mugs, to open first."
)
MOVING_QUERY = "protecting dishes and glasses during a house relocation"


def _with_session(root: Path) -> str:
    """A session of two turns, the balcony plants then the move, appended to the archive."""
    path = main_sessions(root)[0]
    sid = str(uuidlib.uuid4())
    (path.parent / f"{sid}.jsonl").write_bytes(
        prompt_line(path, BALCONY, sid)
        + assistant_line(path, BALCONY_ANSWER, sid)
        + prompt_line(path, MOVING, sid)
        + assistant_line(path, MOVING_ANSWER, sid)
    )
    return sid


@pytest.fixture(scope="module")
def static_archive(
    demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ArchiveService, Settings, str]]:
    """The demo archive and the session, indexed, its static vectors built; the process's
    encoder is the static one while the module runs."""
    root = tmp_path_factory.mktemp("static") / "claude"
    shutil.copytree(demo_archive_ro, root, symlinks=True)
    sid = _with_session(root)
    data = with_static(root.parent / "data")  # its table made once (tests/support/encoders.py)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(BACKEND_ENV, STATIC)
        service = build_index(root, data)
        settings = Settings(root, data, semantic=True)
        assert (
            VectorBuilder(
                service.store, lambda: load_encoder(settings), vector_space(STATIC)
            ).update()
            > 20
        )
        service.use_semantic(settings)
        yield service, settings, sid


def _rank(service: ArchiveService, query: str, sid: str) -> int | None:
    """The session's rank among the first five a search shows (a page's worth), else None."""
    ids = [g.session_id for g in service.search(query, limit=5, group_by_session=True).groups or []]
    return ids.index(sid) + 1 if sid in ids else None


@pytest.mark.parametrize(
    ("query", "turn"), [(BALCONY_QUERY, "basil and tomato"), (MOVING_QUERY, "moving flats")]
)
def test_a_reworded_question_finds_its_turn_with_static_vectors_and_not_by_words(
    static_archive, query: str, turn: str
) -> None:
    service, settings, sid = static_archive
    assert service.semantic is not None and service.semantic.kind == STATIC
    words_only = ArchiveService(service.store, service.root)
    words_only.use_semantic(Settings(service.root, settings.data_dir, semantic=False))
    assert _rank(words_only, query, sid) is None  # too few words in common to show it
    assert _rank(service, query, sid) == 1
    group = next(g for g in service.search(query, limit=10, group_by_session=True).groups or [])
    assert any(turn in h.prompt for h in group.hits), [h.prompt for h in group.hits]


def test_status_names_the_static_encoder(static_archive) -> None:
    service, _settings, _sid = static_archive
    line = service.status().semantic
    assert line.startswith("on: ") and "encoder: " in line and "(static)" in line


def test_switching_encoder_rebuilds_the_vectors_and_never_mixes_spaces(
    demo_archive_ro: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the one short session only: numpy's forward pass embeds its few texts in a second
    root = tmp_path / "claude"
    shutil.copytree(demo_archive_ro, root, symlinks=True)
    sid = _with_session(root)
    for p in main_sessions(root):
        if p.stem != sid:
            p.unlink()
    service = build_index(root, with_static(tmp_path / "data"))
    settings = Settings(root, tmp_path / "data", semantic=True)

    def build(kind: str) -> np.ndarray:
        monkeypatch.setenv(BACKEND_ENV, kind)
        assert backend() == kind
        builder = VectorBuilder(service.store, lambda: load_encoder(settings), vector_space(kind))
        assert builder.vectors.space == vector_space(kind)
        assert builder.update() > 0  # everything embedded again in this encoder's space
        store = VectorStore(service.store.path)
        rows = dedupe([store.read_chunk(c) for c in store.manifest().chunks])
        assert store.manifest().model == vector_space(kind)
        return rows.vecs[np.lexsort(rows.keys[:, :2].T)].astype(np.float32)

    static = build(STATIC)
    # a reader of the other space sees no vectors, and searches by words alone
    other = VectorStore(service.store.path, MODEL_NAME)
    assert other.manifest().vectors == 0 and other.manifest().chunks == []
    monkeypatch.setenv(BACKEND_ENV, "numpy")
    service.use_semantic(settings)
    assert service.semantic is not None and service.semantic.session_scores("plants") is None
    line = service.status().semantic
    assert "encoder: all-MiniLM-L6-v2 in numpy" in line
    assert f"another encoder ({vector_space(STATIC)})" in line  # why it has none

    forward = build("numpy")  # the forward pass (onnxruntime's graph would be written first)
    assert forward.shape == static.shape
    assert np.abs((forward * static).sum(1)).max() < 0.9  # other vectors, not relabelled
    monkeypatch.setenv(BACKEND_ENV, STATIC)
    assert VectorStore(service.store.path).manifest().vectors == 0  # static's are gone
    np.testing.assert_allclose(build(STATIC), static, atol=1e-3)  # and come back the same
    service.use_semantic(settings)
    assert _rank(service, BALCONY_QUERY, sid) == 1


def test_the_command_line_builds_and_reports_static_vectors(
    demo_archive_ro: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from ccarchive.cli.main import main
    from ccarchive.config import SEMANTIC_ENV

    monkeypatch.setenv(BACKEND_ENV, STATIC)
    monkeypatch.delenv(SEMANTIC_ENV, raising=False)
    where = ["--archive", str(demo_archive_ro), "--data-dir", str(tmp_path / "data")]
    runner = CliRunner()
    res = runner.invoke(main, ["index", "--semantic", "--json", *where])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["embedded"] > 20
    res = runner.invoke(main, ["status", "--json", *where], env={SEMANTIC_ENV: "1"})
    line = json.loads(res.stdout)["semantic"]
    assert line.startswith("on: ") and "(static)" in line, line
    manifests = list((tmp_path / "data").rglob("vectors/manifest.json"))
    assert [json.loads(m.read_text())["model"] for m in manifests] == [vector_space(STATIC)]


def _typed_prompts(root: Path, n: int) -> list[str]:
    """The first `n` distinct prompts typed in the archive (`history.jsonl`), as queries a
    person who remembers their own words would search with."""
    import json

    seen: list[str] = []
    for line in (root / "history.jsonl").read_text().splitlines():
        text = " ".join(str(json.loads(line).get("display", "")).split())
        if 3 <= len(text.split()) <= 20 and text not in seen:
            seen.append(text)
    return seen[:n]


def test_meaning_never_changes_the_turn_shown_first_when_the_words_cover_the_query(
    static_archive,
) -> None:
    """A question in the words of its turn: the turn that holds the words is shown first,
    as words alone show it; meaning may reorder the sessions, not the turn that answers.
    (Lifting the turn closest in meaning there put another turn first for plain questions
    on the blind set: 0.82 of them showed the answering turn first by words, 0.69 with it.)
    """
    service, settings, _sid = static_archive
    words_only = ArchiveService(service.store, service.root)
    words_only.use_semantic(Settings(service.root, settings.data_dir, semantic=False))
    queries = [BALCONY, MOVING, *_typed_prompts(service.root, 40)]
    assert len(queries) >= 20
    checked = 0
    for query in queries:
        by_words = {
            g.session_id: g.hits[0].turn_id
            for g in words_only.search(query, limit=10, group_by_session=True).groups or []
            if g.hits
        }
        for g in service.search(query, limit=10, group_by_session=True).groups or []:
            if g.hits and g.session_id in by_words:
                assert g.hits[0].turn_id == by_words[g.session_id], (query, g.title)
                checked += 1
    assert checked >= 40
