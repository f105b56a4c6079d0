"""What `tests.support.mcp_client.validators_compiled_once` (on for every MCP test) relies
on in the SDK's client, and what it keeps: a result is checked against its tool's output
schema as before, by a validator compiled once per schema for the test process."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from mcp.client.session import ClientSession

from tests.support.mcp_client import call, connect

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def test_the_sdk_still_compiles_a_validator_per_session_and_tool() -> None:
    """The wrapped method and the session's own cache it fills, by these names."""
    params = list(inspect.signature(ClientSession._output_schema_validator).parameters)
    assert params == ["self", "name", "output_schema"]
    source = inspect.getsource(ClientSession)
    assert "self._tool_output_validators: dict[str, Validator] = {}" in source
    assert "self._output_schema_validator(name, output_schema)" in source


def _session() -> Any:
    session = ClientSession.__new__(ClientSession)  # only its caches are used here
    session._tool_output_validators = {}
    return session


def test_one_schema_one_validator_and_the_same_verdicts() -> None:
    first, second = _session(), _session()
    a = first._output_schema_validator("t", SCHEMA)
    b = second._output_schema_validator("t", dict(SCHEMA))
    assert a is b and second._tool_output_validators["t"] is b
    assert a.is_valid({"n": 1}) and not a.is_valid({"n": "1"}) and not a.is_valid({})
    other = second._output_schema_validator("u", {**SCHEMA, "required": []})
    assert other is not a and other.is_valid({})


def test_a_schema_that_is_not_json_schema_still_fails_each_time() -> None:
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Invalid schema for tool t"):
            _session()._output_schema_validator("t", {"type": "no-such-type"})


async def test_results_are_still_checked_against_the_schema(demo_service: Any) -> None:
    """A result the schema refuses fails the call, on a client after the first."""
    for _ in range(2):
        async with connect(demo_service) as c:
            await call(c, "status")
            session = c.session
            validator = session._tool_output_validators["status"]
            assert not validator.is_valid({"sessions": "many"})
            with pytest.raises(RuntimeError, match="Invalid structured content"):
                bad = (await c.call_tool("status", {})).model_copy(
                    update={"structured_content": {"sessions": "many"}}
                )
                await session.validate_tool_result("status", bad)
