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
    re-run on the output until nothing more is found (a safety net: it costs a
    second pass only when something was redacted).
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
``*_TYPE``, ``*_ID``, ``*_LENGTH``, ``*_TIMEOUT``, ``*_SECONDS``, ``*_EXPIRES_AT``,
``*_ENV``, ``max_tokens``, ``input_tokens`` ...), names with ``public``/``publishable``,
the shell's ``PWD``/``OLDPWD``, qualified type names (``AWS::X::Secret``) and lookup
keys (``cache_key``, ``sort_key``, ``primary_key``, ``page_token``, ``next_token`` ...).

*Tiers*.  PASSWORD, PASSWD, PWD, PASSPHRASE, SECRET and CREDENTIAL names redact any
literal value of 3+ characters that is not a placeholder (a number only under the
password-like names, and only with 4+ digits: a PIN, not ``credentialDurationSeconds:
3600``).  KEY, TOKEN and AUTH names redact only a value that looks random: it has a
run of 8+ letters/digits with two separate digit groups (``a1b2c3d4``, hex, base64),
a run of 24+ mixing letters and digits, or a run with two lone lower-case letters
between capitals (``AbXyQwEr``).  Words, numbers,
versions, identifiers and model names are not random (``claude-3-5-sonnet-20241022``,
``sha256sum``, ``GetSecretValue``, ``ctrl+shift+p``).  This is the only place where
"generic high-entropy" values are redacted: a random-looking string outside such an
assignment is left alone (it is far more often a hash, an id or base64 data).

*Literal or code?*  A quoted value is a literal.  An unquoted value is a literal in
``NAME=value`` (no spaces; shell, .env, DSN, properties) unless ``,`` or ``)``
follows it (a keyword argument), in ``name: value`` alone on its line (YAML, HTTP
header; but not ``_client: SecretManagerClient``, an annotation), after a CLI flag
and in a .netrc.  Elsewhere (``name = value``, ``name: value`` inside code,
``name:value``, ``:=``, ``=>``) a bare identifier or dotted name is a variable and is
redacted only if it looks random.

*Values that are never redacted* (decided on purpose):

* empty values and placeholders: ``${VAR}``, ``${{ secrets.X }}``, ``$VAR``, ``$(cmd)``,
  ``%VAR%``, ``%(name)s``, ``{{ x }}``, ``{0}:{1}``, ``<your-key>``, ``[...]``, masks
  (``***``, ``xxxx``, ``...``, a single character repeated), ``changeme``, ``example``,
  ``placeholder``, ``dummy``, ``redacted``, ``todo``, ``inherit``, values starting with
  ``your`` or ``insert-``/``enter-``/``replace-``, values ending with ``-here``, type
  names (``str``, ``string``, ``SecretStr`` ...), ``None``/``null``/``true``/``false``.
  The literal words ``password``/``secret``/``pass`` *are* redacted (they may well
  be the real value, and ``user:pass@`` in a URL too);
* code: ``token = get_token()``, ``password = input()``, ``api_key =
  os.environ["API_KEY"]``, ``key = self.key``, ``token: str``, ``f(password=pw)``,
  ``{password: pw}``.  Consequence: an INI/Python-ambiguous ``password = hunter2``
  (spaces around ``=``, unquoted identifier) is *not* redacted, while
  ``PASSWORD=hunter2``, ``password: hunter2`` (YAML), ``password=hunter2`` (DSN, .env,
  properties) and ``password = "hunter2"`` are.  ``PASSWORD=abc(1)`` looks like a
  call and is left alone;
* an unquoted value ends at whitespace, a quote, a backslash (so a ``\\n`` escape in
  JSON text ends it) and, in a query string, at ``&``;
* numbers (see above), values shorter than 3 characters, paths (``/a/b``,
  ``~/x.pem``), URLs (the ``url-password`` rule covers their passwords), ARNs,
  prose (a value containing English stop-words), ``UPPER_SNAKE`` names of other
  variables (``key_var: OPENAI_API_KEY``), an ``Authorization:`` value that is a
  variable (``Bearer $TOKEN``) or not random without a scheme.

