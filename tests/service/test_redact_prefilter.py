"""The redaction pass's prefilters skip only work that would find nothing.

A prefilter stands in front of a rule that costs too much to run on every text: a gate
(may this text hold a match at all?) or a start (where can its first match start?). Each
one is checked here against the rule it guards, run on the whole text: on texts put
together from the pieces the rules and gates look for and their near misses
(hypothesis), and on the strings of the real transcripts. Then every planted secret
shape is put at random offsets of surrounding text, with and without the anchors of the
prefilters nearby, and must be redacted there as it is when alone.
"""

from __future__ import annotations

import json
import random
import string
from functools import cache, partial

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ccarchive.redact import contexts, encodings, redact
from ccarchive.redact.names import may_name_secret, name_tier
from tests.conftest import REAL_CORPUS
from tests.support.secret_generated import GENERATED
from tests.support.secret_shapes import SHAPES, Gen

PIECES = (
    # names, in the spellings the name rules read (ſ is an s to them, K a k)
    "password",
    "DB_PASS",
    "api_key",
    "Token",
    "ſecret",
    "paſsword",
    "\u212aEY",
    "credentıal",
    "name",
    "value",
    "keyboard",
    "author",
    # separators, lines, lists, blocks, tables
    ": ",
    ":",
    ":\n",
    ": \n",
    ":\r\n",
    "- ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    " |\n",
    ": |",
    ":>",
    "|",
    " = (",
    "=",
    ", ",
    "', '",
    # .pgpass lines, URL escapes, base64 runs and key lines
    "localhost",
    ":5432:",
    ":*:",
    "%41",
    "%2F",
    "%3d",
    "&",
    "+",
    "/",
    "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3",
    "0123456789abcdef0123456789abcdef",
    "Kp2Wm9Zr4Tb8Nv3Hy6Jc1Lf5Gd0SaE2uI9oP4Qx7Kp2Wm9",
    "=",
    "==",
    # labels of other languages, and the characters around them
    "пароль",
    "Пароль",
    "パスワード",
    "密码",
    "contraseña",
    "mot de passe",
    "clave",
    "jeton",
    "Kennwort",
    "senha",
    "é",
    "ñ",
    "😀",
    "—",
)
_ALPHABET = string.ascii_letters + string.digits + " \n\t:-_=|%/+.'\"é😀ſ"
NOISE = st.text(alphabet=_ALPHABET, max_size=12)


