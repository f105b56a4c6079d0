"""The `ccarchive` command: the app by default, and commands for scripts.

Every command is a thin shell over `ArchiveService` (the same calls the app and the MCP
server make). Heavy modules (Textual, the MCP SDK, rich) are imported inside the
commands that need them: `ccarchive search --json` must start in well under 100 ms.

Output piped to another program is never wrapped (as rg and git do): a wrapped line
split entry ids. What a command left out ("30 of 273 shown") goes to stderr then, so the
rows on stdout stay rows; on a terminal it is the last line.
"""

from __future__ import annotations

import atexit
import difflib
import gc
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from ccarchive import __version__
from ccarchive.archive.discovery import archive_exists
from ccarchive.cli.options import archive_options, resolve_settings
from ccarchive.cli.semantic import embed, note_without_vectors, semantic_options
from ccarchive.config import Settings


class DefaultGroup(click.Group):
    """A group that runs `tui` when no command is given (`ccarchive` opens the app).

    `serve` (in `ccarchive.cli.serve`) is added when a command that is not defined yet is
    looked up (its name, or a typo: the suggestions include it), or when the commands are
    listed (`--help`): defining it at import cost ~1 ms of every command's start.
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        # Skip the collector's walks over every object at interpreter exit: CPython runs
        # full collections then over all that the imports created (click, typing,
        # inspect, the index's modules...), ~7 ms of the ~85 ms of `ccarchive search`.
        # What a command must release (the index, its writer and lock, files) is
        # released by reference counting when it returns, not by the collector, so the
        # objects still alive at exit are frozen (`gc.freeze`) to be left out of it.
        atexit.unregister(gc.freeze)  # registered once, however often main runs (tests)
        atexit.register(gc.freeze)
        return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        # The reader closed the pipe (`ccarchive search gc | head -1`): they have what
        # they wanted, which is success (click's own handler exits 1, so scripts under
        # `set -o pipefail` failed on text output and not on --json). What is still
        # buffered goes nowhere rather than raise again at exit.
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _pipe_closed()

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0].startswith("-") and args[0] not in ("--help", "-h", "--version")):
            args = ["tui", *args]
        return super().parse_args(ctx, args)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The group's options and commands, then the options of the app (`tui`): they
        are given without a command (`ccarchive --demo`), so `--help` must list them."""
        super().format_options(ctx, formatter)
        app = self.get_command(ctx, "tui")
        if app is None:
            return
        sub = click.Context(app, info_name="tui", parent=ctx)
        rows = [
            rec
            for p in app.get_params(sub)
            if not set(p.opts) & set(sub.help_option_names)
            and (rec := p.get_help_record(sub)) is not None
        ]
        with formatter.section("Options of the app (ccarchive [OPTIONS], the default command)"):
            formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register_optional_commands()
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            _register_optional_commands()
            command = super().get_command(ctx, cmd_name)
        return command


# The search command's parsing: query words may start with `-` and stand anywhere.
# A search query is free text in the search language, where `-flaky` means "not flaky" and
# people search for flags (`--no-verify`); click would take those for options it does not
# know, and `-hash` for `-h`. `QueryCommand` leaves click only the command's own options.
class QueryCommand(click.Command):
    """A command whose free words are a search query, wherever they stand and even when
    they start with `-` (`ccarchive search --no-verify`, `search retry -flaky --json`).

    Only the command's own option names are options; every other word is moved behind a
    `--` before click parses, so click never reads it as an unknown option (or `-hash`
    as `-h`). Words after a `--` of the reader's are query words too.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        takes_value: dict[str, bool] = {}
        for p in self.get_params(ctx):
            if isinstance(p, click.Option):
                for name in (*p.opts, *p.secondary_opts):
                    takes_value[name] = not p.is_flag and not p.count
        options: list[str] = []
        words: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                words.extend(rest)
                break
            name = arg.split("=", 1)[0]
            if name in takes_value:
                options.append(arg)
                if takes_value[name] and "=" not in arg:
                    value = next(rest, None)
                    if value is not None:
                        options.append(value)
            else:
                misspelled(name, [n for n in takes_value if n.startswith("--")], ctx)
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words])


SIMILAR = 0.75
"""How close a `--word` must be to an option's name to be taken for a misspelling of it."""


