"""The search language, stage 1a: limits, filter names and the tokenizer.

A query is split into tokens (words, phrases, `field:value` filters, parentheses, the
operators `AND`/`OR`/`NOT`, `-` for "not" and `+` for "required") by `tokenize`, which never
fails: what it had to drop is appended to `warnings`. See `ccarchive.index.query.compiler` for the
whole language.
"""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError

from ccarchive.index import schema as S
from ccarchive.text import clip

# ---- limits ------------------------------------------------------------------------
MAX_QUERY_CHARS = 4000
"""Longer input is cut here (a pasted log is not a query); the cut is reported."""
MAX_TERMS = 64
"""Words, phrases and filters read from one query; the rest is reported and dropped."""
MAX_PHRASE_TOKENS = 32
"""Analysed tokens kept from one phrase or code word; enough to pin any passage down."""
MAX_DEPTH = 16
"""Nesting of parentheses; deeper ones are flattened (keeps recursion and the query small)."""
MAX_FILTER_CHARS = 100
"""Filter values compile to regexes, which Tantivy caps at 1000 automaton states."""

QUOTED_CHARS = 40
"""A piece of the query quoted in a warning is cut to this many characters."""

# ---- field filters -----------------------------------------------------------------
FILTER_FIELDS = (
    "project",
    "session",
    "kind",
    "role",
    "tool",
    "file",
    "model",
    "branch",
    "after",
    "before",
)
"""Filter names (`name:value`), matched case-insensitively. Any other `x:y` is text."""

KIND_ALIASES: dict[str, str] = {
    **{k: k for k in S.SEARCHABLE_KINDS},
    "prompts": S.PROMPT,
    "user": S.PROMPT,
    "human": S.PROMPT,
    "assistants": S.ASSISTANT,
    "reply": S.ASSISTANT,
    "replies": S.ASSISTANT,
    "claude": S.ASSISTANT,
    "think": S.THINKING,
    "thoughts": S.THINKING,
    "reasoning": S.THINKING,
    "tool": S.TOOL_CALL,
    "tools": S.TOOL_CALL,
    "call": S.TOOL_CALL,
    "calls": S.TOOL_CALL,
    "toolcall": S.TOOL_CALL,
    "tool_calls": S.TOOL_CALL,
    "result": S.TOOL_RESULT,
    "results": S.TOOL_RESULT,
    "output": S.TOOL_RESULT,
    "outputs": S.TOOL_RESULT,
    "toolresult": S.TOOL_RESULT,
    "tool_results": S.TOOL_RESULT,
    "summaries": S.SUMMARY,
    "recap": S.SUMMARY,
    "recaps": S.SUMMARY,
    "events": S.EVENT,
    "plans": S.PLAN,
    "memories": S.MEMORY,
    "mem": S.MEMORY,
    "hist": S.HISTORY,
}
"""`kind:` values (lower-cased, `-` read as `_`) to the kinds of `schema.SEARCHABLE_KINDS`."""

_OPERATORS = {"AND", "OR", "NOT"}
_FIELD_RE = re.compile(r"([A-Za-z]+):")


class Value:
    """An immutable value: compared, hashed and shown by its fields (its `__slots__`,
    each also annotated in the class body for type checkers), like a frozen dataclass
    (`Word(text='a', prefix=False)`).

    The tokens and AST nodes were frozen dataclasses; creating those seven classes cost
    ~4 ms at import (each generated method is compiled from source), on the path of every
    `ccarchive search`.
    """

    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple:
        return self.__class__, self._fields()  # copy and pickle (setattr would refuse)


set_field = object.__setattr__


# ---- stage 1a: tokens --------------------------------------------------------------
class Token(Value):
    """A lexical token. `kind` is one of WORD PHRASE FIELD LPAREN RPAREN AND OR NOT MINUS
    PLUS."""

    __slots__ = __match_args__ = ("kind", "text", "field", "quoted", "raw")
    kind: str
    text: str
    """The word as typed, the phrase's content, or the filter's value."""
    field: str
    """FIELD: the filter name, lower-cased."""
    quoted: bool
    """FIELD: the value was in quotes."""
    raw: str
    """As typed, for messages."""

    def __init__(
        self, kind: str, text: str = "", field: str = "", quoted: bool = False, raw: str = ""
    ) -> None:
        set_field(self, "kind", kind)
        set_field(self, "text", text)
        set_field(self, "field", field)
        set_field(self, "quoted", quoted)
        set_field(self, "raw", raw)


