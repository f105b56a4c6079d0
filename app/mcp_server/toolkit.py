"""What every MCP tool shares: the annotation, the budget, the shape of a result, errors.

Each `tools_*` module registers its tools on the server with `register(mcp, tools)`; the
`ToolContext` it gets is what the tools close over (the service, the caller's active
session, the call budget, redaction). Names with a leading underscore are private to the
`ccarchive.mcp_server` package, not to this module.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from ccarchive.mcp_server.caller_session import ActiveSessions
from ccarchive.redact import redact
from ccarchive.service import ArchiveService
from ccarchive.service.arguments import ServiceError, decode_cursor, encode_cursor

log = logging.getLogger(__name__)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)

CALL_BUDGET = 24_000
"""Characters of text one tool call may return, by default (about 6k tokens)."""

NO_REDACT_KEYS = frozenset({"id", "session_id", "agent_id", "next_cursor", "tool_use_id",
                            "subagent_id", "codename", "filename", "project", "path"})
"""Keys whose values are handles the caller passes back: redacting one would break it."""

_PRUNE = (None, "", [], {}, False)


def _prune(obj: Any) -> Any:
    """Drop empty values from dicts (the text copy is what the model reads: every
    `"agent_id": ""` costs tokens and says nothing)."""
    if isinstance(obj, dict):
        return {k: _prune(v) for k, v in obj.items()
                if not any(v is p or (type(v) is type(p) and v == p) for p in _PRUNE)}
    if isinstance(obj, list):
        return [_prune(v) for v in obj]
    return obj


def _redact_tree(obj: Any) -> Any:
    """Second line of defence: redact every string the service might have let through."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: (v if k in NO_REDACT_KEYS else _redact_tree(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_redact_tree(v) for v in obj]
    return obj


UNEXPECTED = ("the server could not answer this call with these arguments; check that "
              "ids, cursors and offsets are ones earlier results gave (the server logged "
              "the details)")


_SCHEMA_ERROR = re.compile(r"^(?P<prefix>Error executing tool \S+: )\d+ validation errors? for "
                           r"\S+\n(?P<body>.*)", re.S)
_SCHEMA_ITEM = re.compile(r"^(?P<loc>\S[^\n]*)\n  (?P<msg>[^\n]+?)(?: \[type=[^\n]*)?$",
                          re.M)


def schema_message(text: str) -> str | None:
    """The SDK's report of arguments that fail a tool's input schema (pydantic's text:
    its model's name, type codes, a link), as "invalid arguments: id: String should have
    at least 1 character; ...". None if `text` is not one."""
    m = _SCHEMA_ERROR.match(text)
    if not m:
        return None
    items = [f"{i['loc']}: {i['msg']}" for i in _SCHEMA_ITEM.finditer(m["body"])
             if not i["loc"].startswith("For further information")]
    if not items:
        return None
    return (f"{m['prefix']}invalid arguments: {'; '.join(items)} (see the tool's input "
            "schema)")


class SchemaErrors:
    """Server middleware: a tool call whose arguments fail the input schema is answered
    with `schema_message` instead of pydantic's text."""

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method != "tools/call":
            return result
        if isinstance(result, dict):  # the wire form (camelCase keys)
            content = result.get("content") or []
            text = content[0].get("text") if result.get("isError") and content \
                and isinstance(content[0], dict) else None
            better = schema_message(text) if isinstance(text, str) else None
            if better is not None:
                return {**result, "content": [{**content[0], "text": better}]}
            return result
        content = getattr(result, "content", None) or []
        text = getattr(content[0], "text", None) if getattr(result, "is_error", False) \
            and content else None
        better = schema_message(text) if isinstance(text, str) else None
        if better is None:
            return result
        return result.model_copy(update={"content": [TextContent(type="text", text=better)]})


def json_size(model: BaseModel) -> int:
    return len(model.model_dump_json(exclude_defaults=True))


@contextlib.contextmanager
def tool_errors() -> Iterator[None]:
    """Turn a bad request into a `ToolError` whose message reaches the model as is.

    (Any other exception reaches the model only as "Error executing tool x", which
    does not help it fix its call.)
    """
    try:
        yield
    except ToolError:
        raise
    except ServiceError as exc:
        raise ToolError(str(exc)) from exc
    except Exception as exc:
        # What the service did not foresee (Tantivy refusing a value, a bug): logged
        # with its traceback for whoever runs the server, and answered without it: an
        # internal message would tell the caller nothing it can act on.
        log.warning("a tool call failed unexpectedly", exc_info=True)
        raise ToolError(UNEXPECTED) from exc



def within_budget(rows: list[Any], budget: int) -> list[Any]:
    """The first rows whose text fits the budget (at least one)."""
    used = 0
    for i, row in enumerate(rows):
        used += json_size(row)
        if i and used > budget:
            return rows[:i]
    return rows


def advance_cursor(cursor: str | None, next_cursor: str | None, kept: int) -> str:
    """A cursor that continues right after the first `kept` rows of this page."""
    state = decode_cursor(cursor)
    later = decode_cursor(next_cursor)
    gen = later.get("g") or state.get("g") or int(time.time() * 1000) + 1
    return encode_cursor({"o": int(state.get("o", 0)) + kept, "g": gen})


@dataclass(frozen=True)
class ToolContext:
    """What the tools of one server close over."""

    service: ArchiveService
    active: ActiveSessions
    call_budget: int
    redact_secrets: bool

    def result(self, model: BaseModel) -> CallToolResult:
        """The tool's answer: the structured copy as the output schema has it, and a
        compact JSON text copy without empty fields (what the model reads)."""
        data = model.model_dump(mode="json")
        if self.redact_secrets:
            data = _redact_tree(data)
        text = orjson.dumps(_prune(data)).decode()
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=data)
