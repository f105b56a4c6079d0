"""Regexes compiled on first use, not at import.

Compiling every rule's regex took ~8 ms, on the path of ``ccarchive search`` (which
imports the redactor through the service and redacts 20 short snippets, most of which
need few rules or none). ``lazy = LazyRegexes(globals())`` then ``_X_RE = lazy(r"...")``
defines a module global that is replaced, in that module, by the compiled pattern on its
first use; the functions that use it look the compiled pattern up directly afterwards.
"""

from __future__ import annotations

import re
from typing import Any


class _Lazy:
    __slots__ = ("pattern", "flags", "namespace")

    def __init__(self, pattern: str, flags: int, namespace: dict[str, Any]):
        self.pattern = pattern
        self.flags = flags
        self.namespace = namespace

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(self.pattern, self.flags)
        for key, value in list(self.namespace.items()):
            if value is self:
                self.namespace[key] = compiled
        return getattr(compiled, name)


class LazyRegexes:
    """A factory of lazily compiled regexes that live as globals of one module."""

    def __init__(self, namespace: dict[str, Any]):
        self.namespace = namespace

    def __call__(self, pattern: str, flags: int = 0) -> Any:
        return _Lazy(pattern, flags, self.namespace)
