"""Plans and memory files that answer beside the session results (`answering_documents`).

Real JSONL, plans and memory files, a real index, a real MCP client. The archive is the
case the session ranking gets wrong: many sessions talk about benchmarks and running
commands in many turns, while the one plan that says which benchmark command to run is a
single document, filed under its session beside a short agent subplan that outscores it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ccarchive.service import models as M
from ccarchive.service.search import DOCUMENT_SLOTS
from tests.conftest import build_index
from tests.support.mcp_client import connect
from tests.support.secret_shapes import SHAPES, Gen

PROJECT = "-home-me-proj"
OTHER = "-home-me-other"
SLUG = "keen-baking-hoare"
PLAN_FACT = "zorblatbench --warmup 3"
MEMORY_FACT = "quillfmtx"
OTHER_FACT = "strandwick"
SECRET = SHAPES["anthropic"](Gen(random.Random(7)))
QUESTION_PLAN = "what benchmark command did the plan ask us to run"
QUESTION_MEMORY = "which formatter does the user prefer"


def _line(i: int, sid: str, role: str, text: str, cwd: str, slug: str = "") -> str:
    rec: dict = {
        "type": role,
        "uuid": f"{sid[:8]}-{i}",
        "parentUuid": None,
        "sessionId": sid,
        "timestamp": f"2026-03-01T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
        "cwd": cwd,
        "version": "2.1.40",
    }
    if slug:
        rec["slug"] = slug
    if role == "user":
        rec["message"] = {"role": "user", "content": text}
    else:
        rec["message"] = {
            "id": f"msg_{sid[:4]}_{i}",
            "role": "assistant",
            "model": "claude-x",
            "content": [{"type": "text", "text": text}],
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    return json.dumps(rec) + "\n"


def _session(root: Path, project: str, sid: str, turns: list[tuple[str, str]], slug="") -> None:
    cwd = "/" + project.strip("-").replace("-", "/")
    path = root / "projects" / project / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (prompt, answer) in enumerate(turns):
        lines.append(_line(2 * i, sid, "user", prompt, cwd, slug))
        lines.append(_line(2 * i + 1, sid, "assistant", answer, cwd, slug))
    path.write_text("".join(lines))


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("answering") / "claude"
    chatter = [
        ("run the benchmark command again", "Ran the benchmark command; the run took 4.1 s."),
        ("ask the team which benchmark to run", "Asked; they run the nightly benchmark."),
        ("what command did we run for the plan", "We ran the plan command from the Makefile."),
        ("who prefers which formatter", "The user asked about a formatter earlier."),
    ]
    for n in range(8):
        sid = f"{n:08x}-1111-2222-3333-444444444444"
        _session(root, PROJECT, sid, chatter * 3, slug=SLUG if n == 0 else "")
    _session(
        root,
        OTHER,
        "99999999-1111-2222-3333-444444444444",
        [("set up the other project", "Done.")],
    )
    plans = root / "plans"
    plans.mkdir(parents=True)
    filler = "\n".join(f"{i}. Step {i}: tidy module {i} and its tests." for i in range(1, 30))
    (plans / f"{SLUG}.md").write_text(
        f"# Plan: Speed up the importer\n\n## Steps\n{filler}\n\n## Decisions\n\n"
        f"- Benchmark with `{PLAN_FACT}` before and after the change.\n"
        f"- Keep the key out of the repo: {SECRET.text}\n"
    )
    (plans / f"{SLUG}-agent-a1b2c3d4.md").write_text("# Plan: Run the tests\n\nRun them.\n")
    memory = root / "projects" / PROJECT / "memory"
    memory.mkdir(parents=True)
    notes = "\n".join(f"- Note {i}: the build cache lives in .cache/{i}." for i in range(30))
    (memory / "MEMORY.md").write_text(
        f"# proj memory\n\n{notes}\n- The user prefers `{MEMORY_FACT}` over black for "
        "formatting; never reformat untouched files.\n"
    )
    other = root / "projects" / OTHER / "memory"
    other.mkdir(parents=True)
    (other / "MEMORY.md").write_text(
        f"# other memory\n\n- The user prefers `{OTHER_FACT}` for formatting there.\n"
    )
    return root


@pytest.fixture(scope="module")
def service(archive: Path, tmp_path_factory: pytest.TempPathFactory):
    return build_index(archive, tmp_path_factory.mktemp("answering-data"))


def _group(hit_id: str, relevance: float) -> M.SessionGroup:
    return M.SessionGroup(
        session_id="", hits=[M.Hit(id=hit_id, kind="assistant")], relevance=relevance
    )


def test_the_plan_the_question_names_answers_with_its_passage(service) -> None:
    page = service.search(QUESTION_PLAN, group_by_session=True, limit=4, hits_per_group=1)
    assert not any(PLAN_FACT in (g.hits[0].passage or "") for g in page.groups), (
        "the case needs the plan below the sessions"
    )
    docs = service.answering_documents(QUESTION_PLAN, page.groups)
    assert docs and docs[0].kind == "plan"
    # the plan that says it, not its short subplan (which scores higher)
    assert docs[0].id == f"plan:plans/{SLUG}.md"
    assert PLAN_FACT in docs[0].passage


def test_a_document_covering_as_much_as_the_first_result_answers(service) -> None:
    mem = "memory:projects/-home-me-proj/memory/MEMORY.md"
    # the memory file holds "user" and "prefer", not "formatter": most of the question
    low = service.answering_documents(QUESTION_MEMORY, [_group("x", 0.3)])
    assert mem in [d.id for d in low]
    assert MEMORY_FACT in next(d.passage for d in low if d.id == mem)
    high = service.answering_documents(QUESTION_MEMORY, [_group("x", 1.0)])
    assert high == []  # the first result covers more: no document joins it


def test_nothing_shown_is_repeated_and_the_slots_are_few(service) -> None:
    every = service.answering_documents(QUESTION_MEMORY, [])
    assert 1 <= len(every) <= DOCUMENT_SLOTS
    ids = [d.id for d in every]
    assert len(set(ids)) == len(ids)
    again = service.answering_documents(QUESTION_MEMORY, [_group(ids[0], 0.0)])
    assert ids[0] not in [d.id for d in again]


def test_the_search_filters_apply(service) -> None:
    here = service.answering_documents(QUESTION_MEMORY, [], project="me/other")
    assert [d.id for d in here] == ["memory:projects/-home-me-other/memory/MEMORY.md"]
    assert service.answering_documents(QUESTION_MEMORY, [], until="2000-01-01") == []
    assert service.answering_documents("", []) == []
    assert service.answering_documents("kind:prompt formatter user", []) == []


def test_the_passage_is_redacted(service) -> None:
    docs = service.answering_documents("which key did the plan keep out of the repo", [])
    plan = next(d for d in docs if d.id == f"plan:plans/{SLUG}.md")
    assert "REDACTED" in plan.passage
    for secret in SECRET.secrets:
        assert secret not in plan.passage and secret not in plan.snippet


async def test_the_default_search_answer_holds_the_plan_and_its_id_opens(service) -> None:
    async with connect(service) as c:
        r = await c.call_tool("search", {"query": QUESTION_PLAN})
        rows = r.structured_content["results"]
        assert len(rows) <= 4 + DOCUMENT_SLOTS, rows
        plan = next((row for row in rows if row["id"] == f"plan:plans/{SLUG}.md"), rows)
        assert PLAN_FACT in plan["text"]
        opened = await c.call_tool("get_plan", {"codename": plan["id"]})
        assert not opened.is_error and PLAN_FACT in opened.structured_content["text"]
        text = json.dumps(r.structured_content)
        assert not any(s in text for s in SECRET.secrets)
        # asked for a kind, or on a later page, the answer is that and nothing beside it
        only = await c.call_tool("search", {"query": QUESTION_PLAN, "kind": "prompt"})
        assert {row["kind"] for row in only.structured_content["results"]} == {"prompt"}
        cursor = r.structured_content["next_cursor"]
        if cursor:
            nxt = await c.call_tool("search", {"query": QUESTION_PLAN, "cursor": cursor})
            ids = [row["id"] for row in nxt.structured_content["results"]]
            assert plan["id"] not in ids


async def test_the_memory_file_that_answers_opens_by_its_id(service) -> None:
    # the sessions' chatter covers QUESTION_MEMORY whole (without its answer); a question
    # that names memory gets the memory file covering most of it all the same
    async with connect(service) as c:
        r = await c.call_tool("search", {"query": "what did I keep in memory about formatting"})
        rows = r.structured_content["results"]
        mem = next(row for row in rows if MEMORY_FACT in row["text"])
        assert mem["kind"] == "memory"
        opened = await c.call_tool("get_memory_file", {"project": mem["id"]})
        assert not opened.is_error and MEMORY_FACT in opened.structured_content["text"]
