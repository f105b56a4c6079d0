"""The search language: what people, agents and scripts type, compiled to a Tantivy query.

Queries arrive from a search-as-you-type box (so most of them are half-typed), from MCP
agents and from the CLI. The language is therefore *forgiving*: every string compiles to
a usable query, and whatever had to be ignored is reported as a warning that says what
and why, instead of an exception. Tantivy's own query parser is strict (and does not know
our analyzer, our filters or our dates), so we parse ourselves, in two small stages:

1. `tokenize` + `_Parser`: a tokenizer and a recursive-descent parser that turn text into
   an AST of immutable value objects (`Word`, `Phrase`, `Filter`, `Not`, `And`, `Or`).
   Precedence: `NOT`/`-` binds tightest, then `AND` (also implicit between terms), then
   `OR`. Upper-case `AND`/`OR`/`NOT` are operators; lower-case ones are words.
2. `_Compiler`: turns the AST into a `tantivy.Query`. Field filters are *hoisted* out of
   the boolean structure, wherever they were typed: positive filters on one field OR
   together (`kind:prompt kind:plan` = either), different fields AND together, and a
   negated filter excludes. Text terms are analysed with the index's analyzer and match
   the body or the title (a title match scores double).

Dates in `after:`/`before:` are read in the time zone of `now` (local time by default);
the index stores UTC.
"""

from __future__ import annotations

import re
from dataclasses import FrozenInstanceError, dataclass, field
from datetime import UTC, datetime, timedelta, timezone

import tantivy
from tantivy import FieldType, Occur, Query

from ccarchive.index import schema as S
from ccarchive.index.analysis import split_camel, word_forms

__all__ = [
    "FILTER_FIELDS",
    "KIND_ALIASES",
    "CompiledQuery",
    "compile_query",
    "parse_date_bound",
    "parse",
    "contains_query",
    "regex_query",
    "tokenize",
]

# ---- compiled regexes ----------------------------------------------------------------
_REGEX_QUERIES: dict[tuple[int, str, str], tuple[tantivy.Schema, Query]] = {}
_REGEX_QUERIES_MAX = 256


def regex_query(schema: tantivy.Schema, field_name: str, pattern: str) -> Query:
    """`Query.regex_query`, kept for reuse: building one compiles its automaton, ~1 ms
    for a substring filter (`project:mobile` is `(?i).*mobile.*`), paid again at every
    keystroke of a search that keeps the filter while its words change. A Query is
    immutable and can run on any searcher of the schema; the entry holds the schema so
    that its id is not reused. Raises ValueError for a pattern Tantivy refuses."""
    key = (id(schema), field_name, pattern)
    hit = _REGEX_QUERIES.get(key)
    if hit is None:
        if len(_REGEX_QUERIES) >= _REGEX_QUERIES_MAX:
            _REGEX_QUERIES.clear()
        hit = _REGEX_QUERIES[key] = (schema, Query.regex_query(schema, field_name, pattern))
    return hit[1]


def contains_query(schema: tantivy.Schema, field_name: str, text: str) -> Query:
    """Documents whose raw `field_name` (a project path, model, branch, plan codename)
    holds `text` anywhere, ignoring case. Raises ValueError if Tantivy refuses it."""
    return regex_query(schema, field_name, f"(?i).*{_regex_escape(text)}.*")


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
TITLE_BOOST = 2.0
FORMS_BOOST = 0.7
"""Other forms of a word (tests for test) count, a little less than the word typed."""

# Tantivy dates are i64 nanoseconds: roughly 1677-09-21 .. 2262-04-11.
_MIN_TS = datetime(1678, 1, 1, tzinfo=UTC)
_MAX_TS = datetime(2262, 1, 1, tzinfo=UTC)

# ---- field filters -----------------------------------------------------------------
FILTER_FIELDS = (
    "project", "session", "kind", "role", "tool", "file", "model", "branch", "after", "before",
)
"""Filter names (`name:value`), matched case-insensitively. Any other `x:y` is text."""

