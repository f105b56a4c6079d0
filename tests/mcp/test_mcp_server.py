"""The MCP server through a real MCP client, in-process: every tool, paging, budgets,
redaction, the active-session exclusion and each kind of bad call.

(Over stdio and HTTP, spawning `ccarchive serve`: tests/test_mcp_transports.py.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from ccarchive.mcp_server.server import INSTRUCTIONS
from tests.conftest import DEMO_NOW, build_index
from tests.support.mcp_client import call, connect

TOOLS = {
    "search",
    "context",
    "get_entries",
    "get_session",
    "list_projects",
    "list_sessions",
    "timeline",
    "list_plans",
    "get_plan",
    "list_memory_files",
    "get_memory_file",
    "search_history",
    "status",
}
FAKE_KEY = "sk-ant-api03-DEMO"
DB_PASSWORD = "s3cret-demo"


async def fails(client: Client, tool: str, **args: Any) -> str:
    """Call a tool that must fail with an MCP error; return the message."""
    r = await client.call_tool(tool, args)
    assert r.is_error, f"{tool}({args}) should have failed"
    return r.content[0].text


# ---- the server's face ------------------------------------------------------------------
async def test_lists_every_tool_read_only_with_schemas(demo_service) -> None:
    async with connect(demo_service) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert set(tools) == TOOLS
        for t in tools.values():
            assert t.annotations is not None and t.annotations.read_only_hint is True
            assert t.annotations.destructive_hint is False
            assert t.description and t.output_schema, t.name
        assert "results" in tools["search"].output_schema["properties"]
        limit = tools["search"].input_schema["properties"]["limit"]
        assert 50 in [b.get("maximum") for b in limit.get("anyOf", [limit])]
        assert tools["search"].input_schema["required"] == ["query"]


def test_instructions_teach_the_workflow_and_distrust() -> None:
    assert "search" in INSTRUCTIONS and "context" in INSTRUCTIONS
    assert "get_entries" in INSTRUCTIONS
    assert "historical record" in INSTRUCTIONS and "not instructions" in INSTRUCTIONS


# ---- search -> context -> details -----------------------------------------------------
async def test_three_step_workflow(demo_service) -> None:
    async with connect(demo_service) as c:
        page = await call(c, "search", query="flaky", limit=10, group_by_session=False)
        assert page["total"] >= 2 and page["results"]
        hit = next(h for h in page.get("results", []) if h.get("session"))
        assert set(hit) >= {"id", "session", "project", "date", "kind", "title", "text"}
        assert not {k for k, v in hit.items() if v in ("", [], None)}  # nothing empty
        assert len(hit["text"]) <= 340
        ctx = await call(c, "context", id=hit["id"], before=2, after=2)
        assert ctx["target"]["id"] == hit["id"]
        assert len(ctx["after"]) == 2
        seq = [e["timestamp"] for e in [*ctx["before"], ctx["target"], *ctx["after"]]]
        assert seq == sorted(seq)  # conversation order
        full = await call(c, "get_entries", ids=[hit["id"], ctx["after"][0]["id"]])
        assert [e["id"] for e in full["entries"]] == [hit["id"], ctx["after"][0]["id"]]
        assert full["entries"][0]["text"] and full["entries"][0]["session_id"].startswith(
            hit["session"]
        )


async def test_search_filters(demo_service) -> None:
    async with connect(demo_service) as c:
        only = await call(
            c, "search", query="test", project="pantry", limit=50, group_by_session=False
        )
        assert only["results"] and all("pantry" in h["project"] for h in only["results"])
        plans = await call(c, "search", query="", kind="plan", limit=50, group_by_session=False)
        assert plans["results"] and {h["kind"] for h in plans["results"]} == {"plan"}
        two = await call(
            c, "search", query="", kind=["plan", "memory"], limit=50, group_by_session=False
        )
        assert {h["kind"] for h in two["results"]} == {"plan", "memory"}
        recent = await call(
            c,
            "search",
            query="",
            since="2026-11-18",
            until="2026-11-19",
            limit=50,
            group_by_session=False,
        )
        assert recent["results"]
        assert all("2026-11-18" <= h["date"] < "2026-11-19" for h in recent["results"])
        default = await call(c, "search", query="", limit=50, group_by_session=False)
        assert not {"tool_result", "thinking"} & {h["kind"] for h in default["results"]}
        results = await call(
            c,
            "search",
            query="",
            include_tool_results=True,
            include_thinking=True,
            kind=None,
            limit=50,
            since="2026-11-16",
            until="2026-11-17",
            group_by_session=False,
        )
        assert "tool_result" in {h["kind"] for h in results["results"]}


async def test_search_paging_covers_everything_once(demo_service) -> None:
    async with connect(demo_service) as c:
        first = await call(c, "search", query="test", limit=50, group_by_session=False)
        seen: list[str] = []
        cursor = None
        while True:
            page = await call(
                c, "search", query="test", limit=4, cursor=cursor, group_by_session=False
            )
            seen += [h["id"] for h in page["results"]]
            cursor = page.get("next_cursor")
            if not cursor:
                break
        assert len(seen) == len(set(seen)) == first["total"]
        assert seen == [h["id"] for h in first["results"]]


async def test_search_group_by_session(demo_service) -> None:
    async with connect(demo_service) as c:
        page = await call(c, "search", query="test", group_by_session=True, limit=3)
        groups = page["results"]
        sids = [g["session"] for g in groups if g.get("session")]  # plans/memory: none
        assert groups and len(set(sids)) == len(sids)
        assert all(g["id"] and g["text"] for g in groups)
        nxt = await call(
            c, "search", query="test", group_by_session=True, limit=3, cursor=page["next_cursor"]
        )
        assert nxt["results"] and not set(sids) & {g.get("session") for g in nxt["results"]}
        full = await call(c, "search", query="test", detail="full", limit=3)
        assert any(g.get("more") for g in full["results"])
        assert len(json.dumps(full)) > len(json.dumps(page))
    async with connect(demo_service, call_budget=400) as c:
        cut = await call(c, "search", query="test", group_by_session=True, limit=10)
        assert 0 < len(cut["results"]) < 10 and cut["next_cursor"]


# ---- budgets ------------------------------------------------------------------------
async def test_search_budget_cuts_the_page_and_the_cursor_continues(demo_service) -> None:
    async with connect(demo_service) as c:
        full = await call(c, "search", query="test", limit=20, group_by_session=False)
    async with connect(demo_service, call_budget=1500) as c:
        small = await call(c, "search", query="test", limit=20, group_by_session=False)
        assert 0 < len(small["results"]) < len(full["results"])
        assert any("budget" in w for w in small["warnings"])
        assert len(json.dumps(small["results"])) < 3000
        rest = await call(
            c, "search", query="test", limit=20, cursor=small["next_cursor"], group_by_session=False
        )
        n = len(small["results"])
        assert [h["id"] for h in rest["results"]][:3] == [h["id"] for h in full["results"]][
            n : n + 3
        ]


async def test_passage_budget_per_detail(demo_service) -> None:
    async with connect(demo_service) as c:
        for detail, most in (("brief", 320), ("full", 800)):
            page = await call(
                c, "search", query="test", detail=detail, limit=20, group_by_session=False
            )
            assert page["results"] and all(len(h["text"]) <= most + 3 for h in page["results"])


async def test_entry_text_budget_and_reading_on(demo_service) -> None:
    async with connect(demo_service) as c:
        page = await call(
            c,
            "search",
            query="",
            kind="tool_result",
            include_tool_results=True,
            limit=50,
            group_by_session=False,
        )
        ids = [h["id"] for h in page["results"]]
        entries = (await call(c, "get_entries", ids=ids[:20], max_chars=100_000))["entries"]
        big = max(entries, key=lambda e: e["text_len"])
        assert big["text_len"] > 400
        part = (await call(c, "get_entries", ids=[big["id"]], max_chars=200))["entries"][0]
        assert len(part["text"]) == 200 and part["truncated"] and part["next_char"] == 200
        more = (await call(c, "get_entries", ids=[big["id"]], max_chars=200, char_offset=200))[
            "entries"
        ][0]
        assert more["text"] and more["text"] != part["text"]
    async with connect(demo_service, call_budget=1000) as c:
        many = await call(c, "get_entries", ids=ids[:20], max_chars=5000)
        assert sum(len(e["text"]) for e in many["entries"]) <= 1000 + 100 * 20
        assert many["budget_exhausted"]


async def test_get_session_pages_and_budget(demo_service) -> None:
    sid = max(demo_service.sessions(limit=50).sessions, key=lambda s: s.messages).session_id
    async with connect(demo_service) as c:
        first = await call(c, "get_session", session_id=sid, limit=5)
        assert first["total"] > 5 and len(first["entries"]) == 5 and first["next_cursor"]
        ids = [e["id"] for e in first["entries"]]
        cursor = first["next_cursor"]
        while cursor:
            page = await call(c, "get_session", session_id=sid, limit=5, cursor=cursor)
            ids += [e["id"] for e in page["entries"]]
            cursor = page.get("next_cursor")
        assert len(ids) == len(set(ids)) == first["total"]
        prefix = await call(c, "get_session", session_id=sid[:8], limit=1)
        assert prefix["session_id"] == sid
    async with connect(demo_service, call_budget=2000) as c:
        cut = await call(c, "get_session", session_id=sid, limit=200, max_chars=1500)
        assert len(cut["entries"]) < cut["total"] and cut["next_cursor"]
        nxt = await call(c, "get_session", session_id=sid, limit=1, cursor=cut["next_cursor"])
        assert nxt["start"] == len(cut["entries"])


async def test_get_session_of_a_subagent(demo_service) -> None:
    parent = next(s for s in demo_service.sessions(limit=50).sessions if s.subagent_count)
    async with connect(demo_service) as c:
        page = await call(c, "get_session", session_id=parent.session_id, limit=5)
        agent = page["subagents"][0]["agent_id"]
        sub = await call(c, "get_session", session_id=parent.session_id, agent_id=agent)
        assert sub["agent_id"] == agent and sub["entries"]
        assert {e["agent_id"] for e in sub["entries"]} == {agent}


# ---- the other tools ------------------------------------------------------------------
async def test_projects_sessions_timeline(demo_service) -> None:
    async with connect(demo_service) as c:
        projects = (await call(c, "list_projects"))["projects"]
        assert {Path(p["path"]).name for p in projects} >= {"pantry-api", "tally"}
        sessions = await call(c, "list_sessions", project="tally", limit=2)
        assert sessions["total"] >= 3 and len(sessions["sessions"]) == 2
        assert all("tally" in s["project"] for s in sessions["sessions"])
        rest = await call(
            c, "list_sessions", project="tally", limit=2, cursor=sessions["next_cursor"]
        )
        assert not {s["session_id"] for s in rest["sessions"]} & {
            s["session_id"] for s in sessions["sessions"]
        }
        ranged = await call(c, "list_sessions", since="2026-11-15", until="2026-11-18")
        assert ranged["sessions"]
        days = (await call(c, "timeline", days=3660))["days"]
        assert days and all(
            d.get("sessions") or d.get("prompts") or d.get("messages") for d in days
        )
        assert sum(d.get("sessions", 0) for d in days) == demo_service.sessions(limit=1).total
        tally = (await call(c, "timeline", days=3660, project="tally"))["days"]
        assert 0 < sum(d["sessions"] for d in tally) < sum(d.get("sessions", 0) for d in days)


async def test_plans(demo_service) -> None:
    async with connect(demo_service) as c:
        plans = await call(c, "list_plans")
        assert plans["plans"] and not any(p.get("agent_id") for p in plans["plans"])
        everything = await call(c, "list_plans", include_agent_plans=True, limit=200)
        assert everything["total"] > plans["total"]
        page = await call(c, "list_plans", limit=1, offset=1)
        assert page["plans"][0]["codename"] == plans["plans"][1]["codename"]
        assert page["next_offset"] == 2 or plans["total"] == 2
        with_sub = next(p for p in everything["plans"] if p.get("agent_id"))
        detail = await call(c, "get_plan", codename=with_sub["codename"])
        assert detail["plan"]["codename"] == with_sub["codename"] and detail["text"]
        assert detail["subplans"] and detail["subplans"][0]["plan"]["agent_id"]
        short = await call(
            c, "get_plan", codename=with_sub["codename"], max_chars=100, include_agent_plans=False
        )
        assert len(short["text"]) <= 100 and short["truncated"] and not short.get("subplans")


async def test_memory_files(demo_service) -> None:
    async with connect(demo_service) as c:
        files = (await call(c, "list_memory_files"))["files"]
        assert {f["filename"] for f in files} >= {"MEMORY.md"}
        mine = (await call(c, "list_memory_files", project="pantry"))["files"]
        assert mine and all("pantry" in f["project"] for f in mine)
        memory = await call(c, "get_memory_file", project="pantry")
        assert memory["info"]["filename"] == "MEMORY.md" and memory["text"]
        other = next(f["filename"] for f in mine if f["filename"] != "MEMORY.md")
        topic = await call(c, "get_memory_file", project="pantry", filename=other)
        assert topic["info"]["filename"] == other


async def test_search_history(demo_service) -> None:
    async with connect(demo_service) as c:
        newest = await call(c, "search_history", limit=3)
        assert len(newest["items"]) == 3 and newest["next_offset"] == 3
        stamps = [i["timestamp"] for i in newest["items"]]
        assert stamps == sorted(stamps, reverse=True)
        more = await call(c, "search_history", limit=3, offset=3)
        assert not {i["id"] for i in more["items"]} & {i["id"] for i in newest["items"]}
        word = max(newest["items"][0]["text"].split(), key=len).strip(".,:;`'\"()")
        found = await call(c, "search_history", query=word)
        assert newest["items"][0]["id"] in {i["id"] for i in found["items"]}
        sid = newest["items"][0]["session_id"]
        own = await call(c, "search_history", session_id=sid[:8])
        assert own["items"] and {i["session_id"] for i in own["items"]} == {sid}
        assert (await call(c, "search_history", project="dotfiles", since="2026-11-19"))["items"]


async def test_status(demo_service) -> None:
    async with connect(demo_service) as c:
        st = await call(c, "status")
        assert st["sessions"] >= 10 and st["documents"] > 100 and st.get("redaction", True) is True
        assert {"prompt", "plan", "memory", "history"} <= set(st["documents_by_kind"])


# ---- safety ---------------------------------------------------------------------------
async def _secret_texts(c: Client) -> list[str]:
    page = await call(
        c,
        "search",
        query="DATABASE_URL",
        include_tool_results=True,
        limit=20,
        group_by_session=False,
    )
    assert page["results"], "the demo archive carries a fake key and a DB password"
    ids = [h["id"] for h in page["results"]]
    full = await call(c, "get_entries", ids=ids, max_chars=100_000)
    ctx = await call(c, "context", id=ids[0], before=0, after=0, max_chars=20_000)
    return [json.dumps(page), json.dumps(full), json.dumps(ctx)]


async def test_secrets_are_redacted_by_default(demo_service) -> None:
    async with connect(demo_service) as c:
        texts = await _secret_texts(c)
        session = (
            (
                await c.call_tool(
                    "get_session",
                    {
                        "session_id": json.loads(texts[0])["results"][0]["session"],
                        "limit": 200,
                        "max_chars": 20_000,
                    },
                )
            )
            .content[0]
            .text
        )
    for text in [*texts, session]:
        assert FAKE_KEY not in text and DB_PASSWORD not in text
    assert "[REDACTED:" in texts[1]


async def test_no_redact_serves_secrets_as_they_are(demo_archive_ro: Path, tmp_path: Path) -> None:
    service = build_index(demo_archive_ro, tmp_path / "data")
    async with connect(service, redact_secrets=False) as c:
        texts = await _secret_texts(c)
        assert (await call(c, "status"))["redaction"] is False
    assert FAKE_KEY in texts[1] and DB_PASSWORD in texts[1]


async def test_active_session_is_left_out_unless_asked(demo_service) -> None:
    latest = demo_service.sessions(limit=1).sessions[0]
    assert latest.last_activity and (DEMO_NOW - latest.last_activity).total_seconds() < 600
    query = latest.title.split()[0]
    async with connect(demo_service) as c:
        page = await call(c, "search", query=query, limit=50, group_by_session=False)
        assert page["excluded_sessions"] == [latest.session_id]
        assert not any(
            latest.session_id.startswith(h["session"])
            for h in page.get("results", [])
            if h.get("session")
        )
        kept = await call(
            c, "search", query=query, limit=50, include_active=True, group_by_session=False
        )
        assert any(
            latest.session_id.startswith(h["session"]) for h in kept["results"] if h.get("session")
        )
        assert not kept.get("excluded_sessions")
    # the caller's project wins over a more recent session elsewhere
    other = next(s for s in demo_service.sessions(limit=50).sessions if s.project != latest.project)
    assert other.last_activity is not None
    async with connect(
        demo_service, project_hint=other.project, clock=lambda: other.last_activity
    ) as c:
        page = await call(c, "search", query="test", group_by_session=False)
        assert page["excluded_sessions"] == [other.session_id]
    async with connect(demo_service, active_minutes=0) as c:
        assert not (await call(c, "search", query=query, group_by_session=False)).get(
            "excluded_sessions"
        )


# ---- bad calls --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tool", "args", "says"),
    [
        ("context", {"id": "no-such-entry"}, "unknown entry id"),
        ("get_entries", {"ids": ["nope:1:0"]}, "unknown entry id"),
        ("get_entries", {"ids": []}, "ids"),
        ("get_session", {"session_id": "ffffffff-0000"}, "unknown session"),
        ("get_plan", {"codename": "no-such-plan"}, "unknown plan"),
        ("get_memory_file", {"project": "no-such-project"}, "no memory files"),
        ("get_memory_file", {"project": "pantry", "filename": "nope.md"}, "MEMORY.md"),
        ("search", {"query": "x", "since": "last tuesday-ish"}, "since"),
        ("search", {"query": "x", "until": "2026-13-45"}, "until"),
        ("list_sessions", {"since": "soon"}, "since"),
        ("search", {"query": "x", "limit": 0}, "limit"),
        ("search", {"query": "x", "limit": 51}, "limit"),
        ("list_sessions", {"limit": 101}, "limit"),
        ("get_session", {"session_id": "x", "limit": 1000}, "limit"),
        ("timeline", {"days": 0}, "days"),
        ("context", {"id": "x", "before": 99}, "before"),
        ("search", {"query": "x", "kind": "everything"}, "kind"),
        ("search", {"query": "x", "cursor": "!!not-a-cursor!!"}, "cursor"),
        ("get_session", {"session_id": "x", "cursor": "garbage"}, ""),
        ("list_plans", {"offset": -1}, "offset"),
        ("search", {}, "query"),
        ("search", {"query": "x", "bogus": 1}, "unknown argument 'bogus'"),
    ],
)
async def test_bad_calls_get_clear_errors_and_the_server_keeps_serving(
    demo_service, tool: str, args: dict[str, Any], says: str
) -> None:
    async with connect(demo_service) as c:
        message = await fails(c, tool, **args)
        assert says.lower() in message.lower()
        assert "Error executing tool" not in message or len(message) > 40
        assert (await call(c, "status"))["sessions"]


@pytest.mark.parametrize(
    "query",
    [
        '"unclosed phrase',
        "((((deep",
        "AND OR NOT",
        "kind:",
        "-",
        "*",
        ":::",
        "a" * 5000,
        'project:"',
        "after:notadate test",
        "tool:Bash AND (",
        "\x00\x01",
    ],
)
async def test_broken_queries_are_answered_not_crashed(demo_service, query: str) -> None:
    async with connect(demo_service) as c:
        r = await c.call_tool("search", {"query": query, "group_by_session": False})
        if r.is_error:  # too long: the schema says so
            assert "4000" in r.content[0].text or "query" in r.content[0].text
        else:
            assert isinstance(r.structured_content.get("results", []), list)
            assert "total" in r.structured_content
        assert (await call(c, "status"))["sessions"]


# ---- serialization and one code path -----------------------------------------------------
async def test_legacy_protocol_serializes_every_tool(demo_service) -> None:
    async with connect(demo_service, mode="legacy") as c:
        page = await call(c, "search", query="flaky", limit=3, group_by_session=False)
        hit = page["results"][0]["id"]
        sid = demo_service.sessions(limit=1).sessions[0].session_id
        codename = demo_service.plans(limit=1).plans[0].codename
        for tool, args in [
            ("context", {"id": hit}),
            ("get_entries", {"ids": [hit]}),
            ("get_session", {"session_id": sid}),
            ("list_projects", {}),
            ("list_sessions", {}),
            ("timeline", {}),
            ("list_plans", {}),
            ("get_plan", {"codename": codename}),
            ("list_memory_files", {}),
            ("get_memory_file", {"project": "tally"}),
            ("search_history", {}),
            ("status", {}),
        ]:
            await call(c, tool, **args)
        assert "unknown" in await fails(c, "context", id="nope")


@pytest.mark.parametrize(
    ("query", "options"),
    [
        ("flaky", []),
        ("test", ["--limit", "7"]),
        ("migration OR alembic", ["--project", "pantry"]),
        ("", ["--kind", "plan"]),
        ("DATABASE_URL", ["--all-kinds"]),
        ("tool:Bash", ["--since", "2026-11-10", "--until", "2026-11-18"]),
    ],
)
async def test_same_answers_as_the_cli_json(
    demo_service, demo_archive_ro: Path, query: str, options: list[str]
) -> None:
    from ccarchive.cli.main import main

    data_dir = demo_service.store.base.parent
    out = CliRunner().invoke(
        main,
        [
            "search",
            "--archive",
            str(demo_archive_ro),
            "--data-dir",
            str(data_dir),
            "--json",
            "--entries",
            *options,
            "--",
            query,
        ],
    )
    assert out.exit_code == 0, out.output
    cli = json.loads(out.stdout)
    args: dict[str, Any] = {
        "query": query,
        "include_active": True,
        "limit": int(options[options.index("--limit") + 1]) if "--limit" in options else 20,
    }
    for flag, name in [
        ("--project", "project"),
        ("--kind", "kind"),
        ("--since", "since"),
        ("--until", "until"),
    ]:
        if flag in options:
            args[name] = options[options.index(flag) + 1]
    if "--all-kinds" in options:
        args["include_tool_results"] = args["include_thinking"] = True
    async with connect(demo_service) as c:
        mcp = await call(c, "search", **args, group_by_session=False)
    assert mcp["total"] == cli["total"]
    assert mcp.get("next_cursor") is None or cli["next_cursor"] is not None
    assert len(mcp.get("results", [])) == len(cli["hits"])
    for m, h in zip(mcp.get("results", []), cli["hits"], strict=True):
        # the same entry, named the short way (`<session prefix>:<offset>:<block>`)
        assert m["kind"] == h["kind"] and m["date"] == h["timestamp"][:10]
        assert h["id"].endswith(":" + m["id"].split(":", 1)[1])
        assert h["session_id"].startswith(m.get("session", ""))
        assert h["project"].endswith(m.get("project", ""))


async def test_list_budgets(demo_service) -> None:
    async with connect(demo_service, call_budget=300) as c:
        projects = await call(c, "list_projects")
        assert projects["truncated"] and 0 < len(projects["projects"]) < projects["total"]
        files = await call(c, "list_memory_files")
        assert files["truncated"] and 0 < len(files["files"]) < files["total"]
        days = await call(c, "timeline", days=3660)
        assert days["bucket"] in ("week", "month") and days["days"]
        weeks = await call(c, "timeline", days=3660, bucket="week")
        assert weeks["bucket"] == "week"
    async with connect(demo_service) as c:
        assert (await call(c, "timeline", days=3660)).get("bucket", "day") == "day"
        assert not (await call(c, "list_projects")).get("truncated")


@pytest.mark.parametrize("query", ["flaky test on CI", "release", "why is the walk slow"])
async def test_every_front_end_ranks_sessions_alike(
    demo_service, demo_archive_ro: Path, query: str
) -> None:
    """The service, `ccarchive search --json` and MCP `search` give the same sessions in
    the same order: one ranking for every front end."""
    from ccarchive.cli.main import main

    want = [
        g.session_id for g in demo_service.search(query, group_by_session=True, limit=10).groups
    ]
    assert want
    out = CliRunner().invoke(
        main,
        [
            "search",
            "--archive",
            str(demo_archive_ro),
            "--data-dir",
            str(demo_service.store.base.parent),
            "--json",
            "--limit",
            "10",
            query,
        ],
    )
    assert out.exit_code == 0, out.output
    assert [g["session_id"] for g in json.loads(out.stdout)["groups"]] == want
    async with connect(demo_service) as c:
        mcp = await call(c, "search", query=query, limit=10, include_active=True)
    found, beside = mcp["results"][: len(want)], mcp["results"][len(want) :]
    assert len(found) == len(want)
    assert all(
        sid.startswith(g.get("session", "")) and bool(sid) == bool(g.get("session"))
        for g, sid in zip(found, want, strict=True)
    )
    assert all(g["text"] for g in mcp["results"])
    # after them only the plans and memory files that answer beside them, the service's
    page = demo_service.search(query, group_by_session=True, limit=10, hits_per_group=1)
    docs = demo_service.answering_documents(query, page.groups)
    assert [g["id"] for g in beside] == [d.id for d in docs]
    assert all(g["kind"] in ("plan", "memory") for g in beside)
