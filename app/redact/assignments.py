"""Assignments: a value given to a name that says it is a secret.

Every common spelling: ``NAME=value``, ``export NAME=value``, ``NAME: value`` (YAML, HTTP
headers), ``"name": "value"`` (JSON, also inside escaped JSON text), ``name = "value"``
(code, TOML, INI), ``--name value`` / ``--name=value`` (CLI flags), ``<name>value</name>``
(XML), a .netrc's ``password value``, and ``Authorization:`` headers in any spelling.

*Literal or code?* A quoted value is a literal. An unquoted value is a literal in
``NAME=value`` (no spaces; shell, .env, DSN, properties) unless ``,`` or ``)`` follows
it (a keyword argument), in ``name: value`` alone on its line (YAML, HTTP header; but not
``_client: SecretManagerClient``, an annotation), after a CLI flag and in a .netrc.
Elsewhere (``name = value``, ``name: value`` inside code, ``:=``, ``=>``) a bare
identifier or dotted name is a variable and is redacted only if it looks random: so
``token = get_token()``, ``key = self.key`` and ``f(password=pw)`` stay, and so does an
INI/Python-ambiguous ``password = hunter2``, while ``PASSWORD=hunter2``, ``password:
hunter2`` and ``password = "hunter2"`` are redacted.

An unquoted value ends at whitespace, a quote, a backslash (so a ``\\n`` escape in JSON
text ends it) and, in a query string, at ``&``.

Speed: keywords are found with ``str.find`` on an ASCII lower-cased copy (one byte per
character, so offsets are preserved); each hit gets a couple of anchored matches and a
cached verdict per name. Everything is linear: values are capped (4 KB), look-behinds
are bounded, names inside an accepted value are skipped and the ends of long unquoted
runs are cached (``key=`` repeated a million times still runs at ~0.4 MB/s).
"""

from __future__ import annotations

import re

from ccarchive.redact.lazy import LazyPattern
from ccarchive.redact.names import lookup_in_prose, name_tier
from ccarchive.redact.rules import ASSIGNMENT, HEADER, Span
from ccarchive.redact.values import (
    NAME_KEYWORDS,
    is_placeholder,
    literal_is_secret,
    looks_random,
)

