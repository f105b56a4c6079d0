"""The shortcuts a session search takes, each held to giving what the long way gives.

- `IndexContext.terms` writes "any of these values" as a union of term queries, not as
  Tantivy's term-set query: the same documents with the same score, on a real index.
- A shown session's spare turns are weighed only when one of its first turns is an aside or
  a document: `_answering_first` then keeps the first turns where they are, whatever the
  spare ones hold (generated turns of every kind, real documents).
- The garbage collector is held off while a search is ranked: it is left as it was found,
  and the ranking leaves no reference cycles behind for it.
"""

from __future__ import annotations

import gc

import pytest
import tantivy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.index import schema as S
from ccarchive.service.session_ranking import (
    _answering_first,
    _in_conversation,
    _Turn,
    collector_paused,
)

QUESTIONS = [
    "why does the importer skip the first row",
    "<bash-stdout>ok 12 tests</bash-stdout>",
    "<local-command-stdout>compacted</local-command-stdout>",
    "  <bash-input>make test</bash-input>",
    "",
]
KINDS = [S.ASSISTANT, S.PROMPT, S.TOOL_CALL, S.TOOL_RESULT, S.HISTORY, S.SUMMARY, S.PLAN, S.MEMORY]


def _values(svc, field: str) -> list[str]:
    searcher = svc.index_context.searcher()
    hits = searcher.search(tantivy.Query.all_query(), 400, count=False).hits
    found = {S.first_value(searcher.doc(a), field) for _s, a in hits}
    return sorted(v for v in found if v)


@pytest.mark.parametrize("field", [S.SESSION, S.PATH, S.KIND, S.ID])
def test_a_union_of_terms_finds_what_a_term_set_finds(demo_service, field: str) -> None:
    ctx = demo_service.index_context
    searcher = ctx.searcher()
    values = _values(demo_service, field)
    assert values, f"the demo archive has no {field}"

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        chosen=st.lists(st.sampled_from(values), max_size=12, unique=True),
        unknown=st.lists(st.text(min_size=1, max_size=12), max_size=3),
    )
    def check(chosen: list[str], unknown: list[str]) -> None:
        wanted = chosen + unknown
        union = searcher.search(ctx.terms(field, wanted), 10_000, count=True)
        term_set = searcher.search(
            tantivy.Query.term_set_query(ctx.schema, field, wanted), 10_000, count=True
        )
        assert union.count == term_set.count
        assert sorted((a.segment_ord, a.doc, s) for s, a in union.hits) == sorted(
            (a.segment_ord, a.doc, s) for s, a in term_set.hits
        )
        # and as a filter beside words, which is how the searches use it
        words = tantivy.Query.term_query(ctx.schema, S.TEXT, "the")
        for occur in (tantivy.Occur.Must, tantivy.Occur.MustNot):
            counts = [
                searcher.search(
                    tantivy.Query.boolean_query([(tantivy.Occur.Must, words), (occur, q)]),
                    1,
                    count=True,
                ).count
                for q in (
                    ctx.terms(field, wanted),
                    tantivy.Query.term_set_query(ctx.schema, field, wanted),
                )
            ]
            assert counts[0] == counts[1]

    check()


def _doc(kind: str, path: str, text: str, seq: int) -> tantivy.Document:
    doc = tantivy.Document()
    doc.add_text(S.KIND, kind)
    doc.add_text(S.PATH, path)
    doc.add_text(S.TEXT, text)
    doc.add_unsigned(S.SEQ, seq)
    return doc


@st.composite
def _shown_rows(draw: st.DrawFn):
    """A session's turns in score order, each shown by an entry of any kind, with the
    prompts that opened them (a question, a command's output, or none found)."""
    n = draw(st.integers(min_value=1, max_value=6))
    rows, prompts = [], {}
    path = "projects/p/s.jsonl"
    for i in range(n):
        seq = 10 * (i + 1)
        turn = S.turn_key(seq, 0)
        kind = draw(st.sampled_from(KINDS))
        text = draw(st.sampled_from(QUESTIONS))
        shown = _doc(kind, path, text if kind == S.PROMPT else "an answer", seq + 1)
        if kind != S.PROMPT and text:
            prompts[(path, seq)] = _doc(S.PROMPT, path, text, seq)
        t = _Turn("s", turn, per_term=dict.fromkeys(draw(st.sets(st.integers(0, 3))), 1.0))
        rows.append((t, shown, None))
    weights = draw(st.lists(st.floats(0.1, 5.0), min_size=4, max_size=4))
    return rows, prompts, weights


@settings(max_examples=400, deadline=None)
@given(case=_shown_rows(), keep=st.integers(min_value=1, max_value=4))
def test_first_turns_in_the_conversation_keep_their_places(case, keep: int) -> None:
    rows, prompts, weights = case
    ordered = _answering_first(rows, prompts, weights)
    assert sorted(id(r) for r in ordered) == sorted(id(r) for r in rows)
    if all(_in_conversation(r, prompts) for r in rows[:keep]):
        # what `_shown_turns` relies on to skip weighing the spare turns
        assert [id(r) for r in ordered[:keep]] == [id(r) for r in rows[:keep]]