KIND_ALIASES: dict[str, str] = {
    **{k: k for k in S.SEARCHABLE_KINDS},
    "prompts": S.PROMPT, "user": S.PROMPT, "human": S.PROMPT,
    "assistants": S.ASSISTANT, "reply": S.ASSISTANT, "replies": S.ASSISTANT,
    "claude": S.ASSISTANT,
    "think": S.THINKING, "thoughts": S.THINKING, "reasoning": S.THINKING,
    "tool": S.TOOL_CALL, "tools": S.TOOL_CALL, "call": S.TOOL_CALL, "calls": S.TOOL_CALL,
    "toolcall": S.TOOL_CALL, "tool_calls": S.TOOL_CALL,
    "result": S.TOOL_RESULT, "results": S.TOOL_RESULT, "output": S.TOOL_RESULT,
    "outputs": S.TOOL_RESULT, "toolresult": S.TOOL_RESULT, "tool_results": S.TOOL_RESULT,
    "summaries": S.SUMMARY, "recap": S.SUMMARY, "recaps": S.SUMMARY,
    "events": S.EVENT,
    "plans": S.PLAN,
    "memories": S.MEMORY, "mem": S.MEMORY,
    "hist": S.HISTORY,
}
"""`kind:` values (lower-cased, `-` read as `_`) to the kinds of `schema.SEARCHABLE_KINDS`."""

_OPERATORS = {"AND", "OR", "NOT"}
_FIELD_RE = re.compile(r"([A-Za-z]+):")
# Characters the Rust regex syntax treats as meta; all may be escaped with a backslash.
_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")