def misspelled(word: str, options: list[str], ctx: click.Context) -> None:
    """A `--word` that reads like one of the command's options (`--grup`, `--limt`) is
    an error that names it: taken as query words, it changed the search silently. A
    flag searched for on purpose (`--no-verify`) is like none of them; one that is can
    still be searched, after a `--`."""
    if not word.startswith("--") or len(word) < 4:
        return
    close = difflib.get_close_matches(word, options, n=1, cutoff=SIMILAR)
    if close:
        raise click.UsageError(
            f"no such option: {word} (did you mean {close[0]}? to search for "
            f"{word!r}, put it after --)",
            ctx,
        )


def _more(shown: int, total: int | None, noun: str = "", cursor: str | None = None) -> None:
    """Say that the rows printed are not all (`total` None: how many is not known):
    to stderr when stdout is piped, as the last line on a terminal; with the cursor of
    the page after them when there is one."""
    if total is not None and total <= shown:
        return
    what = f" {noun}" if noun else ""
    of = f" of {total:,}" if total is not None else ""
    then = f", or --cursor {cursor} for the next page" if cursor else ""
    click.echo(f"{shown:,}{of}{what} shown; --limit N for more{then}", err=not sys.stdout.isatty())


def _require_archive(settings: Settings) -> None:
    if not archive_exists(settings.archive_root):
        raise click.ClickException(
            f"no Claude Code archive at {settings.archive_root} (no projects/ folder).\n"
            "  Point at one with --archive PATH or $CLAUDE_CONFIG_DIR, or try the demo:"
            " `ccarchive demo`."
        )


def _open(settings: Settings, *, quiet: bool = False):  # -> ArchiveService
    """The service over an up-to-date-enough index: built first if it never was."""
    from ccarchive.service import open_service

    _require_archive(settings)
    store = _store(settings)
    if not store.complete:
        _run_index(settings, store, quiet=quiet)
    return open_service(settings, store=store)


def _store(settings: Settings, *, verify: bool = False) -> Any:  # -> IndexStore
    """The index of `settings`, opened; a link planted where it goes is refused with a
    message (`config.UnsafeWrite`), never followed."""
    from ccarchive.config import UnsafeWrite
    from ccarchive.index.store import IndexStore

    try:
        return IndexStore(
            settings.archive_data_dir, verify=verify, archive_root=settings.archive_root
        )
    except UnsafeWrite as exc:
        raise click.ClickException(str(exc)) from None


def _run_index(settings: Settings, store: Any, *, quiet: bool, rebuild: bool = False) -> Any:
    from ccarchive.index.indexer import Indexer
    from ccarchive.index.store import IndexLocked

    try:
        writer = store.try_writer()
    except IndexLocked:
        click.echo(
            "another ccarchive process is indexing this archive; using what it has indexed so far",
            err=True,
        )
        return None
    if rebuild:
        writer.delete_all_documents()
        writer.commit()
        store.reload()
    indexer = Indexer(store, settings.archive_root, writer)
    try:
        show = not quiet and sys.stderr.isatty()
        if show:
            from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                DownloadColumn(),
                TimeRemainingColumn(),
                console=_console(err=True),
                transient=True,
            ) as bar:
                task = bar.add_task("indexing", total=None)

                def progress(p: Any) -> None:
                    bar.update(
                        task,
                        total=p.bytes_total,
                        completed=p.bytes_done,
                        description=f"indexing {p.files_done}/{p.files_total} files, "
                        f"{p.docs:,} docs",
                    )

                report = indexer.run(progress=progress)
        else:
            report = indexer.run()
    finally:
        indexer.close()
    store.mark_complete()
    return report


