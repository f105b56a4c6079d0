"""Each word's own search in the session ranking, kept to the filters alone.

For a plain query with no required word, `Search` hands `SessionRanking` the filters
without the words (`words_filter`), since every word's hits already match the query: the
same hits, without evaluating the union of all the words under each one. These tests hold
it to that on a real index: the hits of every word are the same both ways, for queries
with filters in them and beside them; a required word turns the shortcut off.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from tantivy import Occur, Query

from ccarchive.index.query.compiler import compile_query

QUERIES = [
    "database migration",
    "fix the failing test",
    "how do I run the tests",
    "kind:prompt refactor the parser",
    "-kind:tool_call search index",
    "project:demo error handling",
    "tool:Bash npm install",
    "role:user plan",
    "README.md config",
    "src/app.py login",
    "migra* schema",
]
OPTIONS = [
    {},
    {"since": "2020-01-01"},
    {"project": "demo"},
    {"include_tool_results": True},
]


def _hits(searcher, q: Query, filt: Query) -> list:
    res = searcher.search(
        Query.boolean_query([(Occur.Must, q), (Occur.Must, Query.const_score_query(filt, 0.0))]),
        200,
        count=False,
    )
    return [(round(s, 6), a.segment_ord, a.doc) for s, a in res.hits]


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("opts", OPTIONS, ids=str)
def test_each_word_finds_the_same_hits_within_the_filters_alone(demo_service, query, opts):
    search = demo_service.text_search
    ctx = demo_service.index_context
    cq = compile_query(query, ctx.schema, ctx.analyzer, now=datetime.now(UTC))
    if not (cq.plain and cq.rank_terms):
        pytest.skip("not a plain query")  # not expected for these queries
    kinds = search._kinds(cq, None, opts.get("include_tool_results", False), False, [])
    options = {
        "project": opts.get("project"),
        "since": opts.get("since"),
        "until": None,
        "session_id": None,
        "exclude_sessions": (),
        "gen_max": None,
    }
    full = ctx.with_kinds(search._filters(cq, **options), kinds)
    alone = ctx.with_kinds(search._filters(cq, words=False, **options), kinds)
    searcher = ctx.searcher()
    found = 0
    for _text, q, _req in cq.rank_terms:
        a, b = _hits(searcher, q, full), _hits(searcher, q, alone)
        assert a == b
        found += len(a)
    assert searcher.search(full, 1, count=True).count == 0 or found > 0


def test_a_required_word_keeps_the_whole_query(demo_service):
    """With `+word` a document with another word alone does not match: the shortcut is
    off, and results hold the required word."""
    page = demo_service.search("+zzzunseenword database", group_by_session=True)
    assert page.total == 0 and not page.groups
