"""The blind known-item set: queries written from the real transcripts alone, graded by turn.

`blind_queries.jsonl` was written by reading the transcripts in `../shared/corpus/real`
before reading any ranking code. Each query names, per answer, the source transcript
(`src`, its path under the corpus), the uuid of the prompt that opened the answering turn
(`turn`) and the uuid of the entry that answers (`answer`, the prompt itself when the
question is answered by what was asked). Categories: `plain` (a question as asked),
`deep` (a detail far into a long session), `topic` (a topic many sessions mention, one
of them meant), `ident` (an identifier with context), `reword` (at most one content word
shared with the session: `blind_words.py`, checked by `test_blind_set.py`).

A generated archive clones each source several times with new ids, so an answer is
found in the archive through the manifest (`out` file -> `src` file) and through line
numbers: a clone keeps its source's lines one for one, so the answering turn is a range
of lines, from the prompt a person typed that opened it (a compaction summary, a
command's expansion or a skill's body opens no turn: the typed prompt before it does) to
the answering entry. A session shown in the top 10
counts when it is a clone of an answering source; its turn counts when a turn shown for
it starts inside that range (the index may open a turn at an entry after the human
prompt, such as a task notification, before the answer).

Scores per category: Recall@10, MRR@10, hit@1, Turn@10 (the answering session is in the
top 10 and its answering turn is among the turns shown for it) and Turn@1st (... and is
the first turn shown), all over every query of the category.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLIND = HERE / "blind_queries.jsonl"
REAL = HERE.parents[2] / "shared" / "corpus" / "real"
K = 10
CATEGORIES = ("plain", "deep", "topic", "ident", "reword")


@dataclass(frozen=True)
class Answer:
    src: str  # path under the corpus
    turn: str  # uuid of the prompt that opened the answering turn
    answer: str  # uuid of the answering entry


@dataclass
class BlindQuery:
    id: str
    cat: str
    q: str
    answers: list[Answer]


@dataclass
class BlindOutcome:
    rank: int | None
    turn_shown: bool  # the answering turn among the shown turns of the found session
    turn_first: bool  # ... and it is the first one shown


@dataclass
class BlindReport:
    rows: dict[str, list[BlindOutcome]] = field(default_factory=lambda: defaultdict(list))
    misses: list[tuple[str, int | None, bool, str]] = field(default_factory=list)

    def add(self, q: BlindQuery, o: BlindOutcome) -> None:
        self.rows[q.cat].append(o)
        if o.rank != 1 or not o.turn_first:
            self.misses.append((q.id, o.rank, o.turn_first, q.q))

    def extend(self, other: BlindReport) -> None:
        for cat, rows in other.rows.items():
            self.rows[cat].extend(rows)
        self.misses.extend(other.misses)

    def table(self) -> list[dict]:
        cats = [c for c in CATEGORIES if c in self.rows] + sorted(
            c for c in self.rows if c not in CATEGORIES
        )
        everything = [o for c in cats for o in self.rows[c]]
        out = []
        for cat, rows in [*((c, self.rows[c]) for c in cats), ("ALL", everything)]:
            found = [o for o in rows if o.rank is not None]
            n = len(rows) or 1
            out.append(
                {
                    "category": cat,
                    "n": len(rows),
                    "recall@10": sum(o.rank is not None for o in rows) / n,
                    "mrr@10": sum(1 / o.rank for o in found) / n,
                    "hit@1": sum(o.rank == 1 for o in rows) / n,
                    "turn@10": sum(o.turn_shown for o in found) / n,
                    "turn@1st": sum(o.turn_first for o in found) / n,
                }
            )
        return out


def format_blind(table: list[dict]) -> str:
    lines = [
        f"{'category':<10} {'n':>4} {'R@10':>6} {'MRR@10':>7} {'hit@1':>6} "
        f"{'Turn@10':>8} {'Turn@1st':>9}"
    ]
    lines += [
        f"{r['category']:<10} {r['n']:>4} {r['recall@10']:>6.2f} {r['mrr@10']:>7.2f} "
        f"{r['hit@1']:>6.2f} {r['turn@10']:>8.2f} {r['turn@1st']:>9.2f}"
        for r in table
    ]
    return "\n".join(lines)


def load_blind(path: Path = BLIND) -> list[BlindQuery]:
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(BlindQuery(d["id"], d["cat"], d["q"], [Answer(**a) for a in d["answers"]]))
    return out


def _typed_by_a_person(entry: dict) -> bool:
    """A user entry a person typed: not a tool result, not injected by the harness (a
    slash command's expansion, a skill's body: `isMeta`; a background task's
    notification), not a compaction summary, not the note of an interruption."""
    if entry.get("type") != "user" or entry.get("isMeta") or entry.get("isCompactSummary"):
        return False
    content = (entry.get("message") or {}).get("content")
    if isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return False
        content = " ".join(b.get("text", "") for b in content if isinstance(b, dict))
    return isinstance(content, str) and not content.lstrip().startswith(_NOT_TYPED)


_NOT_TYPED = (
    "This session is being continued from a previous conversation",
    "<task-notification>",
    "[Request interrupted by user",
)


@functools.lru_cache(maxsize=64)
def _read_source(path: Path) -> tuple[dict[str, int], list[int]]:
    """A source transcript's line of each uuid, and the lines of its typed prompts."""
    lines: dict[str, int] = {}
    typed: list[int] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for i, line in enumerate(handle):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("uuid"), str):
                lines.setdefault(entry["uuid"], i)
                if _typed_by_a_person(entry):
                    typed.append(i)
    return lines, typed