class _Value:
    """An immutable value: compared, hashed and shown by its fields (its `__slots__`),
    like a frozen dataclass (`Word(text='a', prefix=False)`).

    The tokens and AST nodes were frozen dataclasses; creating those seven classes cost
    ~4 ms at import (each generated method is compiled from source), on the path of every
    `ccarchive search`.
    """

    __slots__ = ()

    def _fields(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

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


_set = object.__setattr__


# ---- stage 1a: tokens --------------------------------------------------------------
class Token(_Value):
    """A lexical token. `kind` is one of WORD PHRASE FIELD LPAREN RPAREN AND OR NOT MINUS."""

    __slots__ = __match_args__ = ("kind", "text", "field", "quoted", "raw")

    def __init__(self, kind: str, text: str = "", field: str = "", quoted: bool = False,
                 raw: str = "") -> None:
        _set(self, "kind", kind)
        _set(self, "text", text)  # word as typed, phrase content, or filter value
        _set(self, "field", field)  # FIELD: the filter name, lower-cased
        _set(self, "quoted", quoted)  # FIELD: the value was in quotes
        _set(self, "raw", raw)  # as typed, for messages


def tokenize(text: str, warnings: list[str]) -> list[Token]:
    """Split a query into tokens; never fails, appends to `warnings` what it dropped.

    `(` opens a group at the start of a token only, so code such as `print(x)` stays one
    word; inside a word, `)` closes only a `(` of that word. `-` directly before a term
    negates it (`--flag` is a word). `"` always starts a phrase; an unclosed one runs to
    the end. `name:` with a known filter name starts a filter, its value bare or quoted.
    """
    if len(text) > MAX_QUERY_CHARS:
        warnings.append(
            f"the query is {len(text)} characters long; only the first "
            f"{MAX_QUERY_CHARS} were read"
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
        if c == "-" and i + 1 < n and not text[i + 1].isspace() and text[i + 1] not in "-)":
            tokens.append(Token("MINUS", raw="-"))
            i += 1
            continue
        if terms >= MAX_TERMS:
            warnings.append(
                f"the query has more than {MAX_TERMS} terms; only the first {MAX_TERMS} "
                "were used"
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
            value = word[m.end():]
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
        value = text[i + 1:]
        warnings.append(
            f'the quote before "{_clip(value)}" is never closed; the rest of the query '
            "was read as one phrase"
        )
        return value, len(text)
    return text[i + 1:end], end + 1


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


# ---- stage 1b: AST -----------------------------------------------------------------
class Word(_Value):
    """A bare word; `prefix` when typed with a trailing `*` (kept out of `text`)."""

    __slots__ = __match_args__ = ("text", "prefix")

    def __init__(self, text: str, prefix: bool = False) -> None:
        _set(self, "text", text)
        _set(self, "prefix", prefix)


class Phrase(_Value):
    """A quoted phrase: its analysed tokens must occur in order."""

    __slots__ = __match_args__ = ("text",)

    def __init__(self, text: str) -> None:
        _set(self, "text", text)


class Filter(_Value):
    """`field:value`; `raw` is how it was typed, for messages and display."""

    __slots__ = __match_args__ = ("field", "value", "raw")

    def __init__(self, field: str, value: str, raw: str) -> None:
        _set(self, "field", field)
        _set(self, "value", value)
        _set(self, "raw", raw)


class Not(_Value):
    __slots__ = __match_args__ = ("child",)

    def __init__(self, child: Node) -> None:
        _set(self, "child", child)


class And(_Value):
    __slots__ = __match_args__ = ("children",)

    def __init__(self, children: tuple[Node, ...]) -> None:
        _set(self, "children", children)


class Or(_Value):
    __slots__ = __match_args__ = ("children",)

    def __init__(self, children: tuple[Node, ...]) -> None:
        _set(self, "children", children)


Node = Word | Phrase | Filter | Not | And | Or


def _and(nodes: list[Node]) -> Node | None:
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else And(tuple(nodes))


def _or(nodes: list[Node]) -> Node | None:
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))


class _Parser:
    """Recursive descent over the tokens. Every method returns a node or None (nothing
    usable) and records a warning for each token it had to skip; none of them raises.

        query   := or_expr (')' or_expr)*        -- a stray ')' is skipped
        or_expr := and_expr ('OR' and_expr)*
        and_expr:= unary ('AND'? unary)*
        unary   := ('NOT' | '-')* primary
        primary := WORD | PHRASE | FIELD | '(' or_expr ')'?
    """

    def __init__(self, tokens: list[Token], warnings: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.warnings = warnings

    def peek(self) -> str | None:
        return self.tokens[self.pos].kind if self.pos < len(self.tokens) else None

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def parse(self) -> Node | None:
        nodes: list[Node] = []
        while True:
            node = self.parse_or()
            if node is not None:
                nodes.append(node)
            if self.peek() is None:
                break
            self.next()  # only a ')' stops parse_or before the end
            self.warnings.append("a ')' closes no '('; it was ignored")
        return _and(nodes)

    def parse_or(self) -> Node | None:
        parts: list[Node] = []
        pending = False  # an OR read, waiting for its right operand
        while self.peek() not in (None, "RPAREN"):
            if self.peek() == "OR":
                self.next()
                if not parts:
                    self.warnings.append("OR has nothing before it; it was ignored")
                elif pending:
                    self.warnings.append("OR follows another OR; it was ignored")
                else:
                    pending = True
                continue
            node = self.parse_and()
            if node is not None:
                parts.append(node)
                pending = False
        if pending:
            self.warnings.append("OR has nothing after it; it was ignored")
        return _or(parts)

    def parse_and(self) -> Node | None:
        parts: list[Node] = []
        pending = False
        while self.peek() not in (None, "RPAREN", "OR"):
            if self.peek() == "AND":
                self.next()
                if not parts:
                    self.warnings.append("AND has nothing before it; it was ignored")
                elif pending:
                    self.warnings.append("AND follows another AND; it was ignored")
                else:
                    pending = True
                continue
            node = self.parse_unary()
            if node is not None:
                parts.append(node)
                pending = False
        if pending:
            self.warnings.append("AND has nothing after it; it was ignored")
        return _and(parts)

    def parse_unary(self) -> Node | None:
        negations: list[Token] = []
        while self.peek() in ("NOT", "MINUS"):
            negations.append(self.next())
        if negations and self.peek() in (None, "RPAREN", "OR", "AND"):
            self.warnings.append(f"{negations[-1].raw} has nothing after it; it was ignored")
            return None
        node = self.parse_primary()
        if node is None:
            return None
        return Not(node) if len(negations) % 2 else node

    def parse_primary(self) -> Node | None:
        tok = self.next()
        if tok.kind == "WORD":
            prefix = tok.text.endswith("*") and tok.text.strip("*") != ""
            return Word(tok.text.rstrip("*") if prefix else tok.text, prefix)
        if tok.kind == "PHRASE":
            return Phrase(tok.text)
        if tok.kind == "FIELD":
            return Filter(tok.field, tok.text, tok.raw)
        # LPAREN (the callers never hand over anything else)
        start = self.pos
        inner = self.parse_or()
        if self.peek() == "RPAREN":
            self.next()
            if self.pos - start == 1:
                self.warnings.append("empty parentheses '()' were ignored")
        else:
            self.warnings.append("a '(' is never closed; it was closed at the end")
        return inner


def parse(text: str, warnings: list[str] | None = None) -> Node | None:
    """Parse a query into its AST (None when nothing usable is left)."""
    warnings = [] if warnings is None else warnings
    return _Parser(tokenize(text, warnings), warnings).parse()


# ---- dates -------------------------------------------------------------------------
# Patterns, not compiled regexes: `re.fullmatch` compiles them on the first date read
# (and caches them), not at import on the path of every search (~0.5 ms).
_RELATIVE = r"(\d{1,6})\s*(h|hours?|d|days?|w|weeks?|m|months?|y|years?)"
_ABSOLUTE = (
    r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2})"
    r"(?:[t ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(z|[+-]\d{2}:?\d{2})?)?)?)?"
)
DATE_FORMS = "2026-02-01, 2026-02, 2026, 2026-02-01T10:00, 12h, 7d, 2w, 3m, 1y, today, yesterday"


