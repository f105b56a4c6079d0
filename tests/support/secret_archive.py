"""An archive with fake credentials planted in every place that holds text.

`plant_archive(root, seed)` makes one `Plant` per shape and place: the shape's text (see
`secret_shapes`) is put at the start, the middle or the end of realistic filler, or
across the point where the index cuts a long text in two (the head and tail it keeps of
tool output, the 200 characters of a title); sometimes JSON-escaped once or twice (a
tool that printed JSON holding it). A made-up search word (the `needle`) is put a few
words before and after it, so that a snippet around the needle cuts through the
secret. Every place: prompts, assistant prose, thinking, tool calls, tool results,
compaction summaries, summary records, plans, agent subplans, memory files,
session-memory summaries, history lines and their pasted text, subagent transcripts,
custom titles, AI titles and agent names.

`plant_archive(root, seed, per_shape=k)` is the smaller draw the suite reads: each shape
in k places, dealt so that every place holds some and each shape's first planting (the
one every surface reads) is written bare where its shape allows, a tool's text cut
through in turn; the full draw (every shape in every place) is the slow tier's.
"""

from __future__ import annotations

import json
import random
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from ccarchive.archive.record_text import TITLE_CAP, TOOL_CAP
from tests.support.secret_shapes import SHAPES, Gen, Planted

PLACES = (
    "prompt",
    "assistant",
    "thinking",
    "tool_use",
    "tool_result",
    "compact_summary",
    "summary",
    "plan",
    "agent_plan",
    "memory",
    "session_memory",
    "history",
    "history_paste",
    "subagent",
    "custom_title",
    "ai_title",
    "agent_name",
)
TITLE_PLACES = ("summary", "custom_title", "ai_title", "agent_name")
_WORDS = (
    "the build failed again after the dependency update so I reran the migration with "
    "verbose logging and compared the output against yesterday run where the worker "
    "pool drained cleanly before the deploy window closed and the cache was warm"
).split()


@dataclass
class Plant:
    place: str
    shape: str
    secrets: tuple[str, ...]
    needle: str
    words: tuple[str, ...]
    text: str = ""
    session_id: str = ""
    agent_id: str = ""
    where: str = ""
    """start, middle, end, cut (across the index's cut of a long text) or title."""
    rank: int = 0
    """Which of its shape's plantings this is (0: the one every surface reads)."""


@dataclass
class PlantedArchive:
    root: Path
    plants: list[Plant] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    subagents: list[tuple[str, str]] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)

    def first_of_each(self) -> list[Plant]:
        """The first planting of each shape: what a surface too costly to read for every
        planting reads, every shape once (and, in a spread draw, every place)."""
        return [plant for plant in self.plants if plant.rank == 0]


def _filler(rng: random.Random, n: int) -> str:
    out: list[str] = []
    size = 0
    while size < n:
        w = rng.choice(_WORDS)
        out.append(w)
        size += len(w) + 1
        if rng.random() < 0.06:
            out.append("\n")
    return " ".join(out).replace(" \n ", "\n")


def _exact(rng: random.Random, n: int) -> str:
    return _filler(rng, n + 20)[:n]


def _escape(rng: random.Random, text: str) -> str:
    r = rng.random()
    if r < 0.15:
        return json.dumps(text)[1:-1]  # printed inside a JSON string
    if r < 0.2:
        return json.dumps(json.dumps(text))[1:-1]  # JSON in a JSON string
    if r < 0.25:  # as PHP's and Java's encoders write JSON: "\/" for "/"
        return json.dumps(text)[1:-1].replace("/", "\\/")
    return text


_TOOL_PLACES = ("tool_use", "tool_result")
"""The places whose long texts the index keeps only the head and tail of."""


def _spread(
    rng: random.Random, names: list[str], places: tuple[str, ...], per_shape: int
) -> dict[tuple[str, str], int]:
    """The (place, shape) pairs of a smaller draw: ``per_shape`` places for each shape,
    the shapes in a seeded order dealt round the places, so that every place holds a
    share of them and the first planting of each shape (rank 0) runs through every
    place too (when the places are fewer than the shapes and ``per_shape`` shares no
    factor with their number). Each pair maps to its planting's rank."""
    order = sorted(names)
    rng.shuffle(order)
    return {
        (places[(i * per_shape + j) % len(places)], name): j
        for i, name in enumerate(order)
        for j in range(per_shape)
    }