Never touched: git SHAs, sha256 digests, UUIDs, ``msg_``/``toolu_``/``req_`` ids,
base64 image data, URLs without a password (``https://user@host``), ``KEY_LEFT``,
paths, prose that mentions passwords or tokens, public keys and certificates.

Performance
-----------
Each token regex starts with a literal (lookbehinds come after it), so the regex
engine scans for that literal at memchr-like speed instead of trying the pattern at
every position; the few rules without a selective literal are gated by ``in``
checks.  (One combined alternation was measured at less than half the speed: ``re``
can use a literal prefix only when there is a single one.)  Assignment keywords are
found with ``str.find`` on an ASCII lower-cased copy (one byte per character, so
offsets are preserved), then each hit gets a couple of anchored matches and a cached
verdict per name.  Everything is linear: values are capped (4 KB), look-behinds are
bounded, names inside an accepted value are skipped, the ends of long unquoted runs
are cached, and a PEM body is searched only up to the next BEGIN line (adversarial
input such as ``key=`` repeated a million times still runs at ~0.4 MB/s).  Measured
(CPU time, CPython 3.11, ``python -m tests.test_redact``): ~44 MB/s for
``find_secrets`` on 5 MB of mixed text, ~37 MB/s (~55 us) for ``redact`` over 2 KB
entries.

The regexes are compiled on first use, not at import: compiling all of them took ~8 ms,
on the path of ``ccarchive search`` (which imports this module through the service and
redacts 20 short snippets, most of which need few of them or none).  A token rule is
compiled only once a text contains the literal its regex starts with.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["redact", "find_secrets", "redact_value", "marker", "MARKER_RE"]

MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,32}\]")
_MARKER_PREFIX = "[REDACTED:"


def marker(kind: str) -> str:
    """The replacement text for a secret of ``kind``."""
    return f"[REDACTED:{kind}]"


class _Lazy:
    """A regex compiled on first use.  Defined as a module global (``_X_RE =
    _Lazy(r"...")``), it is replaced there by the compiled pattern on first use, so the
    functions that use it look up the compiled pattern directly afterwards."""

    __slots__ = ("pattern", "flags")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(self.pattern, self.flags)
        namespace = globals()
        for key, value in list(namespace.items()):
            if value is self:
                namespace[key] = compiled
        return getattr(compiled, name)


# When detections overlap they are merged; the lowest priority number names the kind.
_SPECIFIC, _HEADER, _ASSIGNMENT = 0, 1, 2

# ----------------------------------------------------------------------------- helpers

# A run of letters and digits is "random" (rather than a word, a number, an identifier
# such as sha256sum / XMLHttpRequest / GetSecretValue / QSConfigId, or a version) if
# it is 8+ long with two separate digit groups (a1b2c3d4, hex, base64), or 24+ long
# with letters and digits, or has two lone lower-case letters between capitals
# ("AbXyQwEr"; one position in eight in random mixed-case text, rare in identifiers).
# Applied to each run with match(); every branch is linear.
_ALNUM_RUN_RE = _Lazy(r"[A-Za-z0-9]{8,}")
_RANDOM_RUN_RE = _Lazy(
    r"[A-Za-z]*[0-9]+[A-Za-z]+[0-9]"
    r"|(?=[A-Za-z0-9]{24})(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])"
    r"|[A-Za-z0-9]*?(?<=[A-Z])[a-z](?=[A-Z])[A-Za-z0-9]*?(?<=[A-Z])[a-z](?=[A-Z])"
)
_DIGIT_OR_UPPER_RE = _Lazy(r"[0-9A-Z]")


def _looks_random(value: str) -> bool:
    """True if ``value`` contains a random-looking run of letters and digits (the
    first 256 characters are enough to tell)."""
    if _DIGIT_OR_UPPER_RE.search(value, 0, 256) is None:
        return False  # lower-case words only
    for run in _ALNUM_RUN_RE.finditer(value, 0, 256):
        if _RANDOM_RUN_RE.match(value, run.start(), run.end()):
            return True
    return False


def _not_a_mask(body: str) -> bool:
    """Reject obvious fakes such as ``ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx``."""
    return len(set(body)) >= 6


# --------------------------------------------------------------------- token formats
# Every regex starts with a literal (lookbehinds come after it) so that the regex
# engine scans for that literal at memchr-like speed instead of trying the pattern at
# every position; a rule whose regex cannot start with a selective literal has
# ``gates``: substrings of which one must occur for the rule to run at all.


_META = frozenset("\\.^$*+?{}[]|()")


def _leading_literal(pattern: str) -> str:
    """The literal text every match of ``pattern`` starts with ("" if none, as for a
    pattern with a top-level alternative: ``sk-a|ghp_b`` has no common start)."""
    depth, escaped, in_class = 0, False, False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            return ""
    i = 0
    while i < len(pattern) and pattern[i] not in _META:
        i += 1
    if i < len(pattern) and pattern[i] in "*+?{":
        i -= 1  # the last character is quantified
    return pattern[:max(i, 0)]


