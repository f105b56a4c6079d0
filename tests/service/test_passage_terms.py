"""`Terms.find`, the scan behind every passage, against the patterns it stands for.

`find` skips a term absent from an ASCII text and scans without the look-behind (then
checks it per match) because that is several times faster; what it must never do is
find other matches than the patterns themselves. Hypothesis draws texts and query words
from alphabets that provoke the edges: case, digits before a term, camelCase, prefixes,
non-ASCII letters (the shortcut is off for them) and terms that overlap.
"""

from __future__ import annotations

from hypothesis import given, settings
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
