"""Promise: a password in a Markdown table is redacted, and the table around it is kept.

Accounts are written down as tables: a column under a header that names the secret
(``| User | Password |``), or a row that pairs a name with its value among other cells
(``| user | admin | password | X |``). Hypothesis draws both, with or without the outer
bars, aligned rules, padding, backticks or quotes around the value, CRLF lines, inside
other text and printed inside a JSON string: no 8 characters of a password survive, and
in a table as written the cells that are not secrets (users, hosts, verdicts of a test
table) are all still there. (Printed inside a JSON string, the rows are also read as one
escaped line, whose pairs may take a cell beside a password for one: more is hidden
there, never less.) A value's quotes stay where they were: the marker replaces the value only.
"""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ccarchive.redact import redact

WINDOW = 8
SECRET_HEADERS = ["Password", "password", "DB password", "Passwd", "Secret", "Admin Pass"]
PLAIN_HEADERS = ["Service", "User", "Host", "Env", "Notes", "Port"]
PLAIN_WORDS = ["admin", "root", "staging", "billing", "db.internal", "5432", "main"]
PASSWORD_CHARS = string.ascii_letters + string.digits + "-_.~!%^*+="


@st.composite
def passwords(draw) -> str:
    """A password as people make them: letters and digits mixed, a few symbols (not a
    placeholder such as ``A00000000000``, which the rules leave by design)."""
    body = draw(
        st.text(alphabet=PASSWORD_CHARS, min_size=10, max_size=28).filter(
            lambda s: len(set(s)) >= 8
        )
    )
    return draw(st.sampled_from("ABCXYZ")) + body + draw(st.sampled_from("0123456789"))


def _leaked(secret: str, out: str, text: str) -> bool:
    """Whether 8 characters of `secret` are in `out` that `text` holds nowhere else (a
    password that contains ``password`` shares it with its name)."""
    rest = text.replace(secret, " ")
    windows = (secret[j : j + WINDOW] for j in range(len(secret) - WINDOW + 1))
    return any(w in out and w not in rest for w in windows)


@st.composite
def column_tables(draw) -> tuple[str, list[str], list[str]]:
    """A table with a secret's column; the text, its passwords and its other cells."""
    width = draw(st.integers(2, 5))
    secret_at = draw(st.integers(0, width - 1))
    headers = [
        draw(st.sampled_from(SECRET_HEADERS if i == secret_at else PLAIN_HEADERS))
        for i in range(width)
    ]
    bar = draw(st.sampled_from(["|", ""]))
    pad = draw(st.sampled_from([" ", "  ", "\t"]))
    wrap = draw(st.sampled_from(["", "`", '"']))

    def row(cells: list[str]) -> str:
        inner = f"{pad}|{pad}".join(cells)
        return f"{bar}{pad}{inner}{pad}{bar}" if bar else inner

    rule = [draw(st.sampled_from(["---", ":---", "---:", ":---:", "-----"])) for _ in headers]
    secrets, plain, lines = [], [], [row(headers), row(rule)]
    for _ in range(draw(st.integers(1, 4))):
        cells = []
        for i in range(width):
            if i == secret_at:
                pw = draw(passwords())
                secrets.append(pw)
                cells.append(f"{wrap}{pw}{wrap}")
            else:
                word = draw(st.sampled_from(PLAIN_WORDS))
                plain.append(word)
                cells.append(word)
        lines.append(row(cells))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return eol.join(lines) + eol, secrets, plain


@st.composite
def pair_rows(draw) -> tuple[str, list[str], list[str]]:
    """Rows that pair a secret's name with its value among other cells."""
    secrets, plain, lines = [], [], []
    for _ in range(draw(st.integers(1, 3))):
        before = draw(st.lists(st.sampled_from(PLAIN_WORDS), min_size=0, max_size=3))
        after = draw(st.lists(st.sampled_from(PLAIN_WORDS), min_size=0, max_size=2))
        name = draw(st.sampled_from(["password", "db_password", "secret", "client_secret"]))
        pw = draw(passwords())
        secrets.append(pw)
        plain += before + after
        lines.append("| " + " | ".join([*before, name, pw, *after]) + " |")
    return "\n".join(lines) + "\n", secrets, plain


drawn_tables = {
    "table": st.one_of(column_tables(), pair_rows()),
    "before": st.sampled_from(["", "The accounts:\n\n", "notes\n"]),
    "after": st.sampled_from(["", "\nRotate them monthly.", "\n"]),
    "json_layers": st.sampled_from([0, 1, 2]),
}


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**drawn_tables)
def test_a_password_in_a_table_is_redacted_and_the_table_kept(
    table: tuple[str, list[str], list[str]], before: str, after: str, json_layers: int
) -> None:
    """50 drawn tables, columns and pairs, as text and inside JSON once or twice; the
    slow tier's twin (`test_a_password_in_many_tables_is_redacted`) draws 600."""
    _table_is_redacted_and_kept(table, before, after, json_layers)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**drawn_tables)
def test_a_password_in_many_tables_is_redacted(
    table: tuple[str, list[str], list[str]], before: str, after: str, json_layers: int
) -> None:
    """`test_a_password_in_a_table_is_redacted_and_the_table_kept` over 600 drawn
    tables (the suite's draws 50)."""
    _table_is_redacted_and_kept(table, before, after, json_layers)


def _table_is_redacted_and_kept(
    table: tuple[str, list[str], list[str]], before: str, after: str, json_layers: int
) -> None:
    text, secrets, plain = table
    text = before + text + after
    # a table printed inside a JSON string (a tool's result), and that inside another (a
    # transcript line quoted in a tool's result): what is found in the decoded text is
    # mapped back through each layer of escapes
    for _layer in range(json_layers):
        text = json.dumps({"content": text})
    out = redact(text)
    for pw in secrets:
        assert not _leaked(pw, out, text), (text, out)
    if not json_layers:  # (inside a JSON string the rows are one line, read as pairs too)
        for word in plain:
            assert word in out, (word, out)


@pytest.mark.parametrize(
    "text",
    [
        # a test's verdicts and a score under "Pass", a checklist's answers under "Pass if..."
        "| Test | Pass |\n|---|---|\n| a | PASS |\n| b | 3/5 |\n| c | FAIL |",
        "| Question | Pass if... |\n|---|---|\n| Is it listed? | Problem, solution, all |",
        "| Model | Tokens | Cost |\n|---|---|---|\n| opus | 12000 | $3 |",
        "| Key | Action |\n|---|---|\n| ctrl+s | save |",
    ],
)
def test_tables_without_a_secret_are_left_as_they_are(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('| password | "Hunter2xQ9" |', '| password | "[REDACTED:env]" |'),
        ("| password | `Hunter2xQ9` |", "| password | `[REDACTED:env]` |"),
        ('password:\n  - "Hunter2xQ9abc"\n', 'password:\n  - "[REDACTED:env]"\n'),
        ("| User | Pass |\n|---|---|\n| root | 'Hunter2xQ9' |", None),
    ],
)
def test_a_quoted_value_loses_its_value_and_keeps_its_quotes(text: str, want: str | None) -> None:
    """The span starts where the value does, not at its quote (a span shifted by the
    quote left the value's last character shown and took the opening quote)."""
    out = redact(text)
    assert "Hunter2xQ9"[-3:] not in out and "[REDACTED:env]" in out
    if want is not None:
        assert out == want
    else:
        assert "'[REDACTED:env]'" in out
