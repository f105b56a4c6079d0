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

The stages live in `tokens`, `parser`, `dates` and `regex`; this module holds the
compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import tantivy
from tantivy import FieldType, Occur, Query

from ccarchive.index import schema as S
from ccarchive.index.analysis import split_camel, word_forms
from ccarchive.index.query.dates import MAX_TS, MIN_TS, parse_date_bound
from ccarchive.index.query.parser import (
    And,
    Filter,
    Node,
    Not,
    Or,
    Phrase,
    Word,
    and_of,
    or_of,
    parse,
)
from ccarchive.index.query.regex import contains_query, regex_escape, regex_query
from ccarchive.index.query.tokens import (
    KIND_ALIASES,
    MAX_FILTER_CHARS,
    MAX_PHRASE_TOKENS,
    QUOTED_CHARS,
)
from ccarchive.index.stopwords import is_stopword
from ccarchive.text import clip

TITLE_BOOST = 2.0
FORMS_BOOST = 0.7
"""Other forms of a word (tests for test) count, a little less than the word typed."""
NEAR_BOOST = 2.0
"""A plain query's words side by side count as much again as a title match."""


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
    plain: bool = False
    """Only words and phrases (no OR, NOT, `-`, AND or parentheses): the words rank, and
    only quoted phrases and `+words` must match (see `any_query`)."""
    any_query: tantivy.Query | None = None
    """For a plain query: what matches *any* of its words that rank (function words
    dropped), with its phrases and `+words` required, AND the filters. `query` is the
    strict form, where every word must match."""
    rank_terms: list[tuple[str, tantivy.Query, bool]] = field(default_factory=list)
    near: tantivy.Query | None = None
    """The ranking words side by side (a phrase with slop 3), when there are several."""
    filter_query: tantivy.Query | None = None
    """The query's filters alone (AND, negated ones left out), without its words; None
    when it has none. A search for one word within what a plain query matches can use
    it in place of `any_query` when no word is required (the word implies a match)."""
    """The terms that rank, each (text as typed, its query, required): what the service
    scores turn by turn and session by session."""

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
        text = text if isinstance(text, str) else str(text)
        ast = parse(text, warnings)
        compiler = _Compiler(schema, analyzer, now, warnings)
        compiler.explicit_and = "AND" in text.split()
        return compiler.compile(ast)
    except Exception as e:  # a bug here must not take the search box down
        warnings.append(f"the query could not be read ({type(e).__name__}: {e}); it was ignored")
        return CompiledQuery(Query.all_query(), None, None, warnings, [])


