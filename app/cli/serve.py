"""`ccarchive serve`: the archive served to agents over MCP (stdio, or streamable HTTP).

`ccarchive.cli.main` adds this command when `serve` is first looked up (or the commands are
listed, as `ccarchive --help` does), so this module imports nothing heavy at module level:
the MCP SDK, uvicorn and the index are imported inside the command (the SDK alone takes
~0.9 s to import). `ccarchive search` never imports this module.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import click

from ccarchive.cli.options import archive_options, resolve_settings
from ccarchive.cli.semantic import semantic_flag

TOKEN_ENV = "CCARCHIVE_TOKEN"
"""Environment variable holding the bearer token for `serve --http`."""

LOOPBACK = ("127.0.0.1", "localhost", "::1")

MAX_SESSIONS = 100
"""HTTP sessions kept at once. One MCP client holds one session; a person runs a handful.
When the table is full the least used idle session is ended (`http_sessions.py`)."""

IDLE_TIMEOUT = 900.0
"""Seconds an HTTP session may go without a request before it is ended (the SDK's default
is 30 minutes; a client whose session ended gets 404 and initializes again)."""

HANDSHAKE_WAIT = 2.0
"""Seconds the first indexing pass waits for the client's handshake at most (a client
that never completes it still gets an index)."""

log = logging.getLogger("ccarchive.serve")


@click.command()
@archive_options
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind with --http.")
@click.option(
    "--port",
    default=8765,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port for --http.",
)
@click.option(
    "--token",
    envvar=TOKEN_ENV,
    show_envvar=True,
    help="Bearer token HTTP clients must send (default: one generated on first "
    "use and kept in the data dir, file http-token, mode 0600).",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Serve HTTP without a token (loopback only): any local user, and any "
    "program they run, can then read the archive.",
)
@click.option(
    "--allow-host",
    multiple=True,
    metavar="HOST[:PORT]",
    help="Extra Host header value to accept over HTTP (repeatable; HOST:* for any port).",
)
@click.option(
    "--allow-origin",
    multiple=True,
    metavar="ORIGIN",
    help="Browser Origin to accept over HTTP (repeatable).",
)
@click.option(
    "--no-redact",
    is_flag=True,
    help="Serve credentials as they are in the archive (redacted by default).",
)
@click.option(
    "--active-minutes",
    default=10.0,
    show_default=True,
    type=float,
    help="Leave the most recently active session (within this many minutes: "
    "the caller's own) out of searches; 0 keeps it in.",
)
@click.option(
    "--read-only",
    is_flag=True,
    help="Never index: serve the existing index, following the commits of "
    "whichever ccarchive process writes it (the app, `index --watch`).",
)
@click.option(
    "--max-sessions",
    default=MAX_SESSIONS,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="HTTP sessions kept at once; when full, the least used idle one is "
    "ended to admit a new client.",
)
@click.option(
    "--session-idle",
    default=IDLE_TIMEOUT,
    show_default=True,
    type=click.FloatRange(0.1, 7 * 86400),
    metavar="SECONDS",
    help="End an HTTP session after this long without a request.",
)
@click.option(
    "--request-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0.5, 3600),
    metavar="SECONDS",
    help="Close an HTTP connection whose request (headers and body) has not "
    "arrived whole this long after its first byte (slow clients, slowloris).",
)
@semantic_flag
@click.option(
    "--semantic-model",
    type=click.Path(file_okay=False),
    envvar="CCARCHIVE_MODEL_DIR",
    help="A folder holding the all-MiniLM-L6-v2 files, for machines that cannot download it.",
)
@click.option("-v", "--verbose", count=True, help="Log more to stderr (-vv: debug).")
def serve(
    archive: str | None,
    data_dir: str | None,
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    no_auth: bool,
    allow_host: tuple[str, ...],
    allow_origin: tuple[str, ...],
    no_redact: bool,
    active_minutes: float,
    read_only: bool,
    max_sessions: int,
    session_idle: float,
    request_timeout: float,
    semantic: bool | None,
    semantic_model: str | None,
    verbose: int,
) -> None:
    """Serve the archive to agents over MCP (stdio by default).

    Tools: search, context, get_entries, get_session, list_projects, list_sessions,
    timeline, list_plans, get_plan, list_memory_files, get_memory_file,
    search_history, status. All read-only. The index is kept current while serving.

    Examples:

        claude mcp add ccarchive -- ccarchive serve

        ccarchive serve --http --port 8765   (prints the `claude mcp add` line with
        its token)
    """
    # stdout belongs to the protocol on stdio: every log line goes to stderr.
    logging.basicConfig(
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(message)s",
        level=(logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)],
    )
    for noisy in ("httpx2", "mcp.server.lowlevel.server", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLogger().level))
    settings = resolve_settings(archive, data_dir).with_semantic(semantic, semantic_model)
    token_file = None
    if use_http:
        if no_auth and token:
            raise click.UsageError(
                "--no-auth and a token (--token or $CCARCHIVE_TOKEN) "
                "contradict each other: give one"
            )
        if no_auth and host not in LOOPBACK:
            raise click.UsageError(
                f"--host {host} is not loopback: --no-auth is refused there (anyone who "
                "can reach the port could read the archive)"
            )
        if token and len(token) < 16:
            raise click.UsageError("the token must be at least 16 characters")
        if not token and not no_auth:
            from ccarchive.cli.http_guard import http_token
            from ccarchive.config import UnsafeWrite

            try:
                token, token_file = http_token(settings.data_dir, settings.archive_root)
            except UnsafeWrite as exc:
                raise click.ClickException(str(exc)) from None
    from ccarchive.archive.discovery import archive_exists

    if not archive_exists(settings.archive_root):
        raise click.ClickException(
            f"no Claude Code archive at {settings.archive_root} (no projects/ folder); "
            "point at one with --archive PATH or $CLAUDE_CONFIG_DIR"
        )
    # deferred: the MCP SDK is only needed here
    from ccarchive.config import UnsafeWrite
    from ccarchive.mcp_server.server import build_server

    # The first indexing pass waits for the handshake (stdio) or the open port (HTTP):
    # until then `status` and every tool say "indexing: 0 %", never an empty archive.
    begin = threading.Event()
    try:
        service, stop = _open_read_only(settings) if read_only else _open_live(settings, begin)
    except UnsafeWrite as exc:
        raise click.ClickException(str(exc)) from None
    # the hooks Claude Code starts for each prompt ask this process (ccarchive.hooks.server)
    from ccarchive.hooks.server import start_hook_server

    hook_server = start_hook_server(service, settings)
    try:
        server = build_server(
            service,
            redact_secrets=not no_redact,
            active_minutes=active_minutes,
            project_hint=None if use_http else os.getcwd(),
            on_initialized=None if use_http else begin.set,
        )
        if use_http:
            run_http(
                server,
                host=host,
                port=port,
                token=token,
                token_file=token_file,
                allow_hosts=list(allow_host),
                allow_origins=list(allow_origin),
                max_sessions=max_sessions,
                session_idle=session_idle,
                request_timeout=request_timeout,
                log_level=("warning", "info", "debug")[min(verbose, 2)],
                on_listening=begin.set,
            )
        else:
            log.info("serving %s over stdio (%s)", settings.archive_root, service.role)
            server.run()
    finally:
        if hook_server is not None:
            hook_server.stop()
        stop()


def _open_live(settings: Any, begin: threading.Event) -> tuple[Any, Callable[[], None]]:
    """The live archive: index in the background if no one else does, follow otherwise.
    The role is taken at once; the first pass starts when `begin` is set."""
    from ccarchive.live.live_archive import LiveArchive
    from ccarchive.service import open_service

    live = LiveArchive(settings).start(begin=begin, wait=HANDSHAKE_WAIT)
    return open_service(settings, live=live), live.stop


def _open_read_only(settings: Any) -> tuple[Any, Callable[[], None]]:
    """The existing index, never written; other processes' commits are followed."""
    from ccarchive.index.store import complete_index_exists
    from ccarchive.live.live_archive import LiveArchive
    from ccarchive.service import open_service

    if not complete_index_exists(settings.archive_data_dir):
        raise click.ClickException(
            f"no index of {settings.archive_root} yet: run `ccarchive index` first "
            "(or serve without --read-only, which indexes)"
        )
    live = LiveArchive(settings, never_write=True).start()
    return open_service(settings, live=live), live.stop