def tokenize(text: str, warnings: list[str]) -> list[Token]:
    """Split a query into tokens; never fails, appends to `warnings` what it dropped.

    `(` opens a group at the start of a token only, so code such as `print(x)` stays one
    word; inside a word, `)` closes only a `(` of that word. `-` directly before a term
    negates it (`--flag` is a word); `+` directly before one makes it required. `"`
    always starts a phrase; an unclosed one runs to the end. `name:` with a known filter
    name starts a filter, its value bare or quoted.
    """
    if len(text) > MAX_QUERY_CHARS:
        warnings.append(
            f"the query is {len(text)} characters long; only the first {MAX_QUERY_CHARS} were read"
        )
        text = text[:MAX_QUERY_CHARS]
    tokens: list[Token] = []
    n = len(text)
    i = 0
    terms = 0
    depth = 0  # open groups emitted
    flattened = 0  # open groups dropped for depth
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == "(":
            i += 1
            if depth >= MAX_DEPTH:
                if not flattened:
                    warnings.append(
                        f"parentheses nested deeper than {MAX_DEPTH} levels were flattened"
                    )
                flattened += 1
                continue
            depth += 1
            tokens.append(Token("LPAREN", raw="("))
            continue
        if c == ")":
            i += 1
            if flattened:
                flattened -= 1
                continue
            depth = max(0, depth - 1)
            tokens.append(Token("RPAREN", raw=")"))
            continue
        if (
            c == "-"
            and i + 1 < n
            and not text[i + 1].isspace()
            and text[i + 1] not in "-)"
            and not _short_flag(text, i)
        ):
            tokens.append(Token("MINUS", raw="-"))
            i += 1
            continue
        if c == "+" and i + 1 < n and not text[i + 1].isspace() and text[i + 1] not in "+)":
            tokens.append(Token("PLUS", raw="+"))
            i += 1
            continue
        if terms >= MAX_TERMS:
            warnings.append(
                f"the query has more than {MAX_TERMS} terms; only the first {MAX_TERMS} were used"
            )
            break
        terms += 1
        if c == '"':
            value, i = _read_phrase(text, i, warnings)
            tokens.append(Token("PHRASE", text=value, raw=f'"{value}"'))
            continue
        word, i = _read_word(text, i)
        if word in _OPERATORS:
            terms -= 1
            tokens.append(Token(word, raw=word))
            continue
        m = _FIELD_RE.match(word)
        if m and m.group(1).lower() in FILTER_FIELDS:
            name = m.group(1).lower()
            value = word[m.end() :]
            quoted = False
            if not value and i < n and text[i] == '"':
                value, i = _read_phrase(text, i, warnings)
                quoted = True
            raw = f'{m.group(1)}:"{value}"' if quoted else word
            tokens.append(Token("FIELD", text=value, field=name, quoted=quoted, raw=raw))
            continue
        tokens.append(Token("WORD", text=word, raw=word))
    return tokens


def _read_phrase(text: str, i: int, warnings: list[str]) -> tuple[str, int]:
    """Read `"..."` starting at the quote at `i`; an unclosed quote runs to the end."""
    end = text.find('"', i + 1)
    if end < 0:
        value = text[i + 1 :]
        warnings.append(
            f'the quote before "{clip(value, QUOTED_CHARS)}" is never closed; the rest of the '
            "query was read as one phrase"
        )
        return value, len(text)
    return text[i + 1 : end], end + 1


def _read_word(text: str, i: int) -> tuple[str, int]:
    """Read a bare word: up to white space, a quote, or a `)` that closes no `(` of its own."""
    start = i
    local = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c.isspace() or c == '"':
            break
        if c == "(":
            local += 1
        elif c == ")":
            if local == 0:
                break
            local -= 1
        i += 1
    return text[start:i], i


def _short_flag(text: str, i: int) -> bool:
    """Whether the `-` at `i` starts a one-letter command-line flag (`claude -p`, `ls -l`):
    searched as a word like `--no-verify`, never read as leaving out a one-letter word."""
    end = i + 2
    return text[i + 1].isalnum() and (end == len(text) or text[end].isspace() or text[end] == ")")
