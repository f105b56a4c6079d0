"""`ccarchive-hook EVENT`: the process Claude Code starts for a hook, and its options.

Claude Code starts a new process for every prompt (UserPromptSubmit) and every session
(SessionStart), and the prompt waits for it. So this entry imports what a hook needs and
nothing else: the service and the index, not click, rich, Textual or MCP (the `ccarchive`
command's click alone costs a hook a fifth of its time; tests/mcp/test_hooks.py keeps
them out). `ccarchive hook EVENT` is the same entry, reached through the CLI:
`python -m ccarchive.hooks` too.

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

import argparse
import gc
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO, NoReturn

if TYPE_CHECKING:
    from ccarchive.config import Settings
    from ccarchive.service import ArchiveService

EVENTS = {"user-prompt-submit": "UserPromptSubmit", "session-start": "SessionStart"}
"""The command for each hook event Claude Code names."""

USAGE_ERROR = 1
"""The exit status of a wrong command line: a non-blocking error for Claude Code (2 would
block the user's prompt)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def _bounded(low: int, high: int) -> Callable[[str], int]:
    """A whole number in low..high, for an option's `type`."""

    def parse(text: str) -> int:
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
    p = _Parser(
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
        type=_bounded(1, 10),
        default=3,
        metavar="N",
        help="past items to add, or recent sessions to list (default 3)",
    )
    p.add_argument(
        "--max-chars",
        type=_bounded(200, 10_000),
        default=1500,
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
    args = parser(prog).parse_args(argv)
    from ccarchive.config import Settings

    settings = Settings.resolve(args.archive, args.data_dir)
    try:
        settings.check_outside_archive()
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return USAGE_ERROR
    run(
        EVENTS[args.event],
        settings,
        limit=args.limit,
        max_chars=args.max_chars,
        stdin=sys.stdin.buffer,
        stdout=sys.stdout.buffer,
    )
    gc.freeze()
    return 0


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


def run(
    event_name: str,
    settings: Settings,
    *,
    limit: int,
    max_chars: int,
    stdin: BinaryIO,
    stdout: BinaryIO,
) -> None:
    """Read the hook's JSON event, write the hook output (or nothing); never fail."""
    # Imported here, after the command line is read: `--help` and a wrong option answer
    # without loading the index's and the service's modules.
    import orjson

    from ccarchive.hooks.context import prompt_context, session_start_context

    try:
        raw = stdin.read()
        event = orjson.loads(raw) if raw.strip() else {}
        if not isinstance(event, dict):
            return
        service = existing_service(settings)
        if service is None:
            return
        build = prompt_context if event_name == "UserPromptSubmit" else session_start_context
        text = build(service, event, limit=limit, max_chars=max_chars)
    except Exception as exc:  # a hook must never break the user's session
        print(f"ccarchive hook {event_name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return
    if text:
        stdout.write(
            orjson.dumps(
                {"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": text}}
            )
            + b"\n"
        )
        stdout.flush()