def _joined(*parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(*parts).map("".join)


def _one(*options: str) -> st.SearchStrategy[str]:
    return st.sampled_from(options)


NAMES = _one("db_pass", "token", "api_key", "name", "x", "paſsword", "- password")
LINE = _one("\n", "\r\n", " \n", "")
B64 = _one("QUJDREVGR0hJSktMTU5PUFFSU1RVVldY", "Kp2Wm9Zr4Tb8Nv3Hy6Jc1Lf5Gd0SaE2u", "AAAA", "+/=")
SHAPED = (
    # a YAML list and a block scalar under a name, spaced in every way the rules allow
    _joined(
        NOISE,
        LINE,
        NAMES,
        _one("", " ", "\t"),
        _one(":", ": ", ":\t"),
        LINE,
        _one("- ", "  - ", "-\t", "-", "  "),
        NOISE,
        LINE,
        _one("- item", ""),
    ),
    _joined(
        NOISE,
        LINE,
        NAMES,
        _one(":", " :", ": "),
        _one("|", ">", "|-", ">+2", "|9", ""),
        _one("", " "),
        LINE,
        _one("  ", "\t", ""),
        NOISE,
    ),
    # URL escapes in one run or broken up
    _joined(
        NOISE,
        st.lists(
            _one("%41", "%2f", "%3D", "a", "=", "&", "~", "%", "%zz", " "), min_size=4, max_size=12
        ).map("".join),
        NOISE,
    ),
    # .pgpass-like lines
    _joined(
        LINE,
        st.lists(
            _one("localhost", "db", "*", "5432", "user", "pw", "[::1]", "", "a b"),
            min_size=4,
            max_size=6,
        ).map(":".join),
        LINE,
        NOISE,
    ),
    # labels of other languages and their values
    _joined(
        NOISE,
        _one("jeton", "clave", "mot de passe", "Kennwort", "пароль", "密码", "senha"),
        _one(": ", "：", " - ", "=", " "),
        _one("Xk9!q7Zp", "word", "a1"),
        NOISE,
    ),
    # base64 runs and lines of a key, at the start of the text or after others
    st.lists(st.one_of(B64, LINE, _one("é", " ", "-", "_", "x")), max_size=12).map("".join),
)

texts = st.one_of(
    st.lists(
        st.one_of(st.sampled_from(PIECES), st.text(alphabet=_ALPHABET, max_size=40)), max_size=30
    ).map("".join),
    *SHAPED,
)


@cache
def real_strings(limit: int = 3_000_000) -> tuple[str, ...]:
    """The strings of the real transcripts' records (and their lines as they are, JSON
    escapes in them), up to ``limit`` characters."""
    out: list[str] = []
    size = 0
    for path in sorted(REAL_CORPUS.rglob("*.jsonl")) if REAL_CORPUS.is_dir() else ():
        for line in path.read_text(errors="replace").splitlines():
            stack: list = [line]
            try:
                stack.append(json.loads(line))
            except ValueError:
                pass
            while stack:
                v = stack.pop()
                if isinstance(v, str) and len(v) >= 8:
                    out.append(v)
                    size += len(v)
                elif isinstance(v, dict):
                    stack.extend(v.values())
                elif isinstance(v, list):
                    stack.extend(v)
            if size >= limit:
                return tuple(out)
    return tuple(out)


def _spans(regex, text: str, start: int = 0) -> list[tuple[int, int]]:
    return [m.span() for m in regex.finditer(text, start)]


def check_starts(text: str) -> None:
    """Each rule run from where its prefilter starts it finds what it finds in the
    whole text; a rule whose prefilter says "none" finds nothing."""
    for start, regex in (
        (partial(contexts._gate_line, contexts._LIST_GATE_RE), contexts._LIST_RE),
        (partial(contexts._gate_line, contexts._BLOCK_GATE_RE), contexts._BLOCK_RE),
        (contexts._wrapped_start, contexts._WRAPPED_RE),
    ):
        at = start(text)
        whole = _spans(regex, text)
        assert (_spans(regex, text, at) if at >= 0 else []) == whole, (regex.pattern, text)
    first = encodings._first_run(text)
    whole = _spans(encodings._RUN_RE, text)
    assert (_spans(encodings._RUN_RE, text, first) if first < len(text) else []) == whole


def check_gates(text: str) -> None:
    """A text a rule finds something in passes the rule's gate."""
    if encodings._URL_RE.search(text):
        assert encodings._URL_GATE_RE.search(text), text
    if contexts._PGPASS_RE.search(text):
        assert contexts._PGPASS_GATE_RE.search(text), text
    label = contexts._LABEL_RE.search(text)
    if label and (
        not text.isascii() or any(w in label.group() for w in ("de passe", "lave", "eton"))
    ):
        assert contexts._may_hold_label(text), text
    for regex in (
        contexts._NAME_VALUE_RE,
        contexts._CALL_PAIR_RE,
        contexts._BLOCK_RE,
        contexts._LIST_RE,
        contexts._TABLE_RE,
    ):
        for m in regex.finditer(text):
            if name_tier(m.group("n")):
                assert may_name_secret(text), (m.group("n"), text)


@given(st.text(alphabet="kKeEyYsSſtToOnNpPaAwWdDcCrRuUhHiIıİlL_-.0123\u212a", max_size=24))
@settings(max_examples=400, deadline=None)
def test_every_secret_name_passes_the_keyword_gate(name: str) -> None:
    """`name_tier` reads names case-blind (ſ is an s to it, the Kelvin sign a k): any
    name it rates is seen by `may_name_secret`, alone or in a text."""
    if name_tier(name) is not None:
        assert may_name_secret(name)
        assert may_name_secret(f"config:\n  - {name}: x")


@pytest.mark.parametrize("name", ["paſsword", "ſecret", "\u212aEY", "credentıal"])
def test_names_spelled_with_letters_that_fold_to_ascii(name: str) -> None:
    assert name_tier(name) is not None
    assert may_name_secret(f"| {name} | Xk9-Qm2!vB7z |")


@pytest.mark.parametrize(
    "text",
    ["| paſsword | Xk9-Qm2!vB7z |", "| api\u212aey | Xk9Qm2vB7zLpQ8sT4wE |"],
)
def test_a_name_whose_keyword_is_not_ascii_is_read(text: str) -> None:
    """No ASCII keyword in the text, yet a name the rules rate: its pair is redacted."""
    assert redact(text, cached=False).count("[REDACTED:") == 1


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("passwords: \n  - Hunter2xQ9!z\n", "Hunter2xQ9!z"),  # a space after the colon
        ("x\r\npasswords:\r\n  - Hunter2xQ9!z\r\n", "Hunter2xQ9!z"),  # CRLF lines
        ("db_secret:> \n  Hunter2xQ9z\n", "Hunter2xQ9z"),  # ":>" with no space
        ("Kennwort: Xk9!qZ7p", "Xk9!qZ7p"),  # labels in an ASCII text
        ("senha: Xk9!qZ7p", "Xk9!qZ7p"),
        ("DE PASSE = Xk9!qZ7p", "Xk9!qZ7p"),
    ],
)
def test_what_the_rules_match_no_word_gate_hides(text: str, secret: str) -> None:
    """These rules' matches were kept from them by a gate of words stricter than their
    pattern (":\\n" for a list, three of the labels' words for an ASCII text): the
    gates are now the patterns' own anchors."""
    assert secret not in redact(text, cached=False)


