"""The output schemas a client checks every result against: published with their
`$ref`s inlined, so a client's check (the Python SDK's jsonschema one) skips a reference
lookup per result row, and with the same verdict as the models' own schemas on every
instance, real results and their mutations alike.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from ccarchive.mcp_server import models as O
from tests.support.mcp_client import call, connect

MODELS: dict[str, type[BaseModel]] = {
    "search": O.SearchResult,
    "context": O.ContextResult,
    "get_entries": O.EntriesResult,
    "get_session": O.SessionPage,
    "list_projects": O.ProjectList,
    "list_sessions": O.SessionList,
    "timeline": O.Timeline,
    "list_plans": O.PlanList,
    "get_plan": O.PlanDetail,
    "list_memory_files": O.MemoryFileList,
    "get_memory_file": O.MemoryFile,
    "search_history": O.HistoryPage,
    "status": O.Status,
}
"""Each tool's result model: its schema, as pydantic writes it, is what the SDK would
publish untouched."""


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs(v)]
    return []


async def _published_and_results(service: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The output schemas a real client is given, and real results of every tool."""
    async with connect(service) as c:
        schemas = {t.name: t.output_schema for t in (await c.list_tools()).tools}
        found = await call(c, "search", query="the", detail="full", include_active=True)
        hit = next(r["id"] for r in found["results"] if r.get("session"))
        sessions = await call(c, "list_sessions")
        sid = sessions["sessions"][0]["session_id"]
        plans = await call(c, "list_plans")
        memory = await call(c, "list_memory_files")
        results: dict[str, list[Any]] = {
            "search": [found, await call(c, "search", query="zzzz nothing matches")],
            "context": [await call(c, "context", id=hit)],
            "get_entries": [await call(c, "get_entries", ids=[hit], max_chars=200)],
            "get_session": [await call(c, "get_session", session_id=sid, limit=3)],
            "list_projects": [await call(c, "list_projects")],
            "list_sessions": [sessions],
            "timeline": [await call(c, "timeline", days=3650)],
            "list_plans": [plans],
            "get_plan": [
                await call(c, "get_plan", codename=p["codename"]) for p in plans["plans"][:3]
            ],
            "list_memory_files": [memory],
            "get_memory_file": [
                await call(c, "get_memory_file", project=m["project"], filename=m["filename"])
                for m in memory["files"][:2]
            ],
            "search_history": [await call(c, "search_history", query="")],
            "status": [await call(c, "status")],
        }
    return schemas, results


@pytest.fixture(scope="module")
def published(demo_service: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    return asyncio.run(_published_and_results(demo_service))


def test_every_tool_has_a_model_and_real_results(published: Any) -> None:
    schemas, results = published
    assert set(schemas) == set(MODELS)
    assert all(results[name] for name in MODELS), [n for n in MODELS if not results[n]]


def test_no_reference_is_left_but_a_recursion(published: Any) -> None:
    """Only a model that contains itself keeps a `$ref` (a plan's subplans), and every
    one it keeps resolves in its own `$defs` to a schema that refers to itself."""
    schemas, _ = published
    for name, schema in schemas.items():
        assert schema["type"] == "object" and schema["properties"], name
        for ref in refs(schema):
            target = ref.removeprefix("#/$defs/")
            assert target in schema.get("$defs", {}), (name, ref)
            assert ref in refs(schema["$defs"][target]), (name, ref)
    assert refs(schemas["get_plan"]), "the recursion of subplans is kept as a reference"
    for name in ("search", "context", "get_session", "list_sessions", "status"):
        assert not refs(schemas[name]), name


def test_the_search_schema_names_every_field_clients_read(published: Any) -> None:
    schemas, _ = published
    search = schemas["search"]
    row = search["properties"]["results"]["items"]
    assert set(row["properties"]) == set(O.Found.model_fields)
    assert set(row["properties"]["more"]["items"]["properties"]) == set(O.Turn.model_fields)
    assert row["properties"]["id"]["description"] == O.Found.model_fields["id"].description
    assert set(search["properties"]) == set(O.SearchResult.model_fields)


# ---- the same verdict on every instance -------------------------------------------------
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False, width=16)
    | st.sampled_from(["", "x", "2026-01-02T03:04:05Z", "day"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["id", "x", "kind", "text", "more"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def places(x: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a JSON value."""
    out: list[tuple[Any, Any]] = []
    if isinstance(x, dict):
        for k, v in x.items():
            out.append((x, k))
            out += places(v)
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out.append((x, i))
            out += places(v)
    return out


@st.composite
def mutated(draw: Any, instance: Any) -> Any:
    """A real result with a few of its values replaced, removed or added to."""
    x = json.loads(json.dumps(instance))  # a copy (JSON already), quicker than deepcopy
    for _ in range(draw(st.integers(1, 3))):
        spots = places(x)
        if not spots:
            break
        parent, key = draw(st.sampled_from(spots))
        op = draw(st.sampled_from(["replace", "remove", "add"]))
        if op == "replace":
            parent[key] = draw(JSON)
        elif op == "remove":
            del parent[key]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["x", "id", "total", "more"]))] = draw(JSON)
        else:
            parent.append(draw(JSON))
    return x


@pytest.fixture(scope="module")
def validators(published: Any) -> dict[str, tuple[Draft202012Validator, Draft202012Validator]]:
    """Each tool's (published, model's) schema validator, made once for every example:
    deriving a model's schema again for each one was most of an example's cost."""
    schemas, _ = published
    return {
        name: (
            Draft202012Validator(schemas[name]),
            Draft202012Validator(model.model_json_schema(mode="serialization")),
        )
        for name, model in MODELS.items()
    }


def test_every_real_result_is_valid_under_both(published: Any, validators: Any) -> None:
    """What the mutations below start from: each real result, valid by both schemas."""
    _, results = published
    for name, instances in results.items():
        ours, theirs = validators[name]
        for instance in instances:
            assert ours.is_valid(instance) and theirs.is_valid(instance), name


# 300 examples: against broken inlinings (a def inlined one level deep only; `required`,
# `additionalProperties` or a null choice dropped), ten seeds of this strategy first
# caught one anywhere from the 5th example to the 277th, and some seeds missed the first
# and the last of these in 300: fewer would miss more
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_inlined_schema_decides_as_the_models_schema(
    published: Any, validators: Any, data: Any
) -> None:
    _, results = published
    name = data.draw(st.sampled_from(sorted(MODELS)))
    instance = data.draw(st.sampled_from(results[name]))
    ours, theirs = validators[name]
    x = data.draw(mutated(instance))
    assert ours.is_valid(x) == theirs.is_valid(x), (name, json.dumps(x)[:400])
