"""What every MCP tool shares: the annotation, the budget, the shape of a result, errors.

Each `tools_*` module registers its tools on the server with `register(mcp, tools)`; the
`ToolContext` it gets is what the tools close over (the service, the caller's active
session, the call budget, redaction). Names with a leading underscore are private to the
`ccarchive.mcp_server` package, not to this module.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from ccarchive.mcp_server.caller_session import ActiveSessions
from ccarchive.redact import redact
from ccarchive.service import ArchiveService
from ccarchive.service.arguments import ServiceError, decode_cursor, encode_cursor

log = logging.getLogger(__name__)

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

CALL_BUDGET = 24_000
"""Characters of text one tool call may return, by default (about 6k tokens)."""

NO_REDACT_KEYS = frozenset(
    {
        "id",
        "session_id",
        "agent_id",
        "next_cursor",
        "tool_use_id",
        "subagent_id",
        "codename",
        "filename",
        "project",
        "path",
    }
)
"""Keys whose values are handles the caller passes back: redacting one would break it."""


def _redact_tree(obj: Any) -> Any:
    """Second line of defence: redact every string the service might have let through."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: (v if k in NO_REDACT_KEYS else _redact_tree(v)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_redact_tree(v) for v in obj]
    return obj


UNEXPECTED = (
    "the server could not answer this call with these arguments; check that "
    "ids, cursors and offsets are ones earlier results gave (the server logged "
    "the details)"
)


_SCHEMA_ERROR = re.compile(
    r"^(?P<prefix>Error executing tool \S+: )\d+ validation errors? for "
    r"\S+\n(?P<body>.*)",
    re.S,
)
_SCHEMA_ITEM = re.compile(r"^(?P<loc>\S[^\n]*)\n  (?P<msg>[^\n]+?)(?: \[type=[^\n]*)?$", re.M)


def schema_message(text: str) -> str | None:
    """The SDK's report of arguments that fail a tool's input schema (pydantic's text:
    its model's name, type codes, a link), as "invalid arguments: id: String should have
    at least 1 character; ...". None if `text` is not one."""
    m = _SCHEMA_ERROR.match(text)
    if not m:
        return None
    items = [
        f"{i['loc']}: {i['msg']}"
        for i in _SCHEMA_ITEM.finditer(m["body"])
        if not i["loc"].startswith("For further information")
    ]
    if not items:
        return None
    return f"{m['prefix']}invalid arguments: {'; '.join(items)} (see the tool's input schema)"


INVALID_PARAMS = -32602


class SchemaErrors:
    """Server middleware for the calls a model gets wrong: an unknown tool is a JSON-RPC
    error that names the tools (the spec's invalid params, not a tool result); an
    argument the tool does not take is refused with the ones it does (a misspelled
    filter would otherwise widen the search unseen); arguments that fail the input
    schema are answered with `schema_message` instead of pydantic's text.

    `schemas` is set once the tools are registered: tool name -> input schema.
    """

    def __init__(self) -> None:
        self.schemas: dict[str, dict[str, Any]] = {}

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method == "tools/call" and self.schemas:
            refused = self._refuse(ctx.params or {})
            if refused is not None:
                return refused
        result = await call_next(ctx)
        if ctx.method != "tools/call":
            return result
        if isinstance(result, dict):  # the wire form (camelCase keys)
            content = result.get("content") or []
            text = (
                content[0].get("text")
                if result.get("isError") and content and isinstance(content[0], dict)
                else None
            )
            better = schema_message(text) if isinstance(text, str) else None
            if better is not None:
                return {**result, "content": [{**content[0], "text": better}]}
            return result
        content = getattr(result, "content", None) or []
        text = (
            getattr(content[0], "text", None)
            if getattr(result, "is_error", False) and content
            else None
        )
        better = schema_message(text) if isinstance(text, str) else None
        if better is None:
            return result
        return result.model_copy(update={"content": [TextContent(type="text", text=better)]})

    def _refuse(self, params: Any) -> CallToolResult | None:
        name = params.get("name")
        schema = self.schemas.get(name) if isinstance(name, str) else None
        if schema is None:
            raise MCPError(
                INVALID_PARAMS,
                f"unknown tool {str(name)[:80]!r}; the tools are: {', '.join(self.schemas)}",
            )
        args = params.get("arguments") or {}
        known = schema.get("properties", {})
        extra = [k for k in args if k not in known] if isinstance(args, dict) else []
        if not extra:
            return None
        text = (
            f"Error executing tool {name}: unknown argument{'s' if len(extra) > 1 else ''} "
            f"{', '.join(repr(k[:40]) for k in extra[:5])}; its arguments are: "
            f"{', '.join(known)}"
        )
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


