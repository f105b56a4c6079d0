"""The hand-written quirks archive (tests/archive/fixtures/quirks): one file per record type and
on-disk quirk of docs/format.md, each with the counts a correct reader must produce
(EXPECTED.json, written by hand beside each file)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
import pytest
import tantivy

from ccarchive.index import schema as S
from tests.conftest import FIXTURES, build_index
from tests.support.expected_kinds import indexed_kinds

QUIRKS = FIXTURES / "quirks"
EXPECTED = json.loads((QUIRKS / "EXPECTED.json").read_text())


def _manifest() -> dict[Path, tuple[int, int]]:
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in QUIRKS.rglob("*")}


BEFORE = _manifest()


@pytest.fixture(scope="module")
def quirks(tmp_path_factory: pytest.TempPathFactory):
    """The fixture indexed in place (read-only use), its index in a temp dir."""
    svc = build_index(QUIRKS, tmp_path_factory.mktemp("quirks-data"))
    searcher = svc.store.searcher()
    q = tantivy.Query.term_query(svc.schema, S.KIND, S.STATE_DOC)
    states = {}
    for _, addr in searcher.search(q, 1000).hits:
        blob = orjson.loads(searcher.doc(addr).get_first(S.BLOB))
        if "rel" in blob:
            states[blob["rel"]] = blob
    return svc, states


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_each_quirk_file_yields_exactly_its_documents_and_counts(quirks, rel: str) -> None:
    svc, states = quirks
    want = EXPECTED[rel]
    docs = indexed_kinds(svc).get(rel, Counter())
    assert +Counter(want["docs"]) == +docs
    if rel.endswith(".jsonl"):
        st = states[rel]
        counted = Counter(st["skipped"]) + Counter(st["repaired"])
        if st.get("pending"):
            counted["incomplete_last_line"] += 1
        assert +Counter(want["skipped"]) == +counted
        if rel != "history.jsonl":
            assert st["summary"].get("entries", 0) == want["lines_ok"]


def test_quirk_sessions_have_titles_links_and_flags(quirks) -> None:
    svc, _ = quirks
    sid = "00000000-0000-4000-8000-0000000000"
    parent = svc.session(sid + "23")
    assert parent.subagents and parent.subagents[0].tool_use_id
    sub = svc.transcript(parent.session_id, agent_id=parent.subagents[0].agent_id)
    assert sub.entries
    rewind = svc.transcript(sid + "26")
    assert any("rewind" in e.flags for e in rewind.entries)
    compact = svc.transcript(sid + "21")
    assert any("compact" in e.flags for e in compact.entries)
    assert svc.session(sid + "25").subagent_count == 0  # inline sidechains, no files
    assert svc.plan("quiet-sorting-hopper").subplans


def test_indexing_in_place_never_writes_the_archive(quirks) -> None:
    svc, _ = quirks
    svc.search("anything")
    svc.status()
    assert _manifest() == BEFORE
