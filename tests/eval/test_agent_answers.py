"""CI floor for what an agent reads (`agent_harness`): on one small generated archive,
the planted facts must be in the first search's answer, within two calls, at a token
cost an agent can afford; the tool list must stay lean. Floors sit a margin under the
harness's figures so that a regression fails, not noise."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.eval.agent_harness import Report, build, evaluate, needle_questions

SEED = 5


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Report, int]:
    service, answers = build(SEED, Path(tmp_path_factory.mktemp("agent-eval")), size_mb=8)
    return asyncio.run(evaluate(service, needle_questions(answers)))


def _row(report: Report, cat: str) -> dict:
    return next(r for r in report.table() if r["category"] == cat)


def test_the_fact_is_in_what_the_agent_reads(report: tuple[Report, int]) -> None:
    rep, _listed = report
    every = _row(rep, "ALL")
    assert every["fact@1"] >= 0.95, rep.table()
    assert every["fact@2"] >= 0.97, rep.table()
    assert _row(rep, "needle-transcript")["fact@1"] >= 0.95, rep.table()
    assert _row(rep, "search_history")["fact@1"] >= 0.75, rep.table()


def test_plans_and_memory_answer_in_the_first_call(report: tuple[Report, int]) -> None:
    """A plan or memory file is one document that the session ranking puts below the
    sessions; its own slot in the answer (`answering_documents`) must hold its fact:
    four questions of each, one miss allowed."""
    rep, _listed = report
    assert _row(rep, "needle-plan")["fact@1"] >= 0.75, rep.table()
    assert _row(rep, "needle-memory")["fact@1"] >= 0.75, rep.table()
    assert _row(rep, "needle-plan")["fact@1"] + _row(rep, "needle-memory")["fact@1"] >= 1.75


def test_answers_cost_few_tokens(report: tuple[Report, int]) -> None:
    rep, listed = report
    search = [p.tokens1 for c, rows in rep.rows.items() if c.startswith("needle-") for p in rows]
    search.sort()
    assert search[len(search) // 2] <= 800, search
    assert search[int(0.9 * len(search))] <= 1500, search
    assert listed <= 1500
