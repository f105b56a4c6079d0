"""Secrets known by what surrounds them, where no ``NAME=value`` spelling says so.

Each rule here reads a context that names a secret in another way than an assignment:

- a password on a command line: ``mysql -pX``, ``sshpass -p X``, ``redis-cli -a X``,
  ``openssl enc -k X`` / ``-pass pass:X``, ``docker login -p X``, ``htpasswd -b f u X``;
- a name and its value apart: ``- name: DB_PASSWORD`` / ``value: X`` (Kubernetes, ECS
  JSON), ``define('DB_PASSWORD', 'X')``, a YAML block scalar or list under a secret's
  name, ``password = (\\n "X"\\n)``, a table row ``| SecretAccessKey | X |``, a
  Markdown table's column under a secret's name (``| User | Password |``);
- what a command prints when it prints a secret (``printenv DB_PASS``, ``vault kv get
  -field=password``, ``op read``, ``gh auth token``...), the prompts of ``aws configure``
  and the credentials line of ``aws ... --output text``;
- formats: ``.pgpass`` lines, presigned URL signatures, labels in other languages
  (пароль, パスワード, contraseña, mot de passe, 密码 ...), an Edit of a secrets file whose
  new text is one word, lines of a key the terminal wrapped.

Every rule has gates (substrings a text must hold) so that a text without them costs a
few ``in`` tests; values are judged by `values.literal_is_secret` as assignments are.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ccarchive.redact.lazy import LazyPattern
from ccarchive.redact.names import may_name_secret, name_tier
from ccarchive.redact.rules import ASSIGNMENT, SPECIFIC, Span
from ccarchive.redact.values import is_placeholder, literal_is_secret, looks_random

_V = r"""(?P<q>['"]?)(?P<v>[^\s'"`|;&<>()]{1,512})"""
"""A command-line value, quoted or not (its closing quote is not needed)."""

_COMMAND_RES = (
    (
        ("mysql", "mariadb"),
        LazyPattern(
            rf"(?:mysql|mariadb)(?<![\w-]mysql)(?<![\w-]mariadb)[\w-]*\b[^\n]{{0,300}}?"
            rf"[ \t]-p{_V}"
        ),
    ),
    (("sshpass",), LazyPattern(rf"sshpass[ \t]+(?:-\w[ \t]+)*-p[ \t]*{_V}")),
    (("redis-cli",), LazyPattern(rf"redis-cli\b[^\n]{{0,300}}?[ \t](?:-a|--pass)[ \t]+{_V}")),
    (("openssl",), LazyPattern(rf"openssl\b[^\n]{{0,300}}?[ \t]-k[ \t]+{_V}")),
    (
        ("pass:",),
        LazyPattern(
            r"pass:(?:(?<=[ \t]-pass[ \t]pass:)|(?<=-passin[ \t]pass:)|(?<=passout[ \t]pass:))"
            r"(?P<v>[^\s'\"]{1,512})"
        ),
    ),
    (
        (" login",),
        LazyPattern(
            rf"[ \t]login(?:(?<=docker[ \t]login)|(?<=podman[ \t]login)|(?<=registry[ \t]login))"
            rf"\b[^\n]{{0,300}}?[ \t]-p[ \t]+{_V}"
        ),
    ),
    (
        ("sqlcmd", "mongo", "bcp"),
        LazyPattern(
            rf"\b(?:sqlcmd|bcp|mongo|mongosh|mongodump|mongorestore|mongoexport)\b[^\n]{{0,300}}?"
            rf"[ \t]-[pP][ \t]+{_V}"
        ),
    ),
    (
        ("htpasswd",),
        LazyPattern(
            rf"htpasswd[ \t]+(?:-[a-zA-Z]*[ \t]+)*-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-[a-zA-Z]+[ \t]+)*"
            rf"\S+[ \t]+\S+[ \t]+{_V}"
        ),
    ),
)


_FLAG_RE = LazyPattern(r"--?[A-Za-z][A-Za-z-]*")


def _commands(text: str, out: list[Span]) -> None:
    for gates, regex in _COMMAND_RES:
        if not any(map(text.__contains__, gates)):  # no generator: run for every text
            continue
        for m in regex.finditer(text):
            value = m.group("v")
            if m.groupdict().get("q") and value.endswith(m.group("q")):
                value = value[:-1]
            if (
                (_FLAG_RE.fullmatch(value) and "pass:" not in gates)
                or is_placeholder(value)
                or value.startswith("$")
            ):
                continue
            out.append((m.start("v"), m.start("v") + len(value), "password", ASSIGNMENT))


# ---- a name and its value apart ----------------------------------------------------------
_NAME_VALUE_RE = LazyPattern(
    r"""name[ \t]*["']?[ \t]*[:=][ \t]*["']?(?P<n>[A-Za-z_][\w.-]{0,95})[ \t]*["']?[ \t]*,?[ \t]*
    (?:\r?\n[ \t]*(?:-[ \t]+)?)?[ \t]*["']?value[ \t]*["']?[ \t]*[:=][ \t]*
    (?P<q>["']?)(?P<v>[^\s"',}\]]{1,1024})""",
    re.VERBOSE,
)
_CALL_PAIR_RE = LazyPattern(
    r"""\([ \t]*(?P<q1>["'])(?P<n>[A-Za-z_][\w.-]{0,95})(?P=q1)[ \t]*,[ \t]*(?P<q2>["'])"""
    r"""(?P<v>[^"'\n]{1,512})(?P=q2)"""
)
_BLOCK_RE = LazyPattern(
    r"(?m)(?:^|(?<=[ \t]))(?:-[ \t]+)?(?P<n>[A-Za-z_][\w.-]{0,95})[ \t]*:[ \t]*[|>][-+0-9]*[ \t]*"
    r"\r?\n"
    r"(?P<body>(?:[ \t]+\S[^\n]*(?:\n|\Z))+)"
)
_LIST_RE = LazyPattern(
    r"(?m)(?:^|(?<=[ \t]))(?P<n>[A-Za-z_][\w.-]{0,95})[ \t]*:[ \t]*\r?\n"
    r"(?P<body>(?:[ \t]*-[ \t]+[^\n]+(?:\n|\Z))+)"
)
_PAREN_RE = LazyPattern(
    r"""\((?:(?<==[ \t]\()|(?<==\())[ \t]*\r?\n?[ \t]*(?P<q>["'])"""
    r"""(?P<v>[^"'\n]{1,512})(?P=q)"""
)
_NAME_BEFORE_RE = LazyPattern(r"(?P<n>[A-Za-z_][\w.-]{0,95})[ \t]*=[ \t]*\Z")
_TABLE_RE = LazyPattern(
    r"\|(?=[ \t]*(?P<n>[A-Za-z][\w.-]{0,63})[ \t]*\|[ \t]*(?P<v>[^\s|]{1,1024})[ \t]*\|)"
)
"""A row's name cell and the value cell beside it, looked at from each bar (the match is
the bar alone), so that pairs overlap: ``| user | password | X |`` holds
``| user | password |`` and ``| password | X |``."""
_TABLE_RULE_RE = LazyPattern(
    r"(?m)^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*\r?$"
)
"""A Markdown table's rule, the line of dashes under its header row."""
_COLUMN_NAME_RE = LazyPattern(r"[A-Za-z][\w .-]{0,39}")
"""A column's header that may name a secret: a name, not a sentence (``Pass if...``)."""
_COLUMN_NAME_END_RE = LazyPattern(r"[A-Za-z][\w .-]{0,39}\Z")
"""The name at the end of a table's first header cell, when the table has no outer bars
and its first line begins with something else (``{"content": "Password | User``)."""
_COLUMN_VALUE_RE = LazyPattern(r"(?=[^\s|]*[A-Za-z])[^\s|]{1,1024}")
"""A value in a secret's column: one word with a letter (a checklist's answers, a score
like ``3/5``, are not)."""
_VERDICTS = frozenset(
    "pass passed fail failed ok skip skipped yes no true false none n/a todo done".split()
)
"""What a test's ``Pass`` column holds: a verdict, not a password."""
_ITEM_RE = LazyPattern(r"[ \t]*-[ \t]+(?P<v>[^\n]+)")
_LIST_GATE_RE = LazyPattern(r":[ \t]*\r?\n[ \t]*-[ \t]")
"""What every match of `_LIST_RE` holds: its name's colon and its first item."""
_BLOCK_GATE_RE = LazyPattern(r":[ \t]*[|>][-+0-9]*[ \t]*\r?\n[ \t]+\S")
"""What every match of `_BLOCK_RE` holds: its colon, block indicator and first line."""


def _gate_line(gate: LazyPattern, text: str) -> int:
    """Where the line of `gate`'s first match starts (-1: there is none): where a rule
    can first match whose every match holds `gate` and starts on the line of it. A
    search for the gate scans for colons, where the rule is tried at every word, and the
    rule then runs from there."""
    found = gate.search(text)
    return -1 if found is None else text.rfind("\n", 0, found.start()) + 1


def _tiered(name: str) -> str | None:
    return name_tier(name)


def _value(out: list[Span], s: int, value: str, tier: str) -> None:
    """The span of ``value`` (found at ``s``) if it is a secret by ``tier``: its spaces,
    quotes and backticks around it left out, the span starting where the value does."""
    bare = value.strip().strip("\"'`")
    if bare and literal_is_secret(bare, tier, quoted=False):
        at = s + value.index(bare)
        out.append((at, at + len(bare), "env", ASSIGNMENT))


def _pairs(text: str, out: list[Span]) -> None:
    if "value" in text and "name" in text:
        for m in _NAME_VALUE_RE.finditer(text):
            tier = _tiered(m.group("n"))
            if tier:
                _value(out, m.start("v"), m.group("v"), tier)
    if "', '" in text or '", "' in text or "','" in text or '","' in text:
        for m in _CALL_PAIR_RE.finditer(text):
            tier = _tiered(m.group("n"))
            if tier:
                _value(out, m.start("v"), m.group("v"), tier)
    first = _gate_line(_BLOCK_GATE_RE, text)
    if first >= 0:
        for m in _BLOCK_RE.finditer(text, first):
            tier = _tiered(m.group("n"))
            if tier:
                for line in re.finditer(r"[^\n]+", m.group("body")):
                    raw = line.group()
                    _value(
                        out,
                        m.start("body") + line.start() + len(raw) - len(raw.lstrip()),
                        raw.strip(),
                        tier,
                    )
    first = _gate_line(_LIST_GATE_RE, text)
    if first >= 0:
        for m in _LIST_RE.finditer(text, first):
            tier = _tiered(m.group("n"))
            if tier and tier != "weak":
                pos = m.start("body")
                for row in m.group("body").splitlines(keepends=True):
                    item = _ITEM_RE.match(row)
                    if item:
                        _value(out, pos + item.start("v"), item.group("v"), tier)
                    pos += len(row)
    if "= (" in text or "=(" in text:
        for m in _PAREN_RE.finditer(text):
            name = _NAME_BEFORE_RE.search(text, max(0, m.start() - 100), m.start())
            tier = _tiered(name.group("n")) if name else None
            if tier:
                _value(out, m.start("v"), m.group("v"), tier)
    if "|" in text:
        heads = _table_heads(text) if "---" in text else []
        # a header's cells are names, and a cell of a secret's column is a value: neither
        # is the name of the cell beside it (sorted, to be looked up by bisection)
        not_names = sorted(
            [(h.start, h.end) for h in heads]
            + [cell for head in heads for cell in _table_column(text, head, out)]
        )
        starts = [s for s, _e in not_names]
        values: set[int] = set()  # where the values of secrets' names start
        for m in _TABLE_RE.finditer(text):
            at = m.start("n")
            i = bisect_right(starts, at) - 1
            if at in values or (i >= 0 and at < not_names[i][1]):
                continue  # a secret's value is not the name of the cell after it
            tier = _tiered(m.group("n"))
            if tier:
                values.add(m.start("v"))
                _value(out, m.start("v"), m.group("v"), tier)


@dataclass(frozen=True)
class _TableHead:
    """A Markdown table's header row (``text[start:end]``), over its rule, which ends at
    ``rule_end``; ``bars``: whether its rows have the outer bars (as its rule has them)."""

    start: int
    end: int
    rule_end: int
    bars: bool


def _table_heads(text: str) -> list[_TableHead]:
    """The header rows of the Markdown tables in ``text``: a line with a bar over a rule."""
    heads = []
    for rule in _TABLE_RULE_RE.finditer(text):
        end = rule.start() - 1
        if end < 0 or text[end] != "\n":
            continue
        if end > 0 and text[end - 1] == "\r":
            end -= 1
        start = text.rfind("\n", 0, end) + 1
        if "|" in text[start:end]:
            bars = rule.group().lstrip().startswith("|")
            heads.append(_TableHead(start, end, rule.end(), bars))
    return heads


def _cells(text: str, start: int, end: int, bars: bool) -> list[tuple[int, str]]:
    """The cells of the row ``text[start:end]``: where each starts, and its text. With
    ``bars``, the cells between the first bar and the last (what stands outside them,
    such as the JSON a table was printed in, is not a cell); else every run between bars."""
    first, last = start - 1, end
    if bars:
        first, last = text.find("|", start, end), text.rfind("|", start, end)
        if first == last:  # one bar: no cell between two
            return []
    cells = []
    at = first + 1
    while at <= last:
        bar = text.find("|", at, last)
        stop = last if bar < 0 else bar
        cells.append((at, text[at:stop]))
        at = stop + 1
    return cells


def _table_column(text: str, head: _TableHead, out: list[Span]) -> list[tuple[int, int]]:
    """A table whose header names a secret (``| user | password |``): that column's
    cells, row after row, until a line without a bar; where those cells are."""
    found: list[tuple[int, int]] = []
    cells = _cells(text, head.start, head.end, head.bars)
    names = [name.strip().strip("*`_ ") for _at, name in cells]
    if names and not head.bars:  # the line may begin with what the table was printed in
        first = _COLUMN_NAME_END_RE.search(names[0])
        names[0] = first.group() if first else names[0]
    tiers = {
        i: tier
        for i, name in enumerate(names)
        if _COLUMN_NAME_RE.fullmatch(name) and (tier := _tiered(name))
    }
    pos = head.rule_end + 1
    while tiers and pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        if "|" not in text[pos:end]:
            break
        for i, (at, cell) in enumerate(_cells(text, pos, end, head.bars)):
            tier = tiers.get(i)
            value = cell.strip().strip("\"'`")
            if tier:
                found.append((at, at + len(cell)))
                if _COLUMN_VALUE_RE.fullmatch(value) and value.lower() not in _VERDICTS:
                    _value(out, at, cell, tier)
        pos = end + 1
    return found


# ---- what a command prints -------------------------------------------------------------
_PRINTS_RE = LazyPattern(
    r"""(?mx)(?:^|[$%#❯>][ \t]*)(?:printenv[ \t]+(?P<var>\w+)
    | echo[ \t]+["']?\$\{?(?P<var2>\w+)\}?["']?[ \t]*
    | vault[ \t]+(?:kv[ \t]+get|read)\b[^\n]*?-field=\w+[^\n]*
    | op[ \t]+read\b[^\n]*
    | aws[ \t]+configure[ \t]+get[ \t]+\w*(?:secret|token|password)\w*[^\n]*
    | kubectl[ \t]+get[ \t]+secrets?\b[^\n]*
    | gh[ \t]+auth[ \t]+token
    | gcloud[ \t]+auth[ \t]+(?:application-default[ \t]+)?print-(?:access|identity)-token[^\n]*
    | heroku[ \t]+auth:token\b[^\n]*
    | security[ \t]+find-(?:generic|internet)-password\b[^\n]*-w\b[^\n]*
    | cat[ \t]+\S*(?:secret|token|passw|credential|\.pgpass|\.netrc|api[_-]?key)\S*[ \t]*
    )[ \t]*\r?\n(?P<v>[^\n]{1,4096})"""
)
_PRINTS_FOLDED_RE = LazyPattern(
    r"""(?x)(?:^|[$%#❯>][ \t]*)(?:printenv[ \t]+(?P<var>\w+)
    | echo[ \t]+["']?\$\{?(?P<var2>\w+)\}?["']?
    | vault[ \t]+kv[ \t]+get[ \t]+-field=\w+[ \t]+\S+
    | op[ \t]+read[ \t]+\S+
    | aws[ \t]+configure[ \t]+get[ \t]+\w*(?:secret|token|password)\w*
    | gh[ \t]+auth[ \t]+token
    | gcloud[ \t]+auth[ \t]+print-(?:access|identity)-token
    | heroku[ \t]+auth:token
    | cat[ \t]+\S*(?:secret|token|passw|credential|api[_-]?key)\S*
    )[ \t]+(?P<v>[^\s"'`$]{8,4096})"""
)
"""The same, as a title shows it: folded on one line, the output after the command."""
_PRINT_GATES = (
    "printenv",
    "echo",
    "vault",
    "op read",
    "aws configure",
    "kubectl",
    "gh auth",
    "gcloud auth",
    "heroku auth",
    "security find",
    "cat ",
)


def _outputs(text: str, out: list[Span]) -> None:
    if any(map(text.__contains__, _PRINT_GATES)):
        for m in _PRINTS_RE.finditer(text):
            var = m.group("var") or m.group("var2")
            if var and name_tier(var) is None:
                continue
            output_value(text, m.start("v"), m.group("v"), out)
        if "\n" not in text:
            for m in _PRINTS_FOLDED_RE.finditer(text):
                var = m.group("var") or m.group("var2")
                v = m.group("v")
                if (var and name_tier(var) is None) or not (
                    looks_random(v) or (_DIGIT_RE.search(v) and _SYMBOL_RE.search(v))
                ):
                    continue
                output_value(text, m.start("v"), v, out)
    if "Secret Access Key [" in text:
        out.extend(
            (m.start("v"), m.end("v"), "aws-secret", SPECIFIC)
            for m in _AWS_PROMPT_RE.finditer(text)
        )
    if "CREDENTIALS" in text:
        for m in _AWS_TEXT_RE.finditer(text):
            for run in _B64_RUN_RE.finditer(m.group("rest")):
                if looks_random(run.group()):
                    s = m.start("rest") + run.start()
                    out.append((s, s + len(run.group()), "aws-secret", SPECIFIC))


_DIGIT_RE = LazyPattern(r"[0-9]")
_SYMBOL_RE = LazyPattern(r"[^\w\s]")
_MIXED_RE = LazyPattern(r"[a-z][A-Z]")
_KEY_LINE_RE = LazyPattern(r"[A-Za-z_][\w.-]*[ \t]*[=:][ \t]|[A-Z_][A-Z0-9_]{2,}=|.*[\"'`]")
_AWS_PROMPT_RE = LazyPattern(
    r"Secret Access Key \[[^\]\n]{0,64}\]:[ \t]*(?P<v>[A-Za-z0-9/+=]{16,})"
)
_AWS_TEXT_RE = LazyPattern(r"CREDENTIALS[ \t]+A[SK]IA[A-Z0-9]{16}(?P<rest>[^\n]{0,8192})")
_B64_RUN_RE = LazyPattern(r"[A-Za-z0-9/+=]{30,}")


def output_value(text: str, s: int, line: str, out: list[Span]) -> None:
    """The first line a secret-printing command printed: the secret, unless it is an
    error or prose (words with spaces between them)."""
    value = line.strip()
    if (
        not value
        or " " in value
        or value.startswith(("Error", "error", "No ", "$", "["))
        or _KEY_LINE_RE.match(value)
    ):
        return  # an error, prose, a prompt, or a line of settings rather than one value
    if not literal_is_secret(value, "password", quoted=False):
        return
    s += len(line) - len(line.lstrip())
    out.append((s, s + len(value), "output", ASSIGNMENT))


# ---- formats ----------------------------------------------------------------------------
_PGPASS_RE = LazyPattern(
    r"(?m)^(?:[A-Za-z0-9_.*-]+|\[[0-9a-fA-F:]+\]):(?:[0-9]{1,5}|\*):[A-Za-z0-9_.*$-]+:"
    r"[A-Za-z0-9_.*@$-]+:(?P<v>[^\s:]\S{0,511})(?=\s|\Z)"
)
_PGPASS_GATE_RE = LazyPattern(r":(?:[0-9]{1,5}|\*):")
"""The port field that every .pgpass line has: a colon, a port or ``*``, a colon."""
_SIGNATURE_RE = LazyPattern(
    r"[?&](?:X-Amz-Signature|X-Goog-Signature|Signature|X-Amz-Security-Token|x-amz-security-token"
    r"|X-Goog-Credential-Signature|GoogleAccessId-Signature)=(?P<v>[^&\s\"'#<>]{16,})"
)
_LABELS = (
    "пароль",
    "Пароль",
    "ПАРОЛЬ",
    "паролем",
    "токен",
    "Токен",
    "секретный ключ",
    "ключ API",
    "パスワード",
    "トークン",
    "秘密鍵",
    "シークレット",
    "暗証番号",
    "contraseña",
    "Contraseña",
    "CONTRASEÑA",
    "clave",
    "Clave",
    "clave secreta",
    "mot de passe",
    "Mot de passe",
    "MOT DE PASSE",
    "jeton",
    "Jeton",
    "clé secrète",
    "Kennwort",
    "Passwort",
    "senha",
    "Senha",
    "密码",
    "密碼",
    "口令",
    "令牌",
    "密钥",
    "秘钥",
    "비밀번호",
)
_LABEL_RE = LazyPattern(
    "(?:"
    + "|".join(sorted((re.escape(label) for label in _LABELS), key=len, reverse=True))
    + r")[ \t]*(?:[:：=]|[ \t]-)[ \t]*(?P<v>[^\s\"'，。、」』]{3,512})"
)
_LABEL_GATES = (
    "парол",
    "Парол",
    "ПАРОЛ",
    "окен",
    "ключ",
    "パスワード",
    "トークン",
    "秘密",
    "シークレット",
    "暗証",
    "ontraseña",
    "ONTRASEÑA",
    "lave",
    "de passe",
    "DE PASSE",
    "eton",
    "clé",
    "ennwort",
    "asswort",
    "enha",
    "密码",
    "密碼",
    "口令",
    "令牌",
    "密钥",
    "秘钥",
    "비밀번호",
)
_LABEL_ASCII_GATES = tuple(g for g in _LABEL_GATES if g.isascii())
_LABEL_OTHER_GATES = tuple(g for g in _LABEL_GATES if not g.isascii())
_LABEL_CHARS_RE = LazyPattern(
    "[" + "".join(sorted({next(c for c in g if not c.isascii()) for g in _LABEL_OTHER_GATES})) + "]"
)
"""A character of each gate that is not ASCII: one scan of the text for any of them
stands for the scans for every such gate (most texts that are not ASCII hold none: an
emoji, a box-drawing line)."""


def _may_hold_label(text: str) -> bool:
    """Could ``text`` hold a label of `_LABEL_RE`: one of `_LABEL_GATES` (the ASCII ones,
    ``Kennwort``, ``senha``, ``DE PASSE``, are looked for in every text)?"""
    if any(map(text.__contains__, _LABEL_ASCII_GATES)):
        return True
    return _LABEL_CHARS_RE.search(text) is not None and any(g in text for g in _LABEL_OTHER_GATES)


_SECRET_FILE_RE = LazyPattern(
    r"(?i)(?:^|[/\\])(?:\.env(?:\.[\w-]+)?|[\w.-]*(?:secret|credential|passw|token)[\w.-]*"
    r"|\.netrc|\.pgpass|\.htpasswd|\.my\.cnf|id_[a-z0-9]+|[\w.-]+\.(?:pem|key|p12|pfx))$"
)
_EDIT_RE = LazyPattern(r"\A(?:Edit|MultiEdit|Write)\n(?P<p>[^\n]{1,1024})\n(?P<v>\S{6,512})\s*\Z")
_WRAPPED_RE = LazyPattern(
    r"(?m)^(?P<a>[A-Za-z0-9+/_-]{40,})\r?\n(?P<b>[A-Za-z0-9+/_-]{16,}={0,2})\r?$"
)
_WRAPPED_HEAD_RE = LazyPattern(r"[A-Za-z0-9+/_-]{40}")
_WRAPPED_LINE_RE = LazyPattern(r"\n[A-Za-z0-9+/_-]{40}")


def _wrapped_start(text: str) -> int:
    """Where the first line that can start a match of `_WRAPPED_RE` starts (-1: none),
    found by a scan for line breaks (`_WRAPPED_RE`, which starts with ``^``, is tried at
    every character)."""
    if _WRAPPED_HEAD_RE.match(text):
        return 0
    line = _WRAPPED_LINE_RE.search(text)
    return -1 if line is None else line.start() + 1


_KEYLIKE_RE = LazyPattern(r"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=[^0-9]*[0-9])")


def _formats(text: str, out: list[Span]) -> None:
    if text.count(":") >= 4 and _PGPASS_GATE_RE.search(text):
        for m in _PGPASS_RE.finditer(text):
            v = m.group("v")
            if not is_placeholder(v):
                out.append((m.start("v"), m.end("v"), "password", ASSIGNMENT))
    if "Signature=" in text or "ecurity-Token=" in text:
        out.extend(
            (m.start("v"), m.end("v"), "signature", SPECIFIC) for m in _SIGNATURE_RE.finditer(text)
        )
    if _may_hold_label(text):
        for m in _LABEL_RE.finditer(text):
            v = m.group("v")
            if (
                (
                    looks_random(v)
                    or _MIXED_RE.search(v) is not None  # jrIfmyamelN: not a word
                    or any(c.isdigit() or (c.isascii() and not c.isalnum()) for c in v)
                )
                and any(c.isascii() and c.isalnum() for c in v)
                and literal_is_secret(v, "password", quoted=False)
            ):
                out.append((m.start("v"), m.end("v"), "password", ASSIGNMENT))
    if text.startswith(("Edit\n", "MultiEdit\n", "Write\n")):
        edit = _EDIT_RE.match(text)
        if (
            edit
            and _SECRET_FILE_RE.search(edit.group("p").strip())
            and literal_is_secret(edit.group("v"), "password", quoted=False)
        ):
            out.append((edit.start("v"), edit.end("v"), "env", ASSIGNMENT))
    first = _wrapped_start(text) if "\n" in text and len(text) >= 58 else -1
    if first >= 0:
        for m in _WRAPPED_RE.finditer(text, first):
            a, b = m.group("a"), m.group("b")
            if (
                _KEYLIKE_RE.match(a)
                and looks_random(b)
                and not _certificate_before(text, m.start())
            ):
                out.append((m.start("a"), m.end("b"), "key-lines", SPECIFIC))


def _certificate_before(text: str, pos: int) -> bool:
    """Inside a certificate or public key block (public: left as they are)?"""
    begin = text.rfind("-----BEGIN ", max(0, pos - 16384), pos)
    return (
        begin >= 0
        and "PRIVATE" not in text[begin : begin + 64]
        and text.find("-----END ", begin, pos) < 0
    )


def prints_secret(command: str) -> bool:
    """Does this shell command print a secret (``printenv DB_PASS``, ``op read ...``)?
    Its output then is the secret, in a tool result that says nothing else."""
    if not any(g in command for g in _PRINT_GATES) and "aws" not in command:
        return False
    line = command.strip().splitlines()[-1] if command.strip() else ""
    m = _PRINTS_RE.match(line + "\nx")
    if m is not None:
        var = m.group("var") or m.group("var2")
        return not var or name_tier(var) is not None
    return "aws configure" in line or ("aws " in line and "--output" in line)


def secret_file(path: str) -> bool:
    """Is this the path of a file that holds secrets (.env, credentials, a key)?"""
    return _SECRET_FILE_RE.search(path.strip()) is not None


def context_spans(text: str, out: list[Span], named: bool | None = None) -> None:
    """Append the secrets that the contexts of this module name in ``text``. ``named``:
    `may_name_secret` of ``text``, when the caller knows it; without a secret's name in
    it, no name/value pair is looked for (each is kept only if its name is a secret's)."""
    _commands(text, out)
    if may_name_secret(text) if named is None else named:
        _pairs(text, out)
    _outputs(text, out)
    _formats(text, out)
