"""Secret redaction for everything ccarchive shows or serves.

Transcripts of a coding assistant leak secrets all the time: a Bash tool prints an
``.env`` file, a ``curl`` carries a bearer token, ``aws sts`` answers with session
credentials.  Every string the TUI renders or the MCP server returns goes through
:func:`redact` (or :func:`redact_value` for structured data) by default.

API
---
``redact(text) -> str``
    Replace each secret with ``[REDACTED:<kind>]``.  Only the secret value is
    replaced; the context that tells a reader what it was stays::

        Authorization: Bearer [REDACTED:bearer]
        API_KEY=[REDACTED:env]
        postgres://app:[REDACTED:url-password]@db/x
        -----BEGIN RSA PRIVATE KEY-----
        [REDACTED:private-key]
        -----END RSA PRIVATE KEY-----

    ``redact`` is idempotent: markers are never matched again, and detection is
    re-run on the output until nothing more is found (this only costs anything when
    something was redacted).
``find_secrets(text) -> list[(start, end, kind)]``
    Sorted, non-overlapping spans of the secret values (overlapping detections
    are merged; the most specific kind wins).
``redact_value(obj)``
    Walk ``str`` / ``list`` / ``tuple`` / ``dict`` (values only) / pydantic models
    (``model_copy(update=...)``, recursively) and return the same shape redacted.
    Unchanged objects are returned as-is (no copy).

Kinds
-----
Known token formats (matched anywhere, no context needed): ``anthropic``
(``sk-ant-api03-``, ``sk-ant-admin01-``, ``sk-ant-oat01-`` ...), ``openai`` (``sk-``,
``sk-proj-``, ``sk-svcacct-``, ``sk-admin-``), ``aws-access-key`` (``AKIA``/``ASIA`` +
16), ``github`` (``ghp_ gho_ ghu_ ghs_ ghr_`` + 36+, ``github_pat_``), ``gitlab``
(``glpat-`` and friends), ``slack`` (``xox[abposr]-``, ``xapp-``), ``slack-webhook``,
``stripe`` (``sk_live_ rk_live_ sk_test_ rk_test_ whsec_``), ``google-api-key``
(``AIza``), ``google-oauth`` (``GOCSPX-``, ``ya29.``), ``npm`` (``npm_``),
``huggingface`` (``hf_``), ``pypi``, ``docker`` (``dckr_pat_``), ``sendgrid``, ``jwt``
(``eyJ...eyJ...sig``), ``private-key`` (PEM blocks, also with ``\\n``-escaped newlines
inside JSON text, also truncated blocks without an END line).

Context-dependent: ``bearer`` / ``basic`` / ``auth`` (``Authorization:`` headers in
any spelling -- HTTP, ``curl -H``, JSON, Python dicts -- and a bare ``Bearer <token>``
that looks random), ``cookie`` (``Cookie:`` / ``Set-Cookie:`` values),
``url-password`` (``scheme://user:password@host``), ``password`` (``curl -u
user:password``), ``aws-secret`` (``aws_secret_access_key = <40 chars>``) and ``env``:
assignments whose NAME contains KEY, SECRET, TOKEN, PASSWORD, PASSWD, PWD,
PASSPHRASE, CREDENTIAL or AUTH, in every common spelling: ``NAME=value``, ``export
NAME=value``, ``ENV NAME=value``, ``NAME: value`` (YAML, HTTP headers), ``"name":
"value"`` (JSON, also inside escaped JSON text), ``name = "value"`` (code, TOML, INI),
``--name value`` / ``--name=value`` (CLI flags), ``<name>value</name>`` (XML).

How an assignment is judged
---------------------------
*Names*.  A name is split into words.  Words that merely contain a keyword
(``author``, ``authority``, ``keyboard``, ``keyword``, ``monkey``, ``tokenizer`` ...) do
not count; neither do names whose last word says the value is metadata about a
secret rather than the secret (``*_PATH``, ``*_FILE``, ``*_URL``, ``*_NAME``,
``*_TYPE``, ``*_ID``, ``*_LENGTH``, ``*_TIMEOUT``, ``*_EXPIRES_AT``, ``*_ENV`` ...), names
with ``public``/``publishable``, the shell's ``PWD``/``OLDPWD``, and lookup keys
(``cache_key``, ``sort_key``, ``primary_key``, ``page_token``, ``next_token``...).

*Strong* names (PASSWORD, PASSWD, PWD, PASSPHRASE, SECRET, CREDENTIAL) redact any
literal value that is not a placeholder.  *Weak* names (KEY, TOKEN, AUTH) redact only a
value that looks random: it has a run of at least 8 letters/digits that mixes
digits with letters or has irregular case (``a1b2c3d4``, ``AbXyQwEr``), which
excludes words, numbers, versions and model names (``claude-3-5-sonnet-20241022``,
``ctrl+shift+p``, ``ArrowUp``).  This is the only place where "generic high-entropy"
values are redacted: a random-looking string outside such an assignment is left
alone (it is far more often a hash, an id or base64 data).

*Values that are never redacted* (decided on purpose):

* empty values and placeholders: ``${VAR}``, ``$VAR``, ``$(cmd)``, ``%VAR%``,
  ``%(name)s``, ``{{ x }}``, ``{name}``, ``<your-key>``, ``[...]``, masks (``***``,
  ``xxxx``, ``....``, any single character repeated), ``changeme``, ``example``,
  ``placeholder``, ``dummy``, ``redacted``, ``todo``, values starting with ``your``
  or ``insert``/``enter``/``replace``, values ending with ``here``, type names (``str``,
  ``string``, ``SecretStr`` ...), ``None``/``null``/``true``/``false``;
  the literal words ``password``/``secret`` *are* redacted (they may be the
  real value);
* code: ``token = get_token()``, ``password = input()``, ``api_key =
  os.environ["API_KEY"]``, ``key = self.key``, ``token: str``, ``f(password=pw)``,
  ``{password: pw}`` (a bare identifier in a code context is a variable unless it
  looks random).  Consequence: an INI/Python-ambiguous ``password = hunter2``
  (spaces around ``=``, unquoted identifier) is *not* redacted, while
  ``PASSWORD=hunter2``, ``password: hunter2`` (YAML), ``password=hunter2`` (DSN, .env,
  properties) and ``password = "hunter2"`` are;
* an unquoted value is cut at whitespace, a quote, a backslash (so ``\\n`` inside
  JSON text ends it) and, in a query string, ``&``; ``PASSWORD=abc(1)`` looks like a
  call and is left alone;
* numbers (except 4+ digits under a strong name), paths (``/a/b``, ``~/x.pem``),
  URLs (the ``url-password`` rule covers their passwords), prose (a quoted value
  containing English stop-words), ``UPPER_SNAKE`` names of other variables.

Never touched: git SHAs, sha256 digests, UUIDs, ``msg_``/``toolu_``/``req_`` ids,
base64 image data, URLs without a password (``https://user@host``), ``KEY_LEFT``,
paths, prose that mentions passwords or tokens.

Performance
-----------
Each rule has literal trigger substrings; a rule's regex runs only when one of them
occurs in the text (``str.__contains__`` is a memchr-speed scan).  Assignments are
found by one case-insensitive keyword scan followed by an anchored match per hit
and a cached verdict per name.  Throughput is measured in ``tests/test_redact.py``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["redact", "find_secrets", "redact_value", "MARKER_RE", "marker"]

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,32}\]")
_MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    """The replacement text for a secret of ``kind``."""
    return f"[REDACTED:{kind}]"


# Priority when detections overlap: lower wins (the more specific kind).
_SPECIFIC, _HEADER, _ASSIGNMENT = 0, 1, 2

_A = r"A-Za-z0-9"  # alphanumerics, used in character classes below
_NOT_ALNUM_BEFORE = rf"(?<![{_A}])"
_NOT_ALNUM_AFTER = rf"(?![{_A}])"

# --------------------------------------------------------------------------- helpers

# A run of letters and digits; "plain" runs are words, numbers or CamelCase words.
_ALNUM_RUN_RE = re.compile(rf"[{_A}]{{8,}}")
_PLAIN_RUN_RE = re.compile(r"[A-Z]?[a-z]*(?:[A-Z][a-z]+)*|[A-Z]+|[0-9]+")


def _looks_random(value: str) -> bool:
    """True if ``value`` has a run of 8+ alphanumerics that is not a word/number."""
    for run in _ALNUM_RUN_RE.findall(value):
        if not _PLAIN_RUN_RE.fullmatch(run) and len(set(run)) >= 5:
            return True
    return False


def _not_a_mask(body: str) -> bool:
    """Reject obvious fake tokens such as ``ghp_xxxxxxxxxxxxxxxx``."""
    return len(set(body)) >= 6


# --------------------------------------------------------------------- token rules


class _Rule:
    __slots__ = ("kind", "regex", "triggers", "group", "check", "priority")

    def __init__(self, kind, pattern, triggers, *, group=0, check=None, priority=_SPECIFIC, flags=0):
        self.kind = kind
        self.regex = re.compile(pattern, flags)
        self.triggers = tuple(triggers)
        self.group = group
        self.check = check
        self.priority = priority


def _tail_random(m: re.Match) -> bool:
    return _not_a_mask(m.group("body")) and _looks_random(m.group("body"))


def _tail_not_mask(m: re.Match) -> bool:
    return _not_a_mask(m.group("body"))


_TOKEN_RULES: tuple[_Rule, ...] = (
    _Rule(
        "anthropic",
        rf"{_NOT_ALNUM_BEFORE}sk-ant-(?P<body>[{_A}_-]{{20,}})",
        ["sk-ant-"],
        check=_tail_not_mask,
    ),
    _Rule(
        "openai",
        rf"{_NOT_ALNUM_BEFORE}sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-(?P<body>[{_A}_-]{{20,}})"
        rf"|(?P<body2>[{_A}]{{20,}}){_NOT_ALNUM_AFTER})",
        ["sk-"],
        check=lambda m: _looks_random(m.group("body") or m.group("body2"))
        and _not_a_mask(m.group("body") or m.group("body2")),
    ),
    _Rule(
        "aws-access-key",
        rf"{_NOT_ALNUM_BEFORE}(?:AKIA|ASIA)[A-Z0-9]{{16}}{_NOT_ALNUM_AFTER}",
        ["AKIA", "ASIA"],
        check=lambda m: _not_a_mask(m.group()[4:]),
    ),
    _Rule(
        "github",
        rf"{_NOT_ALNUM_BEFORE}(?:gh[pousr]_(?P<body>[{_A}]{{36,251}}){_NOT_ALNUM_AFTER}"
        rf"|github_pat_[{_A}_]{{22,}})",
        ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        check=lambda m: m.group("body") is None or _not_a_mask(m.group("body")),
    ),
    _Rule(
        "gitlab",
        rf"{_NOT_ALNUM_BEFORE}(?:glpat|gldt|glrt|glptt|glft|glsoat|gloas)-(?P<body>[{_A}_-]{{20,}})",
        ["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "gloas-"],
        check=_tail_not_mask,
    ),
    _Rule(
        "slack",
        rf"{_NOT_ALNUM_BEFORE}(?:xox[abposr]|xapp)-(?P<body>[{_A}-]{{10,}})",
        ["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xapp-"],
        check=_tail_not_mask,
    ),
    _Rule(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<body>[A-Za-z0-9_/-]{16,})",
        ["hooks.slack.com/"],
        group="body",
        check=_tail_not_mask,
    ),
    _Rule(
        "stripe",
        rf"{_NOT_ALNUM_BEFORE}(?:(?:sk|rk)_(?:live|test)_(?P<body>[{_A}]{{16,}})|whsec_(?P<body2>[{_A}+/=]{{20,}}))",
        ["sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"],
        check=lambda m: _not_a_mask(m.group("body") or m.group("body2")),
    ),
    _Rule(
        "google-api-key",
        rf"{_NOT_ALNUM_BEFORE}AIza(?P<body>[{_A}_-]{{35}}){_NOT_ALNUM_AFTER}",
        ["AIza"],
        check=_tail_not_mask,
    ),
    _Rule(
        "google-oauth",
        rf"{_NOT_ALNUM_BEFORE}(?:GOCSPX-|ya29\.)(?P<body>[{_A}_-]{{20,}})",
        ["GOCSPX-", "ya29."],
        check=_tail_not_mask,
    ),
    _Rule(
        "npm",
        rf"{_NOT_ALNUM_BEFORE}npm_(?P<body>[{_A}]{{36}}){_NOT_ALNUM_AFTER}",
        ["npm_"],
        check=_tail_random,
    ),
    _Rule(
        "huggingface",
        rf"(?<![{_A}_])hf_(?P<body>[{_A}]{{30,}}){_NOT_ALNUM_AFTER}",
        ["hf_"],
        check=_tail_random,
    ),
    _Rule(
        "pypi",
        rf"{_NOT_ALNUM_BEFORE}pypi-AgE(?P<body>[{_A}_-]{{50,}})",
        ["pypi-AgE"],
    ),
    _Rule(
        "docker",
        rf"{_NOT_ALNUM_BEFORE}dckr_pat_(?P<body>[{_A}_-]{{20,}})",
        ["dckr_pat_"],
        check=_tail_not_mask,
    ),
    _Rule(
        "sendgrid",
        rf"{_NOT_ALNUM_BEFORE}SG\.(?P<body>[{_A}_-]{{22}}\.[{_A}_-]{{43}}){_NOT_ALNUM_AFTER}",
        ["SG."],
    ),
    _Rule(
        "jwt",
        rf"(?<![{_A}_-])eyJ[{_A}_-]{{8,}}\.eyJ(?P<body>[{_A}_-]{{8,}})\.[{_A}_-]*",
        ["eyJ"],
        check=_tail_not_mask,
    ),
    # ``curl -u user:password`` (only on a line that runs curl).
    _Rule(
        "password",
        r"(?<![\w-])(?:-u|--user)[ \t]+[\"']?[^\s:\"'$]+:(?P<body>[^\s\"'\\]+)",
        [" -u ", "--user "],
        group="body",
        check=lambda m: "curl" in m.string[m.string.rfind("\n", 0, m.start()) + 1 : m.start()]
        and not _is_placeholder(m.group("body")),
    ),
    # scheme://user:password@host -- the password may contain '@' (greedy, last '@').
    _Rule(
        "url-password",
        r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}://[^\s:/?#@\[\]\"'<>\\]*:"
        r"(?P<body>[^\s/?#\"'<>\\]{1,512})@(?=[A-Za-z0-9\[_-])",
        ["://"],
        group="body",
        check=lambda m: not _is_placeholder(m.group("body")) and not m.group("body").isdigit(),
    ),
    _Rule(
        "bearer",
        r"(?<![A-Za-z])[Bb]earer[ \t]+(?P<body>[A-Za-z0-9._~+/-]{16,}=*)",
        ["Bearer ", "bearer ", "Bearer\t", "bearer\t"],
        group="body",
        check=lambda m: _looks_random(m.group("body")),
        priority=_HEADER,
    ),
    _Rule(
        "cookie",
        r"(?i:(?<![\w-])(?:set-)?cookie)\\?[\"']?[ \t]*:[ \t]*\\?[\"']?(?P<body>[^\r\n\"'\\]{3,4096})",
        ["ookie:", "OOKIE:", "ookie :"],
        group="body",
        check=lambda m: "=" in m.group("body"),
        priority=_HEADER,
    ),
)


# PEM private keys: the whole body between BEGIN and END (kept as the reader's
# context).  Without an END line (truncated output) the base64 run is taken.
_PEM_RE = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:(?P<body>[\s\S]{0,32768}?)-----END (?P=label)-----"
    r"|(?P<open>(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[rnt])*))"
)
_PEM_TRIGGER = "-----BEGIN "
_BASE64_RUN_RE = re.compile(r"[A-Za-z0-9+/]{16,}")


def _trim_blank(body: str) -> tuple[int, int]:
    """Offsets of ``body`` without leading/trailing whitespace and ``\\n``-style escapes."""
    i, j = 0, len(body)
    while i < j:
        if body[i].isspace():
            i += 1
        elif body[i] == "\\" and body[i + 1 : i + 2] in ("r", "n", "t"):
            i += 2
        else:
            break
    while j > i:
        if body[j - 1].isspace():
            j -= 1
        elif j - 2 >= i and body[j - 2] == "\\" and body[j - 1] in "rnt":
            j -= 2
        else:
            break
    return i, j


def _pem_spans(text: str, out: list) -> None:
    for m in _PEM_RE.finditer(text):
        group = "body" if m.group("body") is not None else "open"
        s, e = m.span(group)
        body = text[s:e]
        lead, trail = _trim_blank(body)
        if trail <= lead or not _BASE64_RUN_RE.search(body):
            continue  # e.g. code that merely mentions the BEGIN/END lines
        s, e = s + lead, s + trail
        if text.startswith(_MARKER_PREFIX, s) and e - s <= 48 and MARKER_RE.fullmatch(text, s, e):
            continue
        out.append((s, e, "private-key", _SPECIFIC))


def _token_spans(text: str, out: list) -> None:
    for rule in _TOKEN_RULES:
        for trig in rule.triggers:
            if trig in text:
                break
        else:
            continue
        check = rule.check
        for m in rule.regex.finditer(text):
            if check is not None and not check(m):
                continue
            s, e = m.span(rule.group)
            out.append((s, e, rule.kind, rule.priority))


# --------------------------------------------------------------- assignment rules

_KEYWORD_RE = re.compile(
    r"(?:key|secret|token|passw(?:or)?d|pwd|passphrase|credential|auth)[A-Za-z0-9_.-]*",
    re.IGNORECASE | re.ASCII,
)
_NAME_BEFORE_RE = re.compile(r"[A-Za-z0-9_.-]{1,64}\Z")

# Words that contain a keyword without being about a secret.
_NON_SECRET_WORD_RE = re.compile(
    r"author(?!i[sz])[a-z]*|keyboard|keyword|keystroke|keypress|keydown|keyup|keycode|keymap|keybind"
    r"|keyframe|keyspace|keypad|keyof|keyset|monkey|donkey|turkey|hockey|whiskey|jockey|lackey|hotkey"
    r"|tokeniz[a-z]*|passthrough",
    re.IGNORECASE,
)
_STRONG_RE = re.compile(r"passw(?:or)?d|pwd|passphrase|secret|credential", re.IGNORECASE)
_WEAK_RE = re.compile(r"key|token|auth", re.IGNORECASE)
_WORD_SPLIT_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# Last words that make the value metadata about a secret, not the secret.
_META_LAST_WORDS = frozenset(
    """path paths file files filename dir directory folder url urls uri endpoint host hostname port
    name names type types id ids length len size ttl timeout expiry expires expiration exp at
    header headers field fields env var vars format prefix suffix count counts limit limits mode
    algorithm alg algo version region location policy ref refs arn kind label labels
    method methods provider providers scheme scope scopes required enabled disabled enable disable
    min max style help hint placeholder text message msg error errors description title strength
    rule rules pattern regex validator changed updated created reset command cmd source store storage
    manager service class cls fn func callback handler usage index idx column col spec schema
    config cfg option options flag flags status state valid validity visible visibility show hidden
    input inputs output outputs used remaining budget tokens age duration interval rotation
    level levels strategy backend backends factory mapping map list helper helpers stdin""".split()
)
# Words that turn KEY/TOKEN into a lookup key / cursor rather than a credential.
_LOOKUP_WORDS = frozenset(
    """cache sort primary foreign partition row idempotency dedup dedupe object lookup dict hot
    shortcut i18n translation message route group composite unique natural start last next page
    pagination continuation sync cursor public pub publishable item react event local query
    storage s3 bucket blob column field index cancellation cancel csrf xsrf max min input output
    total prompt completion cached""".split()
)


@lru_cache(maxsize=4096)
def _name_tier(name: str) -> str | None:
    """``'strong'``, ``'weak'`` or ``None`` for an assignment name."""
    bare = name.strip("-.")
    if not bare:
        return None
    low = bare.lower()
    if low in ("pwd", "oldpwd"):
        return None
    cleaned = _NON_SECRET_WORD_RE.sub(" ", bare)
    words = [w.lower() for w in _WORD_SPLIT_RE.findall(cleaned)]
    if not words:
        return None
    if words[-1] in _META_LAST_WORDS and words[-1] not in ("key", "token"):
        return None
    if "public" in words or "publishable" in words or "pub" in words:
        return None
    if _STRONG_RE.search(cleaned):
        return "strong"
    if _WEAK_RE.search(cleaned):
        if _LOOKUP_WORDS.intersection(words):
            return None
        return "weak"
    return None


_TAIL_RE = re.compile(
    r"""
    (?P<nq>\\?["'])?
    (?P<sep>[ \t]*(?::=|=>|=(?![=~>])|:(?![:=]))[ \t]*|[ \t]+)
    (?:[bBrRuU]{1,2}(?=["']))?
    (?:
        \\"(?P<v1>[^"\\\n]{0,2048}?)\\"
      | "(?P<v2>(?:[^"\\\n]|\\[^\n]){0,4096})"
      | '(?P<v3>[^'\n]{0,4096})'
      | `(?P<v4>[^`\n]{0,4096})`
      | (?P<v5>[^\s"'`\\]{1,4096})
    )
    """,
    re.VERBOSE,
)
_XML_VALUE_RE = re.compile(r">(?P<v>[^<\n]{1,4096})</")
_AUTHZ_TAIL_RE = re.compile(
    r"""\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*
    (?:(?P<scheme>[A-Za-z][A-Za-z0-9-]*)[ \t]+)?
    (?P<v>[A-Za-z0-9._~+/=:-]{1,4096})""",
    re.VERBOSE,
)
_AUTH_SCHEMES = frozenset(
    "bearer basic token digest negotiate ntlm hoba mutual apikey key sso-key otp aws4-hmac-sha256 dpop".split()
)

_CODE_CALL_RE = re.compile(r"[A-Za-z_$][\w$.:>-]*[(\[]")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_CHAIN_RE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+")
_NUMBER_RE = re.compile(r"[-+]?\d+(?:[.,_]\d+)*")
_URL_VALUE_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_PATH_RE = re.compile(r"(?:~|\.{1,2})?/[\w.@~-]+(?:/[\w.@~-]*)*|[A-Za-z]:\\[\w.\\ -]*")
_ENV_REF_RE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_TYPE_NAMES = frozenset(
    """str string int integer float number bool boolean bytes bytearray any object optional list dict
    none null nil undefined true false secretstr secretbytes unknown void char text uuid date
    datetime""".split()
)
_PLACEHOLDER_WORDS = frozenset(
    """changeme change-me change_me changeit example placeholder redacted dummy fake sample todo
    tbd tba none null nil undefined true false yes no on off n/a na hidden masked omitted removed
    required optional default empty blank unset ... …""".split()
)
_PLACEHOLDER_RE = re.compile(
    r"""(?ix)
    \$\{[^}]*\}? | \$\{\{.*\}\}? | \$\([^)]*\)? | \$[A-Za-z_][A-Za-z0-9_]* | \$\d | \$[@*\#?!]
    | %[A-Za-z_][A-Za-z0-9_]*% | %\([^)]*\)[a-z] | %[sdr] | \{\{.*\}\} | \{%.*%\}
    | \{[A-Za-z_][\w.]*\} | <[^<>]*> | \[[^\[\]]*\] | \{\}? | \[\]?
    | (.)\1{2,}
    | your\w*(?:[-_ .]\w+)* | (?:insert|enter|replace|paste|put)(?:[-_ .]\w+)+
    | .*[-_ .]here
    """
)
_MASK_RE = re.compile(r"xxxx|XXXX|\*\*\*|\.\.\.|…")
_STOP_WORDS = frozenset(
    "the a an to is be must your of for with please not at least enter use this that will are".split()
)
_AWS_SECRET_NAME_RE = re.compile(r"aws_?secret_?(?:access_?)?key|secretaccesskey", re.IGNORECASE)
_AWS_SECRET_VALUE_RE = re.compile(r"[A-Za-z0-9/+=]{40}")


def _is_placeholder(value: str) -> bool:
    low = value.lower()
    return (
        not value
        or value.startswith(_MARKER_PREFIX)
        or low in _PLACEHOLDER_WORDS
        or low in _TYPE_NAMES
        or _PLACEHOLDER_RE.fullmatch(value) is not None
        or _MASK_RE.search(value) is not None
    )


def _literal_is_secret(value: str, tier: str, name: str) -> bool:
    """Does a literal (quoted, env, YAML, CLI) ``value`` assigned to ``name`` look secret?"""
    if _is_placeholder(value):
        return False
    if _URL_VALUE_RE.match(value) or _PATH_RE.fullmatch(value) and (
        value.count("/") >= 2 or "." in value.rsplit("/", 1)[-1] or "\\" in value
    ):
        return False
    if _NUMBER_RE.fullmatch(value):
        return tier == "strong" and sum(c.isdigit() for c in value) >= 4
    if _ENV_REF_RE.fullmatch(value) and _KEYWORD_RE.search(value):
        return False  # the name of another variable, e.g. key_var: OPENAI_API_KEY
    if tier == "weak":
        return not any(c.isspace() for c in value) and _looks_random(value)
    if any(c.isspace() for c in value):
        words = value.lower().split()
        if _STOP_WORDS.intersection(words) or len(words) > 8:
            return False
    return True


def _line_prefix(text: str, pos: int) -> str:
    """The text between the start of the line (a newline or a ``\\n`` escape) and ``pos``."""
    nl = text.rfind("\n", 0, pos) + 1
    esc = text.rfind("\\n", nl, pos)
    start = esc + 2 if esc >= 0 else nl
    return text[start:pos].strip()


_LINE_PREFIXES = frozenset(("", "-", "export", "set", "setenv", "ENV", "ARG", "env", "declare -x", "readonly", "local"))
_EOL_RE = re.compile(r"[ \t]*(?:\r|\n|\\[nr]|\Z|#|\\?\")")
_QUERY_CUT_RE = re.compile(r"[&#]")


def _assignment_spans(text: str, out: list) -> None:
    for m in _KEYWORD_RE.finditer(text):
        kw_start, name_end = m.span()
        before = _NAME_BEFORE_RE.search(text, max(0, kw_start - 64), kw_start) if kw_start else None
        name_start = before.start() if before else kw_start
        name = text[name_start:name_end]
        tier = _name_tier(name)
        if tier is None:
            continue
        low = name.lower()
        if low.endswith("authorization"):
            _authorization(text, name_end, out)
            continue
        prev = text[name_start - 1] if name_start else ""
        if prev == "<" and text.startswith(">", name_end):
            x = _XML_VALUE_RE.match(text, name_end)
            if x and text.startswith(name + ">", x.end()):
                value = x.group("v").strip()
                if _literal_is_secret(value, tier, name):
                    s = x.start("v") + x.group("v").find(value)
                    out.append((s, s + len(value), "env", _ASSIGNMENT))
            continue
        t = _TAIL_RE.match(text, name_end)
        if t is None:
            continue
        if prev and (prev.isalnum() or prev in "_"):
            continue  # name was truncated at 64 chars: not a real name
        sep = t.group("sep")
        sep_core = sep.strip(" \t")
        cli = name.startswith("--")
        if not sep_core and not cli:
            continue
        for g in ("v1", "v2", "v3", "v4"):
            if t.group(g) is not None:
                value, vs = t.group(g), t.start(g)
                quoted = True
                break
        else:
            value, vs = t.group("v5"), t.start("v5")
            quoted = False
        if quoted:
            if not _literal_is_secret(value, tier, name):
                continue
        else:
            judged = _unquoted(text, name, name_start, sep, sep_core, cli, value, vs, tier)
            if judged is None:
                continue
            value = judged
        if not value:
            continue
        kind = "env"
        if _AWS_SECRET_NAME_RE.search(name) and _AWS_SECRET_VALUE_RE.fullmatch(value):
            kind = "aws-secret"
        out.append((vs, vs + len(value), kind, _ASSIGNMENT))


def _unquoted(text, name, name_start, sep, sep_core, cli, value, vs, tier) -> str | None:
    """Judge an unquoted value; return the (possibly trimmed) secret or None."""
    if value.startswith("-") and not _NUMBER_RE.fullmatch(value) and (cli or not sep_core):
        return None  # the next flag, not a value
    if name_start and text[name_start - 1] in "?&":
        value = _QUERY_CUT_RE.split(value, 1)[0]
    # Trailing punctuation of the surrounding code/prose is not part of the value.
    stripped = value.rstrip(",;")
    for close, open_ in ((")", "("), ("]", "["), ("}", "{")):
        while stripped.endswith(close) and stripped.count(close) > stripped.count(open_):
            stripped = stripped[:-1].rstrip(",;")
    trailer = value[len(stripped) : len(stripped) + 1]
    value = stripped
    if not value or value[0] in "{[(" or _CODE_CALL_RE.match(value):
        return None  # an object/list literal, a call or a subscript
    upper = not any(c.islower() for c in name)
    if cli:
        literal = True
    elif sep == "=":
        # NAME=value: shell, .env, DSN, properties -- unless it is a kwarg f(x=y, ...)
        literal = trailer == "" or upper or _line_prefix(text, name_start) in _LINE_PREFIXES
    elif sep_core == ":" and sep.endswith((" ", "\t")):
        # YAML / HTTP header: "name: value" alone on its line
        literal = (
            _EOL_RE.match(text, vs + len(value)) is not None
            and _line_prefix(text, name_start) in _LINE_PREFIXES
        )
    else:
        literal = False  # name = value, name: value inside code, :=, =>
    if not literal:
        if value.endswith(".") and not value.endswith(".."):
            value = value[:-1]  # end of a sentence
        if _IDENT_RE.fullmatch(value) or _IDENT_CHAIN_RE.fullmatch(value):
            # A variable (self.token, os.environ, process.env.TOKEN) unless it looks random.
            return value if _looks_random(value) and not _is_placeholder(value) else None
    return value if _literal_is_secret(value, tier, name) else None


def _authorization(text: str, pos: int, out: list) -> None:
    a = _AUTHZ_TAIL_RE.match(text, pos)
    if a is None:
        return
    scheme = (a.group("scheme") or "").lower()
    value = a.group("v")
    if not scheme and value.lower() in _AUTH_SCHEMES:
        return  # "Authorization: Bearer $TOKEN" and friends
    if scheme and scheme not in _AUTH_SCHEMES:
        return  # prose: "Authorization: see the docs"
    if _is_placeholder(value) or (not scheme and not _looks_random(value) and len(value) < 16):
        return
    kind = scheme if scheme in ("bearer", "basic") else "auth"
    out.append((a.start("v"), a.end("v"), kind, _HEADER))


# ------------------------------------------------------------------------ public API


def _merge(spans: list, text: str) -> list[tuple[int, int, str]]:
    if not spans:
        return []
    spans.sort(key=lambda s: (s[0], -s[1]))
    markers = []
    if _MARKER_PREFIX in text:
        markers = [m.span() for m in MARKER_RE.finditer(text)]
    merged: list[list] = []
    for s, e, kind, prio in spans:
        if e <= s:
            continue
        if markers and any(ms < e and s < me for ms, me in markers):
            continue  # never re-redact (or cut into) an existing marker
        if merged and s < merged[-1][1]:
            cur = merged[-1]
            if e > cur[1]:
                cur[1] = e
            if prio < cur[3]:
                cur[2], cur[3] = kind, prio
        else:
            merged.append([s, e, kind, prio])
    return [(s, e, k) for s, e, k, _ in merged]


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Spans ``(start, end, kind)`` of the secrets in ``text``, sorted, non-overlapping."""
    if not text or len(text) < 8:
        return []
    spans: list = []
    _token_spans(text, spans)
    if _PEM_TRIGGER in text:
        _pem_spans(text, spans)
    _assignment_spans(text, spans)
    return _merge(spans, text)