def _pipe_closed() -> None:
    """The reader of stdout went away: what is left goes to /dev/null, and it is a
    success (exit 0)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    raise SystemExit(0)


def _console(err: bool = False) -> Any:
    """rich's console; piped, it never wraps (rich wraps at 80 columns off a terminal)."""
    from rich.console import Console

    if (sys.stderr if err else sys.stdout).isatty():
        return Console(stderr=err, highlight=False)
    console = Console(
        file=TrimmedLines(sys.stderr if err else sys.stdout),  # type: ignore[arg-type]
        highlight=False,
        soft_wrap=True,
        width=1_000_000,
    )
    console.on_broken_pipe = _pipe_closed  # type: ignore[method-assign]  # rich's own exits 1
    return console


class TrimmedLines:
    """A text stream that drops the blanks at the end of each line: rich pads a table's
    cells to their column, which piped output kept as trailing spaces (`cat -A`)."""

    def __init__(self, out: Any) -> None:
        self.out = out
        self._line = ""

    def write(self, text: str) -> int:
        *done, self._line = (self._line + text).split("\n")
        if done:
            self.out.write("".join(line.rstrip(" ") + "\n" for line in done))
        return len(text)

    def flush(self) -> None:
        if self._line:
            self.out.write(self._line)
            self._line = ""
        self.out.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return int(self.out.fileno())


def _dump(obj: Any) -> None:
    import orjson

    sys.stdout.buffer.write(orjson.dumps(obj, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


def _fail(exc: Exception) -> None:
    raise click.ClickException(str(exc)) from exc


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ccarchive")
def main() -> None:
    """Search, browse and replay your Claude Code archive (~/.claude).

    With no command, opens the app. Example:

        ccarchive search "migration project:billing after:7d"
    """


@main.command()
@archive_options
@semantic_options
@click.option("--demo", is_flag=True, help="Open the demo archive instead of yours.")
def tui(archive: str | None, data_dir: str | None, demo: bool) -> None:
    """Open the terminal app (the default command)."""
    settings = resolve_settings(archive, data_dir)
    if demo or not archive_exists(settings.archive_root):
        if not demo:
            click.echo(f"No Claude Code archive at {settings.archive_root}.", err=True)
            if sys.stdin.isatty() and not click.confirm(
                "Open a demo archive (written by ccarchive into its data dir)?",
                default=True,
                err=True,
            ):
                raise SystemExit(1)
            if not sys.stdin.isatty():
                click.echo("Opening the demo archive (ccarchive demo).", err=True)
        settings = _demo_settings(settings)
    from ccarchive.tui.app import run_app  # deferred: Textual is only needed here

    run_app(settings)


def _demo_settings(settings: Settings) -> Settings:
    """Write (once) the demo archive into the data dir and point at it."""
    import shutil
    import tempfile

    from ccarchive.demo import write_demo_archive

    root = settings.data_dir / "demo-archive"
    if not (root / "projects").is_dir():
        # Written beside and renamed into place, so an interrupted write never leaves a
        # half demo that the next run would refuse to write over.
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".demo-", dir=settings.data_dir))
        try:
            write_demo_archive(tmp / "claude")
            shutil.rmtree(root, ignore_errors=True)
            (tmp / "claude").rename(root)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return replace(settings, archive_root=root.resolve())


@main.command()
@archive_options
@click.option(
    "--open/--no-open",
    "open_app",
    default=True,
    help="Open the app on it (default), or only print where it is.",
)
@click.option("--fresh", is_flag=True, help="Write it again (timestamps relative to now).")
def demo(archive: str | None, data_dir: str | None, open_app: bool, fresh: bool) -> None:
    """Write a small demo archive and open the app on it.

    The demo is shaped like a real ~/.claude: sessions with tool calls and subagents,
    plans with agent subplans, memory files and prompt history.
    """
    import shutil

    settings = resolve_settings(archive, data_dir)
    root = settings.data_dir / "demo-archive"
    if fresh and root.exists():
        shutil.rmtree(root)
        shutil.rmtree(
            Settings(root.resolve(), settings.data_dir).archive_data_dir, ignore_errors=True
        )
    demo_settings = _demo_settings(settings)
    click.echo(f"demo archive: {demo_settings.archive_root}", err=True)
    if open_app:
        from ccarchive.tui.app import run_app

        run_app(demo_settings)


