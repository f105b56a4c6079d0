"""Judging a value: does it look random, is it a placeholder, is this literal a secret?

Shared by the token rules (a body must not be a mask such as ``ghp_xxxx...``) and the
assignment rules (``NAME=value``: is the value a credential, a variable or prose?).
"""

from __future__ import annotations

import re

from ccarchive.redact.lazy import LazyPattern

MARKER_PREFIX = "[REDACTED:"

# A run of letters and digits is "random" (rather than a word, a number, an identifier
# such as sha256sum / XMLHttpRequest / GetSecretValue / QSConfigId, or a version) if
# it is 8+ long with two separate digit groups (a1b2c3d4, hex, base64), or 24+ long
# with letters and digits, or has two lone lower-case letters between capitals
# ("AbXyQwEr"; one position in eight in random mixed-case text, rare in identifiers).
# Applied to each run with match(); every branch is linear.
_ALNUM_RUN_RE = LazyPattern(r"[A-Za-z0-9]{8,}")
_RANDOM_RUN_RE = LazyPattern(
    r"[A-Za-z]*[0-9]+[A-Za-z]+[0-9]"
    r"|(?=[A-Za-z0-9]{24})(?=[A-Za-z]*[0-9])(?=[0-9]*[A-Za-z])"
    r"|[A-Za-z0-9]*?(?<=[A-Z])[a-z](?=[A-Z])[A-Za-z0-9]*?(?<=[A-Z])[a-z](?=[A-Z])"
)
_DIGIT_OR_UPPER_RE = LazyPattern(r"[0-9A-Z]")


# Base64 and URL-safe tokens split their runs of letters and digits at + / - _ . ~ (a
# 44-character key may have no alphanumeric run of 8 that looks random): a 20+ run of
# those with both cases and 2+ digits is random too ("src/components/Button2" has one
# digit, "my_long_name_v2_3" no capital).
_JOINED_RUN_RE = LazyPattern(r"[A-Za-z0-9+/_.~-]{20,}")
_JOINED_RANDOM_RE = LazyPattern(r"(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])(?=(?:[^0-9]*[0-9]){2})")
_JOINERS = frozenset("+/_.~-")


def looks_random(value: str) -> bool:
    """True if ``value`` contains a random-looking run of letters and digits (the
    first 256 characters are enough to tell)."""
    if _DIGIT_OR_UPPER_RE.search(value, 0, 256) is None:
        return False  # lower-case words only
    for run in _ALNUM_RUN_RE.finditer(value, 0, 256):
        if _RANDOM_RUN_RE.match(value, run.start(), run.end()):
            return True
    if len(value) >= 20 and not _JOINERS.isdisjoint(value[:256]):
        for run in _JOINED_RUN_RE.finditer(value, 0, 256):
            if _JOINED_RANDOM_RE.match(run.group()):
                return True
    return False


def not_a_mask(body: str) -> bool:
    """Reject obvious fakes such as ``ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx``."""
    return len(set(body)) >= 6


