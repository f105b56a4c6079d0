"""One step of a session script, read from TOML: its action, its parameters, its templates.

A step is a TOML table whose *first* key names the action (`say = "..."`, `bash = "..."`);
the other keys are its parameters. Before the action runs, every string in it is expanded:
`{{name}}` placeholders are filled from the session being played (ids, its clock) and from
the script's own `let` variables, and a table `{file = "x.txt"}` stands for the text of a
file beside the script. Templates exist only for what moves with the clock or is drawn from
the session's random generator; everything else in the demo is plain literal text.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from importlib.resources.abc import Traversable
from typing import Any, TypeVar, overload

from ccarchive.demo.builder import ArchiveBuilder
from ccarchive.demo.conventions import iso
from ccarchive.demo.transcript import Transcript

NESTED = frozenset({"play", "during"})
"""Parameters holding steps of their own: expanded when they run, not before."""

_D = TypeVar("_D")
_NEEDED: Any = object()
"""The default of a typed read that has none: the parameter must be there."""

_PLACEHOLDER = re.compile(r"\{\{ *([a-z_]+)((?: +[^ }]+)*) *\}\}")


def parse_clock(text: str) -> tuple[int, int, int]:
    """`"14:05"` or `"14:05:12"` as (hours, minutes, seconds)."""
    parts = [int(x) for x in text.split(":")]
    if not 2 <= len(parts) <= 3:
        raise ValueError(f"a time is HH:MM or HH:MM:SS, not {text!r}")
    h, m, s = [*parts, 0][:3]
    return h, m, s


def moment(arc: ArchiveBuilder, spec: dict) -> dt.datetime:
    """A point in time relative to the archive's `now`.

    `{days_ago = 3, time = "09:10"}` is a wall-clock time (UTC) that many days before now;
    `{ago = "00:48:17"}` is that long before now.
    """
    if set(spec) == {"days_ago", "time"}:
        return arc.day(spec["days_ago"], *parse_clock(spec["time"]))
    if set(spec) == {"ago"}:
        h, m, s = parse_clock(spec["ago"])
        return arc.now - dt.timedelta(hours=h, minutes=m, seconds=s)
    raise ValueError(f"a time is {{days_ago, time}} or {{ago}}, not {spec!r}")


class Expander:
    """Fills placeholders for one session: built-in names plus the script's `let` variables.

    Built-in names: `sid`; `timestamp` (the session's clock, as Claude Code writes it);
    `date` (the clock's day) and `end_date` (the day of its latest entry); `days_ago N
    [strftime format]` (the day N days before now); `request_id` (a fresh API request id).
    """

    def __init__(self, arc: ArchiveBuilder, folder: Traversable, variables: dict[str, str]):
        self.arc, self.folder, self.variables = arc, folder, variables

    def value(self, tr: Transcript, v: object) -> object:
        """`v` with its strings expanded and its file references read, as a fresh copy."""
        if isinstance(v, str):
            return self.text(tr, v)
        if isinstance(v, dict):
            if set(v) == {"file"}:
                raw = self.folder.joinpath(v["file"]).read_bytes().decode("utf-8")
                return self.text(tr, raw)
            return {k: self.value(tr, x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(tr, x) for x in v]
        return v

    def text(self, tr: Transcript, s: str) -> str:
        return _PLACEHOLDER.sub(lambda m: self._fill(tr, m[1], m[2].split()), s)

    def _fill(self, tr: Transcript, name: str, args: list[str]) -> str:
        if name in self.variables and not args:
            return self.variables[name]
        builtins: dict[str, Callable[[], str]] = {
            "sid": lambda: tr.sid,
            "timestamp": lambda: iso(tr.t),
            "date": lambda: tr.t.date().isoformat(),
            "end_date": lambda: tr.t_max.date().isoformat(),
            "request_id": tr.request_id,
        }
        if name in builtins and not args:
            return builtins[name]()
        if name == "days_ago" and 1 <= len(args) <= 2:
            fmt = args[1] if len(args) == 2 else "%Y-%m-%d"
            return self.arc.day(int(args[0]), 0, 0).strftime(fmt)
        raise ValueError(f"unknown placeholder {{{{{name}{' ' if args else ''}{' '.join(args)}}}}}")


class Step:
    """A step's action, its main value and its parameters, expanded; unused keys are errors."""

    def __init__(self, raw: dict, expand: Callable[[object], object]):
        if not raw:
            raise ValueError("an empty step")
        (self.action, value), *rest = raw.items()
        self.value = expand(value)
        self._params = {k: v if k in NESTED else expand(v) for k, v in rest}
        self._used: set[str] = set()

    def get(self, key: str, default: object = None) -> object:
        self._used.add(key)
        return self._params.get(key, default)

    # The typed reads: the step's value (no key) or a parameter, of the type the action
    # takes; a script that gives another type is an error that names the step and the key.
    @overload
    def text(self, key: str | None = None) -> str: ...
    @overload
    def text(self, key: str, default: _D) -> str | _D: ...
    def text(self, key: str | None = None, default: Any = _NEEDED) -> Any:
        return self._typed(key, default, str, "a text")

    @overload
    def table(self, key: str | None = None) -> dict[str, Any]: ...
    @overload
    def table(self, key: str, default: _D) -> dict[str, Any] | _D: ...
    def table(self, key: str | None = None, default: Any = _NEEDED) -> Any:
        return self._typed(key, default, dict, "a table")

    @overload
    def array(self, key: str | None = None) -> list[Any]: ...
    @overload
    def array(self, key: str, default: _D) -> list[Any] | _D: ...
    def array(self, key: str | None = None, default: Any = _NEEDED) -> Any:
        return self._typed(key, default, list, "an array")

    def number(self, key: str | None = None) -> float:
        value = self._typed(key, _NEEDED, (int, float), "a number")
        if isinstance(value, bool):  # TOML's true is no number, though Python's is an int
            raise ValueError(f"step {self.action!r}: {self._what(key)} is a number, not {value!r}")
        return float(value)

    def flag(self, key: str) -> bool:
        """A true/false parameter, false when the step leaves it out."""
        return self._typed(key, False, bool, "true or false")

    def _typed(
        self, key: str | None, default: Any, kind: type | tuple[type, ...], what: str
    ) -> Any:
        if key is None:
            value = self.value
        elif key in self._params:
            self._used.add(key)
            value = self._params[key]
        elif default is _NEEDED:
            raise ValueError(f"step {self.action!r} needs {key!r}")
        else:
            self._used.add(key)
            return default
        if not isinstance(value, kind):
            raise ValueError(f"step {self.action!r}: {self._what(key)} is {what}, not {value!r}")
        return value

    @staticmethod
    def _what(key: str | None) -> str:
        return "its value" if key is None else repr(key)

    def kwargs(self, *keys: str) -> dict[str, Any]:
        """The given optional parameters that the step sets, as keyword arguments."""
        self._used.update(keys)
        return {k: self._params[k] for k in keys if k in self._params}

    def check(self) -> None:
        unknown = set(self._params) - self._used
        if unknown:
            raise ValueError(f"step {self.action!r}: unknown keys {sorted(unknown)}")
