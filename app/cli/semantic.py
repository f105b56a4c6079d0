"""The command line's side of semantic search: its two options and the embedding `index` does.

`semantic_options` adds `--semantic/--no-semantic` and `--semantic-model` to a command
(the default, neither flag, is the static encoder when its parts are here: `ccarchive.
semantic.choose`) and keeps their
values in the click context rather than in the command's arguments, so every command
reads them the same way: through `cli.options.resolve_settings`, which calls `with_flags`.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import click

from ccarchive.config import Settings

_META = "ccarchive.semantic"

SEMANTIC_HELP = (
    "Rank by meaning with the full all-MiniLM-L6-v2 model (--semantic: stronger, slower "
    "to build, downloads it if needed; or CCARCHIVE_SEMANTIC=1), or by words only "
    "(--no-semantic; or CCARCHIVE_SEMANTIC=0). Default: the model's static word vectors "
    "when its files are installed, never downloaded."
)
MODEL_HELP = (
    "A folder holding the all-MiniLM-L6-v2 files (model.safetensors, "
    "tokenizer.json, config.json), for machines that cannot download them."
)


def semantic_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--semantic/--no-semantic and --semantic-model, on the commands that search or
    index."""

    @functools.wraps(f)
    def command(
        *args: Any, semantic: bool | None, semantic_model: str | None, **kwargs: Any
    ) -> Any:
        click.get_current_context().meta[_META] = (semantic, semantic_model)
        return f(*args, **kwargs)

    command = click.option(
        "--semantic-model",
        type=click.Path(file_okay=False),
        envvar="CCARCHIVE_MODEL_DIR",
        help=MODEL_HELP,
    )(command)
    return semantic_flag(command)


def semantic_flag(f: Callable[..., Any]) -> Callable[..., Any]:
    """`--semantic/--no-semantic`, None when neither is given (the default, or what
    `CCARCHIVE_SEMANTIC` says)."""
    return click.option("--semantic/--no-semantic", default=None, help=SEMANTIC_HELP)(f)


def with_flags(settings: Settings) -> Settings:
    """`settings` with the command's --semantic/--no-semantic and --semantic-model, if it
    has them."""
    ctx = click.get_current_context(silent=True)
    flags = ctx.meta.get(_META) if ctx is not None else None
    return settings.with_semantic(*flags) if flags else settings


def embed(settings: Settings, store: Any, *, quiet: bool) -> int | None:
    """`index`: bring the vectors up to date (the static encoder's by default, the full
    model's with --semantic), with a progress line on a terminal; None when semantic
    search is off or, by default, its parts are not here (said on stderr unless quiet)."""
    if settings.semantic is False:
        return None
    import threading

    from ccarchive.semantic import choose, load_encoder, vector_space

    choice = choose(settings)
    if choice.kind is None:
        if settings.semantic:
            raise click.ClickException(f"--semantic: {choice.why}")
        if not quiet:
            click.echo(f"semantic search {choice.why}", err=True)
        return None
    from ccarchive.semantic.builder import VectorBuilder
    from ccarchive.semantic.model_files import ModelError

    show = not quiet and sys.stderr.isatty()

    def say(line: str) -> None:
        if show:
            click.echo(f"\r\033[K{line}", err=True, nl=False)

    kind = choice.kind
    builder = VectorBuilder(
        store, lambda: load_encoder(settings, progress=say, kind=kind), vector_space(kind)
    )
    done = threading.Event()

    def report() -> None:
        while not done.wait(0.5):
            st = builder.state
            if st.running and st.todo:
                say(f"embedding {st.done:,} of {st.todo:,} texts ({100 * st.progress:.0f}%)")

    threading.Thread(target=report, daemon=True).start()
    try:
        return builder.update()
    except ModelError as exc:
        if settings.semantic:  # asked for: the command fails
            raise click.ClickException(str(exc)) from exc
        # the default: the words are indexed, the meaning is not; say why, exit 0
        done.set()
        say("")
        click.echo(f"semantic search off: {exc}", err=True)
        return None
    finally:
        done.set()
        say("")


def note_without_vectors(settings: Settings, svc: Any) -> None:
    """Say on stderr when --semantic finds no vectors to use (search stays lexical). The
    default says nothing: its vectors follow the words in seconds, and `status` tells."""
    if (
        settings.semantic
        and svc.semantic is not None
        and not svc.semantic.vectors.manifest().vectors
    ):
        click.echo(
            "semantic search: no vectors yet (the process that indexes builds them: "
            "`ccarchive index --semantic`); ranking by words only",
            err=True,
        )