@main.command()
@archive_options
@semantic_options
@click.option("--rebuild", is_flag=True, help="Drop the index and read everything again.")
@click.option("--watch", is_flag=True, help="Stay running and index changes as they happen.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def index(
    archive: str | None, data_dir: str | None, rebuild: bool, watch: bool, as_json: bool
) -> None:
    """Index the archive (only what changed since the last run), then embed what is new
    for semantic search (see --semantic)."""

    settings = resolve_settings(archive, data_dir)
    _require_archive(settings)
    store = _store(settings, verify=True)
    if store.recovered:
        click.echo(store.recovered, err=True)
    if watch:
        from ccarchive.live.watch import watch_forever

        watch_forever(settings, rebuild=rebuild)
        return
    report = _run_index(settings, store, quiet=as_json, rebuild=rebuild)
    if report is None:
        raise SystemExit(1)
    embedded = embed(settings, store, quiet=as_json)
    if as_json:
        _dump(
            {
                "files_seen": report.files_seen,
                "files_read": report.files_read,
                "bytes_read": report.bytes_read,
                "documents_added": report.docs_added,
                "seconds": round(report.seconds, 3),
                "skipped": dict(report.skipped),
                "files_refused": dict(report.refused),
                "files_gone": report.files_gone,
                "embedded": embedded,
            }
        )
        return
    mb = report.bytes_read / 1e6
    rate = mb / report.seconds if report.seconds else 0
    click.echo(
        f"indexed {report.files_read:,} of {report.files_seen:,} files, {mb:,.1f} MB, "
        f"{report.docs_added:,} documents in {report.seconds:.1f}s ({rate:,.0f} MB/s)"
    )
    if report.files_gone:
        from ccarchive.service.naming import plural

        click.echo(f"{plural(report.files_gone, 'file')} gone from disk (kept in the index)")
    if report.skipped:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(report.skipped.items()))
        click.echo(f"skipped lines: {parts}")
    if report.refused:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(report.refused.items()))
        click.echo(
            f"files not read: {parts} (ccarchive reads only regular files of the "
            "archive's own, with one link; see the log for which)"
        )
    if embedded is not None:
        click.echo(f"semantic search: {embedded:,} texts embedded")


