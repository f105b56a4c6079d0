"""Promise: a forged cursor or id gets an MCP error that says what to fix.

Through a real in-process MCP client, every tool that takes a cursor, an entry id or a
session id is given generated forgeries: random base64, valid base64 of garbage JSON,
JSON cursors with wrong types, negative and huge offsets, unknown keys; ids with path
traversal (`../../etc/passwd`), absolute paths, huge offsets and blocks, NUL bytes and
other control characters, and random text. Each call either answers (a forged cursor
can look like a real one) or fails with a message that names the argument and says what
to do, never a stack trace, an exception's name or a message from inside a library; the
server keeps serving after them. The suite draws 5 for each call; `-m slow` 1,500 more.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import build_index
from tests.support.mcp_client import SyncClient

# What a message from inside Python, Tantivy or the SDK looks like: never shown.
INTERNAL = re.compile(
    r"Traceback|File \"/|Error\b(?!: )|Exception|invalid literal|int\(\)|"
    r"object has no attribute|NoneType|not subscriptable|unhashable|overflow|"
    r"out of range integral|tantivy|orjson|binascii|pydantic|Input should|"
    r"validation error|Errno|unexpected exception|raised",
    re.I,
)


@pytest.fixture(scope="module")
def served(demo_archive_ro: Path, tmp_path_factory: pytest.TempPathFactory):
    s = SyncClient(build_index(demo_archive_ro, tmp_path_factory.mktemp("forged")))
    yield s
    s.close()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
    max_leaves=6,
)
NUMBER = st.one_of(
    st.integers(-(2**70), 2**70),
    st.sampled_from([-1, 0, 2**31, 2**53 + 1, 2**63, 2**64, 10**30]),
    st.floats(),
    st.text(max_size=6),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
CURSOR = st.one_of(
    st.text(max_size=80),
    st.binary(max_size=60).map(_b64),
    JSONISH.map(lambda v: _b64(json.dumps(v).encode())),
    st.fixed_dictionaries({"o": NUMBER}, optional={"g": NUMBER, "x": JSONISH}).map(
        lambda d: _b64(json.dumps(d).encode())
    ),
    st.sampled_from(
        [
            "=",
            "====",
            "a",
            "!!!",
            "\x00",
            "e30",
            "W10",
            "bnVsbA",
            _b64(b'{"o":-5}'),
            _b64(b'{"o":1e400}'),
            _b64(b'{"o":NaN}'),
            _b64(b'{"o":99999999999999999999}'),
            _b64(b'{"g":-1}'),
            "x" * 5000,
        ]
    ),
)
PATHISH = st.sampled_from(
    [
        "../../etc/passwd",
        "/etc/passwd",
        "projects/../../../etc/shadow",
        "C:\\Windows\\x",
        "projects/-home-demo-src-tally/x.jsonl",
        "history.jsonl",
        "",
        "\x00",
        "a\x00b",
        "plans/x.md",
        "~root",
        "%2e%2e/%2e%2e",
        "projects/\n/x",
    ]
)
ENTRY_ID = st.one_of(
    st.text(max_size=80),
    st.builds(
        lambda p, o, b: f"{p}:{o}:{b}",
        PATHISH,
        st.one_of(st.integers(-5, 2**70), st.sampled_from(["", "x", "1e3", "-0"])),
        st.one_of(st.integers(-5, 1000), st.sampled_from(["", "x", "٣"])),
    ),
    st.builds(lambda p: f"memory:{p}", PATHISH),
    st.builds(lambda p: f"plan:{p}", PATHISH),
    st.builds(lambda p: f"session:{p}", PATHISH),
)
SESSION_ID = st.one_of(
    st.text(max_size=60),
    PATHISH,
    st.sampled_from(
        ["*", ".*", "(", "[", "\\", "a" * 5000, "f26d", "00000000-0000-0000-0000-000000000000"]
    ),
)

CALLS = {
    "search": lambda v: {"query": "test", "cursor": v["cursor"]},
    "list_sessions": lambda v: {"cursor": v["cursor"]},
    "get_session": lambda v: {"session_id": v["session_id"], "cursor": v["cursor"]},
    "get_session(agent)": lambda v: {"session_id": "f26d", "agent_id": v["session_id"]},
    "context": lambda v: {"id": v["id"]},
    "get_entries": lambda v: {"ids": [v["id"]]},
    "get_entries(offset)": lambda v: {"ids": [v["id"]], "char_offset": 10**12},
    "search_history": lambda v: {"session_id": v["session_id"]},
    "get_plan": lambda v: {"codename": v["session_id"]},
    "get_memory_file": lambda v: {"project": "tally", "filename": v["id"]},
}
NAMES = {
    "search": "cursor",
    "list_sessions": "cursor",
    "context": "id",
    "get_entries": "id",
    "get_entries(offset)": "id",
    "get_session(agent)": "agent",
    "get_plan": "plan",
    "get_memory_file": "memory file",
    "search_history": "session",
}


def _check(served: SyncClient, name: str, args: dict[str, Any]) -> None:
    tool = name.split("(")[0]
    r = served.call(tool, args)
    text = r.content[0].text if r.content else ""
    if not r.is_error:
        assert r.structured_content is not None
        return
    reason = text.removeprefix(f"Error executing tool {tool}: ")
    assert reason and not INTERNAL.search(reason), (name, args, text)
    if reason.startswith("invalid arguments: "):  # the input schema's, naming the argument
        assert any(f" {k}" in reason for k in args), (name, args, reason)
        return
    want = NAMES.get(name)
    if name == "get_session":
        want = "cursor" if "cursor" in reason.lower() else "session"
    assert want is None or want in reason.lower(), (name, args, reason)


EXAMPLES = 5
"""Forgeries a call in the suite: 50 in all, every call drawn (the kinds of forgery one by
one: `test_each_kind_of_forged_cursor_is_refused`, `..._entry_id_is_refused`)."""


@pytest.mark.parametrize("name", sorted(CALLS))
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(cursor=CURSOR, entry_id=ENTRY_ID, session_id=SESSION_ID)
def test_forged_cursors_and_ids_get_a_clear_error(
    served: SyncClient, name: str, cursor: str, entry_id: str, session_id: str
) -> None:
    """A few forgeries for each call; `..._long`, in the slow tier, draws 1,500 over them."""
    _check(served, name, CALLS[name]({"cursor": cursor, "id": entry_id, "session_id": session_id}))


@pytest.mark.slow
@settings(
    max_examples=1_500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(sorted(CALLS)), CURSOR, ENTRY_ID, SESSION_ID)
def test_forged_cursors_and_ids_get_a_clear_error_long(
    served: SyncClient, name: str, cursor: str, entry_id: str, session_id: str
) -> None:
    _check(served, name, CALLS[name]({"cursor": cursor, "id": entry_id, "session_id": session_id}))


@pytest.mark.parametrize(
    "cursor",
    [
        _b64(b'{"o":-5}'),
        _b64(b'{"o":"10"}'),
        _b64(b'{"o":10000000000000}'),
        _b64(b'{"o":1.5}'),
        _b64(b'{"o":true}'),
        _b64(b'{"g":-1}'),
        _b64(b'{"g":"x"}'),
        _b64(b'{"o":1,"evil":1}'),
        _b64(b"[1,2]"),
        _b64(b"null"),
        _b64(b"\xff\xfe"),
        "!!!",
        _b64(b'{"o":99999999999999999999}'),
        "x" * 5000,
    ],
)
@pytest.mark.parametrize("tool", ["search", "list_sessions", "get_session"])
def test_each_kind_of_forged_cursor_is_refused(served: SyncClient, tool: str, cursor: str) -> None:
    args = {
        "search": {"query": "test"},
        "list_sessions": {},
        "get_session": {"session_id": "f26d"},
    }[tool]
    r = served.call(tool, {**args, "cursor": cursor})
    text = r.content[0].text
    assert r.is_error and "cursor" in text and "next_cursor" in text, text
    assert not INTERNAL.search(text.removeprefix(f"Error executing tool {tool}: ")), text


@pytest.mark.parametrize(
    "entry_id",
    [
        "../../etc/passwd:0:0",
        "/etc/passwd:0:0",
        "projects/x.jsonl:99999999999999999999999:0",
        "projects/x.jsonl:0:99999",
        "projects/x.jsonl:-1:0",
        "a\x00b:0:0",
        "\x00",
        "",
        "history.jsonl:18446744073709551615:255",
        "memory:../../etc/passwd",
        "x" * 5000,
    ],
)
@pytest.mark.parametrize("tool", ["context", "get_entries"])
def test_each_kind_of_forged_entry_id_is_refused(
    served: SyncClient, tool: str, entry_id: str
) -> None:
    args = {"id": entry_id} if tool == "context" else {"ids": [entry_id]}
    r = served.call(tool, args)
    text = r.content[0].text
    says = "invalid arguments: id" if not entry_id and tool == "context" else "search"
    assert r.is_error and "id" in text and says in text, text
    assert not INTERNAL.search(text.removeprefix(f"Error executing tool {tool}: ")), text


def test_the_server_keeps_serving_after_the_forgeries(served: SyncClient) -> None:
    r = served.call("search", {"query": "test", "limit": 2, "include_active": True})
    assert not r.is_error
    nxt = served.call(
        "search",
        {
            "query": "test",
            "limit": 2,
            "include_active": True,
            "cursor": r.structured_content["next_cursor"],
        },
    )
    page = nxt.structured_content
    assert not nxt.is_error and page.get("results"), page


@pytest.mark.parametrize("tool", ["list_plans", "search_history"])
@pytest.mark.parametrize("offset", [10**13, 2**63, 1_000_001])
def test_an_offset_past_any_page_is_refused(served: SyncClient, tool: str, offset: int) -> None:
    """(10**13 made Tantivy abort the whole server.)"""
    r = served.call(tool, {"offset": offset})
    text = r.content[0].text
    assert r.is_error and "offset must be a whole number from 0 to 1,000,000" in text, text


@pytest.mark.parametrize("session_id", ["a" * 129, "f26d" * 100, "ab\x00cd", "x\ny", "日本" * 100])
@pytest.mark.parametrize("tool", ["get_session", "search_history"])
def test_a_session_id_no_session_can_have_is_refused(
    served: SyncClient, tool: str, session_id: str
) -> None:
    r = served.call(tool, {"session_id": session_id})
    text = r.content[0].text
    assert r.is_error and "unknown session" in text and "list_sessions" in text, text
