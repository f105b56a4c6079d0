"""How Claude Code writes things to disk, as far as the demo needs it.

Timestamps, project folder names, seeded ids, the `cat -n` listing of the Read tool and the
`structuredPatch` hunks of an edit: small pure functions the transcript player builds its
records with. Standard library only, like the rest of the demo.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import random
import re
import string

CLAUDE_DIR = "/home/demo/.claude"
"""Where the archive pretends to live; appears in plan paths and persisted-output notes."""

B62 = string.ascii_letters + string.digits
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def iso(t: dt.datetime) -> str:
    """Claude Code's timestamp format: UTC, milliseconds, `Z`."""
    t = t.astimezone(dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def epoch_ms(t: dt.datetime) -> int:
    return (t - EPOCH) // dt.timedelta(milliseconds=1)


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def project_dirname(path: str) -> str:
    """Project directory name: every character other than a letter or digit becomes `-`."""
    return re.sub(r"[^a-zA-Z0-9]", "-", path)


def tokens(text: str) -> int:
    """A rough token estimate, good enough for plausible usage figures."""
    return max(1, len(text) // 4)


def seeded_rng(name: str) -> random.Random:
    """A generator seeded from a name, so adding a session never shifts another's ids."""
    return random.Random(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big"))


def split_lines(text: str) -> list[str]:
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def numbered(text: str, start: int = 1) -> str:
    """Read-tool style listing (`cat -n` with an arrow)."""
    return "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(split_lines(text), start))


def line_of(text: str, needle: str) -> int:
    for i, line in enumerate(split_lines(text), 1):
        if needle in line:
            return i
    raise ValueError(needle)


def structured_patch(old: str, new: str) -> list[dict]:
    """The `structuredPatch` hunks of an edit, computed with difflib (3 lines of context)."""
    a, b = split_lines(old), split_lines(new)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        body: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                body += [" " + x for x in a[a1:a2]]
            else:
                body += ["-" + x for x in a[a1:a2]]
                body += ["+" + x for x in b[b1:b2]]
        hunks.append(
            {
                "oldStart": i1 + 1,
                "oldLines": i2 - i1,
                "newStart": j1 + 1,
                "newLines": j2 - j1,
                "lines": body,
            }
        )
    return hunks