# ---- HTTP ---------------------------------------------------------------------------
class BearerAuth:
    """ASGI middleware: every HTTP request must carry `Authorization: Bearer <token>`.

    A static token compared in constant time; enough for one user's own machines
    (OAuth would need an authorization server).
    """

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()
        import hmac  # here, not at module level: every `ccarchive --help` imports this module

        self._same = hmac.compare_digest

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = next((v for k, v in scope.get("headers", []) if k == b"authorization"), b"")
            if not self._same(got, self.expected):
                body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="ccarchive"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(
    server: Any,
    *,
    host: str = "127.0.0.1",
    token: str | None = None,
    allow_hosts: list[str] | None = None,
    allow_origins: list[str] | None = None,
    max_sessions: int = MAX_SESSIONS,
    session_idle: float = IDLE_TIMEOUT,
) -> Any:
    """The streamable-HTTP ASGI app: Host/Origin checks always on, bearer token if given,
    and a bounded session table (`ccarchive.mcp_server.http_sessions`).

    The SDK checks Host and Origin (DNS rebinding) only for a loopback host unless told
    otherwise; here the check is on for every host, with the bound host accepted. The app
    is assembled here rather than by `server.streamable_http_app()` because that builds
    the SDK's own session manager, which refuses new clients when its table is full.
    """
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    from ccarchive.mcp_server.http_sessions import BoundedSessionManager

    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    if host not in LOOPBACK and host not in ("0.0.0.0", "::"):
        name = f"[{host}]" if ":" in host else host
        hosts.append(f"{name}:*")
        origins += [f"http://{name}:*", f"https://{name}:*"]
    hosts += [h if ":" in h.rsplit("]", 1)[-1] else f"{h}:*" for h in allow_hosts or []]
    origins += list(allow_origins or [])
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    manager = BoundedSessionManager(
        app=server._lowlevel_server,
        json_response=True,
        security_settings=security,
        max_sessions=max_sessions,
        session_idle_timeout=session_idle,
    )
    app = Starlette(
        routes=[Route("/mcp", endpoint=StreamableHTTPASGIApp(manager))],
        lifespan=lambda _app: manager.run(),
    )
    app.state.session_manager = manager
    return BearerAuth(app, token) if token else app