def _embed(
    rng: random.Random, p: Planted, needle: str, place: str, where: str | None = None
) -> tuple[str, str]:
    """The planting's whole text, and where in it the secret went (``where`` if given,
    for a tool's text, else drawn)."""
    body = _escape(rng, p.text)
    near_before = _filler(rng, rng.randrange(0, 120))
    near_after = _filler(rng, rng.randrange(0, 120))
    core = f"{needle} {near_before} {body} {near_after} {needle}"
    # where the secret to cut through starts in core, and how long it is: the longest (the
    # earliest in a title, which keeps only its start)
    forms = [x if x in core else x.replace("/", "\\/") for x in p.secrets]  # "\\/": escaped
    first = (
        min(forms, key=core.index)
        if place in TITLE_PLACES
        else max(forms, key=len)
        if len(forms) < 3
        else forms[0]
    )
    at, size = core.index(first), len(first)
    k = rng.randrange(8, max(9, min(size, 60)))  # its characters on the kept side of a cut
    if place in TITLE_PLACES:
        k = rng.randrange(64, 100)  # past a format's fixed prefix (a JWT's header)
        # a title keeps TITLE_CAP characters: put the secret across that cut
        lead = TITLE_CAP - k - at - 1
        if lead >= 0:
            return f"{_exact(rng, lead)} {core}", "title"
        # too far in: start the title at a word of its text (names stay whole)
        cut = at - (TITLE_CAP - k)
        start = max(core.rfind(" ", 0, cut), core.rfind("\n", 0, cut)) + 1
        return core[start:], "title"
    where = (
        where or rng.choice(("start", "middle", "end", "cut"))
        if place in _TOOL_PLACES
        else rng.choice(("start", "middle", "end"))
    )
    if where == "cut":
        # the index keeps the head and the tail of long tool text (record_text.cap): put
        # the secret across the end of the head or the start of the tail
        tail = TOOL_CAP // 5
        if rng.random() < 0.5:
            lead = TOOL_CAP - tail - k - at - 1
            if lead >= 0:
                return f"{_exact(rng, lead)} {core} {_filler(rng, 2 * TOOL_CAP)}", where
        after = tail - (size - k) - (len(core) - at - size) - 1
        if after > 0:
            return f"{_filler(rng, 2 * TOOL_CAP)} {core} {_exact(rng, after)}", where
        where = "middle"
    pad = _filler(rng, rng.randrange(200, 1500))
    if where == "start":
        return f"{core} {pad}", where
    if where == "end":
        return f"{pad} {core}", where
    return f"{pad[: len(pad) // 2]} {core} {pad[len(pad) // 2 :]}", where


def _needle(rng: random.Random, used: set[str]) -> str:
    while True:
        n = "zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(7))
        if n not in used:
            used.add(n)
            return n


def plant_archive(
    root: Path,
    seed: int,
    shapes: list[str] | None = None,
    places: tuple[str, ...] = PLACES,
    per_shape: int | None = None,
) -> PlantedArchive:
    """Write the archive under ``root`` and say what was planted where: every shape in
    every place, or, given ``per_shape``, each shape in that many places (`_spread`)."""
    rng = random.Random(seed)
    gen = Gen(rng)
    used: set[str] = set()
    out = PlantedArchive(root)
    names = shapes or sorted(SHAPES)
    spread = _spread(random.Random(seed), names, places, per_shape) if per_shape else None
    by_place: dict[str, list[Plant]] = {place: [] for place in places}
    for place in places:
        cycle = iter(("cut", "start", "cut", "middle", "cut", "end") * len(names))
        for name in names:
            if spread is not None and (place, name) not in spread:
                continue
            rank = spread[place, name] if spread is not None else places.index(place)
            gen.bare = spread is not None and rank == 0
            p = SHAPES[name](gen)
            plant = Plant(place, name, p.secrets, _needle(rng, used), p.words, rank=rank)
            where = next(cycle) if spread is not None and place in _TOOL_PLACES else None
            plant.text, plant.where = _embed(rng, p, plant.needle, place, where)
            for secret in p.secrets:
                escaped = json.dumps(secret)[1:-1]
                assert secret == escaped, f"{name}: a secret that JSON escapes: {secret!r}"
            # (a title may start past the secrets before the one put across its cut)
            plant.secrets = tuple(
                s for s in p.secrets if s in plant.text or s.replace("/", "\\/") in plant.text
            )
            assert plant.secrets, (name, place)
            by_place[place].append(plant)
            out.plants.append(plant)
    _ArchiveWriter(root, rng, out).write(by_place)
    return out


