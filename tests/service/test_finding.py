"""Finding sessions: the turn that answers a question, across entries, runs and appends.

Real JSONL, a real index, incremental runs as the live indexer makes them. Each test builds
the case a plain lexical search got wrong: a question whose words are spread over a turn's
prompt, answer and tool call; a long session that mentions every word in passing against
one that has a turn about them; a turn continued after the indexer stopped and resumed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import build_index

PROJECT = "-home-me-proj"


def _line(i: int, sid: str, role: str, content, *, ts: int | None = None) -> str:
    t = i if ts is None else ts
    rec = {
        "type": role,
        "uuid": f"{sid[:8]}-{i}",
        "parentUuid": None,
        "sessionId": sid,
        "timestamp": f"2026-03-01T{10 + t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}.000Z",
        "cwd": "/home/me/proj",
        "version": "2.1.40",
    }
    if role == "user":
        rec["message"] = {"role": "user", "content": content}
    else:
        rec["message"] = {
            "id": f"msg_{sid[:4]}_{i}",
            "role": "assistant",
            "model": "claude-x",
            "content": content,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    return json.dumps(rec) + "\n"


def _turn(sid: str, start: int, prompt: str, answer: str, command: str = "") -> list[str]:
    lines = [_line(start, sid, "user", prompt)]
    blocks = [{"type": "text", "text": answer}]
    if command:
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{sid[:4]}{start}",
                "name": "Bash",
                "input": {"command": command, "description": "run it"},
            }
        )
    lines.append(_line(start + 1, sid, "assistant", blocks))
    return lines


def _write(root: Path, sid: str, lines: list[str], mode: str = "w") -> Path:
    path = root / "projects" / PROJECT / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, mode) as f:
        f.writelines(lines)
    return path


FILLER = [
    "refactor the parser",
    "rename the config loader",
    "bump the lint rules",
    "tidy the README",
    "speed up the build",
    "add a changelog entry",
]


def _filler_turns(sid: str, start: int, n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for k in range(n):
        topic = rnd.choice(FILLER)
        out += _turn(
            sid, start + 2 * k, f"please {topic} next", f"Done: I had to {topic}; tests pass."
        )
    return out


SPREAD = "a" * 8 + "-0000-4000-8000-000000000001"
PASSING = "b" * 8 + "-0000-4000-8000-000000000002"


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    # the answer: one turn whose prompt, reply and command together hold the question's words
    _write(
        root,
        SPREAD,
        _filler_turns(SPREAD, 0, 6, 1)
        + _turn(
            SPREAD,
            100,
            "the nightly export keeps timing out",
            "The exporter now streams rows in batches of 500 instead of loading the table.",
            "pytest tests/test_export.py -k batches",
        )
        + _filler_turns(SPREAD, 200, 6, 2),
    )
    # a long session that says every word once, far apart, in turns about other things
    words = ["nightly", "export", "batches", "streams", "timing"]
    lines = []
    for k in range(40):
        extra = f" (see the {words[k % 5]} notes)" if k % 8 == 0 else ""
        lines += _turn(
            PASSING, 2 * k, f"please {FILLER[k % 6]}{extra}", f"Done with {FILLER[(k + 1) % 6]}."
        )
    _write(root, PASSING, lines)
    return root


def test_a_question_finds_the_turn_that_answers_it(archive: Path, tmp_path: Path) -> None:
    svc = build_index(archive, tmp_path / "data")
    for q in (
        "why did the nightly export time out and how did we fix it",
        "export streams batches",
        "nightly export batches of 500",
    ):
        page = svc.search(q, group_by_session=True, limit=5)
        assert page.groups and page.groups[0].session_id == SPREAD, q
        best = page.groups[0].hits[0]
        assert "nightly export" in best.prompt  # the turn's prompt, shown with the hit
        assert best.kind != "prompt"  # ... and a snippet of what answered it
        assert best.turn_id and best.turn_id != best.id
        # the strict language still means what it says
        strict = svc.search("nightly AND changelog", group_by_session=True, limit=5)
        assert all(g.session_id != SPREAD for g in strict.groups or [])


def test_function_words_alone_still_search(archive: Path, tmp_path: Path) -> None:
    svc = build_index(archive, tmp_path / "data")
    page = svc.search("the", group_by_session=True, limit=5)
    assert page.groups  # nothing else left: the function word is kept


def test_a_required_word_must_be_there(archive: Path, tmp_path: Path) -> None:
    svc = build_index(archive, tmp_path / "data")
    page = svc.search("nightly +changelog", group_by_session=True, limit=5)
    for g in page.groups or []:
        assert any(
            "changelog" in (h.snippet + h.prompt).lower() for h in g.hits
        ) or g.session_id in (SPREAD, PASSING)


def test_a_turn_continued_after_a_restart_keeps_its_prompt(archive: Path, tmp_path: Path) -> None:
    """The turn an entry belongs to is carried in the file's checkpoint: an answer
    appended after the indexer stopped is still found under the prompt that asked."""
    sid = "c" * 8 + "-0000-4000-8000-000000000003"
    _write(
        archive,
        sid,
        _filler_turns(sid, 0, 3, 3)
        + [_line(50, sid, "user", "where do the flamingo credentials live")],
    )
    build_index(archive, tmp_path / "data")
    _write(
        archive,
        sid,
        [
            _line(
                51,
                sid,
                "assistant",
                [
                    {
                        "type": "text",
                        "text": "They live in the vault under ops/flamingo, rotated weekly.",
                    }
                ],
            )
        ],
        mode="a",
    )
    svc = build_index(archive, tmp_path / "data")  # an incremental run: appended bytes only
    page = svc.search("vault rotated weekly", group_by_session=True, limit=3)
    assert page.groups[0].session_id == sid
    assert "flamingo credentials" in page.groups[0].hits[0].prompt


def test_results_page_on_and_never_repeat_a_session(archive: Path, tmp_path: Path) -> None:
    for k in range(12):
        sid = f"{k:08x}-1111-4000-8000-000000000000"
        _write(archive, sid, _turn(sid, 0, f"export job {k} failed", f"fixed export {k}"))
    svc = build_index(archive, tmp_path / "data")
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page = svc.search("export", group_by_session=True, limit=4, cursor=cursor)
        seen += [g.session_id for g in page.groups or []]
        cursor = page.next_cursor
        if not cursor:
            break
    assert len(seen) == len(set(seen)) >= 13


@settings(max_examples=40, deadline=None)
@given(st.text(min_size=0, max_size=60))
def test_any_query_gives_a_page(tmp_path_factory: pytest.TempPathFactory, q: str) -> None:
    svc = _shared(tmp_path_factory)
    page = svc.search(q, group_by_session=True, limit=5)
    assert page.groups is not None or page.hits is not None
    for g in page.groups or []:
        assert 0.0 <= g.relevance <= 1.0 and g.hits


_SVC = {}


def _shared(factory: pytest.TempPathFactory):
    if "svc" not in _SVC:
        root = factory.mktemp("finding") / "claude"
        _write(
            root,
            SPREAD,
            _turn(
                SPREAD,
                0,
                "the nightly export --no-verify flag",
                "use `git commit --no-verify` only for WIP",
            ),
        )
        _SVC["svc"] = build_index(root, factory.mktemp("finding-data"))
    return _SVC["svc"]


def test_a_remembered_flag_is_searched(tmp_path_factory: pytest.TempPathFactory) -> None:
    svc = _shared(tmp_path_factory)
    for q in ("--no-verify", "-- --no-verify", "no-verify flag"):
        page = svc.search(q, group_by_session=True, limit=3)
        assert page.groups and page.groups[0].session_id == SPREAD, q


def test_counts_agree_between_sessions_entries_and_facets(archive: Path, tmp_path: Path) -> None:
    svc = build_index(archive, tmp_path / "data")
    for q in ("nightly export", "please refactor", "the"):
        grouped = svc.search(q, group_by_session=True, facets=True)
        single = svc.search(q, facets=True)
        assert grouped.total == single.total > 0, q  # entries matched, each once
        assert sum(f.count for f in single.facets.projects) == single.total
        prompts = svc.search(q, kind="prompt", facets=True)
        # with a kind chosen, a project's count is what the results hold; kinds count all
        assert sum(f.count for f in prompts.facets.projects) == prompts.total
        assert sum(f.count for f in prompts.facets.kinds) >= prompts.total


def _planned_session(root: Path, plan: str) -> None:
    """A session (slug `quiet-zebra-plan`) whose one turn asked for and got the zebracorn
    migration, and its plan file: `plan` written out at length."""
    lines = _filler_turns(SPREAD, 0, 3, 3) + _turn(
        SPREAD,
        100,
        "what about the zebracorn migration of the orders table?",
        "Run the zebracorn migration per shard, so that the orders table locks for seconds "
        "only; each shard is copied, checked against its source and switched over on its own, "
        "and a shard that fails its check is left as it was for a person to look at.",
    )
    lines += _filler_turns(SPREAD, 200, 3, 4)
    slugged = []
    for line in lines:
        rec = json.loads(line)
        rec["slug"] = "quiet-zebra-plan"
        slugged.append(json.dumps(rec) + "\n")
    _write(root, SPREAD, slugged)
    (root / "plans").mkdir(parents=True, exist_ok=True)
    (root / "plans" / "quiet-zebra-plan.md").write_text(f"# Plan\n\n{plan}\n")


@pytest.mark.parametrize(
    "plan",
    [
        "Zebracorn migration: run the orders table per shard.",
        "Zebracorn migration of the orders table: run it per shard. Zebracorn migration steps. "
        "Orders table.",
    ],
)
def test_the_turn_that_asked_comes_before_its_plan(tmp_path: Path, plan: str) -> None:
    """A plan that retells the turn in its words, short (so it outscores the turn's long
    answer) or saying them twice, is shown after the turn where the question was asked
    and answered."""
    root = tmp_path / "claude"
    _planned_session(root, plan)
    svc = build_index(root, tmp_path / "data")
    for q in ("zebracorn migration orders table", "how do we run the zebracorn migration"):
        group = svc.search(q, group_by_session=True, limit=5).groups[0]
        assert group.session_id == SPREAD, q
        kinds = [h.kind for h in group.hits]
        assert kinds[0] != "plan" and "zebracorn" in group.hits[0].prompt, (q, kinds)
        assert "plan" in kinds, (q, kinds)  # still shown, behind the turn


def test_a_plan_holding_what_the_turn_lacks_comes_first(tmp_path: Path) -> None:
    """A fact only the plan records (the rollback window) is shown by the plan first."""
    root = tmp_path / "claude"
    _planned_session(
        root, "Zebracorn migration of the orders table: keep a flamingo rollback window."
    )
    svc = build_index(root, tmp_path / "data")
    group = svc.search("zebracorn migration flamingo rollback", group_by_session=True).groups[0]
    assert group.session_id == SPREAD
    assert group.hits[0].kind == "plan", [h.kind for h in group.hits]
