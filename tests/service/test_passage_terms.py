"""`Terms.find`, the scan behind every passage, against the patterns it stands for.

`find` skips a term absent from an ASCII text and scans without the look-behind (then
checks it per match) because that is several times faster; what it must never do is
find other matches than the patterns themselves. Hypothesis draws texts and query words
from alphabets that provoke the edges: case, digits before a term, camelCase, prefixes,
non-ASCII letters (the shortcut is off for them) and terms that overlap.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ccarchive.service.passages import Terms, best_window

ALPHABET = "abcdeiIkKsSMmgrat0 9_-.\n/İıſKé"
WORDS = st.text(alphabet="abcdeimgrast", min_size=1, max_size=6)


def reference(terms: Terms, text: str) -> list[tuple[int, int, int]]:
    return sorted(
        (m.start(), m.end(), i) for i, p in enumerate(terms.patterns) for m in p.finditer(text)
    )


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet=ALPHABET, max_size=300),
    words=st.lists(
        st.one_of(WORDS, WORDS.map(lambda w: w + "*"), WORDS.map(str.upper)),
        min_size=1,
        max_size=4,
    ),
)
def test_find_matches_the_patterns(text: str, words: list[str]) -> None:
    terms = Terms.of(words)
    assert terms.find(text) == reference(terms, text)


def test_find_on_real_words() -> None:
    text = (
        "Migrations ran: the MIGRATION of the database (dbMigration, 2migrate) failed; "
        "İmporter ſtatus and the importer's --dry-run flag; migrating again. "
    ) * 20
    for words in (
        ["migration", "database"],
        ["migra*", "importer"],
        ["dry", "run", "flag"],
        ["status"],
        ["importer", "İmporter"],
    ):
        terms = Terms.of(words, [1.0, 2.0, 0.5][: len(words)])
        hits = terms.find(text)
        assert hits == reference(terms, text)
    # the same window as the reference scan would give
    terms = Terms.of(["importer", "flag"])
    assert best_window(text, terms, 120).score > 0


ASCII = "abcdeiIkKsSMmgrat0 9_-.\n/AEGR"
FOLDLESS = ASCII + "éÉßẞÅΩ—…ǅ"
"""Non-ASCII letters, none of those case-insensitive matching folds into ASCII ones."""
IDENTS = st.text(alphabet="abegmrst09_.-", min_size=1, max_size=8)


@settings(max_examples=600, deadline=None)
@given(
    text=st.one_of(st.text(alphabet=ASCII, max_size=400), st.text(alphabet=FOLDLESS, max_size=400)),
    words=st.lists(
        st.one_of(WORDS, WORDS.map(lambda w: w + "*"), WORDS.map(str.upper), IDENTS),
        min_size=1,
        max_size=5,
    ),
)
@example(text="a_a_a_a a-a-a", words=["a_a", "a-a"])  # a match inside the one before
@example(text="tests testing retest test9 TEST_x", words=["test", "tes*", "test*"])
def test_find_in_lowered_text_matches_the_patterns(text: str, words: list[str]) -> None:
    """Text without İ ı ſ K (Kelvin) is scanned lowercased with `str.find`, no regex:
    inflected forms that overlap (test, tests, testing), forms that are prefixes of each
    other, identifiers with digits and dots, a term right after a letter or digit,
    prefixes, and non-ASCII letters beside them."""
    terms = Terms.of(words)
    assert terms.find(text) == reference(terms, text)
    assert terms.present(text) == {i for _s, _e, i in reference(terms, text)}