_NAME_AFTER_RE = LazyPattern(r"[A-Za-z0-9_.-]*")
_NAME_BEFORE_RE = LazyPattern(r"[A-Za-z0-9_.-]{1,64}\Z")
_TAIL_RE = LazyPattern(
    r"""
    (?P<nq>\\{0,7}["']\]?)?
    (?P<sep>[ \t]*(?::=|=>|=(?![=~>])|=(?=[=~])|:(?![:=]))[ \t]*|[ \t]+)
    (?:[bBrRuU]{1,2}(?=["']))?
    (?:
        \\{1,8}"(?P<v1>[^"\\\n]{0,2048}?)\\{1,8}"  # inside escaped JSON (nested)
      | "(?P<v2>(?:[^"\\\n]|\\[^\n]){0,4096})"
      | '(?P<v3>[^'\n]{0,4096})'
      | `(?P<v4>[^`\n]{0,4096})`
      | (?P<v5>(?=[^\s"'`\\;()<>|&{}\[\]]))  # unquoted: its end is found by a _RunEnd
    )
    """,
    re.VERBOSE,
)
_NETRC_VALUE_RE = LazyPattern(r"[ \t]+([^\s\\]{1,4096})")
_XML_VALUE_RE = LazyPattern(r">(?P<v>[^<\n]{1,4096})</")
_AUTHZ_TAIL_RE = LazyPattern(
    r"""\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*
    (?:(?P<scheme>[A-Za-z][A-Za-z0-9-]*)[ \t]+)?
    (?P<v>[A-Za-z0-9._~+/=:-]{1,4096})""",
    re.VERBOSE,
)
_AUTH_SCHEMES = frozenset(
    "bearer basic token digest negotiate ntlm hoba mutual apikey key sso-key otp dpop".split()
)
_WORD_AND_NUMBER_RE = LazyPattern(
    r"(?=[^0-9]*[0-9])(?=[0-9]*[A-Za-z])[A-Za-z0-9!#%^*+=~_.-]{6,128}"
)
_IDENT_RE = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_CHAIN_RE = LazyPattern(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+")
_IDENT_CHAIN_OR_WORD_RE = LazyPattern(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*|[0-9.]+")
_FLAG_RE = LazyPattern(r"--?[A-Za-z][A-Za-z0-9-]*(?:=\S*)?")
_CAMEL_TYPE_RE = LazyPattern(r"(?:[A-Z][a-z]+){2,}")
_AWS_SECRET_NAME_RE = LazyPattern(r"aws_?secret_?(?:access_?)?key|secretaccesskey", re.IGNORECASE)
_AWS_SECRET_VALUE_RE = LazyPattern(r"[A-Za-z0-9/+=]{40}")
_LINE_PREFIXES = frozenset(
    ("", "-", "export", "set", "setenv", "ENV", "ARG", "env", "declare -x", "readonly", "local")
)
_EOL_RE = LazyPattern(r"[ \t]*(?:\r|\n|\\[nr]|\Z|#|\\?\")")

_MAX_VALUE = 4096
_EXTEND_CHARS = frozenset(";<>|&{}])")
_UNQUOTED_CHARS = r"[^\s\"'`\\;()<>|&{}\[\]]"  # an unquoted value in code
_LITERAL_CHARS = r"[^\s\"'`\\]"  # an unquoted literal (.env, YAML, CLI)
_KEYWORDS_B = tuple(k.encode() for k in NAME_KEYWORDS)


class _RunEnd:
    """Where a run of characters that starts at (or contains) ``pos`` ends.  The last
    answer is cached, so the many keyword hits inside one long run (``key=key=...``
    without a delimiter) cost a single scan instead of one each."""

    __slots__ = ("regex", "start", "end")

    def __init__(self, chars: str):
        self.regex = re.compile(chars + "*")
        self.start = self.end = -1

    def __call__(self, text: str, pos: int) -> int:
        if not self.start <= pos <= self.end:
            found = self.regex.match(text, pos)
            assert found is not None  # a pattern of `chars*` matches, if only nothing
            self.start, self.end = pos, found.end()
        return self.end


def _line_start(text: str, pos: int, lo: int) -> int:
    """Where the line of ``pos`` starts (after a newline or a ``\\n`` escape), not before lo."""
    nl = text.rfind("\n", lo, pos) + 1
    esc = text.rfind("\\n", max(lo, nl), pos)
    return esc + 2 if esc >= 0 else (nl if nl else lo)


def _line_prefix(text: str, pos: int) -> str:
    """What precedes ``pos`` on its line, stripped; only the last 32 characters are
    looked at."""
    lo = max(0, pos - 32)
    start = _line_start(text, pos, lo)
    if start == lo and lo > 0 and text[lo - 1] != "\n":
        return "\0"  # a long prefix: certainly not one of _LINE_PREFIXES
    return text[start:pos].strip()


def keyword_hits(text: str) -> list[int]:
    """Where each of `NAME_KEYWORDS` occurs in ``text``, in any case, sorted."""
    if text.isascii():
        low: str | bytes = text.lower()
        kws: tuple = NAME_KEYWORDS
    else:  # one byte per character keeps the offsets
        low = text.encode("ascii", "replace").lower()
        kws = _KEYWORDS_B
    hits = []
    for kw in kws:
        i = low.find(kw)
        while i >= 0:
            hits.append(i)
            i = low.find(kw, i + 1)
    hits.sort()
    return hits


def assignment_spans(text: str, out: list[Span], hits: list[int] | None = None) -> None:
    """Append the secret values assigned to secret-like names in ``text``; ``hits``: its
    `keyword_hits`, when the caller has them."""
    hits = keyword_hits(text) if hits is None else hits
    if not hits:
        return
    covered = 0  # end of the last name looked at: one verdict per name
    ends = (_RunEnd(_UNQUOTED_CHARS), _RunEnd(_LITERAL_CHARS))
    for kw_start in hits:
        if kw_start < covered:
            continue
        after = _NAME_AFTER_RE.match(text, kw_start)  # of `*`: always a match
        name_end = after.end() if after else kw_start
        covered = name_end
        if name_end - kw_start > 96:
            continue  # not a name
        nxt = text[name_end : name_end + 1]
        if not nxt or nxt not in "=:\"' \t>\\":
            continue
        before = _NAME_BEFORE_RE.search(text, max(0, kw_start - 64), kw_start) if kw_start else None
        name_start = before.start() if before else kw_start
        name = text[name_start:name_end]
        tier = name_tier(name)
        if tier is None:
            continue
        prev = text[name_start - 1] if name_start else ""
        if prev.isalnum() or prev == "_":
            continue  # longer than 64 characters: not a name
        if prev == ":" and text[name_start - 2 : name_start] == "::":
            continue  # a qualified type name: "AWS::SecretsManager::Secret"
        if tier == "weak" and lookup_in_prose(
            name, text[_line_start(text, name_start, max(0, name_start - 80)) : name_start]
        ):
            continue
        if name.lower().endswith("authorization"):
            _authorization(text, name_end, out)
        elif prev == "<" and nxt == ">":
            _xml_element(text, name, name_end, tier, out)
        else:
            # names inside a redacted value need no second look (keeps this linear)
            covered = max(covered, _assignment(text, name, name_start, name_end, tier, out, ends))


def _assignment(
    text: str, name: str, name_start: int, name_end: int, tier: str, out: list, ends: tuple
) -> int:
    """Record the value assigned to ``name`` if it is a secret; return where it ends."""
    if text[name_end : name_end + 1] in (" ", "\t") and _netrc(text, name, name_start):
        n = _NETRC_VALUE_RE.match(text, name_end)  # "password ==x" is a value here
        if n and literal_is_secret(n.group(1), tier, quoted=False):
            out.append((n.start(1), n.end(1), "env", ASSIGNMENT))
            return n.end(1)
        return 0
    t = _TAIL_RE.match(text, name_end)
    if t is None:
        return 0
    sep = t.group("sep")
    sep_core = sep.strip(" \t")
    # "token==expected", "key=~pattern": an operator, unless the value is random or the
    # name an env variable's (a Django SECRET_KEY may start with "=")
    operator = (
        sep_core == "="
        and text[t.end("sep") : t.end("sep") + 1] in ("=", "~")
        and sep[-1] not in " \t"
        and not name.isupper()
        and not name.startswith("-")
        and text[name_start - 1 : name_start] not in ("?", "&", ";")
    )
    if operator and sep != "=":
        return 0  # "token == expected"
    cli = "flag" if name.startswith("--") else ""
    if not sep_core and not cli:
        cli = "netrc" if _netrc(text, name, name_start) else ""
        if not cli:
            return 0  # "the token expired"
    for g in ("v1", "v2", "v3", "v4"):
        if t.group(g) is not None:
            value, vs = t.group(g), t.start(g)
            if not literal_is_secret(value, tier):
                return 0
            break
    else:
        vs = t.start("v5")
        raw = text[vs : min(ends[0](text, vs), vs + _MAX_VALUE)]
        value = _unquoted(text, name, name_start, sep, sep_core, cli, raw, vs, tier, ends[1])
        if not value:
            return 0
    if operator and _IDENT_CHAIN_OR_WORD_RE.fullmatch(value, 1) and not looks_random(value):
        return 0  # token==expected, key==self.key
    kind = "env"
    if _AWS_SECRET_NAME_RE.search(name) and _AWS_SECRET_VALUE_RE.fullmatch(value):
        kind = "aws-secret"
    out.append((vs, vs + len(value), kind, ASSIGNMENT))
    return vs + len(value)


def _netrc(text: str, name: str, name_start: int) -> bool:
    """``password <value>`` in a .netrc (``machine host login me password pw``)."""
    return (
        name in ("password", "passwd") and "machine " in text[max(0, name_start - 300) : name_start]
    )


def _extend_literal(text: str, vs: int, value: str, query: bool, literal_end: _RunEnd) -> str:
    """An unquoted literal runs to whitespace or a quote: ``PASSWORD=Tr0ub4dor&3`` is
    one value, although ``&;<>(){}[]|`` end an unquoted value in code."""
    end = vs + len(value)
    if query or end >= len(text) or text[end] not in _EXTEND_CHARS:
        return value
    return text[vs : min(literal_end(text, end), vs + _MAX_VALUE)].rstrip(";")


def _unquoted(
    text, name, name_start, sep, sep_core, cli, value, vs, tier, literal_end
) -> str | None:
    """Judge an unquoted value; return the (possibly shortened) secret or None."""
    if (
        value.startswith("-")
        and cli != "netrc"
        and (cli or not sep_core)
        and _FLAG_RE.fullmatch(value)
        and not looks_random(value)
    ):
        return None  # the next flag, not a value (but "--password -Xk9+q..." is one)
    stripped = value.rstrip(",:")
    # what follows the value: "," or ")" after a keyword argument, "(" after a call
    trailer = (
        value[len(stripped) : len(stripped) + 1] or text[vs + len(value) : vs + len(value) + 1]
    )
    value = stripped
    if not value or trailer in ("(", "["):
        return None  # a call or a subscript: get_token(), os.environ["TOKEN"]
    query = name_start > 0 and text[name_start - 1] in "?&"  # ?token=abc&x=1
    if cli:
        literal = True
        value = _extend_literal(text, vs, value, query, literal_end)
    elif sep == "=":
        # NAME=value: shell, .env, DSN, properties -- not a keyword argument f(x=y, ...)
        # nor minified code (a.token=b;)
        literal = (
            trailer not in (",", ")", "]", "}")
            and (
                trailer != ";"
                or not any(c.islower() for c in name)
                # a connection string's "...;Password=x;...", not minified code's "a.token=b;"
                or (
                    name_start > 0
                    and text[name_start - 1] == ";"
                    and name[:1].isupper()
                    and "." not in name
                )
            )
        )
        if literal:
            value = _extend_literal(text, vs, value, query, literal_end)
    elif sep_core == ":" and sep[-1] in " \t":
        # "name: value" alone on its line: YAML, an HTTP header -- but not a class
        # attribute's annotation ("_client: SecretManagerClient")
        whole = _extend_literal(text, vs, value, query, literal_end)
        literal = (
            _EOL_RE.match(text, vs + len(whole)) is not None
            and _line_prefix(text, name_start) in _LINE_PREFIXES
            and not _CAMEL_TYPE_RE.fullmatch(whole)
        )
        if literal:
            value = whole
    else:
        literal = False  # name = value, {name: value}, :=, =>
    if (
        not literal
        and tier != "weak"
        and sep_core in ("=", ":=")
        and _ini_line(text, name_start, vs, value)
    ):
        literal = True
    if (
        not literal
        and tier == "password"
        and sep_core == ":"
        and sep[-1:] in (" ", "\t")
        and _WORD_AND_NUMBER_RE.fullmatch(value.rstrip(".,;"))
    ):
        literal = True  # "FtpPass: Welcome31402" in a sentence or a title
        value = value.rstrip(".,;")  # INI, properties: "password = Hunter25200" alone on its line
    if not literal:
        if value.endswith(".") and not value.endswith(".."):
            value = value[:-1]  # end of a sentence
        if (
            _IDENT_RE.fullmatch(value)
            or _IDENT_CHAIN_RE.fullmatch(value)
            or sep == ":"  # arn:aws:secretsmanager:...:secret:name, "scope:secret:read"
        ):
            # a variable (pw, self.token, os.environ, process.env.TOKEN) unless it looks random
            return value if looks_random(value) and not is_placeholder(value) else None
    return value if literal_is_secret(value, tier, quoted=False) else None


def _ini_line(text: str, name_start: int, vs: int, value: str) -> bool:
    """``name = value`` as the whole line, the value a word with letters and digits: an
    INI or properties file (code would write a call, a dotted name or a quoted string;
    a bare variable of letters and digits is the price, and a rare one)."""
    return (
        _EOL_RE.match(text, vs + len(value)) is not None
        and _line_prefix(text, name_start) == ""
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
    )


def _authorization(text: str, pos: int, out: list) -> None:
    a = _AUTHZ_TAIL_RE.match(text, pos)
    if a is None:
        return
    scheme = (a.group("scheme") or "").lower()
    value = a.group("v")
    if not scheme and value.lower() in _AUTH_SCHEMES:
        return  # "Authorization: Bearer $TOKEN", "Bearer " + token
    if scheme and scheme not in _AUTH_SCHEMES:
        return  # prose: "Authorization: see the docs"
    if is_placeholder(value) or (not scheme and not looks_random(value)):
        return
    kind = scheme if scheme in ("bearer", "basic") else "auth"
    out.append((a.start("v"), a.end("v"), kind, HEADER))


def _xml_element(text: str, name: str, pos: int, tier: str, out: list) -> None:
    x = _XML_VALUE_RE.match(text, pos)
    if x is None:
        return
    close = text[x.end() : x.end() + len(name) + 1]
    if close != name + ">" and not (
        x.end() + len(close) == len(text) and (name + ">").startswith(close)
    ):
        return  # not its closing tag (nor one that the end of the text cut short)
    raw = x.group("v")
    value = raw.strip()
    if literal_is_secret(value, tier):
        s = x.start("v") + raw.find(value)
        out.append((s, s + len(value), "env", ASSIGNMENT))
