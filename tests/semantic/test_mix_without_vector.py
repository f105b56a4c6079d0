"""A session that has no vector (a prompt typed in a session whose transcript is gone, a plan,
a memory file, a turn not embedded yet) is mixed at the base weight whatever the query:
the weight raised for rewordings trusts a cosine it lacks. Given the mean cosine at the
reworded weight (0.8), a history-only session that the words put first fell to tenth (an
agent harness question, seed 2, with semantic search on by default)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from ccarchive.service.semantic import DENSE_WEIGHT, REWORDED_WEIGHT, Dense, mix


@dataclass(frozen=True)
class Row:
    key: int | tuple  # a session's key, or ("doc", segment, doc) for a plan or memory file


def order(rows: list[tuple[float, Row]], scores: dict[int, float], weight: float) -> list[int]:
    mixed = mix(rows, Dense(scores, weight))
    return [r.key for _s, r in sorted(mixed, key=lambda x: -x[0])]


def test_the_word_leader_without_a_vector_stays_first() -> None:
    # the agent harness's case: the words' first ten (a history-only session first), the
    # others' cosines as the static encoder gave them
    lex = [0.927, 0.63, 0.625, 0.549, 0.508, 0.382, 0.377, 0.355, 0.321, 0.251]
    cos = [None, 0.33, 0.31, 0.30, 0.34, 0.22, 0.30, 0.27, 0.36, 0.42]
    rows = [(x, Row(i)) for i, x in enumerate(lex)]
    cosines = {i: c for i, c in enumerate(cos) if c is not None}
    for weight in (DENSE_WEIGHT, REWORDED_WEIGHT):
        assert order(rows, cosines, weight)[0] == 0
    # with a vector as far as the furthest of the others' it would not have
    assert order(rows, {**cosines, 0: 0.2}, REWORDED_WEIGHT)[0] != 0


def test_a_plan_without_a_vector_takes_the_searchs_weight() -> None:
    """A plan or memory file is not a session whose meaning went missing: it takes the
    search's weight, as before (the planted-fact harness lost ranks when it did not)."""
    lex = [0.927, 0.63, 0.625, 0.549, 0.508, 0.382, 0.377, 0.355, 0.321, 0.251]
    cos = [None, 0.33, 0.31, 0.30, 0.34, 0.22, 0.30, 0.27, 0.36, 0.42]
    rows = [(x, Row(("doc", 0, 7) if i == 0 else i)) for i, x in enumerate(lex)]
    cosines = {i: c for i, c in enumerate(cos) if c is not None}
    assert order(rows, cosines, DENSE_WEIGHT)[0] == ("doc", 0, 7)
    assert order(rows, cosines, REWORDED_WEIGHT)[0] != ("doc", 0, 7)


def test_meaning_still_reorders_the_sessions_that_have_vectors() -> None:
    rows = [(5.0, Row(0)), (4.9, Row(1)), (1.0, Row(2))]
    assert order(rows, {0: 0.1, 1: 0.6}, REWORDED_WEIGHT)[:2] == [1, 0]


@given(
    st.lists(
        st.tuples(
            st.integers(0, 500).map(lambda n: n / 10),  # word scores as BM25 gives them
            st.one_of(st.none(), st.floats(-1, 1)),
        ),
        min_size=2,
        max_size=30,
    ),
    st.sampled_from([DENSE_WEIGHT, REWORDED_WEIGHT, 0.2]),
)
def test_without_any_vector_the_words_order_is_kept(pairs, weight: float) -> None:
    rows = [(lex, Row(i)) for i, (lex, _c) in enumerate(pairs)]
    assert order(rows, {}, weight) == [r.key for _s, r in sorted(rows, key=lambda x: -x[0])]
    # and a row without a vector never moves against another without one
    scores = {i: c for i, (_l, c) in enumerate(pairs) if c is not None}
    mixed = {r.key: s for s, r in mix(rows, Dense(scores, weight))}
    bare = [(lex, r.key) for lex, r in rows if r.key not in scores]
    for la, ka in bare:
        for lb, kb in bare:
            if la > lb:
                assert mixed[ka] >= mixed[kb]
