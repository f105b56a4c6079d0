"""The passage of a text that answers a query: where its words are densest.

A search result shows the turn that answers, but a turn's reply can be pages long and
its first lines are rarely the answer. An agent pays for every character it reads, so a
result carries the one window of the answering entry that holds most of the query's
evidence: the window (about `PASSAGE_CHARS`) that covers the most distinct query terms,
each weighed by its rarity (idf), with repeats adding a little. The finder uses the same
score to choose which entry of a turn shows it, so the passage comes from the entry
that carries the terms, not merely the one that scored best in the index.

This module only finds windows in plain text; `excerpts` cuts and redacts them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from ccarchive.index.analysis import word_forms

PASSAGE_CHARS = 320
"""Characters of the passage a search result shows by default."""
REPEAT_WEIGHT = 0.1
"""What a further occurrence of a term already in the window adds (share of its weight)."""


KIND_WORDS = {"plan": "plan", "plans": "plan", "memory": "memory", "memories": "memory"}
"""Words of a question that name a kind of document ("what did the plan say"): no
evidence of where such a document answers, since every plan is headed "Plan" and every
memory file says "memory" (`Terms.in_kind`)."""

_AFTER_WORD = re.compile(r"[a-z0-9]", re.I)
"""A character a term may not follow (the look-behind of `Terms.patterns`)."""
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
"""The same characters, lowercase, for the scan of lowercased ASCII text."""
_ASCII_FOLDS = ("\u0130", "\u0131", "\u017f", "\u212a")
"""The non-ASCII letters a case-insensitive pattern matches for ASCII ones (İ ı ſ and the
Kelvin sign): the only ones, and İ the only letter whose lowercase is longer than it;
text without them lowercases letter for letter, ASCII letters only from ASCII letters."""
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
"""Characters a whole-word term may not be followed by (lowercase ASCII)."""


@dataclass(frozen=True)
class Terms:
    """A query's terms as patterns over text, with their weights (and the kind of
    document each term's word names, if any: `KIND_WORDS`).

    `find` gives the same matches as each pattern's `finditer`, faster: in text without
    the few letters that case-insensitive matching folds into ASCII ones (nearly all of
    an archive) each word form is looked up with `str.find` in the lowercased text, the
    patterns' look-behind and look-ahead checked per match, so no regex is compiled (a
    case-insensitive alternation of a word's forms took about 0.35 ms to compile, twice
    per word: several ms a query); other text is scanned by the patterns, compiled on
    first use (`patterns`, `scans`)."""

    weights: tuple[float, ...]
    names: tuple[str, ...]
    forms: tuple[tuple[str, ...], ...]
    """Each term's word forms, lowercase, longest first (the patterns' alternation)."""
    prefix: tuple[bool, ...]
    """Whether each term is a prefix (`migra*`): it may end anywhere."""

    @classmethod
    def of(cls, words: list[str], weights: list[float] | None = None) -> Terms:
        ws, names, all_forms, prefix = [], [], [], []
        for i, word in enumerate(words):
            w = word.rstrip("*").lower()
            if not w:
                continue
            all_forms.append(tuple(f.lower() for f in sorted(word_forms(w), key=len, reverse=True)))
            prefix.append(word.endswith("*"))
            ws.append(weights[i] if weights and i < len(weights) else 1.0)
            names.append(KIND_WORDS.get(w, ""))
        return cls(tuple(ws), tuple(names), tuple(all_forms), tuple(prefix))

    @cached_property
    def ascii(self) -> tuple[bool, ...]:
        """Whether each term's forms are all ASCII (then `find` needs no pattern)."""
        return tuple(all(f.isascii() for f in forms) for forms in self.forms)

    @cached_property
    def stems(self) -> tuple[str, ...]:
        """What each term's forms all begin with (`migrat` of migrate, migration...)."""
        return tuple(os.path.commonprefix(list(forms)) for forms in self.forms)

    @cached_property
    def patterns(self) -> tuple[re.Pattern[str], ...]:
        """Each term as a pattern: one of its forms, starting a word (or a part of one:
        parseHTTP finds `http`); a prefix query (migra*) may end anywhere."""
        return tuple(
            _pattern(forms, prefix, True)
            for forms, prefix in zip(self.forms, self.prefix, strict=True)
        )

    @cached_property
    def scans(self) -> tuple[re.Pattern[str], ...]:
        """Each pattern without its look-behind (checked on each match instead, which lets
        the regex engine skip ahead to a term's first letters)."""
        return tuple(
            _pattern(forms, prefix, False)
            for forms, prefix in zip(self.forms, self.prefix, strict=True)
        )

    def in_kind(self, kind: str) -> Terms:
        """The terms as evidence inside a document of `kind`: without those naming its
        kind (the plan's own "Plan" heading would otherwise draw its passage), unless
        they are all there is."""
        if kind not in self.names:
            return self
        keep = [i for i, name in enumerate(self.names) if name != kind]
        if not keep:
            return self
        return Terms(
            tuple(self.weights[i] for i in keep),
            tuple(self.names[i] for i in keep),
            tuple(self.forms[i] for i in keep),
            tuple(self.prefix[i] for i in keep),
        )

    def find(self, text: str) -> list[tuple[int, int, int]]:
        """Every match in `text` as (start, end, term index), sorted: what
        `sorted((m.start(), m.end(), i) for i, p in enumerate(self.patterns) for m in
        p.finditer(text))` gives."""
        # ASCII forms: case-insensitive matching is plain comparison with the text
        # lowercased, at the same offsets, unless the text holds one of the four letters
        # that a case-insensitive pattern takes for ASCII ones (`_ASCII_FOLDS`)
        lower = text.lower() if text.isascii() or not _folds_into_ascii(text) else None
        out: list[tuple[int, int, int]] = []
        for i, forms in enumerate(self.forms):
            if lower is not None and self.ascii[i]:
                _find_lowered(lower, forms, self.stems[i], self.prefix[i], i, out)
                continue
            scan = self.scans[i]
            pos, n = 0, len(text)
            while pos <= n:
                m = scan.search(text, pos)
                if m is None:
                    break
                start, end = m.span()
                if start and _AFTER_WORD.match(text, start - 1):
                    pos = start + 1  # as the look-behind would: try the next position
                    continue
                out.append((start, end, i))
                pos = end if end > start else end + 1
        out.sort()
        return out

    def present(self, text: str) -> set[int]:
        """The indexes of the terms `text` holds anywhere."""
        return {i for _s, _e, i in self.find(text)}

    def __bool__(self) -> bool:
        return bool(self.forms)