def test_the_shortcut_is_not_taken_when_a_first_turn_gives_way(demo_service) -> None:
    """The converse, on one case: a history line first gives way to an answered turn."""
    path = "projects/p/s.jsonl"
    history = (
        _Turn("s", S.turn_key(10, 0), per_term={0: 1.0}),
        _doc(S.HISTORY, path, "q", 0),
        None,
    )
    answered = (
        _Turn("s", S.turn_key(20, 0), per_term={0: 1.0}),
        _doc(S.ASSISTANT, path, "a", 21),
        None,
    )
    prompts = {(path, 20): _doc(S.PROMPT, path, QUESTIONS[0], 20)}
    assert not _in_conversation(history, prompts)
    assert _answering_first([history, answered], prompts, [1.0])[0] is answered


QUERIES = ["deploy", "why does the build fail on the config", "migra*", "test AND NOT error"]


@pytest.mark.parametrize("running", [True, False])
def test_a_search_leaves_the_collector_as_it_found_it(demo_service, running: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if running else gc.disable)()
        for q in QUERIES:
            demo_service.search(q, group_by_session=True, limit=4, hits_per_group=1)
            assert gc.isenabled() is running
        with pytest.raises(RuntimeError), collector_paused():
            assert not gc.isenabled()
            raise RuntimeError("a search that fails half way")
        assert gc.isenabled() is running
    finally:
        (gc.enable if was else gc.disable)()


def test_a_ranked_search_leaves_no_reference_cycles(demo_service) -> None:
    for q in QUERIES:  # warm: caches filled once are not garbage
        demo_service.search(q, group_by_session=True, limit=10, hits_per_group=3)
    gc.collect()
    gc.disable()
    try:
        for q in QUERIES:
            demo_service.search(q, group_by_session=True, limit=10, hits_per_group=3)
        left = gc.collect()
    finally:
        gc.enable()
    assert left == 0, f"{left} objects of a search were left for the collector"


WORDS = ["deploy", "config", "test", "error", "migra*", "the", "build", "zzzunfound", "README.md"]
FILTERS = ["", "kind:prompt", "role:user", "-tests", "after:30d", "tool:Bash", "kind:plan", "+fix"]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
    extra=st.sampled_from(FILTERS),
    tools=st.booleans(),
)
def test_a_session_search_counts_the_entries_an_entry_search_counts(
    demo_service, words: list[str], extra: str, tools: bool
) -> None:
    """One word's own search counts the entries when it matches what the query does (the
    count is not searched again); either way the count is the entry search's."""
    query = " ".join([*words, extra]).strip()
    grouped = demo_service.search(
        query, group_by_session=True, limit=4, hits_per_group=1, include_tool_results=tools
    )
    entries = demo_service.search(query, limit=1, include_tool_results=tools)
    assert grouped.total == entries.total, query


@pytest.mark.parametrize("batch", [1, 2, 5, 10_000])
def test_prompts_are_found_however_many_the_transcripts_hold(
    demo_service, monkeypatch, batch
) -> None:
    """`prompt_addresses` finds each wanted prompt as its own search finds it, with a batch
    that holds them all and with batches so small that most are looked up one by one (a
    session of more prompts than a batch holds)."""
    from ccarchive.service import base

    ctx = demo_service.index_context
    searcher = ctx.searcher()
    hits = searcher.search(tantivy.Query.term_query(ctx.schema, S.KIND, S.PROMPT), 500).hits
    assert len(hits) > 6
    docs = [searcher.doc(a) for _s, a in hits]
    wanted = {(S.first_value(d, S.PATH), int(S.first_value(d, S.SEQ, 0))) for d in docs}
    wanted |= {("projects/none/none.jsonl", 3), (S.first_value(docs[0], S.PATH), 10**6)}

    def own_search(path: str, seq: int):
        q = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, tantivy.Query.term_query(ctx.schema, S.KIND, S.PROMPT)),
                (tantivy.Occur.Must, tantivy.Query.term_query(ctx.schema, S.PATH, path)),
                (
                    tantivy.Occur.Must,
                    tantivy.Query.range_query(
                        ctx.schema, S.SEQ, tantivy.FieldType.Unsigned, seq, seq
                    ),
                ),
            ]
        )
        top = searcher.search(q, 1).hits
        return (top[0][1].segment_ord, top[0][1].doc) if top else None

    expected = {k: a for k in wanted if (a := own_search(*k)) is not None}
    monkeypatch.setattr(base, "PROMPT_BATCH", batch)
    found = base.prompt_addresses(searcher, ctx.schema, wanted)
    assert {k: (a.segment_ord, a.doc) for k, a in found.items()} == expected
    assert len(expected) == len(wanted) - 2