class _Rule:
    __slots__ = ("kind", "gates", "pattern", "lead", "regex", "group", "check", "priority")

    def __init__(
        self,
        kind: str,
        gates: tuple[str, ...],
        pattern: str,
        *,
        group: int | str = 0,
        check: Callable[[re.Match], str | bool | None] | None = None,
        priority: int = _SPECIFIC,
    ):
        self.kind = kind
        self.gates = gates
        self.pattern = pattern
        self.lead = _leading_literal(pattern)  # what a text needs before we compile
        self.regex: re.Pattern | None = None  # compiled on first need
        self.group = group
        self.check = check
        self.priority = priority


def _body(*names: str) -> Callable[[re.Match], bool]:
    def check(m: re.Match) -> bool:
        body = next(g for g in (m.group(n) for n in names) if g is not None)
        return _not_a_mask(body)

    return check


def _random_body(m: re.Match) -> bool:
    body = m.group("body")
    return _not_a_mask(body) and _looks_random(body)


def _sk_check(m: re.Match) -> str | None:
    if m.group("ant") is not None:
        return "anthropic" if _not_a_mask(m.group("ant")) else None
    body = m.group("oai") or m.group("oai2")
    return "openai" if _not_a_mask(body) and _looks_random(body) else None


def _curl_user_check(m: re.Match) -> bool:
    text = m.string
    lo = max(0, m.start() - 1000)
    nl = text.rfind("\n", lo, m.start())
    line = text[nl + 1 if nl >= 0 else lo : m.start()]
    return "curl" in line and not _is_placeholder(m.group("body"))


def _url_check(m: re.Match) -> bool:
    s = m.start()
    if s == 0 or not m.string[s - 1].isalnum():
        return False  # "://" must follow a scheme
    body = m.group("body")
    return not body.isdigit() and not _is_placeholder(body)


_W = "A-Za-z0-9"  # for character classes

_TOKEN_RULES: tuple[_Rule, ...] = (
    _Rule(
        "openai",  # or "anthropic", decided by _sk_check
        (),
        rf"sk-(?<![{_W}]sk-)(?:ant-(?P<ant>[{_W}_-]{{20,}})"
        rf"|(?:proj|svcacct|admin|None)-(?P<oai>[{_W}_-]{{20,}})"
        rf"|(?P<oai2>[{_W}]{{20,}})(?![{_W}]))",
        check=_sk_check,
    ),
    _Rule(
        "aws-access-key",
        (),
        rf"A[KS]IA(?<![{_W}]A[KS]IA)(?P<body>[A-Z0-9]{{16}})(?![{_W}])",
        check=_body("body"),
    ),
    _Rule(
        "github",
        (),
        rf"gh(?<![{_W}]gh)[pousr]_(?P<body>[{_W}]{{36,251}})(?![{_W}])",
        check=_body("body"),
    ),
    _Rule(
        "github",
        (),
        rf"github_pat_(?<![{_W}]github_pat_)(?P<body>[{_W}_]{{22,}})",
        check=_body("body"),
    ),
    _Rule(
        "gitlab",
        (),
        rf"gl(?<![{_W}]gl)(?:pat|dt|rt|ptt|ft|soat|oas)-(?P<body>[{_W}_-]{{20,}})",
        check=_body("body"),
    ),
    _Rule(
        "slack",
        (),
        rf"x(?<![{_W}]x)(?:ox[abposr]|app)-(?P<body>[{_W}-]{{10,}})",
        check=_body("body"),
    ),
    _Rule(
        "slack-webhook",
        (),
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<body>[A-Za-z0-9_/-]{16,})",
        group="body",
        check=_body("body"),
    ),
    _Rule(
        "stripe",
        ("_live_", "_test_"),
        rf"k_(?<=[sr]k_)(?<![{_W}][sr]k_)(?:live|test)_(?P<body>[{_W}]{{16,}})",
        check=_body("body"),
    ),
    _Rule(
        "stripe",
        (),
        rf"whsec_(?<![{_W}]whsec_)(?P<body>[{_W}+/=]{{20,}})",
        check=_body("body"),
    ),
    _Rule(
        "google-api-key",
        (),
        rf"AIza(?<![{_W}]AIza)(?P<body>[{_W}_-]{{35}})(?![{_W}_-])",
        check=_body("body"),
    ),
    _Rule(
        "google-oauth",
        (),
        rf"GOCSPX-(?<![{_W}]GOCSPX-)(?P<body>[{_W}_-]{{20,}})",
        check=_body("body"),
    ),
    _Rule(
        "google-oauth",
        (),
        rf"ya29\.(?<![{_W}]ya29\.)(?P<body>[{_W}_-]{{20,}})",
        check=_body("body"),
    ),
    _Rule(
        "npm",
        (),
        rf"npm_(?<![{_W}]npm_)(?P<body>[{_W}]{{36}})(?![{_W}])",
        check=_random_body,
    ),
    _Rule(
        "huggingface",
        (),
        rf"hf_(?<![{_W}_]hf_)(?P<body>[{_W}]{{30,}})(?![{_W}])",
        check=_random_body,
    ),
    _Rule("pypi", (), rf"pypi-AgE(?<![{_W}]pypi-AgE)[{_W}_-]{{50,}}"),
    _Rule(
        "docker",
        (),
        rf"dckr_pat_(?<![{_W}]dckr_pat_)(?P<body>[{_W}_-]{{20,}})",
        check=_body("body"),
    ),
    _Rule(
        "sendgrid",
        (),
        rf"SG\.(?<![{_W}]SG\.)[{_W}_-]{{22}}\.[{_W}_-]{{43}}(?![{_W}_-])",
    ),
    _Rule(
        "jwt",
        (),
        rf"eyJ(?<![{_W}_-]eyJ)[{_W}_-]{{8,}}\.eyJ(?P<body>[{_W}_-]{{8,}})\.[{_W}_-]*",
        check=_body("body"),
    ),
    # curl -u user:password / --user user:password (only on a line that runs curl)
    _Rule(
        "password",
        ("curl",),
        r"-(?:u(?<![\w-]-u)|-user(?<![\w-]--user))[ \t]+[\"']?[^\s:\"'$]+:(?P<body>[^\s\"'\\]+)",
        group="body",
        check=_curl_user_check,
    ),
    # scheme://user:password@host -- the password may contain '@' (the last one wins)
    _Rule(
        "url-password",
        (),
        r"://[^\s:/?#@\[\]\"'<>\\]{0,256}:(?P<body>[^\s/?#\"'<>\\]{1,512})@(?=[A-Za-z0-9\[_-])",
        group="body",
        check=_url_check,
    ),
    _Rule(
        "bearer",
        (),
        r"earer(?<=[Bb]earer)(?<![A-Za-z][Bb]earer)[ \t]+(?P<body>[A-Za-z0-9._~+/-]{16,}=*)",
        group="body",
        check=lambda m: _looks_random(m.group("body")),
        priority=_HEADER,
    ),
    _Rule(
        "cookie",
        (),
        r"ookie(?<=[Cc]ookie)(?:(?<![\w-][Cc]ookie)|(?<=[Ss]et-[Cc]ookie))"
        r"\\?[\"']?[ \t]*:[ \t]*\\?[\"']?"
        r"(?P<body>[A-Za-z0-9_.$!#%&*+^|~-]{1,256}=(?:\"[^\"\r\n]{0,4096}\"|[^\r\n\"'\\;]{0,4096})"
        r"(?:;[^\r\n\"'\\]{0,4096})?)",
        group="body",
        check=lambda m: "=" in m.group("body"),
        priority=_HEADER,
    ),
)