TYPE_NAMES = frozenset(
    """str string int integer float number bool boolean bytes bytearray any object optional list
    dict none null nil undefined true false secretstr secretbytes unknown void char text uuid
    date datetime""".split()
)
PLACEHOLDER_WORDS = frozenset(
    """changeme change-me change_me changeit example placeholder redacted dummy fake sample todo
    tbd tba none null nil undefined true false yes no on off n/a na hidden masked omitted removed
    required optional default empty blank unset inherit""".split()
)
_PLACEHOLDER_RE = LazyPattern(
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
_MASK_RE = LazyPattern(r"x{4,}|X{4,}|\*{3,}|\.{3,}|…+")


def _masked(value: str) -> bool:
    """``sk-****abcd``, ``xxxx-xxxx-1234``, ``ghp_...``: a quarter of it or more is mask
    (``1sb!3ZO7BBY3j***=WvT`` is a password with stars in it)."""
    masked = sum(m.end() - m.start() for m in _MASK_RE.finditer(value))
    return masked > 0 and 4 * masked >= len(value)


_TEMPLATE_FIELD_RE = LazyPattern(r"\$?\{[^{}]*\}|%\(\w*\)[sdr]|%[sdr]|\$[A-Za-z_]\w*")
_ALNUM4_RE = LazyPattern(r"[A-Za-z0-9]{4}")


_VAR_NAME_RE = LazyPattern(r"[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[a-z]+(?:[A-Z][a-z]+)+[0-9]*")


def _variable_name(name: str) -> bool:
    return _VAR_NAME_RE.fullmatch(name) is not None and not looks_random(name)


def _variable_like(field: re.Match) -> bool:
    """A ``$name`` field is a variable only if ``name`` is spelled like one (``$DB_PASS``,
    ``$token``, ``$dbPass``) and does not follow a letter or digit: ``pa$Xk9Qm2`` and
    ``9ZV$z$b52g`` are passwords with dollars in them, not templates."""
    f = field.group()
    if not f.startswith("$") or f[1:2] == "{":
        return True
    s = field.start()
    return _variable_name(f[1:]) and not (s and field.string[s - 1].isalnum())


def is_placeholder(value: str) -> bool:
    """Empty, a marker, a template (``${VAR}``, ``%s``, ``{0}:{1}``), a mask or a word
    that stands for a value (``changeme``, ``<your-key>``)."""
    if not value or value.startswith(MARKER_PREFIX):
        return True
    if len(value) > 256:
        return False  # no placeholder is that long (and this keeps the scan linear)
    low = value.lower()
    if low in PLACEHOLDER_WORDS or low in TYPE_NAMES or _masked(value):
        return True
    full = _PLACEHOLDER_RE.fullmatch(value)
    if full is not None:
        dollar = value.startswith("$") and value[1:2] not in "{(" and len(value) > 2
        return not dollar or _variable_name(value[1:])
    if "{" in value or "%" in value or "$" in value:
        # a template whose fields carry the secret: "{0}:{1}", f"{user}:{pw}", "%s"
        # (the fields must be most of it: "5%s4!2Ml~U3w" is a password with "%s" in it)
        fields = [m for m in _TEMPLATE_FIELD_RE.finditer(value) if _variable_like(m)]
        if fields and 2 * sum(m.end() - m.start() for m in fields) >= len(value):
            rest = value
            for m in reversed(fields):
                rest = rest[: m.start()] + rest[m.end() :]
            if not _ALNUM4_RE.search(rest):
                return True
    return False


_URL_VALUE_RE = LazyPattern(r"[A-Za-z][A-Za-z0-9+.-]*://")
_PATH_RE = LazyPattern(r"(?:~|\.{1,2})?/[\w.@~-]+(?:/[\w.@~-]*)*|[A-Za-z]:\\[\w.\\ -]*")
_BASE64_RE = LazyPattern(r"[A-Za-z0-9+/]{16,}={0,2}")
_NUMBER_RE = LazyPattern(r"[-+]?\d+(?:[.,_]\d+)*")
_ENV_REF_RE = LazyPattern(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_ALNUM_RE = LazyPattern(r"[^\W_]")
_SPACE_RE = LazyPattern(r"\s")
_STOP_WORDS = frozenset(
    """the a an to is be must your of for with please not at least enter use this that will
    are""".split()
)
NAME_KEYWORDS = ("key", "secret", "token", "pass", "pw", "cred", "auth")
"""Lower-case words one of which a secret's name holds (found with str.find)."""


def is_number(value: str) -> bool:
    return _NUMBER_RE.fullmatch(value) is not None


def literal_is_secret(value: str, tier: str, quoted: bool = True) -> bool:
    """Does a literal value (quoted, .env, YAML, CLI) assigned to a secret's name look secret?"""
    if is_placeholder(value):
        return False
    if _URL_VALUE_RE.match(value):
        return False  # URLs: their passwords are the url-password rule's business
    if (
        len(value) < 1024
        and _PATH_RE.fullmatch(value)
        and (value.count("/") >= 2 or "." in value.rsplit("/", 1)[-1] or "\\" in value)
        and not (_BASE64_RE.fullmatch(value) and looks_random(value))
    ):
        return False  # a path (but "/xDjVm.../0" is base64 that starts with a slash)
    if is_number(value):
        return tier == "password" and len(value) >= 4  # a PIN, not a count or a duration
    if len(value) < 3 or value.startswith("arn:"):
        return False  # too short to be a credential; AWS resource names
    if (
        len(value) < 128
        and _ENV_REF_RE.fullmatch(value)
        and any(k in value.lower() for k in NAME_KEYWORDS)
    ):
        return False  # the name of another variable: key_var: OPENAI_API_KEY
    has_space = quoted and _SPACE_RE.search(value) is not None  # unquoted: never
    if tier == "weak":
        return not has_space and looks_random(value)
    if not _ALNUM_RE.search(value) and (len(value) < 8 or has_space):
        return False  # punctuation, e.g. the end of a JSON string read as a value
    if has_space:
        words = value[:1024].lower().split()
        if _STOP_WORDS.intersection(words) or len(words) > 8:
            return False  # prose: "Enter your password"
    return True
