"""How much meaning weighs in a search: more when the words barely cover the query."""

from __future__ import annotations

from ccarchive.service.semantic import (
    BARELY_COVERED,
    CODE_WEIGHT,
    DENSE_WEIGHT,
    REWORDED_WEIGHT,
    WELL_COVERED,
    dense_weight,
)
from ccarchive.service.session_ranking import _Session, _Turn, word_coverage


def test_the_share_rises_as_the_words_cover_less() -> None:
    assert dense_weight(DENSE_WEIGHT, 1.0) == DENSE_WEIGHT
    assert dense_weight(DENSE_WEIGHT, WELL_COVERED) == DENSE_WEIGHT
    assert dense_weight(DENSE_WEIGHT, BARELY_COVERED) == REWORDED_WEIGHT
    assert dense_weight(DENSE_WEIGHT, 0.0) == REWORDED_WEIGHT
    middle = dense_weight(DENSE_WEIGHT, (WELL_COVERED + BARELY_COVERED) / 2)
    assert DENSE_WEIGHT < middle < REWORDED_WEIGHT
    steps = [dense_weight(DENSE_WEIGHT, c / 20) for c in range(21)]
    assert steps == sorted(steps, reverse=True)  # never rises with coverage


def test_a_code_query_keeps_its_weight() -> None:
    assert dense_weight(CODE_WEIGHT, 0.0) == CODE_WEIGHT


def test_coverage_is_the_best_turns_share_of_the_term_weights() -> None:
    weights = [3.0, 1.0, 1.0]  # a rare word and two common ones
    a = _Session(
        "a",
        turns=[_Turn("a", 1, per_term={1: 5.0, 2: 5.0, -1: 9.0}), _Turn("a", 2, per_term={0: 1.0})],
    )
    b = _Session("b", turns=[_Turn("b", 1, per_term={0: 0.1, 1: 0.1})])
    assert word_coverage({"a": a}, weights) == 3.0 / 5.0  # proximity (-1) is no term
    assert word_coverage({"a": a, "b": b}, weights) == 4.0 / 5.0
    assert word_coverage({}, weights) == 0.0
    assert word_coverage({"a": a}, []) == 0.0