@main.command(cls=QueryCommand)
@archive_options
@click.argument("query", nargs=-1)
@click.option("--project", help="Only this project (a part of its path).")
@click.option(
    "--kind",
    multiple=True,
    help="prompt, assistant, thinking, tool_call, "
    "tool_result, summary, event, plan, memory, history (repeatable).",
)
@click.option("--since", help="From this date: 2026-02-01, 7d, 2w, yesterday.")
@click.option("--until", help="Before this date.")
@click.option("--limit", default=20, show_default=True, type=int)
@click.option("--cursor", help="The next_cursor of an earlier page (--json): the page after it.")
@click.option(
    "--entries",
    is_flag=True,
    help="Single entries, not sessions (the default "
    "with --kind or a kind:/tool:/file:/role: filter).",
)
@click.option("--group", is_flag=True, hidden=True)  # sessions: now the default
@click.option("--all-kinds", is_flag=True, help="Include tool results and thinking.")
@click.option("--recent", is_flag=True, help="Favour recent hits.")
@click.option(
    "--no-redact",
    is_flag=True,
    help="Do not redact again what is shown (the index "
    "never holds credentials: snippets and titles stay redacted).",
)
@click.option("--json", "as_json", is_flag=True, help='Print {"hits": [...]} as JSON.')
@semantic_options
def search(
    archive: str | None,
    data_dir: str | None,
    query: tuple[str, ...],
    project: str | None,
    kind: tuple[str, ...],
    since: str | None,
    until: str | None,
    limit: int,
    cursor: str | None,
    entries: bool,
    group: bool,
    all_kinds: bool,
    recent: bool,
    no_redact: bool,
    as_json: bool,
) -> None:
    """Search the archive. QUERY uses the search language:

    Sessions ranked by their best turns (--entries for single entries). Plain words
    rank by any of them; +word, "exact phrases", AND/OR/NOT, (groups), migra*, and filters
    project: session:
    kind: role: tool: file: model: branch: after: before:. Options may come before or
    after it; any other word is part of the query, even one that starts with `-`
    (`-flaky` leaves out what says flaky; `--no-verify` is searched).

    Example:

        ccarchive search 'tool:Bash "npm test" after:2026-02-01' --json
    """
    from ccarchive.service.arguments import ServiceError
    from ccarchive.service.models import to_jsonable

    settings = resolve_settings(archive, data_dir)
    svc = _open(settings, quiet=as_json)
    svc.redact_secrets = not no_redact
    note_without_vectors(settings, svc)
    if svc.semantic is not None:
        svc.semantic.once = True  # one query: by meaning without numpy where it can be
    from ccarchive.service.search import narrows_to_entries

    text = " ".join(query)
    group = group or not (entries or narrows_to_entries(text, kind))
    try:
        page = svc.search(
            text,
            project=project,
            kind=list(kind) or None,
            since=since,
            until=until,
            limit=limit,
            group_by_session=group,
            include_tool_results=all_kinds,
            include_thinking=all_kinds,
            recency=recent,
            cursor=cursor,
        )
    except ServiceError as exc:
        _fail(exc)
    if page.ignored:  # it matched everything: no answer to what was asked
        _ignored(page, as_json)
    if as_json:
        data = to_jsonable(page)
        out = {
            "hits": data["hits"],
            "total": data["total"],
            "warnings": data["warnings"],
            "next_cursor": data["next_cursor"],
        }
        if group:
            out["groups"] = data["groups"]
        _dump(out)
        return
    from ccarchive.cli.format import print_search

    print_search(_console(), page, svc.project_name)
    if page.next_cursor:  # grouped, the number of sessions is not counted
        if page.groups is not None:
            _more(len(page.groups), None, "sessions", page.next_cursor)
        else:
            _more(len(page.hits), page.total, "hits", page.next_cursor)


def _ignored(page: Any, as_json: bool) -> None:
    """Every word of the query was ignored: say which and why, print no hits, exit 1."""
    if as_json:
        _dump(
            {
                "hits": [],
                "total": 0,
                "warnings": page.warnings,
                "next_cursor": None,
                "ignored": True,
            }
        )
    else:
        from ccarchive.text import clip

        for w in page.warnings:
            click.echo(f"note: {clip(w, 200)}", err=True)
    click.echo("nothing searched: every word of the query was ignored", err=True)
    sys.exit(1)


@main.command()
@archive_options
@click.option("--json", "as_json", is_flag=True)
@semantic_options
def status(archive: str | None, data_dir: str | None, as_json: bool) -> None:
    """Archive and index figures: what is indexed, what was skipped and why, and whether
    search ranks by meaning (with the same --semantic/--no-semantic as search)."""
    from ccarchive.live.live_archive import index_role
    from ccarchive.service.models import to_jsonable

    settings = resolve_settings(archive, data_dir)
    svc = _open(settings, quiet=as_json)
    svc.role = index_role(svc.store)
    st = svc.status()
    if as_json:
        _dump(to_jsonable(st))
        return
    from ccarchive.cli.format import print_status

    print_status(_console(), st)