def _apply(text: str, found: list[tuple[int, int, str]]) -> str:
    parts = []
    last = 0
    for s, e, kind in found:
        parts.append(text[last:s])
        parts.append(marker(kind))
        last = e
    parts.append(text[last:])
    return "".join(parts)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``."""
    found = find_secrets(text)
    for _ in range(8):  # a redaction can expose context for another (rare); settle it
        if not found:
            break
        text = _apply(text, found)
        found = find_secrets(text)
    return text


def redact_value(obj: Any) -> Any:
    """``obj`` with every string inside redacted; same shape, no copy when unchanged.

    Handles ``str``, ``list``, ``tuple`` (incl. named tuples), ``dict`` (values
    only; keys are left alone) and pydantic models (duck-typed: anything with
    ``model_copy`` and ``model_fields``), recursively.  Other objects are returned
    unchanged.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        changed = False
        new = {}
        for k, v in obj.items():
            nv = redact_value(v)
            changed = changed or nv is not v
            new[k] = nv
        return new if changed else obj
    if isinstance(obj, (list, tuple)):
        items = [redact_value(v) for v in obj]
        if all(a is b for a, b in zip(items, obj)):
            return obj
        if isinstance(obj, list):
            return items
        if hasattr(obj, "_fields"):  # named tuple
            return type(obj)(*items)
        return type(obj)(items) if type(obj) is not tuple else tuple(items)
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, dict) and hasattr(obj, "model_copy"):
        update = {}
        for field in fields:
            v = getattr(obj, field, None)
            nv = redact_value(v)
            if nv is not v:
                update[field] = nv
        extra = getattr(obj, "__pydantic_extra__", None)
        if extra:
            for field, v in extra.items():
                nv = redact_value(v)
                if nv is not v:
                    update[field] = nv
        return obj.model_copy(update=update) if update else obj
    return obj
