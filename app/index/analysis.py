"""How text becomes terms: fast plain words in the index, code parts and word forms beside.

Tantivy's regex tokenizer (to split `parseHTTPResponse`) and its English stemmer each cut
indexing speed by 4-6x on this machine (measured: simple tokenizer 58 MB/s, +stemmer
9.5 MB/s, camelCase regex 7 MB/s). So the index uses the simple tokenizer (words of
letters and digits; `foo_bar`, paths and dotted names already split on punctuation) and
lowercases, and two cheaper things recover the rest:

- camelCase identifiers are split here, in Python, and their parts indexed in a field of
  their own (`parts`), so `Response` finds `parseHTTPResponse` while the whole word
  still matches the text itself;
- word forms are widened at query time (`test` also looks for `tests`, `testing`,
  `tested`), which is most of what stemming gave, at no indexing cost.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z0-9]{2,}")
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MAX_PARTS_INPUT = 64_000


def camel_parts(text: str) -> str:
    """The parts of every camelCase identifier in `text`, space separated ("" if none).

    An identifier is a word of letters and digits with mixed case that is not merely
    Capitalised (`parseHTTPResponse`, `iPhone`, `HTTPServer`; not `Hello`, `HTTP`).
    Finding every word and testing its case with str methods (C loops) is 2x faster
    than scanning for case changes with a regex and widening each to its word.
    """
    words: dict[str, None] = {}
    for w in _WORD.findall(text, 0, MAX_PARTS_INPUT):
        if not (w.islower() or w.isupper() or w[1:].islower() or w.isdigit()):
            words[w] = None
    if not words:
        return ""
    return " ".join(" ".join(_CAMEL_PART.findall(w)) for w in words)


def split_camel(word: str) -> list[str]:
    """`parseHTTPResponse` -> [parse, HTTP, Response]; a word without case change -> [word]."""
    parts = _CAMEL_PART.findall(word)
    return parts if len(parts) > 1 else [word]


_SUFFIXES = ("ing", "ed", "es", "s", "ion", "ions")
"""Inflections only: agent nouns (-er) change the meaning too often (walker, paper)."""


def word_forms(token: str) -> list[str]:
    """A lowercased word and its common English inflections, for matching without a
    stemmer: `test` -> tests, tested, testing; `migrating` -> migrate, migration, ...

    Only plain alphabetic words of 3+ letters are widened; identifiers, numbers and
    short words match as typed.
    """
    if len(token) < 3 or not token.isalpha() or not token.isascii():
        return [token]
    bases = set()
    for suffix in _SUFFIXES:
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            base = token[: -len(suffix)]
            bases.add(base)
            if suffix in ("ing", "ed", "ion", "ions"):
                bases.add(base + "e")  # migrating -> migrate
    if not bases:  # the word is itself a base form
        bases.add(token)
    forms = {token} | bases
    for base in bases:
        if base.endswith("e"):
            forms.update((base + "s", base + "d", base[:-1] + "ing", base[:-1] + "ion",
                          base[:-1] + "ions"))
        else:
            forms.update((base + "s", base + "es", base + "ed", base + "ing"))
    return sorted(forms)