def parse_date_bound(value: str, *, now: datetime) -> datetime:
    """Read a date bound: the instant it starts, in the time zone of `now`.

    Absolute: `2026`, `2026-02`, `2026-02-01`, `2026-02-01T10:00[:ss][Z|+hh:mm]` (a space
    instead of `T` works too). Relative to `now`: `12h` (hours, exact), `7d`, `2w`, `3m`
    (months), `1y` (start of that day), `today`, `yesterday`, `now`. A date without a time
    means the start of that day (or month, or year), so `after:` includes it and `before:`
    excludes it. A naive `now` is taken as UTC. Raises ValueError with a message fit to
    show a user.
    """
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    v = value.strip().lower()
    if not v:
        raise ValueError(f"no date given; use one of {DATE_FORMS}")
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    try:
        if v == "now":
            return now
        if v == "today":
            return today
        if v == "yesterday":
            return today - timedelta(days=1)
        m = re.fullmatch(_RELATIVE, v)
        if m:
            n, unit = int(m.group(1)), m.group(2)[0]
            if unit == "h":
                return now - timedelta(hours=n)
            if unit == "d":
                return today - timedelta(days=n)
            if unit == "w":
                return today - timedelta(weeks=n)
            return _add_months(today, -n if unit == "m" else -12 * n)
    except (OverflowError, ValueError):
        raise ValueError(f"{value.strip()!r} reaches too far back") from None
    m = re.fullmatch(_ABSOLUTE, v)
    if not m:
        raise ValueError(f"{value.strip()!r} is not a date; use one of {DATE_FORMS}")
    year, month, day, hour, minute, second, offset = m.groups()
    tz = now.tzinfo
    if offset:
        tz = UTC if offset == "z" else _parse_offset(offset)
    try:
        return datetime(
            int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0),
            int(second or 0), tzinfo=tz,
        )
    except ValueError as e:
        raise ValueError(f"{value.strip()!r} is not a valid date ({e})") from None


def _parse_offset(text: str) -> timezone:
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    if hours > 23 or minutes > 59:
        raise ValueError(f"{text!r} is not a valid UTC offset")
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _add_months(dt: datetime, months: int) -> datetime:
    import calendar  # here: ~0.7 ms to import, and only `3m`/`1y` dates need it

    total = dt.year * 12 + (dt.month - 1) + months
    year, month0 = divmod(total, 12)
    if not 1 <= year <= 9999:
        raise ValueError("year out of range")
    day = min(dt.day, calendar.monthrange(year, month0 + 1)[1])
    return dt.replace(year=year, month=month0 + 1, day=day)


# ---- stage 2: compile --------------------------------------------------------------
@dataclass
class CompiledQuery:
    """A compiled query and what the caller should know about it."""

    query: tantivy.Query
    """Text AND filters; `Query.all_query()` when the query is empty."""
    text_query: tantivy.Query | None
    """Only the positive text terms OR'ed (for snippets and highlighting); None if none."""
    kinds: frozenset[str] | None
    """Kinds named by positive `kind:` filters; None if none (then the service picks)."""
    warnings: list[str]
    """What was ignored and why, one sentence each, in the order met."""
    terms: list[str]
    """Positive text terms as typed: words (a prefix keeps its `*`), phrase contents."""
    excluded: list[str] = field(default_factory=list)
    """Negated text terms, as typed."""
    filters: list[str] = field(default_factory=list)
    """Filters applied, as typed (`kind:plan`, `-tool:Bash`); ignored ones are warnings."""

    def is_empty(self) -> bool:
        """No text terms and no filters: the query matches everything."""
        return not self.terms and not self.excluded and not self.filters