class ArchiveKey:
    """One generated archive's clones of the corpus: which session comes from which
    source, and the line a hit's byte offset falls on."""

    def __init__(self, root: Path, manifest: Path) -> None:
        self.root = root
        self.session_src: dict[str, str] = {}
        self.file_src: dict[str, str] = {}
        prefix = str(REAL) + "/"
        for line in manifest.read_text().splitlines()[1:]:
            row = json.loads(line)
            src = row["src"].removeprefix(prefix)
            self.file_src[row["out"]] = src
            if row.get("role") == "main" and row.get("sessionId"):
                self.session_src[row["sessionId"]] = src
        self._starts: dict[str, list[int]] = {}
        self._sources: dict[str, tuple[dict[str, int], list[int]]] = {}

    def sources(self) -> set[str]:
        return set(self.session_src.values())

    def line_at(self, rel: str, offset: int) -> int:
        starts = self._starts.get(rel)
        if starts is None:
            data = (self.root / rel).read_bytes()
            starts, at = [0], data.find(b"\n")
            while at >= 0:
                starts.append(at + 1)
                at = data.find(b"\n", at + 1)
            self._starts[rel] = starts
        import bisect

        return bisect.bisect_right(starts, offset) - 1

    def span(self, a: Answer) -> tuple[int, int]:
        """The answering turn as source lines: from the prompt a person typed that opened
        it (the one named, or the last typed before it when the one named is a
        compaction summary or a command's expansion) to the answering entry."""
        got = self._sources.get(a.src)
        if got is None:
            got = self._sources[a.src] = _read_source(REAL / a.src)
        lines, typed = got
        start = lines[a.turn]
        opened = [t for t in typed if t <= start]
        return (opened[-1] if opened else start), lines[a.answer]


def _hit_line(key: ArchiveKey, hit) -> tuple[str, int] | None:
    ref = hit.turn_id or hit.id
    if not ref:
        return None
    parts = ref.rsplit(":", 2)  # path:offset:n for an entry
    if len(parts) != 3 or parts[0] not in key.file_src or not parts[1].isdigit():
        return None
    rel, offset = parts[0], parts[1]
    return key.file_src[rel], key.line_at(rel, int(offset))


def run_blind(service, key: ArchiveKey, q: BlindQuery) -> BlindOutcome:
    """One query through `search` as `ccarchive search --json` asks it (sessions)."""
    page = service.search(q.q, limit=K, group_by_session=True)
    wanted = {a.src for a in q.answers}
    for i, group in enumerate(page.groups or [], 1):
        src = key.session_src.get(group.session_id)  # clones count as the source
        if src not in wanted:
            continue
        spans = [key.span(a) for a in q.answers if a.src == src]
        shown = [_hit_line(key, h) for h in group.hits]
        ok = [
            s is not None and s[0] == src and any(lo <= s[1] <= hi for lo, hi in spans)
            for s in shown
        ]
        return BlindOutcome(i, any(ok), bool(ok) and ok[0])
    return BlindOutcome(None, False, False)


def evaluate_blind(
    service,
    key: ArchiveKey,
    queries: list[BlindQuery],
    verbose: bool = False,
) -> BlindReport:
    report = BlindReport()
    for q in queries:
        o = run_blind(service, key, q)
        report.add(q, o)
        if verbose and (o.rank != 1 or not o.turn_first):
            print(f"  {q.id:<4} rank={o.rank} turn_shown={o.turn_shown} first={o.turn_first} {q.q}")
    return report
