"""Is this the name of a secret? Word lists and the tier of a name.

A name is split into words. Words that merely contain a keyword (``author``,
``keyboard``, ``monkey``, ``tokenizer`` ...) do not count; neither do names whose last
word says the value is metadata about a secret rather than the secret (``*_PATH``,
``*_FILE``, ``*_URL``, ``*_ID``, ``*_TIMEOUT``, ``max_tokens`` ...), names with
``public``/``publishable``, the shell's ``PWD``/``OLDPWD``, and lookup keys
(``cache_key``, ``sort_key``, ``page_token`` ...).

*Tiers*: ``password`` (PASSWORD, PASSWD, PWD, PASSPHRASE) and ``strong`` (SECRET,
CREDENTIAL) names redact any literal that is not a placeholder; ``weak`` names (KEY,
TOKEN, AUTH) only a value that looks random.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ccarchive.redact.lazy import LazyPattern
from ccarchive.redact.values import NAME_KEYWORDS

# Words that contain a keyword without being about a secret.
_NON_SECRET_WORD_RE = LazyPattern(
    r"author(?!i[sz])[a-z]*|keyboard|keyword|keystroke|keypress|keydown|keyup|keycode|keymap|keybind"
    r"|keyframe|keyspace|keypad|keyof|keyset|monkey|donkey|turkey|hockey|whiskey|jockey|lackey|hotkey"
    r"|tokeniz[a-z]*|passthrough",
    re.IGNORECASE,
)
_PASSWORD_RE = LazyPattern(r"passw(?:or)?d|pwd|passphrase", re.IGNORECASE)
_PASSWORD_WORDS = frozenset(("pass", "pw", "pword", "passwd", "passwort"))
"""Short forms that name a password only as a whole word of the name (DB_PASS, MYSQL_PW,
redisPw), or as the end of a name written as one word (BACKUPPRODPW, ADMINPASS); other
words end so too (bypass, compass)."""
_PASS_ENDINGS = frozenset(
    (
        "bypass",
        "compass",
        "encompass",
        "trespass",
        "overpass",
        "underpass",
        "surpass",
        "impass",
        "repass",
    )
)
_STRONG_RE = LazyPattern(r"secret|credential", re.IGNORECASE)
_WEAK_RE = LazyPattern(r"key|token|auth", re.IGNORECASE)
_WORD_SPLIT_RE = LazyPattern(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")

# A last word that makes the value metadata about a secret rather than the secret.
META_LAST_WORDS = frozenset(
    """path paths file files filename dir directory folder url urls uri endpoint host hostname port
    name names type types id ids length len size ttl timeout expiry expires expiration exp at
    header headers field fields env var vars format prefix suffix count counts limit limits mode
    algorithm alg algo version region location policy ref refs arn kind label labels method methods
    provider providers scheme scope scopes required enabled disabled enable disable min max style
    help hint placeholder text message msg error errors description title strength rule rules
    pattern regex validator changed updated created reset command cmd source store storage manager
    mgr service class cls fn func callback handler usage index idx column col spec schema config cfg
    option options flag flags status state valid validity visible visibility show hidden input
    inputs output outputs used remaining budget tokens age duration interval rotation level levels
    strategy backend backends factory mapping map list helper helpers stdin identifier ident
    seconds secs sec ms millis minutes mins hours days""".split()
)
# Words that make KEY/TOKEN a lookup key, a cursor or a count rather than a credential.
LOOKUP_WORDS = frozenset(
    """cache sort primary foreign partition row idempotency dedup dedupe object lookup dict hot
    shortcut i18n translation message route group composite unique natural start last next page
    pagination continuation sync cursor public pub publishable item react event local query
    storage s3 bucket blob column field index cancellation cancel csrf xsrf max min input output
    total prompt completion cached""".split()
)
_PROSE_LOOKUP_RE = LazyPattern(
    r"\b(?:cache|sort|primary|foreign|partition|lookup|dict|map|hash)\b", re.IGNORECASE
)


@lru_cache(maxsize=4096)
def name_tier(name: str) -> str | None:
    """``'password'``, ``'strong'``, ``'weak'`` or ``None`` (not a secret's name)."""
    bare = name.strip("-.")
    if not bare or bare.lower() in ("pwd", "oldpwd"):
        return None
    cleaned = _NON_SECRET_WORD_RE.sub(" ", bare)
    words = [w.lower() for w in _WORD_SPLIT_RE.findall(cleaned)]
    if not words or words[-1] in META_LAST_WORDS:
        return None
    if "public" in words or "publishable" in words or "pub" in words:
        return None
    if (
        _PASSWORD_RE.search(cleaned)
        or not _PASSWORD_WORDS.isdisjoint(words)
        or any(
            last.endswith(("pass", "pw", "creds")) and last not in _PASS_ENDINGS
            for last in (words[-1], words[-1][:-1])  # plurals: db_passwords, admin_pws
        )
    ):
        return "password"
    if _STRONG_RE.search(cleaned) or "creds" in words or "cred" in words:
        return "strong"
    if _WEAK_RE.search(cleaned) and not LOOKUP_WORDS.intersection(words):
        return "weak"
    return None


_FOLDED_S = "\u017f"
"""The long s, ``ſ``: the one character that the case-blind name rules read as an ASCII
letter of a keyword (``s``) although ``str.lower`` leaves it as it is (the Kelvin sign
lowers to ``k``; the dotted and dotless i fold to ``i``, in no keyword)."""


def may_name_secret(text: str) -> bool:
    """Could ``text`` hold a name that `name_tier` rates? Every tier needs one of
    `NAME_KEYWORDS` in the name, in any case: a text without one holds no secret's name,
    and the rules that judge a value by its name have nothing to read in it."""
    low = text.lower()
    return any(map(low.__contains__, NAME_KEYWORDS)) or _FOLDED_S in text


def lookup_in_prose(name: str, line_before: str) -> bool:
    """A bare ``key`` after a lookup word on its line ("cache with key: ...", "deleted
    cache: &{ID:6 Key:...}") is a lookup key, not a credential."""
    return name.lower() in ("key", "keys") and _PROSE_LOOKUP_RE.search(line_before) is not None