@dataclass(frozen=True)
class Window:
    score: float
    start: int
    end: int


def best_window(text: str, terms: Terms, width: int = PASSAGE_CHARS) -> Window:
    """The window of about `width` characters of `text` with the most query evidence
    (score 0 and the text's start when no term occurs). Its ends fall on word breaks."""
    if len(text) <= width or not terms:
        score = _score(text, terms) if terms else 0.0
        return Window(score, 0, min(len(text), width))
    hits = terms.find(text)
    if not hits:
        return Window(0.0, 0, _word_end(text, width))
    best = (0.0, 0, 0)  # score, first hit, last hit (indexes into hits)
    weights, n, j = terms.weights, len(hits), 0
    for i in range(n):
        start = hits[i][0]
        while j < n and hits[j][1] - start <= width:
            j += 1
        # `_weigh(hits[i:j])`, written out: this runs for every hit of every candidate
        seen: dict[int, int] = {}
        for k in range(i, j):
            t = hits[k][2]
            seen[t] = seen.get(t, 0) + 1
        score = sum(weights[t] * (1 + REPEAT_WEIGHT * min(c - 1, 3)) for t, c in seen.items())
        if score > best[0] + 1e-9:
            best = (score, i, j - 1)
    score, a, b = best
    lo, hi = hits[a][0], hits[b][1]
    # the evidence a little off centre: what follows a question's words is its answer
    slack = width - (hi - lo)
    start = max(0, lo - slack // 3)
    end = min(len(text), start + width)
    start = max(0, end - width)
    return Window(score, _word_start(text, start), _word_end(text, end))


def coverage(text: str, terms: Terms) -> float:
    """The share of the query (its terms' weights) that `text` holds anywhere, 0-1: for a
    document of its own (a plan, a memory file), what a session's `relevance` is for its
    best turn."""
    total = sum(terms.weights)
    if not total:
        return 0.0
    held = terms.present(text)
    return sum(w for i, w in enumerate(terms.weights) if i in held) / total


def _folds_into_ascii(text: str) -> bool:
    """Whether `text` holds one of `_ASCII_FOLDS` (four substring searches: a set
    intersection walked the whole text in Python's objects)."""
    return any(ch in text for ch in _ASCII_FOLDS)


@lru_cache(maxsize=1024)
def _pattern(forms: tuple[str, ...], prefix: bool, behind: bool) -> re.Pattern[str]:
    """A term's pattern: any of its forms (in order: the longest first), not followed by
    a letter unless a prefix, not preceded by a letter or digit if `behind`."""
    alt = "|".join(re.escape(f) for f in forms)
    tail = "" if prefix else r"(?![a-z])"
    head = r"(?<![a-z0-9])" if behind else ""
    return re.compile(rf"{head}(?:{alt}){tail}", re.I)


def _find_lowered(
    lower: str,
    forms: tuple[str, ...],
    stem: str,
    prefix: bool,
    term: int,
    out: list[tuple[int, int, int]],
) -> None:
    """A term's matches in lowercased text (`Terms.find`), into `out`, as its pattern
    finds them: leftmost first, at each position the first of its forms that fits (not
    followed by a letter unless a prefix), none right after a letter or digit, none
    overlapping the one before. Every form begins with `stem`, so only where the stem
    is can a form start."""
    n, pos = len(lower), 0
    at = lower.find(stem)
    while at >= 0:
        if at >= pos and not (at and lower[at - 1] in _WORD_CHARS):
            for form in forms:
                end = at + len(form)
                if lower.startswith(form, at) and (
                    prefix or end >= n or lower[end] not in _LETTERS
                ):
                    out.append((at, end, term))
                    pos = end
                    break
        at = lower.find(stem, at + 1)


def _score(text: str, terms: Terms) -> float:
    return _weigh(terms.find(text), terms.weights)


def _weigh(hits: list[tuple[int, int, int]], weights: tuple[float, ...]) -> float:
    seen: dict[int, int] = {}
    for _s, _e, i in hits:
        seen[i] = seen.get(i, 0) + 1
    return sum(weights[i] * (1 + REPEAT_WEIGHT * min(n - 1, 3)) for i, n in seen.items())


def _word_start(text: str, i: int) -> int:
    """`i` moved forward to the start of a word (at most 20 characters)."""
    if i <= 0:
        return 0
    for k in range(i, min(len(text), i + 20)):
        if text[k - 1].isspace():
            return k
    return i


def _word_end(text: str, i: int) -> int:
    """`i` moved back to the end of a word (at most 20 characters)."""
    if i >= len(text):
        return len(text)
    for k in range(i, max(0, i - 20), -1):
        if text[k].isspace():
            return k
    return i
