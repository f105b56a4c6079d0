"""What every command shares: `--archive` and `--data-dir`, and the settings they make."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ccarchive.cli.semantic import with_flags
from ccarchive.config import Settings

_DIR = click.Path(file_okay=False)
"""One instance for every command's two options: each `click.Path()` asks gettext for
its name (~35 us, 22 times at import)."""


def archive_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--archive and --data-dir, shared by every command."""
    f = click.option(
        "--data-dir",
        type=_DIR,
        envvar="CCARCHIVE_HOME",
        help="Where ccarchive keeps its index (default: the user cache dir).",
    )(f)
    f = click.option(
        "--archive",
        type=_DIR,
        help="The Claude Code folder (default: $CLAUDE_CONFIG_DIR or ~/.claude).",
    )(f)
    return f


def resolve_settings(archive: str | None, data_dir: str | None) -> Settings:
    """The settings of a command's `--archive`, `--data-dir` and `--semantic` options."""
    settings = with_flags(Settings.resolve(archive, data_dir))  # and --semantic
    try:
        settings.check_outside_archive()
    except ValueError as exc:
        raise click.ClickException(str(exc)) from exc
    return settings
