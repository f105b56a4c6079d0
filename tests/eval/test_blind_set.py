"""The blind set in CI: its data holds what it promises, and search clears a floor on it.

The floors sit under what the blind set measures on 80 MB archives of seeds 7 and 8
(README's table; `python -m tests.eval.harness --blind --seeds 7 8 --size-mb 80`), here
on the 50 MB archive of seed 1 that the search-quality floors read too (conftest.py:
every source of the set is in it, once or twice): a change that sends the answering
session or its turn down in any category fails. The suite ranks as a user without
settings does (the default tier: words and the static encoder), every category; the slow
tier ranks by words alone too, every category.
"""

from __future__ import annotations

import pytest

from tests.conftest import MAKE_ARCHIVE
from tests.eval import blind, harness
from tests.eval.blind_words import shared_content_words
from tests.support.encoders import with_static

pytestmark = [
    pytest.mark.skipif(
        not MAKE_ARCHIVE.exists() or not blind.REAL.exists(), reason="needs ../shared/corpus"
    ),
    pytest.mark.long,
]

QUERIES = blind.load_blind()

FLOORS = {  # category: (Recall@10, MRR@10, Turn@10, Turn@1st)
    "plain": (0.85, 0.75, 0.8, 0.8),
    "deep": (0.9, 0.85, 0.85, 0.9),
    "topic": (0.9, 0.85, 0.85, 0.75),
    "ident": (0.9, 0.9, 0.85, 0.9),
    "reword": (0.3, 0.12, 0.25, 0.2),
    "ALL": (0.8, 0.7, 0.75, 0.75),
}
"""Turn@1st (the answering turn shown first) on seed 1 measures 0.80 in all (plain 0.87,
deep 1.00, topic 0.92; on 30 MB 0.79, 0.87, 1.00, 0.83) once a plan or memory file
stopped outranking the turn it retells; 0.73 before (plain 0.73, deep 0.86), which these
floors fail."""


def test_the_set_covers_every_category() -> None:
    assert len(QUERIES) >= 60
    assert len({q.id for q in QUERIES}) == len(QUERIES)
    for cat in blind.CATEGORIES:
        assert sum(q.cat == cat for q in QUERIES) >= 10, cat


@pytest.mark.parametrize("q", QUERIES, ids=lambda q: q.id)
def test_each_answer_names_a_turn_of_its_session(q: blind.BlindQuery) -> None:
    """The uuids are in the source, the turn opens at or before the answer, and the
    answer is no later than the next typed prompt after the turn (it is in that turn)."""
    for a in q.answers:
        lines, typed = blind._read_source(blind.REAL / a.src)
        assert a.turn in lines and a.answer in lines, (q.id, a)
        start, end = lines[a.turn], lines[a.answer]
        assert start <= end, q.id
        later = [t for t in typed if t > start]
        assert not later or end < later[0], (q.id, "the answer lies in a later turn")


@pytest.mark.parametrize("q", [q for q in QUERIES if q.cat == "reword"], ids=lambda q: q.id)
def test_a_rewording_shares_at_most_one_content_word_with_its_session(q) -> None:
    for a in q.answers:
        shared = shared_content_words(q.q, blind.REAL / a.src)
        assert len(shared) <= 1, (q.id, sorted(shared))


def test_the_content_words_of_a_text() -> None:
    from tests.eval.blind_words import content_stems

    assert content_stems("The tests were failing and the test fails") == {"test", "fail"}
    assert content_stems("how do I do it with a CLI") == set()


def _words_only(eval_archive, queries: list[blind.BlindQuery]) -> blind.BlindReport:
    key = blind.ArchiveKey(eval_archive.root, eval_archive.manifest)
    assert {a.src for q in QUERIES for a in q.answers} <= key.sources()
    return blind.evaluate_blind(eval_archive.service, key, queries)


@pytest.fixture(scope="session")
def scored(eval_archive):
    """Every query, words only. Session-scoped as its archive is (a module-scoped
    fixture would group this module apart from test_eval.py, and the archive would be
    built on both workers)."""
    return _words_only(eval_archive, QUERIES)


@pytest.fixture(scope="session")
def rewordings_by_words(eval_archive):
    """The rewordings, words only: what the default tier must lift."""
    return _words_only(eval_archive, [q for q in QUERIES if q.cat == "reword"])


METRICS = ("recall@10", "mrr@10", "turn@10", "turn@1st")


def _below(table: dict[str, dict], floors: dict[str, tuple[float, ...]]) -> dict[str, tuple]:
    """The categories under a floor of theirs, with their figures."""
    return {
        cat: tuple(round(table[cat][m], 2) for m in METRICS)
        for cat, floor in floors.items()
        if any(table[cat][m] < f for m, f in zip(METRICS, floor, strict=True))
    }


@pytest.mark.slow
@pytest.mark.xdist_group("eval-archive")  # on the worker that built it (conftest.py)
def test_every_category_clears_its_floor(scored: blind.BlindReport) -> None:
    """Words only, every category, in the slow tier (its 60+ searches of a 50 MB archive
    cost 3 CPU-s). The suite keeps every category's floor on the blind set, Turn@1st
    included, as a user without settings ranks
    (`test_the_default_tier_lifts_rewordings_and_keeps_every_floor`: these floors, but
    the rewordings'), and words only on every category of the generated queries
    (`tests/eval/test_eval.py::test_every_category_clears_its_floor`)."""
    table = {r["category"]: r for r in scored.table()}
    print("\n" + blind.format_blind(list(table.values())))
    low = _below(table, FLOORS)
    assert not low, f"below the floor: {low}"


DEFAULT_FLOORS = {  # category: (Recall@10, MRR@10, Turn@10, Turn@1st), ranking by meaning too
    **FLOORS,
    "reword": (0.68, 0.33, 0.43, 0.3),
    "ALL": (0.9, 0.8, 0.85, 0.75),
}
"""With the default tier (the static encoder), seed 1's rewordings measure 0.75 / 0.39 /
0.50 / 0.38 (words only 0.50 / 0.27 / 0.38 / 0.31) and all 0.94 / 0.84 / 0.89 / 0.81: the
floors let one rewording slip; the other categories keep the floors of words alone."""


@pytest.mark.xdist_group("eval-archive")  # on the worker that built it (conftest.py)
def test_the_default_tier_lifts_rewordings_and_keeps_every_floor(
    eval_archive, rewordings_by_words: blind.BlindReport
) -> None:
    """Ranking by meaning as a user without settings has it (`--semantic` not given: the
    static encoder), its vectors built as `ccarchive index` builds them: a reworded
    memory finds its session more often than by words alone, and no category falls
    below its floor."""
    from ccarchive.service import ArchiveService

    service = eval_archive.service
    meaning = ArchiveService(service.store, service.root)
    data = with_static(service.store.base.parent)  # made once (tests/support/encoders.py)
    costs = harness.enable_semantic(meaning, service.root, data, reuse_copies=True, semantic=None)
    assert costs["encoder"] == "TokenVectors" and costs["vectors"] >= 300, costs
    key = blind.ArchiveKey(eval_archive.root, eval_archive.manifest)
    table = {r["category"]: r for r in blind.evaluate_blind(meaning, key, QUERIES).table()}
    words = {r["category"]: r for r in rewordings_by_words.table()}
    print("\n" + blind.format_blind(list(table.values())))
    assert table["reword"]["recall@10"] > words["reword"]["recall@10"] + 0.1
    low = _below(table, DEFAULT_FLOORS)
    assert not low, f"below the floor: {low}"
