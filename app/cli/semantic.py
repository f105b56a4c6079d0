"""The command line's side of semantic search: its two options and `index --semantic`.

`semantic_options` adds `--semantic` and `--semantic-model` to a command and keeps their
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
    "Also rank by meaning (needs pip install 'ccarchive[semantic]'; or set CCARCHIVE_SEMANTIC=1)."
)
MODEL_HELP = (
    "A folder holding the all-MiniLM-L6-v2 files (model.safetensors, "
    "tokenizer.json, config.json), for machines that cannot download them."
)


def semantic_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--semantic and --semantic-model, on the commands that search or index."""

    @functools.wraps(f)
    def command(*args: Any, semantic: bool, semantic_model: str | None, **kwargs: Any) -> Any:
        click.get_current_context().meta[_META] = (semantic, semantic_model)
        return f(*args, **kwargs)

    command = click.option(
        "--semantic-model",
        type=click.Path(file_okay=False),
        envvar="CCARCHIVE_MODEL_DIR",
        help=MODEL_HELP,
    )(command)
    return click.option("--semantic", is_flag=True, help=SEMANTIC_HELP)(command)


def with_flags(settings: Settings) -> Settings:
    """`settings` with the command's --semantic and --semantic-model, if it has them."""
    ctx = click.get_current_context(silent=True)
    flags = ctx.meta.get(_META) if ctx is not None else None
    return settings.with_semantic(*flags) if flags else settings


def embed(settings: Settings, store: Any, *, quiet: bool) -> int | None:
    """`index --semantic`: bring the vectors up to date, with a progress line on a
    terminal; None when semantic search is off."""
    if not settings.semantic:
        return None
    import threading

    from ccarchive.semantic import EXTRA, backend, load_encoder, missing_dependencies, vector_space

    missing = missing_dependencies()
    if missing:
        raise click.ClickException(f"--semantic needs {', '.join(missing)}: {EXTRA}")
    from ccarchive.semantic.builder import VectorBuilder
    from ccarchive.semantic.model_files import ModelError

    show = not quiet and sys.stderr.isatty()

    def say(line: str) -> None:
        if show:
            click.echo(f"\r\033[K{line}", err=True, nl=False)

    kind = backend()
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
        raise click.ClickException(str(exc)) from exc
    finally:
        done.set()
        say("")


def note_without_vectors(svc: Any) -> None:
    """Say on stderr when --semantic finds no vectors to use (search stays lexical)."""
    if svc.semantic is not None and not svc.semantic.vectors.manifest().vectors:
        click.echo(
            "semantic search: no vectors yet (the process that indexes builds them: "
            "`ccarchive index --semantic`); ranking by words only",
            err=True,
        )