class _Compiler:
    """AST → tantivy. Filters are hoisted out of the tree first (with the polarity of the
    NOTs above them), then the remaining text tree is compiled; see the module docstring."""

    def __init__(
        self,
        schema: tantivy.Schema,
        analyzer: tantivy.TextAnalyzer,
        now: datetime,
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
        self.leaves: list[Word | Phrase] = []  # the nodes of `positive`, in its order
        self.explicit_and = False  # `AND` typed: every word must match, as asked

    def compile(self, ast: Node | None) -> CompiledQuery:
        text_node = self._hoist(ast, False) if ast is not None else None
        text: list[Query] = []
        text_not: list[Query] = []
        if text_node is not None:
            compiled = self._text(text_node, False)
            if compiled is not None:
                (text_not if compiled[1] else text).append(compiled[0])
        fmust: list[Query] = []
        fmust_not: list[Query] = []
        kinds, applied = self._filters(fmust, fmust_not)
        query = _conjunction(text + fmust, text_not + fmust_not)
        if not self.positive:
            text_query = None
        elif len(self.positive) == 1:
            text_query = self.positive[0]
        else:
            text_query = Query.boolean_query([(Occur.Should, q) for q in self.positive])
        plain = text_node is not None and not self.explicit_and and _is_plain(text_node)
        rank_terms = self._rank_terms(plain)
        any_query = None
        near = self._near(rank_terms)
        if plain and rank_terms:
            needed = [q for _t, q, req in rank_terms if req]
            may = [q for _t, q, req in rank_terms if not req]
            any_text = Query.boolean_query(
                [(Occur.Must, q) for q in needed]
                + [(Occur.Should, q) for q in may]
                + ([(Occur.Should, Query.boost_query(near, NEAR_BOOST))] if near else [])
            )
            any_query = _conjunction([any_text, *fmust], fmust_not)
        return CompiledQuery(
            query=query,
            text_query=text_query,
            kinds=kinds,
            warnings=list(dict.fromkeys(self.warnings)),
            terms=self.terms,
            excluded=self.excluded,
            filters=applied,
            plain=plain,
            any_query=any_query,
            near=near,
            rank_terms=rank_terms,
            filter_query=_conjunction(fmust, fmust_not) if fmust or fmust_not else None,
        )

    def _near(self, rank_terms: list[tuple[str, Query, bool]]) -> Query | None:
        """The words of a plain query near each other (slop 3): boosted in `any_query`,
        an entry that says them together ranks above one that repeats one of them."""
        words = [t for t, _q, _r in rank_terms if not t.endswith("*")]
        tokens = self.analyzer.analyze(" ".join(words)) if len(words) > 1 else []
        if not 2 <= len(tokens) <= MAX_PHRASE_TOKENS:
            return None
        return Query.phrase_query(self.schema, S.TEXT, tokens, slop=3)

    def _rank_terms(self, plain: bool) -> list[tuple[str, Query, bool]]:
        """The positive terms that rank: (text, query, required). In a plain query,
        function words are left out (all kept when nothing else is left), quoted phrases
        and `+words` are required and other words are not; otherwise every positive term
        ranks and the query itself decides what must match."""
        rows = [
            (_leaf_text(node), q, (not plain) or _required(node))
            for node, q in zip(self.leaves, self.positive, strict=True)
        ]
        if not plain:
            return rows
        kept = [r for r in rows if r[2] or not (isinstance(r[0], str) and is_stopword(r[0]))]
        return kept or rows

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
            return or_of(kids)
        return and_of(kids)

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
                self.leaves.append(node)
            return q, False
        assert isinstance(node, (And, Or)), node  # filters were hoisted out of the tree
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
                out.append(regex_query(self.schema, S.PARTS, regex_escape(tokens[0]) + ".*"))
            else:
                out.append(Query.term_query(self.schema, S.PARTS, tokens[0]))
                forms = [f for f in word_forms(tokens[0]) if f != tokens[0]]
                if forms:  # scored terms, not a term set: a set collects every match up
                    # front, which cost a quarter of a typical search (measured)
                    out.append(
                        Query.boost_query(
                            Query.boolean_query(
                                [
                                    (Occur.Should, Query.term_query(self.schema, S.TEXT, f))
                                    for f in forms
                                ]
                            ),
                            FORMS_BOOST,
                        )
                    )
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
                f"{clip(shown, QUOTED_CHARS)!r} has {len(tokens)} words; only the first "
                f"{MAX_PHRASE_TOKENS} were used"
            )
            tokens = tokens[:MAX_PHRASE_TOKENS]
            prefix = False
        if prefix:
            stem = _prefix_stem(text, tokens[-1])
            if len(tokens) == 1:
                pattern = regex_escape(stem) + ".*"
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
            group = qs[0] if len(qs) == 1 else Query.boolean_query([(Occur.Should, q) for q in qs])
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
                f"{clip(flt.raw, QUOTED_CHARS)} was ignored"
            )
            return None
        esc = regex_escape(value)
        try:
            if name in ("project", "model", "branch"):
                field_name = {"project": S.PROJECT, "model": S.MODEL, "branch": S.BRANCH}[name]
                return contains_query(self.schema, field_name, value)
            if name == "session":
                return regex_query(self.schema, S.SESSION, f"(?i){esc}.*")
            return regex_query(self.schema, S.TOOL, f"(?i){esc}")
        except ValueError:
            self.warnings.append(
                f"{clip(flt.raw, QUOTED_CHARS)} is too complex to match; it was ignored"
            )
            return None

    def _date_filter(self, flt: Filter, value: str) -> Query | None:
        try:
            bound = parse_date_bound(value, now=self.now)
        except ValueError as e:
            self.warnings.append(f"{clip(flt.raw, QUOTED_CHARS)} was ignored: {e}")
            return None
        bound = min(max(bound.astimezone(UTC), MIN_TS), MAX_TS)
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


def _prefix_stem(text: str, last_token: str) -> str:
    """The prefix to look for when `text*` was typed: its last word as the index holds it
    (lowercased; the index keeps words unstemmed)."""
    return last_token


def _conjunction(must: list[Query], must_not: list[Query]) -> Query:
    """AND of `must` without `must_not`; the whole index when both are empty."""
    if not must and not must_not:
        return Query.all_query()
    if len(must) == 1 and not must_not:
        return must[0]
    return Query.boolean_query(
        [(Occur.Must, q) for q in must or [Query.all_query()]]
        + [(Occur.MustNot, q) for q in must_not]
    )


def _is_plain(node: Node) -> bool:
    """Words and phrases only, side by side: no OR, NOT or parentheses (an explicit AND
    of words parses the same, so `AND` is looked for in the raw text by the caller)."""
    if isinstance(node, (Word, Phrase)):
        return True
    return isinstance(node, And) and all(isinstance(c, (Word, Phrase)) for c in node.children)


def _required(node: Word | Phrase) -> bool:
    return isinstance(node, Phrase) or node.required


def _leaf_text(node: Word | Phrase) -> str:
    return node.text + ("*" if isinstance(node, Word) and node.prefix else "")