def compile_query(
    text: str,
    schema: tantivy.Schema,
    analyzer: tantivy.TextAnalyzer,
    *,
    now: datetime | None = None,
) -> CompiledQuery:
    """Compile a user's query. Never raises: what cannot be used becomes a warning.

    `analyzer` must be the one registered for the index (`schema.code_analyzer()`), so
    that query words become the same terms as indexed text. `now` anchors relative dates
    and gives the time zone of absolute ones (default: local time).
    """
    warnings: list[str] = []
    if now is None:
        now = datetime.now().astimezone()
    try:
        ast = parse(text if isinstance(text, str) else str(text), warnings)
        return _Compiler(schema, analyzer, now, warnings).compile(ast)
    except Exception as e:  # a bug here must not take the search box down
        warnings.append(f"the query could not be read ({type(e).__name__}: {e}); it was ignored")
        return CompiledQuery(Query.all_query(), None, None, warnings, [])


class _Compiler:
    """AST → tantivy. Filters are hoisted out of the tree first (with the polarity of the
    NOTs above them), then the remaining text tree is compiled; see the module docstring."""

    def __init__(
        self, schema: tantivy.Schema, analyzer: tantivy.TextAnalyzer, now: datetime,
        warnings: list[str],
    ) -> None:
        self.schema = schema
        self.analyzer = analyzer
        self.now = now
        self.warnings = warnings
        self.filters: list[tuple[Filter, bool]] = []
        self.terms: list[str] = []
        self.excluded: list[str] = []
        self.positive: list[Query] = []

    def compile(self, ast: Node | None) -> CompiledQuery:
        text_node = self._hoist(ast, False) if ast is not None else None
        must: list[Query] = []
        must_not: list[Query] = []
        if text_node is not None:
            compiled = self._text(text_node, False)
            if compiled is not None:
                (must_not if compiled[1] else must).append(compiled[0])
        kinds, applied = self._filters(must, must_not)
        if not must and not must_not:
            query = Query.all_query()
        elif len(must) == 1 and not must_not:
            query = must[0]
        else:
            query = Query.boolean_query(
                [(Occur.Must, q) for q in must or [Query.all_query()]]
                + [(Occur.MustNot, q) for q in must_not]
            )
        if not self.positive:
            text_query = None
        elif len(self.positive) == 1:
            text_query = self.positive[0]
        else:
            text_query = Query.boolean_query([(Occur.Should, q) for q in self.positive])
        return CompiledQuery(
            query=query,
            text_query=text_query,
            kinds=kinds,
            warnings=list(dict.fromkeys(self.warnings)),
            terms=self.terms,
            excluded=self.excluded,
            filters=applied,
        )

    # -- hoisting filters ------------------------------------------------------------
    def _hoist(self, node: Node, negated: bool) -> Node | None:
        """Collect filters (with their polarity) and return the tree without them."""
        if isinstance(node, Filter):
            self.filters.append((node, negated))
            return None
        if isinstance(node, (Word, Phrase)):
            return node
        if isinstance(node, Not):
            child = self._hoist(node.child, not negated)
            return None if child is None else Not(child)
        kids = [k for k in (self._hoist(c, negated) for c in node.children) if k is not None]
        if isinstance(node, Or):
            if kids and len(kids) < len(node.children):
                named = " ".join(f.raw for f in _filters_in(node))
                self.warnings.append(
                    f"filters apply to the whole query, not to one side of OR: {named}"
                )
            return _or(kids)
        return _and(kids)

    # -- text ------------------------------------------------------------------------
    def _text(self, node: Node, negated: bool) -> tuple[Query, bool] | None:
        """Compile a text tree. Returns (query, negative): a negative query lists the
        documents to exclude, so an AND can use it as MustNot directly."""
        if isinstance(node, Not):
            inner = self._text(node.child, not negated)
            return None if inner is None else (inner[0], not inner[1])
        if isinstance(node, (Word, Phrase)):
            q = self._text_leaf(node)
            if q is None:
                return None
            shown = node.text + ("*" if isinstance(node, Word) and node.prefix else "")
            (self.excluded if negated else self.terms).append(shown)
            if not negated:
                self.positive.append(q)
            return q, False
        kids = [k for k in (self._text(c, negated) for c in node.children) if k is not None]
        if not kids:
            return None
        if len(kids) == 1:
            return kids[0]
        if isinstance(node, And):
            must = [q for q, neg in kids if not neg]
            must_not = [q for q, neg in kids if neg]
            if not must_not:
                return Query.boolean_query([(Occur.Must, q) for q in must]), False
            if not must:
                # NOT a AND NOT b  ==  NOT (a OR b): stays negative for the parent.
                return Query.boolean_query([(Occur.Should, q) for q in must_not]), True
            return Query.boolean_query(
                [(Occur.Must, q) for q in must] + [(Occur.MustNot, q) for q in must_not]
            ), False
        return Query.boolean_query([(Occur.Should, _positive(q, neg)) for q, neg in kids]), False

    def _text_leaf(self, node: Word | Phrase) -> Query | None:
        prefix = isinstance(node, Word) and node.prefix
        shown = node.text + "*" if prefix else node.text
        if isinstance(node, Phrase) and not node.text.strip():
            self.warnings.append('an empty phrase "" was ignored')
            return None
        per_field = self._analysed(node.text, prefix, (S.TEXT, S.TITLE), shown)
        if per_field is None:
            return None
        body, title = per_field
        clauses = [(Occur.Should, body), (Occur.Should, Query.boost_query(title, TITLE_BOOST))]
        if isinstance(node, Word):
            clauses.extend((Occur.Should, q) for q in self._code_and_forms(node.text, prefix))
        return Query.boolean_query(clauses)

    def _code_and_forms(self, word: str, prefix: bool) -> list[Query]:
        """What stemming and a camelCase tokenizer would have matched (see
        `ccarchive.index.analysis`): parts of identifiers, and other forms of a plain word."""
        out: list[Query] = []
        tokens = self.analyzer.analyze(word)
        if len(tokens) == 1:
            if prefix:
                out.append(regex_query(self.schema, S.PARTS,
                                             _regex_escape(tokens[0]) + ".*"))
            else:
                out.append(Query.term_query(self.schema, S.PARTS, tokens[0]))
                forms = [f for f in word_forms(tokens[0]) if f != tokens[0]]
                if forms:  # scored terms, not a term set: a set collects every match up
                    # front, which cost a quarter of a typical search (measured)
                    out.append(Query.boost_query(Query.boolean_query(
                        [(Occur.Should, Query.term_query(self.schema, S.TEXT, f))
                         for f in forms]), FORMS_BOOST))
        camel = split_camel(word)
        if len(camel) > 1 and not prefix:
            parts = self.analyzer.analyze(" ".join(camel))[:MAX_PHRASE_TOKENS]
            if len(parts) > 1:
                out.append(Query.phrase_query(self.schema, S.PARTS, parts))
                out.append(Query.phrase_query(self.schema, S.TEXT, parts))
        return out

    def _analysed(
        self, text: str, prefix: bool, fields: tuple[str, ...], shown: str
    ) -> list[Query] | None:
        """One query per field for `text` analysed like the index: a term, a phrase for
        several tokens (code words: `fooBar`, `src/app.py`), or their prefix forms."""
        tokens = self.analyzer.analyze(text)
        if not tokens:
            self.warnings.append(
                f"{shown!r} has nothing to search for (no letters or digits, or only "
                "words of 64+ characters); it was ignored"
            )
            return None
        if len(tokens) > MAX_PHRASE_TOKENS:
            self.warnings.append(
                f"{_clip(shown)!r} has {len(tokens)} words; only the first "
                f"{MAX_PHRASE_TOKENS} were used"
            )
            tokens = tokens[:MAX_PHRASE_TOKENS]
            prefix = False
        if prefix:
            stem = _prefix_stem(text, tokens[-1])
            if len(tokens) == 1:
                pattern = _regex_escape(stem) + ".*"
                return [regex_query(self.schema, f, pattern) for f in fields]
            words = [*tokens[:-1], stem]
            return [Query.phrase_prefix_query(self.schema, f, words) for f in fields]
        if len(tokens) == 1:
            return [Query.term_query(self.schema, f, tokens[0]) for f in fields]
        return [Query.phrase_query(self.schema, f, tokens) for f in fields]

    # -- filters ---------------------------------------------------------------------
    def _filters(
        self, must: list[Query], must_not: list[Query]
    ) -> tuple[frozenset[str] | None, list[str]]:
        """Add the hoisted filters to `must`/`must_not`; return (positive kinds, applied)."""
        positive: dict[str, list[Query]] = {}
        kinds: set[str] = set()
        applied: list[str] = []
        for flt, negated in self.filters:
            q = self._filter(flt)
            if q is None:
                continue
            applied.append(("-" if negated else "") + flt.raw)
            if negated:
                must_not.append(q)
            else:
                positive.setdefault(flt.field, []).append(q)
                if flt.field == "kind":
                    kinds.add(_kind(flt.value) or "")
        for qs in positive.values():
            group = qs[0] if len(qs) == 1 else Query.boolean_query(
                [(Occur.Should, q) for q in qs]
            )
            # Filters select, they do not rank: a zero score leaves ranking to the text.
            must.append(Query.const_score_query(group, 0.0))
        kinds.discard("")
        return (frozenset(kinds) if kinds else None), applied

    def _filter(self, flt: Filter) -> Query | None:
        value = flt.value.strip()
        name = flt.field
        if not value:
            self.warnings.append(f"{name}: has no value; it was ignored")
            return None
        if name in ("after", "before"):
            return self._date_filter(flt, value)
        if name == "file":
            prefix = value.endswith("*") and value.strip("*") != ""
            text = value.rstrip("*") if prefix else value
            queries = self._analysed(text, prefix, (S.FILES,), flt.raw)
            return queries[0] if queries else None
        if name == "kind":
            kind = _kind(value)
            if kind is None:
                self.warnings.append(
                    f"{flt.raw} is not a kind we know; it was ignored. Kinds: "
                    + ", ".join(S.SEARCHABLE_KINDS)
                )
                return None
            return Query.term_query(self.schema, S.KIND, kind)
        if name == "role":
            return Query.term_query(self.schema, S.ROLE, value.lower())
        if len(value) > MAX_FILTER_CHARS:
            self.warnings.append(
                f"{name}: values are limited to {MAX_FILTER_CHARS} characters; "
                f"{_clip(flt.raw)} was ignored"
            )
            return None
        esc = _regex_escape(value)
        try:
            if name in ("project", "model", "branch"):
                field_name = {"project": S.PROJECT, "model": S.MODEL, "branch": S.BRANCH}[name]
                return contains_query(self.schema, field_name, value)
            if name == "session":
                return regex_query(self.schema, S.SESSION, f"(?i){esc}.*")
            return regex_query(self.schema, S.TOOL, f"(?i){esc}")
        except ValueError:
            self.warnings.append(f"{_clip(flt.raw)} is too complex to match; it was ignored")
            return None

    def _date_filter(self, flt: Filter, value: str) -> Query | None:
        try:
            bound = parse_date_bound(value, now=self.now)
        except ValueError as e:
            self.warnings.append(f"{_clip(flt.raw)} was ignored: {e}")
            return None
        bound = min(max(bound.astimezone(UTC), _MIN_TS), _MAX_TS)
        if flt.field == "after":
            return Query.range_query(self.schema, S.TS, FieldType.Date, bound, None)
        return Query.range_query(
            self.schema, S.TS, FieldType.Date, None, bound, include_upper=False
        )


# ---- helpers -----------------------------------------------------------------------
def _positive(q: Query, negative: bool) -> Query:
    """A query matching what `q` means: the complement when `q` is negative."""
    if not negative:
        return q
    return Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, q)])


def _filters_in(node: Node) -> list[Filter]:
    if isinstance(node, Filter):
        return [node]
    if isinstance(node, Not):
        return _filters_in(node.child)
    if isinstance(node, (And, Or)):
        return [f for c in node.children for f in _filters_in(c)]
    return []


def _kind(value: str) -> str | None:
    return KIND_ALIASES.get(value.strip().lower().replace("-", "_"))


def _regex_escape(text: str) -> str:
    """Escape for Tantivy's (Rust) regex syntax, which rejects some of `re.escape`'s escapes."""
    return "".join("\\" + c if c in _REGEX_META else c for c in text)


def _prefix_stem(text: str, last_token: str) -> str:
    """The prefix to look for when `text*` was typed: its last word as the index holds it
    (lowercased; the index keeps words unstemmed)."""
    return last_token


def _clip(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
