"""Sessions found by meaning alone enter a search by their best turn's prompt, looked up a
batch at a time (one search for all their transcripts' prompts, `seq` from its column):
each batch must find what a search of each session's own prompt finds (its path, its `seq`
as a range, the search's filters), in the same order, under filters of every kind."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import tantivy
from tantivy import Occur, Query

from ccarchive.config import Settings
from ccarchive.index import schema as S
from ccarchive.semantic import BACKEND_ENV, STATIC, load_encoder, vector_space
from ccarchive.semantic.builder import VectorBuilder
from ccarchive.service import ArchiveService
from tests.conftest import build_index
from tests.support.encoders import with_static


@pytest.fixture(scope="module")
def with_vectors(
    demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ArchiveService]:
    root = tmp_path_factory.mktemp("entrants") / "claude"
    shutil.copytree(demo_archive_ro, root, symlinks=True)
    data = with_static(root.parent / "data")  # its table made once (tests/support/encoders.py)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(BACKEND_ENV, STATIC)
        service = build_index(root, data)
        settings = Settings(root, data, semantic=True)
        builder = VectorBuilder(service.store, lambda: load_encoder(settings), vector_space(STATIC))
        assert builder.update() > 20
        service.use_semantic(settings)
        yield service


def _one_by_one(dense, searcher, filters, found, skey):
    """The prompt of a session's best turn as one search of its own finds it."""
    best = found.best_turn(skey)
    if best is None:
        return None
    seq, path, _cos = best
    q = Query.boolean_query(
        [
            (Occur.Must, filters),
            (Occur.Must, Query.term_query(dense.schema, S.PATH, path)),
            (
                Occur.Must,
                Query.range_query(dense.schema, S.SEQ, tantivy.FieldType.Unsigned, seq, seq),
            ),
            (Occur.Must, Query.term_query(dense.schema, S.KIND, S.PROMPT)),
        ]
    )
    hits = searcher.search(q, 1, count=False).hits
    return (skey, S.turn_key(seq, 0), hits[0][1]) if hits else None


def _addr(entrant):
    skey, turn, addr = entrant
    return skey, turn, addr.segment_ord, addr.doc


@pytest.mark.parametrize(
    "filters",
    ["all", "prompts", "project", "since", "until", "nothing"],
)
@pytest.mark.parametrize("query", ["moving flats", "why does the build fail", "deploy the app"])
def test_a_batch_finds_what_each_session_s_own_search_finds(
    with_vectors: ArchiveService, filters: str, query: str
) -> None:
    service = with_vectors
    dense = service.semantic_switch.dense
    assert dense is not None
    ctx = service.index_context
    searcher = ctx.searcher()
    found = dense.session_scores(query)
    assert found is not None
    some_prompt = searcher.search(Query.term_query(ctx.schema, S.KIND, S.PROMPT), 1).hits[0][1]
    project = S.first_value(searcher.doc(some_prompt), S.PROJECT)
    assert project
    chosen = {
        "all": Query.all_query(),
        "prompts": Query.term_query(ctx.schema, S.KIND, S.PROMPT),
        "project": ctx.project_query(project),
        "since": ctx.date_range(datetime(2026, 1, 1, tzinfo=UTC), None),
        "until": ctx.date_range(None, datetime(2026, 1, 1, tzinfo=UTC)),
        "nothing": Query.term_query(ctx.schema, S.KIND, "no such kind"),
    }[filters]
    skeys = [skey for skey, _cos in found.ranked()]
    assert len(skeys) > 5
    expected = [e for skey in skeys if (e := _one_by_one(dense, searcher, chosen, found, skey))]
    got = dense._entrants(searcher, chosen, found, skeys)
    assert [_addr(e) for e in got] == [_addr(e) for e in expected]
    # and a batch at a time, from any point of the ranking
    for start in range(0, len(skeys), 3):
        part = skeys[start : start + 3]
        want = [e for skey in part if (e := _one_by_one(dense, searcher, chosen, found, skey))]
        assert [_addr(e) for e in dense._entrants(searcher, chosen, found, part)] == [
            _addr(e) for e in want
        ]