class _ArchiveWriter:
    def __init__(self, root: Path, rng: random.Random, out: PlantedArchive):
        self.root, self.rng, self.out = root, rng, out
        self.minute = 0
        self.history: list[dict] = []

    def _uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _ts(self) -> str:
        self.minute += 1
        day, minute = divmod(self.minute, 600)
        return f"2026-03-{1 + day % 28:02d}T{8 + minute // 60:02d}:{minute % 60:02d}:00.000Z"

    def _project(self, place: str) -> tuple[Path, str]:
        cwd = f"/home/dev/vault-{place.replace('_', '-')}"
        folder = self.root / "projects" / cwd.replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        if cwd not in self.out.projects:
            self.out.projects.append(cwd)
        return folder, cwd

    def write(self, by_place: dict[str, list[Plant]]) -> None:
        for place, plants in by_place.items():
            writer = getattr(self, f"_{place}", None)
            if writer is not None:
                writer(plants)
            else:
                self._session(place, plants)
        (self.root / "history.jsonl").write_text(
            "".join(json.dumps(h) + "\n" for h in self.history)
        )

    # ---- sessions -------------------------------------------------------------------
    def _rows(
        self, sid: str, cwd: str, rows: list[dict], slug: str = "", agent: str = ""
    ) -> list[dict]:
        out, parent = [], None
        for r in rows:
            base = {
                "sessionId": sid,
                "cwd": cwd,
                "version": "2.1.40",
                "gitBranch": "main",
                "userType": "external",
                "isSidechain": bool(agent),
            }
            if slug:
                base["slug"] = slug
            if agent:
                base["agentId"] = agent
            if r.get("type") in ("user", "assistant"):
                u = self._uuid()
                r = {**base, "uuid": u, "parentUuid": parent, "timestamp": self._ts(), **r}
                parent = u
            else:
                r = {**r, "sessionId": sid} if r.get("type") != "summary" else r
            out.append(r)
        return out

    def _write(self, folder: Path, name: str, rows: list[dict]) -> None:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def _turn(self, plant: Plant | None, place: str, prompt: str = "") -> list[dict]:
        """A prompt, then the place's entry holding the planting's text."""
        text = plant.text if plant else ""
        msg = {
            "id": "msg_01" + self._uuid().replace("-", "")[:22],
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "usage": {"input_tokens": 9, "output_tokens": 9},
        }
        rows = [
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": text if place == "prompt" else prompt or "go on",
                },
            }
        ]
        if place == "assistant":
            rows.append(
                {
                    "type": "assistant",
                    "message": {**msg, "content": [{"type": "text", "text": text}]},
                }
            )
        elif place == "thinking":
            rows.append(
                {
                    "type": "assistant",
                    "message": {
                        **msg,
                        "content": [{"type": "thinking", "thinking": text, "signature": "c2ln"}],
                    },
                }
            )
            rows.append(
                {
                    "type": "assistant",
                    "message": {**msg, "content": [{"type": "text", "text": "Done."}]},
                }
            )
        elif place in ("tool_use", "tool_result"):
            tid = "toolu_01" + self._uuid().replace("-", "")[:22]
            if place == "tool_use":
                inp = self.rng.choice(
                    (
                        {"command": text, "description": "run it"},
                        {"file_path": "/home/dev/app/.env", "content": text},
                    )
                )
                name = "Bash" if "command" in inp else "Write"
                result: object = "ok"
            else:
                name, inp = "Bash", {"command": "cat config.txt", "description": "read"}
                result = self.rng.choice((text, [{"type": "text", "text": text}]))
            rows.append(
                {
                    "type": "assistant",
                    "message": {
                        **msg,
                        "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
                    },
                }
            )
            rows.append(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": tid, "content": result}],
                    },
                }
            )
        elif place == "compact_summary":
            rows.append(
                {
                    "type": "user",
                    "isCompactSummary": True,
                    "message": {
                        "role": "user",
                        "content": "This session is being continued from a previous "
                        "conversation that ran out of context. The summary below covers it.\n\n"
                        + text,
                    },
                }
            )
        return rows

    def _session(self, place: str, plants: list[Plant]) -> None:
        folder, cwd = self._project(place)
        sid = self._uuid()
        rows: list[dict] = []
        for plant in plants:
            plant.session_id = sid
            rows += self._turn(plant, place)
        self._write(folder, f"{sid}.jsonl", self._rows(sid, cwd, rows))
        self.out.sessions.append(sid)

    def _titled(self, plants: list[Plant], record: str, key: str) -> None:
        folder, cwd = self._project(record)
        for plant in plants:
            sid = plant.session_id = self._uuid()
            rows = self._rows(sid, cwd, self._turn(None, "assistant", f"hello {plant.needle}"))
            if record == "summary":
                rows.append(
                    {"type": "summary", "summary": plant.text, "leafUuid": rows[-1]["uuid"]}
                )
            else:
                rows.append({"type": record, key: plant.text, "sessionId": sid})
            self._write(folder, f"{sid}.jsonl", rows)
            self.out.sessions.append(sid)

    def _summary(self, plants: list[Plant]) -> None:
        self._titled(plants, "summary", "summary")

    def _custom_title(self, plants: list[Plant]) -> None:
        self._titled(plants, "custom-title", "customTitle")

    def _ai_title(self, plants: list[Plant]) -> None:
        self._titled(plants, "ai-title", "aiTitle")

    def _agent_name(self, plants: list[Plant]) -> None:
        self._titled(plants, "agent-name", "agentName")

    def _subagent(self, plants: list[Plant]) -> None:
        folder, cwd = self._project("subagent")
        sid = self._uuid()
        rows: list[dict] = [{"type": "user", "message": {"role": "user", "content": "split it"}}]
        for plant in plants:
            aid = "a" + "".join(self.rng.choice("0123456789abcdef") for _ in range(16))
            tid = "toolu_01" + self._uuid().replace("-", "")[:22]
            plant.session_id, plant.agent_id = sid, aid
            place = self.rng.choice(("prompt", "assistant", "tool_result"))
            child = self._turn(plant, place, prompt=f"look into {plant.needle}")
            self._write(
                folder, f"{sid}/subagents/agent-{aid}.jsonl", self._rows(sid, cwd, child, agent=aid)
            )
            (folder / sid / "subagents" / f"agent-{aid}.meta.json").write_text(
                json.dumps({"agentType": "Explore", "description": "look around", "toolUseId": tid})
            )
            rows.append(
                {
                    "type": "assistant",
                    "message": {
                        "id": "msg_01" + aid,
                        "role": "assistant",
                        "model": "claude-sonnet-4-5",
                        "usage": {"input_tokens": 1, "output_tokens": 1},
                        "content": [
                            {
                                "type": "tool_use",
                                "id": tid,
                                "name": "Agent",
                                "input": {
                                    "description": "look around",
                                    "prompt": f"look into {plant.needle}",
                                    "subagent_type": "Explore",
                                },
                            }
                        ],
                    },
                }
            )
            rows.append(
                {
                    "type": "user",
                    "toolUseResult": {"agentId": aid, "status": "completed"},
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tid,
                                "content": [{"type": "text", "text": "found it"}],
                            }
                        ],
                    },
                }
            )
            self.out.subagents.append((sid, aid))
        self._write(folder, f"{sid}.jsonl", self._rows(sid, cwd, rows))
        self.out.sessions.append(sid)

    # ---- files ----------------------------------------------------------------------
    def _plan(self, plants: list[Plant]) -> None:
        (self.root / "plans").mkdir(exist_ok=True)
        for i, plant in enumerate(plants):
            slug = f"rotate-{plant.needle}-plan{i}"
            (self.root / "plans" / f"{slug}.md").write_text(
                f"# Plan {plant.needle}\n\n" + plant.text
            )
            self.out.plans.append(slug)

    def _agent_plan(self, plants: list[Plant]) -> None:
        (self.root / "plans").mkdir(exist_ok=True)
        slug = "vault-parent-plan"
        (self.root / "plans" / f"{slug}.md").write_text("# Parent plan\n\nSteps.\n")
        self.out.plans.append(slug)
        for plant in plants:
            aid = "a" + "".join(self.rng.choice("0123456789abcdef") for _ in range(16))
            plant.agent_id = aid
            (self.root / "plans" / f"{slug}-agent-{aid}.md").write_text(
                f"# Subplan {plant.needle}\n\n{plant.text}"
            )

    def _memory(self, plants: list[Plant]) -> None:
        folder, _ = self._project("memory")
        (folder / "memory").mkdir(exist_ok=True)
        for i, plant in enumerate(plants):
            name = "MEMORY.md" if i == 0 else f"topic-{i}.md"
            (folder / "memory" / name).write_text(f"# Notes {plant.needle}\n\n{plant.text}")

    def _session_memory(self, plants: list[Plant]) -> None:
        folder, cwd = self._project("session_memory")
        for plant in plants:
            sid = plant.session_id = self._uuid()
            self._write(
                folder,
                f"{sid}.jsonl",
                self._rows(sid, cwd, self._turn(None, "assistant", f"remember {plant.needle}")),
            )
            path = folder / sid / "session-memory" / "summary.md"
            path.parent.mkdir(parents=True)
            path.write_text(f"# Session title\n\n## Current state\n\n{plant.text}\n")
            self.out.sessions.append(sid)

    def _history(self, plants: list[Plant], pasted: bool = False) -> None:
        _, cwd = self._project("history")
        for plant in plants:
            ts = 1772359200000 + 60_000 * len(self.history)
            line = {
                "display": plant.text,
                "pastedContents": {},
                "timestamp": ts,
                "project": cwd,
                "sessionId": self._uuid(),
            }
            if pasted:
                n = plant.text.count("\n") + 1
                line["display"] = f"fix this {plant.needle} [Pasted text #1 +{n} lines]"
                line["pastedContents"] = {"1": {"id": 1, "type": "text", "content": plant.text}}
            self.history.append(line)

    def _history_paste(self, plants: list[Plant]) -> None:
        self._history(plants, pasted=True)