def _token_spans(text: str, out: list) -> None:
    for rule in _TOKEN_RULES:
        if rule.gates:
            for gate in rule.gates:
                if gate in text:
                    break
            else:
                continue
        regex = rule.regex
        if regex is None:
            if rule.lead not in text:
                continue  # no match possible; compiled for the first text that has it
            regex = rule.regex = re.compile(rule.pattern)
        check = rule.check
        for m in regex.finditer(text):
            kind = rule.kind
            if check is not None:
                verdict = check(m)
                if not verdict:
                    continue
                if isinstance(verdict, str):
                    kind = verdict
            s, e = m.span(rule.group)
            out.append((s, e, kind, rule.priority))


# ------------------------------------------------------------------ PEM private keys
# The body between BEGIN and END is replaced (the two lines stay as context).  With
# no END line (truncated output) the base64-looking run after BEGIN is taken.

_PEM_GATE = "-----BEGIN "
_PEM_BEGIN_RE = _Lazy(r"-----BEGIN ([A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----")
_PEM_OPEN_BODY_RE = _Lazy(r"(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[rnt])*")
_BASE64_RUN_RE = _Lazy(r"[A-Za-z0-9+/]{16,}")
_PEM_MAX = 32768


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
    for m in _PEM_BEGIN_RE.finditer(text):
        s = m.end()
        # a key's body never contains another BEGIN line: it bounds every search
        limit = text.find(_PEM_GATE, s, s + _PEM_MAX)
        limit = s + _PEM_MAX if limit < 0 else limit
        e = text.find(f"-----END {m.group(1)}-----", s, limit)
        if e < 0:  # truncated output (head -5 key.pem): the base64-looking run
            e = _PEM_OPEN_BODY_RE.match(text, s, limit).end()
        body = text[s:e]
        if not _BASE64_RUN_RE.search(body):
            continue  # code that merely mentions the BEGIN/END lines
        lead, trail = _trim_blank(body)
        out.append((s + lead, s + trail, "private-key", _SPECIFIC))