def run_http(
    server: Any,
    *,
    host: str,
    port: int,
    token: str | None,
    allow_hosts: list[str],
    allow_origins: list[str],
    log_level: str,
    max_sessions: int = MAX_SESSIONS,
    session_idle: float = IDLE_TIMEOUT,
    token_file: Any = None,
    request_timeout: float = 10.0,
    on_listening: Callable[[], None] | None = None,
) -> None:
    """Serve `http_app` with uvicorn, its connections bounded and its slow requests cut
    (`ccarchive.cli.http_guard`), a flood logged once rather than per connection;
    `on_listening()` once the port accepts connections."""
    import asyncio

    import uvicorn

    from ccarchive.cli.http_guard import (
        OncePerMinute,
        backlog,
        connection_limit,
        guarded_protocol,
        quiet_loop_errors,
    )

    app = http_app(
        server,
        host=host,
        token=token,
        allow_hosts=allow_hosts,
        allow_origins=allow_origins,
        max_sessions=max_sessions,
        session_idle=session_idle,
    )
    if host in ("0.0.0.0", "::") and not allow_hosts:
        click.echo(
            "note: bound to all interfaces; clients must reach it by an address "
            "given with --allow-host (Host header check)",
            err=True,
        )
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/mcp"
    click.echo(
        f"ccarchive MCP server on {url}"
        f"{' (bearer token required)' if token else ' (no token: --no-auth)'}",
        err=True,
    )
    if token:
        shown = token if token_file else f"${TOKEN_ENV}"
        where = f"kept in {token_file}" if token_file else "given"
        click.echo(
            f"the token is {where}; add the server to Claude Code with:\n"
            f"  claude mcp add --transport http ccarchive {url} "
            f'--header "Authorization: Bearer {shown}"',
            err=True,
        )
    limit = connection_limit()
    protocol = guarded_protocol(limit, request_timeout)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        access_log=False,
        lifespan="on",
        http=protocol,
        backlog=backlog(limit),
    )
    for name in ("uvicorn.error", "asyncio"):
        logging.getLogger(name).addFilter(OncePerMinute())

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if on_listening is not None:
                on_listening()

        async def shutdown(self, sockets: Any = None) -> None:
            protocol.flood.summary()  # before uvicorn raises the signal that stopped it
            await super().shutdown(sockets)

    userver = Server(config)

    async def serve_guarded() -> None:
        asyncio.get_running_loop().set_exception_handler(quiet_loop_errors(protocol.flood))
        await userver.serve()

    asyncio.run(serve_guarded())
