"""Entry ids: derived from a document's path and seq, and parsed back for lookups."""

from __future__ import annotations

import tantivy

from ccarchive.index import schema as S


def test_entry_ids_round_trip_through_path_and_seq() -> None:
    seq = 1234 * 256 + S.block_of(2, 3)
    entry = S.entry_id("projects/-a-b/s:1.jsonl", seq)
    assert entry == "projects/-a-b/s:1.jsonl:1234:35"
    assert S.parse_entry_id(entry) == ("projects/-a-b/s:1.jsonl", seq)


def test_block_never_spills_into_the_offset() -> None:
    assert S.block_of(40, 99) == 255
    assert S.parse_entry_id("x.jsonl:10:256") is None


def test_bookkeeping_ids_are_not_entry_ids() -> None:
    for value in (
        "session:abc",
        "plan:plans/x.md",
        "memory:projects/p/memory/MEMORY.md",
        "state:_meta",
        "x.jsonl:12",
        ":1:2",
    ):
        assert S.parse_entry_id(value) is None


def test_doc_id_prefers_the_stored_id() -> None:
    schema = S.build_schema()
    own = tantivy.Document.from_dict({S.ID: "session:abc", S.PATH: "p", S.SEQ: 0}, schema)
    entry = tantivy.Document.from_dict({S.PATH: "p.jsonl", S.SEQ: 5 * 256 + 1}, schema)
    assert S.doc_id(own) == "session:abc"
    assert S.doc_id(entry) == "p.jsonl:5:1"


def test_session_keys_are_stable_and_fit_the_column() -> None:
    assert S.session_key("") == 0
    a = S.session_key("0c7e5b1a-1111-4222-8333-944445555666")
    assert a == S.session_key("0c7e5b1a-1111-4222-8333-944445555666")
    assert 0 < a < 2**63
    keys = {S.session_key(f"session-{i}") for i in range(20_000)}
    assert len(keys) == 20_000
