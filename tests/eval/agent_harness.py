"""What an agent reads: the answering fact after one call and after two, and its cost.

An agent asking the archive a past-work question calls `search` with default arguments
and reads the answer; if the fact is not there it makes one follow-up call, the one the
first result points to (`context` for a turn, `get_plan` for a plan, `get_memory_file`
for a memory file). Claude Code forwards a tool's structured content to the model, so
that is what is read and counted (tokens = characters / 4 of its JSON).

Questions: the planted facts of generated archives (`make_archive.py --needles`: facts
in transcripts, plans, memory files and typed prompts, each with a natural question),
and `agent_questions.jsonl`, questions about the real transcripts the archive is cloned
from, each with the words of its answer. A fact counts as read when its made-up
identifier (or the answer's words) appears in what the agent read.

    .venv/bin/python -m tests.eval.agent_harness --seeds 1 2

also prints the tool list's size (characters / 4 of `tools/list` as a client sends it
to the model: name, description, input schema). `test_agent_answers.py` runs one small
seed in CI against a floor.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "agent_questions.jsonl"


@dataclass
class Question:
    id: str
    cat: str
    q: str
    facts: list[str]  # any of these, case-insensitive, in what was read
    tool: str = "search"  # the first call


@dataclass
class Played:
    at1: bool
    at2: bool
    tokens1: int
    tokens2: int


@dataclass
class Report:
    rows: dict[str, list[Played]] = field(default_factory=lambda: defaultdict(list))

    def table(self) -> list[dict]:
        out = []
        cats = sorted(self.rows)
        every = [p for c in cats for p in self.rows[c]]
        for cat, rows in [*((c, self.rows[c]) for c in cats), ("ALL", every)]:
            t1 = sorted(p.tokens1 for p in rows)
            out.append(
                {
                    "category": cat,
                    "n": len(rows),
                    "fact@1": sum(p.at1 for p in rows) / len(rows),
                    "fact@2": sum(p.at2 for p in rows) / len(rows),
                    "median_tokens": int(statistics.median(t1)),
                    "p90_tokens": t1[min(len(t1) - 1, int(0.9 * len(t1)))],
                }
            )
        return out


def fact_of(needle: dict) -> str:
    """A planted fact's own identifier: its backticked word, else the longest word of its
    phrase that the question does not use (the made-up name, number or code)."""
    m = re.search(r"`([^`]+)`", needle.get("phrase", ""))
    if m:
        return m.group(1)
    asked = {w.lower() for w in re.findall(r"\w+", needle.get("query", ""))}
    words = [w.strip("()[],.;:'\"") for w in needle.get("phrase", "").split()]
    return max((w for w in words if w.lower() not in asked), key=len, default="")


def needle_questions(answers: Path) -> list[Question]:
    out = []
    for n in json.loads(answers.read_text())["needles"]:
        fact = fact_of(n)
        if fact:
            out.append(Question(n["id"], f"needle-{n['kind']}", n["query"], [fact]))
            if n["kind"] == "prompt":  # a typed prompt, asked of the history tool too
                out.append(
                    Question(n["id"], "search_history", n["query"], [fact], tool="search_history")
                )
    return out


def own_questions() -> list[Question]:
    if not QUESTIONS.exists():
        return []
    return [
        Question(q["id"], q["cat"], q["q"], q["facts"])
        for q in map(json.loads, QUESTIONS.read_text().splitlines())
        if q
    ]


def tokens(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":"))) // 4


def first_row(data: dict) -> dict | None:
    """The first result of a search answer, in either shape (sessions or single hits)."""
    for key in ("results", "groups", "hits", "items"):
        rows = data.get(key) or []
        if rows:
            row = rows[0]
            inner = row.get("hits") if isinstance(row, dict) else None
            return {**row, **inner[0]} if inner else row
    return None


def follow_up(row: dict) -> tuple[str, dict]:
    """The call the first result points to."""
    kind = row.get("kind", "")
    if "kind" not in row and row.get("session_id"):  # a typed prompt: its session
        return "get_session", {"session_id": row["session_id"]}
    if kind == "plan":
        return "get_plan", {"codename": row.get("codename") or row["id"]}
    if kind == "memory":
        args = {"project": row.get("project") or row["id"]}
        if row.get("filename"):
            args["filename"] = row["filename"]
        return "get_memory_file", args
    return "context", {"id": row["id"]}


async def play(client: Any, q: Question) -> Played:
    r1 = await client.call_tool(q.tool, {"query": q.q})
    d1 = r1.structured_content or {"error": r1.content[0].text}
    read = json.dumps(d1, ensure_ascii=False).lower()
    at1 = any(f.lower() in read for f in q.facts)
    t1, t2, at2 = tokens(d1), 0, at1
    if not at1:
        row = first_row(d1)
        if row is not None:
            tool, args = follow_up(row)
            r2 = await client.call_tool(tool, args)
            d2 = r2.structured_content or {"error": r2.content[0].text}
            t2 = tokens(d2)
            at2 = any(f.lower() in json.dumps(d2, ensure_ascii=False).lower() for f in q.facts)
    return Played(at1, at2, t1, t2)


def tool_list_tokens(tools: list[Any]) -> int:
    """Characters / 4 of the tool definitions as a client sends them to the model."""
    return tokens(
        [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in tools
        ]
    )


async def evaluate(
    service: Any, questions: list[Question], *, verbose: bool = False, now: Any = None
) -> tuple[Report, int]:
    from mcp import Client

    from ccarchive.mcp_server.server import build_server

    report = Report()
    server = build_server(service, clock=(lambda: now) if now else None)
    async with Client(server) as client:
        listed = tool_list_tokens((await client.list_tools()).tools)
        for q in questions:
            p = await play(client, q)
            report.rows[q.cat].append(p)
            if verbose and not p.at1:
                print(f"  miss@1 {q.id:<12} at2={p.at2} {q.q}")
    return report, listed


def build(seed: int, workdir: Path, size_mb: int) -> tuple[Any, Path]:
    from tests.conftest import build_index
    from tests.support.generated import generate

    out = workdir / f"s{seed}"
    root, answers = out / "claude", out / "answers.json"
    generate(
        out,
        [
            "--out",
            str(root),
            "--seed",
            str(seed),
            "--needles",
            "40",
            "--answers",
            str(answers),
            "--manifest",
            str(out / "manifest.jsonl"),
            "--size-mb",
            str(size_mb),
            "--force",
        ],
    )
    return build_index(root, out / "data"), answers


def format_table(table: list[dict], listed: int | None = None) -> str:
    lines = [f"{'category':<18} {'n':>4} {'fact@1':>7} {'fact@2':>7} {'median':>7} {'p90':>6}"]
    lines += [
        f"{r['category']:<18} {r['n']:>4} {r['fact@1']:>7.2f} {r['fact@2']:>7.2f} "
        f"{r['median_tokens']:>7} {r['p90_tokens']:>6}"
        for r in table
    ]
    if listed is not None:
        lines.append(f"tool list: {listed} tokens")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--size-mb", type=int, default=20)
    ap.add_argument("--workdir", type=Path)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="ccarchive-agent-eval-"))
    total, listed = Report(), 0
    for seed in args.seeds:
        service, answers = build(seed, workdir, args.size_mb)
        questions = needle_questions(answers) + own_questions()
        rep, listed = asyncio.run(evaluate(service, questions, verbose=args.verbose))
        for cat, rows in rep.rows.items():
            total.rows[cat].extend(rows)
        if not args.json:
            print(f"seed {seed}\n{format_table(rep.table())}\n")
    if args.json:
        print(json.dumps({"table": total.table(), "tool_list_tokens": listed}, indent=1))
    else:
        print(f"all seeds {args.seeds}\n{format_table(total.table(), listed)}")


if __name__ == "__main__":
    main()