@main.command()
@archive_options
@click.argument("ident")
@click.option(
    "--limit",
    default=200,
    show_default=True,
    type=click.IntRange(min=1),
    help="Entries of a session to show (any number: read in pages).",
)
@click.option("--all", "whole", is_flag=True, help="Every entry of the session.")
@click.option("--cursor", help="The next_cursor of an earlier page (--json): the page after it.")
@click.option("--json", "as_json", is_flag=True)
def show(
    archive: str | None,
    data_dir: str | None,
    ident: str,
    limit: int,
    whole: bool,
    cursor: str | None,
    as_json: bool,
) -> None:
    """Show a session (its id, or any start of it that is unique) or a single entry (an
    id from search, or one printed under each entry here).

    Each tool call reads as its one-line summary (the command, file or pattern)."""
    from ccarchive.service.arguments import ServiceError
    from ccarchive.service.models import to_jsonable

    settings = resolve_settings(archive, data_dir)
    svc = _open(settings, quiet=as_json)
    from ccarchive.cli.format import print_entry, print_transcript

    try:
        if ":" in ident:
            entry = svc.entries([ident])[0]
            if as_json:
                _dump(to_jsonable(entry))
            else:
                print_entry(_console(), entry)
            return
        info = svc.session(ident)  # a unique prefix is enough; several: it says which
        page = _transcript(svc, info.session_id, None if whole else limit, cursor)
    except ServiceError as exc:
        _fail(exc)
    if as_json:
        _dump(to_jsonable(page))
        return
    print_transcript(_console(), page, svc.tool_summaries(page.entries))
    _more(
        page.start + len(page.entries) if page.next_cursor else page.total,
        page.total,
        "entries",
        page.next_cursor,
    )


SHOW_PAGE = 1000
"""Entries read per call of the service's transcript (its cap)."""


def _transcript(svc: Any, session_id: str, limit: int | None, cursor: str | None) -> Any:
    """`limit` entries of a transcript from `cursor` (None: all of them), read a page
    of the service's at a time: one page object with every entry and the cursor after."""
    page = svc.transcript(session_id, limit=min(SHOW_PAGE, limit or SHOW_PAGE), cursor=cursor)
    entries = list(page.entries)
    while page.next_cursor and (limit is None or len(entries) < limit):
        want = SHOW_PAGE if limit is None else min(SHOW_PAGE, limit - len(entries))
        page = svc.transcript(session_id, limit=want, cursor=page.next_cursor)
        entries.extend(page.entries)
    page.start = max(0, page.start - (len(entries) - len(page.entries)))
    page.entries = entries
    return page


@main.command()
@archive_options
@click.option("--project")
@click.option("--since")
@click.option("--limit", default=30, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def sessions(
    archive: str | None,
    data_dir: str | None,
    project: str | None,
    since: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """List sessions, most recent first."""
    from ccarchive.service.arguments import ServiceError
    from ccarchive.service.models import to_jsonable

    svc = _open(resolve_settings(archive, data_dir), quiet=as_json)
    try:
        page = svc.sessions(project=project, since=since, limit=limit)
    except ServiceError as exc:
        _fail(exc)
    if as_json:
        _dump(to_jsonable(page))
        return
    from ccarchive.cli.format import print_sessions

    if not page.sessions:  # no table with a header and no row
        what = " ".join(f"{k} {v}" for k, v in (("in", project), ("since", since)) if v)
        click.echo(f"no sessions{' ' + what if what else ''}", err=not sys.stdout.isatty())
        return
    print_sessions(_console(), page, svc.project_name)
    _more(len(page.sessions), page.total)


@main.command(
    context_settings={"ignore_unknown_options": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook(args: tuple[str, ...]) -> None:
    """Claude Code hooks: add relevant past work to a session's context.

    `ccarchive hook user-prompt-submit | session-start [--limit N] [--max-chars N]`,
    the same as the `ccarchive-hook` command, which Claude Code runs (without click's
    start-up); `ccarchive hook --help` for its options.
    """
    from ccarchive.hooks.main import main as hook_main

    sys.exit(hook_main(list(args), prog="ccarchive hook"))


_optional_registered = False


def _register_optional_commands() -> None:
    """`serve` adds itself when first looked up (once); it imports the MCP server only
    when it runs. Called by `DefaultGroup`."""
    global _optional_registered
    if _optional_registered:
        return
    _optional_registered = True
    from ccarchive.cli.serve import serve

    main.add_command(serve)


if __name__ == "__main__":  # pragma: no cover
    main()