# ----------------------------------------------------------------------- assignments

# Lower-case keywords; found with str.find on an ASCII lower-cased copy of the text.
_KEYWORDS = ("key", "secret", "token", "passw", "pwd", "passphrase", "credential", "auth")
_NAME_AFTER_RE = _Lazy(r"[A-Za-z0-9_.-]*")
_NAME_BEFORE_RE = _Lazy(r"[A-Za-z0-9_.-]{1,64}\Z")

# Words that contain a keyword without being about a secret.
_NON_SECRET_WORD_RE = _Lazy(
    r"author(?!i[sz])[a-z]*|keyboard|keyword|keystroke|keypress|keydown|keyup|keycode|keymap|keybind"
    r"|keyframe|keyspace|keypad|keyof|keyset|monkey|donkey|turkey|hockey|whiskey|jockey|lackey|hotkey"
    r"|tokeniz[a-z]*|passthrough",
    re.IGNORECASE,
)
_PASSWORD_RE = _Lazy(r"passw(?:or)?d|pwd|passphrase", re.IGNORECASE)
_STRONG_RE = _Lazy(r"secret|credential", re.IGNORECASE)
_WEAK_RE = _Lazy(r"key|token|auth", re.IGNORECASE)
_WORD_SPLIT_RE = _Lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# A last word that makes the value metadata about a secret rather than the secret.
_META_LAST_WORDS = frozenset(
    """path paths file files filename dir directory folder url urls uri endpoint host hostname port
    name names type types id ids length len size ttl timeout expiry expires expiration exp at
    header headers field fields env var vars format prefix suffix count counts limit limits mode
    algorithm alg algo version region location policy ref refs arn kind label labels method methods
    provider providers scheme scope scopes required enabled disabled enable disable min max style
    help hint placeholder text message msg error errors description title strength rule rules
    pattern
    regex validator changed updated created reset command cmd source store storage manager mgr
    service class cls fn func callback handler usage index idx column col spec schema config cfg
    option options flag flags status state valid validity visible visibility show hidden input
    inputs output outputs used remaining budget tokens age duration interval rotation level levels
    strategy backend backends factory mapping map list helper helpers stdin identifier ident
    seconds secs sec ms millis minutes mins hours days""".split()
)
# Words that make KEY/TOKEN a lookup key, a cursor or a count rather than a credential.
_LOOKUP_WORDS = frozenset(
    """cache sort primary foreign partition row idempotency dedup dedupe object lookup dict hot
    shortcut i18n translation message route group composite unique natural start last next page
    pagination continuation sync cursor public pub publishable item react event local query
    storage s3 bucket blob column field index cancellation cancel csrf xsrf max min input output
    total prompt completion cached""".split()
)


@lru_cache(maxsize=4096)
def _name_tier(name: str) -> str | None:
    """``'password'``, ``'strong'``, ``'weak'`` or ``None`` (not a secret's name)."""
    bare = name.strip("-.")
    if not bare or bare.lower() in ("pwd", "oldpwd"):
        return None
    cleaned = _NON_SECRET_WORD_RE.sub(" ", bare)
    words = [w.lower() for w in _WORD_SPLIT_RE.findall(cleaned)]
    if not words or words[-1] in _META_LAST_WORDS:
        return None
    if "public" in words or "publishable" in words or "pub" in words:
        return None
    if _PASSWORD_RE.search(cleaned):
        return "password"
    if _STRONG_RE.search(cleaned):
        return "strong"
    if _WEAK_RE.search(cleaned) and not _LOOKUP_WORDS.intersection(words):
        return "weak"
    return None


_TAIL_RE = _Lazy(
    r"""
    (?P<nq>\\?["']\]?)?
    (?P<sep>[ \t]*(?::=|=>|=(?![=~>])|:(?![:=]))[ \t]*|[ \t]+)
    (?:[bBrRuU]{1,2}(?=["']))?
    (?:
        \\"(?P<v1>[^"\\\n]{0,2048}?)\\"
      | "(?P<v2>(?:[^"\\\n]|\\[^\n]){0,4096})"
      | '(?P<v3>[^'\n]{0,4096})'
      | `(?P<v4>[^`\n]{0,4096})`
      | (?P<v5>(?=[^\s"'`\\;()<>|&{}\[\]]))  # unquoted: its end is found by a _RunEnd
    )
    """,
    re.VERBOSE,
)
_XML_VALUE_RE = _Lazy(r">(?P<v>[^<\n]{1,4096})</")
_AUTHZ_TAIL_RE = _Lazy(
    r"""\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*
    (?:(?P<scheme>[A-Za-z][A-Za-z0-9-]*)[ \t]+)?
    (?P<v>[A-Za-z0-9._~+/=:-]{1,4096})""",
    re.VERBOSE,
)
_AUTH_SCHEMES = frozenset(
    "bearer basic token digest negotiate ntlm hoba mutual apikey key sso-key otp dpop".split()
)

