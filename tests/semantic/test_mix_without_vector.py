"""A session that has no vector (a prompt typed in a session whose transcript is gone, a plan,
a memory file, a turn not embedded yet) keeps the rank its words give it: with semantic
search on by default, the reworded weight (0.8) used to give it the mean cosine, and a
history-only session that the words put first fell to tenth (an agent harness question,
seed 2)."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from ccarchive.service.semantic import DENSE_WEIGHT, REWORDED_WEIGHT, Dense, mix


@dataclass(frozen=True)
class Row:
    key: int


def order(rows: list[tuple[float, Row]], scores: dict[int, float], weight: float) -> list[int]:
    mixed = mix(rows, Dense(scores, weight))
    return [r.key for _s, r in sorted(mixed, key=lambda x: -x[0])]


def test_the_word_leader_without_a_vector_stays_first() -> None:
    rows = [(9.3, Row(0)), (6.3, Row(1)), (6.2, Row(2)), (5.5, Row(3)), (5.0, Row(4))]
    cosines = {1: 0.30, 2: 0.42, 3: 0.25, 4: 0.20}  # session 0 has none
    for weight in (DENSE_WEIGHT, REWORDED_WEIGHT):
        assert order(rows, cosines, weight)[0] == 0
    # with a vector as close as the others' it would have had to share the rank
    assert order(rows, {**cosines, 0: 0.10}, REWORDED_WEIGHT)[0] != 0


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
