"""`ccarchive-hook EVENT`: the process Claude Code starts for a hook, and its options.

Claude Code starts a new process for every prompt (UserPromptSubmit) and every session
(SessionStart), and the prompt waits for it. So the hook first asks the hook server of a
running `ccarchive serve` for the same archive (the plugin's MCP server, up for the whole
session with the index open: `ccarchive.hooks.client`), importing nothing but the
standard library and `ccarchive.locations` for it; only when no server answers does it
import the service and the index and answer in its own process, exactly as the server
would (`ccarchive.hooks.context.hook_output`, over the existing index). Never click,
rich, Textual or MCP (the `ccarchive` command's click alone costs a hook a fifth of its
time; tests/mcp/test_hooks.py keeps them out). `ccarchive hook EVENT` is the same entry,
reached through the CLI: `python -m ccarchive.hooks` too. `CCARCHIVE_HOOK_TRACE=1` says
on stderr which of the two answered, and why not the server.

A hook never gets in the user's way. It reads the existing index read-only (no writer,
no indexing, no waiting, never the semantic encoder), prints nothing when there is
nothing worth saying, and whatever goes wrong at run time (no index, a bad event, a
broken index) it exits 0 with one line on stderr. A mistake in its own command line is
exit 1: Claude Code shows it to the user and goes on, where exit 2 (argparse's and
click's) would block the prompt.

Hook output (stdout) is Claude Code's JSON form:
`{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": "..."}}`.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (~4 ms a prompt)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import NoReturn

    from ccarchive.config import Settings
    from ccarchive.service import ArchiveService

EVENTS = {"user-prompt-submit": "UserPromptSubmit", "session-start": "SessionStart"}
"""The command for each hook event Claude Code names."""

USAGE_ERROR = 1
"""The exit status of a wrong command line: a non-blocking error for Claude Code (2 would
block the user's prompt)."""

TRACE_ENV = "CCARCHIVE_HOOK_TRACE"
"""Set to 1: one line on stderr says who answered (the hook server, or this process and
why)."""

LIMIT = (1, 10, 3)
MAX_CHARS = (200, 10_000, 1500)
"""Each number option's lowest, highest and default value."""


class Options:
    """The hook's command line, read."""

    __slots__ = ("archive", "data_dir", "event", "limit", "max_chars")

    def __init__(
        self,
        event: str,
        archive: str | None = None,
        data_dir: str | None = None,
        limit: int = LIMIT[2],
        max_chars: int = MAX_CHARS[2],
    ) -> None:
        self.event, self.archive, self.data_dir = event, archive, data_dir
        self.limit, self.max_chars = limit, max_chars


def options(argv: list[str], prog: str) -> Options:
    """The command line read: its plain form (the event first, then whole option names
    with their values, as the plugin writes it) here, anything else by argparse
    (`parser`), which says what is wrong. argparse and its help formatter cost each
    prompt ~8 ms of imports (gettext, locale, shutil) before a word is read."""
    quick = _quick(argv)
    if quick is not None:
        return quick
    args = parser(prog).parse_args(argv)
    return Options(args.event, args.archive, args.data_dir, args.limit, args.max_chars)


def _quick(argv: list[str]) -> Options | None:
    """`argv` read when it is in the plain form, with the very result argparse would
    give; None for anything else (help, abbreviations, a value out of range, an option
    given before the event...), which argparse then reads."""
    if not argv or argv[0] not in EVENTS:
        return None
    got = Options(argv[0])
    rest = argv[1:]
    while rest:
        name, eq, value = rest[0].partition("=")
        if not eq:
            if len(rest) < 2 or rest[1].startswith("-"):
                return None
            value, rest = rest[1], rest[2:]
        else:
            rest = rest[1:]
        if name == "--archive":
            got.archive = value
        elif name == "--data-dir":
            got.data_dir = value
        elif name in ("--limit", "--max-chars"):
            low, high, _ = LIMIT if name == "--limit" else MAX_CHARS
            try:
                number = int(value)
            except ValueError:
                return None
            if not low <= number <= high:
                return None
            if name == "--limit":
                got.limit = number
            else:
                got.max_chars = number
        else:
            return None
    return got


def _bounded(low: int, high: int) -> Callable[[str], int]:
    """A whole number in low..high, for an option's `type`."""

    def parse(text: str) -> int:
        import argparse

        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not in {low}..{high}")
        return value

    parse.__name__ = "number"  # argparse names the type in its error
    return parse


def parser(prog: str = "ccarchive-hook") -> argparse.ArgumentParser:
    """The hook command's arguments: the event, and the options every event takes (one
    parser, not a sub-parser per event: those format their usage while being built,
    which costs every run ~3 ms)."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            self.print_usage(sys.stderr)
            self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")

    p = Parser(
        prog=prog,
        description=(
            "Claude Code hooks: add relevant past work to a session's context. "
            "user-prompt-submit adds the few past items most relevant to the prompt "
            "(UserPromptSubmit); session-start the project's recent sessions and plans "
            "(SessionStart). Each reads the hook's JSON on stdin and prints hook output on "
            "stdout; it only reads the existing index (never indexes, never waits) and "
            "prints nothing when there is no index or nothing fits. Install them with the "
            "plugin, or in ~/.claude/settings.json (docs/hooks-and-plugin.md)."
        ),
    )
    p.add_argument(
        "event",
        choices=list(EVENTS),
        metavar="EVENT",
        help="user-prompt-submit (UserPromptSubmit) or session-start (SessionStart)",
    )
    p.add_argument(
        "--archive",
        metavar="DIR",
        help="the Claude Code folder (default: $CLAUDE_CONFIG_DIR or ~/.claude)",
    )
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="where ccarchive keeps its index (default: $CCARCHIVE_HOME, else the user cache dir)",
    )
    p.add_argument(
        "--limit",
        type=_bounded(*LIMIT[:2]),
        default=LIMIT[2],
        metavar="N",
        help="past items to add, or recent sessions to list (default 3)",
    )
    p.add_argument(
        "--max-chars",
        type=_bounded(*MAX_CHARS[:2]),
        default=MAX_CHARS[2],
        metavar="N",
        help="size of the added context (default 1500)",
    )
    return p


def main(argv: list[str] | None = None, prog: str = "ccarchive-hook") -> int:
    """Run the hook that `argv` names: hook JSON on stdin, hook output on stdout."""
    # A hook lives for one event: the collector's passes over what the imports create,
    # and its walk over all of it at exit, are work for nothing (what must be released,
    # the index, is released by reference counting).
    gc.disable()
    args = options(sys.argv[1:] if argv is None else argv, prog)
    from ccarchive.locations import archive_data_dir, resolve_places

    event_name = EVENTS[args.event]
    root, data = resolve_places(args.archive, args.data_dir)
    raw = sys.stdin.buffer.read()
    why = "the data dir is inside the archive"
    if not _within(data, root):  # if it is, the in-process path refuses it as a usage error
        from ccarchive.hooks.client import Answer, ask_server

        answer = ask_server(
            archive_data_dir(root, data),
            event_name,
            raw,
            limit=args.limit,
            max_chars=args.max_chars,
        )
        if isinstance(answer, Answer):
            _trace(f"answered by the hook server of ccarchive serve (pid {answer.pid})")
            _write(answer.stdout, answer.stderr)
            return 0
        why = answer
    _trace(f"answered in this process: {why}")
    from ccarchive.config import Settings

    settings = Settings.resolve(args.archive, args.data_dir)
    try:
        settings.check_outside_archive()
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return USAGE_ERROR
    from ccarchive.hooks.context import hook_output

    stdout, stderr = hook_output(
        event_name,
        raw,
        lambda: existing_service(settings),
        limit=args.limit,
        max_chars=args.max_chars,
    )
    _write(stdout, stderr)
    gc.freeze()
    return 0


def _within(path: str, root: str) -> bool:
    """`path` is `root` or under it (both resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _trace(line: str) -> None:
    if os.environ.get(TRACE_ENV, "").strip() not in ("", "0"):
        print(f"ccarchive-hook: {line}", file=sys.stderr)


def _write(stdout: bytes, stderr: str) -> None:
    if stderr:
        print(stderr, file=sys.stderr)
    if stdout:
        sys.stdout.buffer.write(stdout)
        sys.stdout.flush()


def existing_service(settings: Settings) -> ArchiveService | None:
    """The service over the existing, complete index, read-only; None if there is none
    (a hook never builds one: `ccarchive serve`, the app or `ccarchive index` do)."""
    from dataclasses import replace

    from ccarchive.index.store import complete_index_exists

    if not complete_index_exists(settings.archive_data_dir):
        return None
    from ccarchive.service import open_service

    # never semantic: loading the encoder would cost a hook its budget on every prompt
    return open_service(replace(settings, semantic=False))