_CODE_CALL_RE = _Lazy(r"[A-Za-z_$][\w$.:>-]*[(\[]")
_IDENT_RE = _Lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_IDENT_CHAIN_RE = _Lazy(r"[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+")
_NUMBER_RE = _Lazy(r"[-+]?\d+(?:[.,_]\d+)*")
_URL_VALUE_RE = _Lazy(r"[A-Za-z][A-Za-z0-9+.-]*://")
_PATH_RE = _Lazy(r"(?:~|\.{1,2})?/[\w.@~-]+(?:/[\w.@~-]*)*|[A-Za-z]:\\[\w.\\ -]*")
_CAMEL_TYPE_RE = _Lazy(r"(?:[A-Z][a-z]+){2,}")
_ENV_REF_RE = _Lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_TEMPLATE_FIELD_RE = _Lazy(r"\$?\{[^{}]*\}|%\(\w*\)[sdr]|%[sdr]|\$[A-Za-z_]\w*")
_TYPE_NAMES = frozenset(
    """str string int integer float number bool boolean bytes bytearray any object optional list
    dict
    none null nil undefined true false secretstr secretbytes unknown void char text uuid date
    datetime""".split()
)
_PLACEHOLDER_WORDS = frozenset(
    """changeme change-me change_me changeit example placeholder redacted dummy fake sample todo
    tbd tba none null nil undefined true false yes no on off n/a na hidden masked omitted removed
    required optional default empty blank unset inherit""".split()
)
_PLACEHOLDER_RE = _Lazy(
    r"""(?x)
    \$\{\{.*\}\} | \$\{[^}]*\}? | \$\([^)]*\)? | \$[A-Za-z_][A-Za-z0-9_]* | \$\d | \$[@*\#?!]
    | %[A-Za-z_][A-Za-z0-9_]*% | %\([^)]*\)[a-z] | %[sdr] | \{\{.*\}\} | \{%.*%\}
    | <[^<>]*> | \[[^\[\]]*\] | \{\}? | \[\]?
    | (.)\1{2,}
    | (?i:your)[A-Za-z0-9]*(?:[-_ .][A-Za-z0-9]+)*
    | (?i:insert|enter|replace|paste|put)(?:[-_ .][A-Za-z0-9]+)+
    | .*[-_ .](?i:here)
    """
)
_MASK_RE = _Lazy(r"xxxx|XXXX|\*\*\*|\.\.\.|…")
_STOP_WORDS = frozenset(
    """the a an to is be must your of for with please not at least enter use this that will
    are""".split()
)
_AWS_SECRET_NAME_RE = _Lazy(r"aws_?secret_?(?:access_?)?key|secretaccesskey", re.IGNORECASE)
_AWS_SECRET_VALUE_RE = _Lazy(r"[A-Za-z0-9/+=]{40}")
_LINE_PREFIXES = frozenset(
    ("", "-", "export", "set", "setenv", "ENV", "ARG", "env", "declare -x", "readonly", "local")
)
_EOL_RE = _Lazy(r"[ \t]*(?:\r|\n|\\[nr]|\Z|#|\\?\")")


_ALNUM4_RE = _Lazy(r"[A-Za-z0-9]{4}")
_ALNUM_RE = _Lazy(r"[^\W_]")
_SPACE_RE = _Lazy(r"\s")


_MAX_VALUE = 4096
_EXTEND_CHARS = frozenset(";<>|&{}])")


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
            self.start, self.end = pos, self.regex.match(text, pos).end()
        return self.end


_UNQUOTED_CHARS = r"[^\s\"'`\\;()<>|&{}\[\]]"  # an unquoted value in code
_LITERAL_CHARS = r"[^\s\"'`\\]"  # an unquoted literal (.env, YAML, CLI)


def _is_placeholder(value: str) -> bool:
    if not value or value.startswith(_MARKER_PREFIX):
        return True
    if len(value) > 256:
        return False  # no placeholder is that long (and this keeps the scan linear)
    low = value.lower()
    if (
        low in _PLACEHOLDER_WORDS
        or low in _TYPE_NAMES
        or _PLACEHOLDER_RE.fullmatch(value) is not None
        or _MASK_RE.search(value) is not None
    ):
        return True
    if "{" in value or "%" in value or "$" in value:
        # a template whose fields carry the secret: "{0}:{1}", f"{user}:{pw}", "%s"
        rest = _TEMPLATE_FIELD_RE.sub("", value)
        if rest != value and not _ALNUM4_RE.search(rest):
            return True
    return False


