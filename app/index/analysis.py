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

_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MAX_PARTS_INPUT = 64_000

_CLASSES = bytearray(b" " * 256)
_CLASSES[ord("a") : ord("z") + 1] = b"a" * 26
_CLASSES[ord("A") : ord("Z") + 1] = b"A" * 26
_CLASSES[ord("0") : ord("9") + 1] = b"0" * 10
_CLASS_TABLE = bytes(_CLASSES)
"""Each byte as its class: a lowercase letter `a`, an uppercase one `A`, a digit `0`, and
anything else (punctuation, space, every byte of a non-ASCII character) a word break."""
_CASE_CHANGES = (b"aA", b"AAa", b"0Aa")
"""Where a camelCase word changes case: `parseHttp`, `iPhone`; `HTTPServer`; `utf8Decoder`."""


def camel_parts(text: str) -> str:
    """The parts of every camelCase identifier in `text`, space separated ("" if none).

    An identifier is a word of ASCII letters and digits that changes case inside: a
    lowercase letter followed by an uppercase one (`parseHTTPResponse`, `iPhone`), or an
    uppercase run that ends in a capitalised word (`HTTPServer`, `utf8Decoder`); not a
    merely Capitalised or upper-case word (`Hello`, `HTTP`). Words come in text order,
    each once.

    This runs on every indexed text, so it is written for speed: the text's bytes are
    mapped to their classes in one C pass (`bytes.translate`) and the case changes found
    with `bytes.find`, so Python touches only the identifiers, not every word (3x faster
    than testing each word's case, which was itself 2x faster than a regex scan).
    """
    raw = text[:MAX_PARTS_INPUT].encode("utf-8", "surrogatepass")
    classes = raw.translate(_CLASS_TABLE)
    found: dict[bytes, int] = {}
    end_of_text = len(classes)
    for change in _CASE_CHANGES:
        i = classes.find(change)
        while i >= 0:
            start = classes.rfind(b" ", 0, i) + 1
            end = classes.find(b" ", i)
            if end < 0:
                end = end_of_text
            found.setdefault(raw[start:end], start)
            i = classes.find(change, end)
    if not found:
        return ""
    words = sorted(found, key=found.__getitem__) if len(found) > 1 else found
    return " ".join(" ".join(_CAMEL_PART.findall(w.decode("ascii"))) for w in words)


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
            forms.update(
                (base + "s", base + "d", base[:-1] + "ing", base[:-1] + "ion", base[:-1] + "ions")
            )
        else:
            forms.update((base + "s", base + "es", base + "ed", base + "ing"))
    return sorted(forms)
