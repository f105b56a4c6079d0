"""The search language, stage 1b: the AST and the recursive-descent parser.

`parse` turns tokens into immutable value objects (`Word`, `Phrase`, `Filter`, `Not`,
`And`, `Or`). Precedence: `NOT`/`-` binds tightest, then `AND` (also implicit between
terms), then `OR`. Like the tokenizer it never raises: what it skips becomes a warning.
"""

from __future__ import annotations

from ccarchive.index.query.tokens import Token, Value, set_field, tokenize


# ---- stage 1b: AST -----------------------------------------------------------------
class Word(Value):
    """A bare word; `prefix` when typed with a trailing `*` (kept out of `text`);
    `required` when typed with a leading `+` (it matters where plain words only rank)."""

    __slots__ = __match_args__ = ("text", "prefix", "required")
    text: str
    prefix: bool
    required: bool

    def __init__(self, text: str, prefix: bool = False, required: bool = False) -> None:
        set_field(self, "text", text)
        set_field(self, "prefix", prefix)
        set_field(self, "required", required)


class Phrase(Value):
    """A quoted phrase: its analysed tokens must occur in order."""

    __slots__ = __match_args__ = ("text", "required")
    text: str
    required: bool

    def __init__(self, text: str, required: bool = False) -> None:
        set_field(self, "text", text)
        set_field(self, "required", required)


class Filter(Value):
    """`field:value`; `raw` is how it was typed, for messages and display."""

    __slots__ = __match_args__ = ("field", "value", "raw")
    field: str
    value: str
    raw: str

    def __init__(self, field: str, value: str, raw: str) -> None:
        set_field(self, "field", field)
        set_field(self, "value", value)
        set_field(self, "raw", raw)


class Not(Value):
    __slots__ = __match_args__ = ("child",)
    child: Node

    def __init__(self, child: Node) -> None:
        set_field(self, "child", child)


class And(Value):
    __slots__ = __match_args__ = ("children",)
    children: tuple[Node, ...]

    def __init__(self, children: tuple[Node, ...]) -> None:
        set_field(self, "children", children)


class Or(Value):
    __slots__ = __match_args__ = ("children",)
    children: tuple[Node, ...]

    def __init__(self, children: tuple[Node, ...]) -> None:
        set_field(self, "children", children)


Node = Word | Phrase | Filter | Not | And | Or


def and_of(nodes: list[Node]) -> Node | None:
    if not nodes:
        return None
    return nodes[0] if len(nodes) == 1 else And(tuple(nodes))


def or_of(nodes: list[Node]) -> Node | None:
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
        return and_of(nodes)

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
        return or_of(parts)

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
        return and_of(parts)

    def parse_unary(self) -> Node | None:
        negations: list[Token] = []
        required = False
        while self.peek() in ("NOT", "MINUS", "PLUS"):
            tok = self.next()
            if tok.kind == "PLUS":
                required = True
            else:
                negations.append(tok)
        if (negations or required) and self.peek() in (None, "RPAREN", "OR", "AND"):
            raw = negations[-1].raw if negations else "+"
            self.warnings.append(f"{raw} has nothing after it; it was ignored")
            return None
        node = self.parse_primary()
        if node is None:
            return None
        if required and isinstance(node, Word):
            node = Word(node.text, node.prefix, True)
        elif required and isinstance(node, Phrase):
            node = Phrase(node.text, True)
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