_UNSAID = frozenset({"title", "maxLength", "minLength"})
"""Schema keys a model does not need: pydantic's title on every property, and string
lengths the server checks anyway (its argument model, not this schema, validates)."""


def compact_schema(schema: Any) -> Any:
    """An input schema as a model reads it, without what says nothing (`_UNSAID`,
    `anyOf [T, null]` with `default: null` for an optional argument: it is optional
    already, not being `required`; a default of false or 0). The tool list goes with
    every request to the model. Unknown arguments are refused by `SchemaErrors`."""
    if isinstance(schema, list):
        return [compact_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: compact_schema(v) for k, v in schema.items() if k not in _UNSAID}
    any_of = out.get("anyOf")
    if isinstance(any_of, list) and {"type": "null"} in any_of:
        rest = [s for s in any_of if s != {"type": "null"}]
        del out["anyOf"]
        out = {**(rest[0] if len(rest) == 1 else {"anyOf": rest}), **out}
    if "default" in out and out["default"] in (None, False, 0) and out["default"] is not True:
        del out["default"]  # what an argument left out means anyway
    if out.get("minimum") == 0 and out.get("type") == "integer":
        del out["minimum"]  # counts and offsets: said by the name (checked all the same)
    return out


_ANNOTATIONS = frozenset({"title", "description", "default", "examples"})
"""Schema keys that describe and never constrain: beside a `$ref` they change nothing a
validator decides, so the referenced schema can take them in."""

_DEFS = "#/$defs/"


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema with every `$ref` to its own `$defs` replaced by the schema it
    names, for the same verdict on every instance: a client checks each result against
    it, and the Python SDK's jsonschema check of a search page takes a fifth (a default
    page) to two-fifths (50 results in full) more CPU when each row goes through a
    reference lookup. A model that contains
    itself (a plan's subplans) keeps a reference for the recursion, and `$defs` keeps
    what those name."""
    defs: dict[str, Any] = schema.get("$defs", {})
    kept: dict[str, Any] = {}

    def walk(node: Any, open_: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(n, open_) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        rest = {k: v for k, v in node.items() if k not in ("$ref", "$defs")}
        if (
            isinstance(ref, str)
            and ref.startswith(_DEFS)
            and ref[len(_DEFS) :] in defs
            and rest.keys() <= _ANNOTATIONS
        ):
            name = ref[len(_DEFS) :]
            if name in open_:  # a recursion: it stays a reference
                if name not in kept:
                    kept[name] = {}
                    kept[name] = walk(defs[name], frozenset({name}))
                return {"$ref": ref, **rest}
            return {**walk(defs[name], open_ | {name}), **walk(rest, open_)}
        return {k: walk(v, open_) for k, v in node.items() if k != "$defs"}

    out = walk(schema, frozenset())
    if kept:
        out["$defs"] = kept
    return out


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


_NOTE: contextvars.ContextVar[str | None] = contextvars.ContextVar("indexing_note", default=None)
"""The indexing note of the tool call under way (`ToolContext.call`)."""


@dataclass(frozen=True)
class ToolContext:
    """What the tools of one server close over."""

    service: ArchiveService
    active: ActiveSessions
    call_budget: int
    redact_secrets: bool

    @contextlib.contextmanager
    def call(self) -> Iterator[None]:
        """Around a tool's work: errors as `tool_errors` turns them, and whether the index
        is still being built, taken *before* the query runs (a pass that completes during
        it must not make a partial answer look final); an error says it too."""
        note = self.service.indexing_note()
        token = _NOTE.set(note)
        try:
            with tool_errors():
                yield
        except ToolError as exc:
            if note is None:
                raise
            # "unknown session" while the index is built may only mean "not read yet"
            raise ToolError(f"{exc} ({note})") from exc
        finally:
            _NOTE.reset(token)

    def result(self, model: BaseModel) -> CallToolResult:
        """The tool's answer: the structured copy (what Claude Code forwards to the
        model) and its JSON text copy, both without the fields that hold their default:
        every `"agent_id": ""` costs tokens and says nothing (counts that can be 0 have
        no default, so they are always there)."""
        data = model.model_dump(mode="json", exclude_defaults=True)
        if self.redact_secrets:
            data = _redact_tree(data)
        note = _NOTE.get()
        if note:  # never an empty answer that looks final while the index is built
            data["indexing"] = note
        text = orjson.dumps(data).decode()
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=data
        )