def _literal_is_secret(value: str, tier: str, quoted: bool = True) -> bool:
    """Does a literal value (quoted, .env, YAML, CLI) assigned to a secret's name look secret?"""
    if _is_placeholder(value):
        return False
    if _URL_VALUE_RE.match(value):
        return False  # URLs: their passwords are the url-password rule's business
    if (
        len(value) < 1024
        and _PATH_RE.fullmatch(value)
        and (value.count("/") >= 2 or "." in value.rsplit("/", 1)[-1] or "\\" in value)
    ):
        return False
    if _NUMBER_RE.fullmatch(value):
        return tier == "password" and len(value) >= 4  # a PIN, not a count or a duration
    if len(value) < 3 or value.startswith("arn:"):
        return False  # too short to be a credential; AWS resource names
    if (
        len(value) < 128
        and _ENV_REF_RE.fullmatch(value)
        and any(k in value.lower() for k in _KEYWORDS)
    ):
        return False  # the name of another variable: key_var: OPENAI_API_KEY
    has_space = quoted and _SPACE_RE.search(value) is not None  # unquoted: never
    if tier == "weak":
        return not has_space and _looks_random(value)
    if not _ALNUM_RE.search(value) and (len(value) < 8 or has_space):
        return False  # punctuation, e.g. the end of a JSON string read as a value
    if has_space:
        words = value[:1024].lower().split()
        if _STOP_WORDS.intersection(words) or len(words) > 8:
            return False  # prose: "Enter your password"
    return True


def _line_prefix(text: str, pos: int) -> str:
    """What precedes ``pos`` on its line (which starts after a newline or a ``\\n``
    escape), stripped; only the last 32 characters are looked at."""
    lo = max(0, pos - 32)
    nl = text.rfind("\n", lo, pos) + 1
    esc = text.rfind("\\n", max(lo, nl), pos)
    start = esc + 2 if esc >= 0 else (nl if nl else lo)
    if start == lo and lo > 0 and text[lo - 1] != "\n":
        return "\0"  # a long prefix: certainly not one of _LINE_PREFIXES
    return text[start:pos].strip()


def _keyword_hits(text: str) -> list[int]:
    if text.isascii():
        low: str | bytes = text.lower()
        kws: tuple = _KEYWORDS
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


_KEYWORDS_B = tuple(k.encode() for k in _KEYWORDS)