@given(texts)
@example("localhost:*:db:user:pw")  # each at the edge of one gate or start
@example("x\n[::1]:5432:db:user:pw")
@example(
    "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYQUJDREVGR0hJSktMTU5PUFFSU1RVVldY\nKp2Wm9Zr4Tb8Nv3Hy6Jc1Lf5"
)
@example("a%41%2f%3D%41 b")
@example("token: |-\n  v\nkey:>+2 \n\tw")
@example("db_pass: \n- x\r\nkey:\r\n  - y")
@example("jeton: Xk9!q7Zp é clave=a1b2")
@example("é" + "A" * 31 + " " + "B" * 33)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_prefilters_on_drawn_texts(text: str) -> None:
    """The prefilters on 100 drawn texts and the examples at their edges; the slow
    tier's twin (`test_prefilters_on_many_drawn_texts`) draws 2,000."""
    check_starts(text)
    check_gates(text)


@pytest.mark.slow
@given(texts)
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_prefilters_on_many_drawn_texts(text: str) -> None:
    """`test_prefilters_on_drawn_texts` over 2,000 drawn texts (the suite's draws 100)."""
    check_starts(text)
    check_gates(text)


@pytest.mark.skipif(not REAL_CORPUS.is_dir(), reason="../shared/corpus/real is not present")
def test_prefilters_on_the_real_transcripts() -> None:
    """Every third string of the real transcripts' first 3 MB (`real_strings`); the
    slow tier's twin (`test_prefilters_on_every_real_string`) reads them all."""
    strings = real_strings()[::3]
    assert len(strings) > 1000
    for text in strings:
        check_starts(text)
        check_gates(text)


@pytest.mark.slow
@pytest.mark.skipif(not REAL_CORPUS.is_dir(), reason="../shared/corpus/real is not present")
def test_prefilters_on_every_real_string() -> None:
    """`test_prefilters_on_the_real_transcripts` on every string (the suite's: a third)."""
    for text in real_strings():
        check_starts(text)
        check_gates(text)


def _surroundings(rng: random.Random) -> str:
    """Text around a planted secret: real transcript text when there is some, drawn
    pieces (the prefilters' anchors among them) otherwise, or nothing."""
    strings = real_strings() if REAL_CORPUS.is_dir() else ()
    r = rng.random()
    if r < 0.15:
        return ""
    if r < 0.6 and strings:
        s = rng.choice(strings)
        a = rng.randrange(len(s))
        return s[a : a + rng.randrange(1, 3000)]
    return "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 40)))


SHAPE_MAKERS = {**SHAPES, **GENERATED}


@pytest.mark.parametrize("shape", sorted(SHAPE_MAKERS))
def test_a_planted_secret_is_redacted_wherever_it_stands(shape: str) -> None:
    """Every shape, 12 draws, at random offsets of random surroundings: each secret
    that redaction takes out of the shape alone it takes out of the surrounded text."""
    rng = random.Random(f"prefilter|{shape}")
    g = Gen(rng)
    checked = 0
    for _ in range(12):
        planted = SHAPE_MAKERS[shape](g)
        alone = redact(planted.text, cached=False)
        found = [s for s in planted.secrets if len(s) >= 6 and s not in alone]
        before, after = _surroundings(rng), _surroundings(rng)
        text = f"{before}\n{planted.text}\n{after}"
        out = redact(text, cached=False)
        for secret in found:
            assert secret not in out, (shape, secret, text)
            checked += 1
    assert checked, f"no secret of {shape} was redacted even alone"


_ESCAPES = ("\\n", "\\t", "\\r", '\\"', "\\\\", "\\/", "\\u0439", "\\ud83d", "\\x", "\\")


@given(st.lists(st.one_of(st.sampled_from(_ESCAPES), st.text(max_size=6)), max_size=20))
@settings(max_examples=150, deadline=None)
def test_json_escapes_are_mapped_back_character_by_character(pieces: list[str]) -> None:
    """The second pass of the contexts reads a text printed inside a JSON string with
    its escapes decoded; what it finds is mapped back by where each decoded character
    came from (kept per escape, not per character): each character comes from itself
    or from the one escape that decodes to it, and together they tile the text."""
    from ccarchive.redact.engine import _Decoded

    text = "".join(pieces)
    decoded = _Decoded(text)
    pos = 0
    for i, ch in enumerate(decoded.text):
        start, end = decoded.start(i), decoded.end(i)
        assert start == pos, (text, i)
        source = text[start:end]
        assert source == ch or (source[:1] == "\\" and json.loads(f'"{source}"') == ch), (
            text,
            i,
        )
        pos = end
    assert text[pos:] == ""
