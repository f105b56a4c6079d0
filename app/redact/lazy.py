"""Regexes compiled on their first use, not at import.

The redaction rules are some ninety regexes. Compiling them all at import cost about
32 ms, on the path of every `ccarchive search` and of a hook run in its own process
(`import ccarchive.redact` went from 42 to 90 ms), while most texts need few rules or
none. A `LazyPattern` is written where the rule is, like a compiled one
(`_KEY_RE = LazyPattern(r"...")`), and compiles on the first call of one of its
methods. It offers the methods of `re.Pattern` the rules use, with their types.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator


class LazyPattern:
    """An `re.Pattern` compiled on its first use."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list:
        return self.compiled.findall(string, pos, endpos)

    def sub(self, repl: str, string: str, count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)