def _assignment_spans(text: str, out: list) -> None:
    covered = 0  # end of the last name looked at: one verdict per name
    ends = (_RunEnd(_UNQUOTED_CHARS), _RunEnd(_LITERAL_CHARS))
    for kw_start in _keyword_hits(text):
        if kw_start < covered:
            continue
        name_end = _NAME_AFTER_RE.match(text, kw_start).end()
        covered = name_end
        if name_end - kw_start > 96:
            continue  # not a name
        nxt = text[name_end : name_end + 1]
        if not nxt or nxt not in "=:\"' \t>\\":
            continue
        before = _NAME_BEFORE_RE.search(text, max(0, kw_start - 64), kw_start) if kw_start else None
        name_start = before.start() if before else kw_start
        name = text[name_start:name_end]
        tier = _name_tier(name)
        if tier is None:
            continue
        prev = text[name_start - 1] if name_start else ""
        if prev.isalnum() or prev == "_":
            continue  # longer than 64 characters: not a name
        if prev == ":" and text[name_start - 2 : name_start] == "::":
            continue  # a qualified type name: "AWS::SecretsManager::Secret"
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
    t = _TAIL_RE.match(text, name_end)
    if t is None:
        return 0
    sep = t.group("sep")
    sep_core = sep.strip(" \t")
    cli = name.startswith("--") or (not sep_core and _netrc(text, name, name_start))
    if not sep_core and not cli:
        return 0  # "the token expired"
    for g in ("v1", "v2", "v3", "v4"):
        if t.group(g) is not None:
            value, vs = t.group(g), t.start(g)
            if not _literal_is_secret(value, tier):
                return 0
            break
    else:
        vs = t.start("v5")
        raw = text[vs : min(ends[0](text, vs), vs + _MAX_VALUE)]
        value = _unquoted(text, name, name_start, sep, sep_core, cli, raw, vs, tier, ends[1])
        if not value:
            return 0
    kind = "env"
    if _AWS_SECRET_NAME_RE.search(name) and _AWS_SECRET_VALUE_RE.fullmatch(value):
        kind = "aws-secret"
    out.append((vs, vs + len(value), kind, _ASSIGNMENT))
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
    if value.startswith("-") and (cli or not sep_core) and not _NUMBER_RE.fullmatch(value):
        return None  # the next flag, not a value
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
        literal = trailer not in (",", ")", "]", "}") and (
            trailer != ";" or not any(c.islower() for c in name)
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
    if not literal:
        if value.endswith(".") and not value.endswith(".."):
            value = value[:-1]  # end of a sentence
        if (
            _IDENT_RE.fullmatch(value)
            or _IDENT_CHAIN_RE.fullmatch(value)
            or sep == ":"  # arn:aws:secretsmanager:...:secret:name, "scope:secret:read"
        ):
            # a variable (pw, self.token, os.environ, process.env.TOKEN) unless it looks random
            return value if _looks_random(value) and not _is_placeholder(value) else None
    return value if _literal_is_secret(value, tier, quoted=False) else None


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
    if _is_placeholder(value) or (not scheme and not _looks_random(value)):
        return
    kind = scheme if scheme in ("bearer", "basic") else "auth"
    out.append((a.start("v"), a.end("v"), kind, _HEADER))


def _xml_element(text: str, name: str, pos: int, tier: str, out: list) -> None:
    x = _XML_VALUE_RE.match(text, pos)
    if x is None or not text.startswith(name + ">", x.end()):
        return
    raw = x.group("v")
    value = raw.strip()
    if _literal_is_secret(value, tier):
        s = x.start("v") + raw.find(value)
        out.append((s, s + len(value), "env", _ASSIGNMENT))


# -------------------------------------------------------------------------- public API


def _merge(spans: list, text: str) -> list[tuple[int, int, str]]:
    spans.sort(key=lambda s: (s[0], -s[1]))
    markers = [m.span() for m in MARKER_RE.finditer(text)] if _MARKER_PREFIX in text else []
    marker_starts = [ms for ms, _ in markers]
    merged: list[list] = []
    for s, e, kind, prio in spans:
        if e <= s:
            continue
        if markers:
            # never redact into an existing marker: check the last marker starting before e
            i = bisect_left(marker_starts, e) - 1
            if i >= 0 and markers[i][1] > s:
                continue
        if merged and s < merged[-1][1]:
            cur = merged[-1]
            cur[1] = max(cur[1], e)
            if prio < cur[3]:
                cur[2], cur[3] = kind, prio
        else:
            merged.append([s, e, kind, prio])
    return [(s, e, k) for s, e, k, _ in merged]


def find_secrets(text: str) -> list[tuple[int, int, str]]:
    """Sorted, non-overlapping ``(start, end, kind)`` spans of the secrets in ``text``."""
    if len(text) < 8:
        return []
    spans: list = []
    _token_spans(text, spans)
    if _PEM_GATE in text:
        _pem_spans(text, spans)
    _assignment_spans(text, spans)
    return _merge(spans, text) if spans else []


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
    # A redaction can, rarely, leave context that reveals another secret (e.g. a
    # value cut short by a token inside it).  Settle to a fixed point: each round
    # only replaces text outside markers, so this ends; it costs nothing when the
    # first pass found nothing.
    for _ in range(16):
        if not found:
            break
        text = _apply(text, found)
        found = find_secrets(text)
    return text


def redact_value(obj: Any) -> Any:
    """``obj`` with every string inside it redacted: same shape, no copy when unchanged.

    Walks ``str``, ``list``, ``tuple`` (named tuples too), ``dict`` (values only; keys
    are left alone) and pydantic models (duck-typed: a class with ``model_fields``
    and an instance with ``model_copy``; the copy is made with
    ``model_copy(update=...)``, so no re-validation), recursively.  Anything else is
    returned unchanged.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        new = {}
        changed = False
        for k, v in obj.items():
            nv = redact_value(v)
            changed = changed or nv is not v
            new[k] = nv
        return new if changed else obj
    if isinstance(obj, (list, tuple)):
        items = [redact_value(v) for v in obj]
        if all(a is b for a, b in zip(items, obj, strict=True)):
            return obj
        if isinstance(obj, list):
            return items
        if hasattr(obj, "_fields"):  # named tuple
            return type(obj)(*items)
        return tuple(items) if type(obj) is tuple else type(obj)(items)
    fields = getattr(type(obj), "model_fields", None)
    if isinstance(fields, dict) and hasattr(obj, "model_copy"):
        update = {}
        for field in fields:
            v = getattr(obj, field, None)
            nv = redact_value(v)
            if nv is not v:
                update[field] = nv
        for field, v in (getattr(obj, "__pydantic_extra__", None) or {}).items():
            nv = redact_value(v)
            if nv is not v:
                update[field] = nv
        return obj.model_copy(update=update) if update else obj
    return obj
