"""The token-rule engine: a table row, and the scan that runs a table over a text.

A token rule finds a credential by its shape alone (``ghp_`` + 36, ``AKIA`` + 16, a JWT):
no context is needed. Each rule is data -- a kind, a regex, the group that is the secret,
an optional check of the match and a priority -- and the rows live in `token_table`.

Speed: every regex starts with a literal (lookbehinds come after it), so ``re`` scans for
that literal at memchr-like speed instead of trying the pattern at every position, and a
text that does not contain the literal is skipped with one ``in`` test, before the regex
is even compiled. (One combined alternation was measured at less than half the speed:
``re`` uses a literal prefix only when there is a single one.) A rule whose regex cannot
start with a selective literal has ``gates``: substrings one of which must occur.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

SPECIFIC, HEADER, ASSIGNMENT = 0, 1, 2
"""Priorities: when detections overlap they are merged, and the lowest number names the kind."""

Check = Callable[[re.Match], "str | bool | None"]
Span = tuple[int, int, str, int]  # start, end, kind, priority

_META = frozenset("\\.^$*+?{}[]|()")


def leading_literal(pattern: str) -> str:
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
    return pattern[: max(i, 0)]


class Rule:
    """One row of a token table.

    Args:
        kind: the marker's kind (``[REDACTED:<kind>]``); a check may return another.
        pattern: the regex; it should start with a literal, or have ``gates``.
        group: the group that is the secret (the rest is context that stays).
        check: called with each match; falsy drops it, a string renames its kind.
        priority: `SPECIFIC` (a known format) or `HEADER`; lower wins a merge.
        gates: substrings one of which a text must contain for the rule to run.
    """

    __slots__ = ("kind", "gates", "pattern", "lead", "regex", "group", "check", "priority")

    def __init__(
        self,
        kind: str,
        pattern: str,
        *,
        group: int | str = 0,
        check: Check | None = None,
        priority: int = SPECIFIC,
        gates: tuple[str, ...] = (),
    ):
        self.kind = kind
        self.gates = gates
        self.pattern = pattern
        self.lead = leading_literal(pattern)  # what a text needs before we compile
        self.regex: re.Pattern | None = None  # compiled on first need
        self.group = group
        self.check = check
        self.priority = priority


def scan(rules: Sequence[Rule], text: str, out: list[Span]) -> None:
    """Append the spans of every rule's matches in ``text`` to ``out``."""
    for rule in rules:
        if rule.gates:
            for gate in rule.gates:
                if gate in text:
                    break
            else:
                continue
        elif rule.lead not in text:
            continue  # no match possible (and no regex compiled until a text has it)
        regex = rule.regex
        if regex is None:
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
