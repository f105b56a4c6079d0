"""Reading every surface of a planted archive, and finding what of the secrets is readable.

`Exposure` collects what each surface returned (every string inside it) and finds any
8-character window of a planted secret in it: a snippet that shows a third of a key is a
leak too. The readers call each surface the way its users do, with the paging
parameters that cut texts: the service methods, the MCP tools through a real in-process
client, the CLI (text and JSON), the hook, the Markdown export. (The TUI is read in the
test, through Pilot.)
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from ccarchive.service.arguments import ServiceError, decode_cursor
from tests.support.secret_archive import Plant, PlantedArchive

WINDOW = 8
_RUN_RE = re.compile(r"[^\s\"'\\<>\[\]{}(),;|`:]{8,}")
"""Runs of characters a secret may hold: windows are looked for inside them only."""


CURSOR_START = "eyJ"
"""How a page cursor begins: URL-safe base64 of a JSON object (`{"`)."""


def is_cursor(run: str) -> bool:
    """Whether a run of characters is a page cursor the service accepts, which holds a
    page's offset and the index's generation and nothing else (`decode_cursor` refuses
    any other key or value). Its base64 can share 8 characters with a planted secret that
    is base64 of digits too (a JWT's `iat`) by chance, varying with the generation, so a
    cursor is not read for windows: what it holds is checked by decoding it."""
    try:
        decode_cursor(run)
    except ServiceError:
        return False
    return True


class Exposure:
    """What every surface showed, checked for windows of the planted secrets."""

    def __init__(self, plants: list[Plant]):
        self.plants = plants
        self.windows: dict[str, int] = {}  # -> the plant, or -1 if several share it
        for i, p in enumerate(plants):
            for secret in p.secrets:
                assert _RUN_RE.fullmatch(secret), f"{p.shape}: {secret!r} splits into runs"
                for j in range(len(secret) - WINDOW + 1):
                    w = secret[j : j + WINDOW]
                    self.windows[w] = i if self.windows.get(w, i) == i else -1
        self.ambiguous = 0
        """Windows also found in the archive outside the secrets (a hex id that happens to
        hold 8 characters of a hex key): not evidence of a leak, so not looked for."""
        self.calls: Counter[str] = Counter()
        self.leaks: list[tuple[str, Plant, str, str]] = []
        self.shared: list[tuple[str, str, str]] = []
        """Windows that several plants share (a format's fixed prefix): leaks too."""
        self._found: set[tuple[str, int]] = set()
        self._seen: set[str] = set()

    def ignore(self, windows: set[str]) -> None:
        """Leave out windows that the archive holds outside the secrets (`held_elsewhere`)."""
        for w in windows:
            if self.windows.pop(w, None) is not None:
                self.ambiguous += 1

    def show(self, surface: str, result: Any) -> None:
        """Record one call's result."""
        self.calls[surface] += 1
        for text in _strings(result):
            if len(text) < WINDOW or text in self._seen:
                continue
            self._seen.add(text)
            for run in _RUN_RE.finditer(text):
                r = run.group()
                if r.startswith(CURSOR_START) and is_cursor(r):
                    continue  # a page cursor: two numbers the service made, no archive text
                for j in range(len(r) - WINDOW + 1):
                    i = self.windows.get(r[j : j + WINDOW])
                    if i is None:
                        continue
                    excerpt = text[max(0, run.start() + j - 40) : run.start() + j + 48]
                    if i < 0:
                        self.shared.append((surface, r[j : j + WINDOW], excerpt))
                    elif (surface, i) not in self._found:
                        self._found.add((surface, i))
                        self.leaks.append((surface, self.plants[i], r[j : j + WINDOW], excerpt))

    def readable(self) -> set[int]:
        """Indexes of the plants of which something was readable."""
        return {i for _, i in self._found} | ({-1} if self.shared else set())

    def report(self) -> str:
        lines = []
        seen = set()
        for surface, p, window, excerpt in self.leaks:
            key = (p.shape, p.place, surface)
            if key in seen:
                continue
            seen.add(key)
            lines.append(
                f"  {surface}: {p.shape} in {p.place} ({p.where}): {window!r} in ...{excerpt!r}"
            )
        lines += [
            f"  {surface}: a shared prefix {w!r} in ...{excerpt!r}"
            for surface, w, excerpt in self.shared[:10]
        ]
        return "\n".join(lines[:60]) + (
            f"\n  ... {len(lines) - 60} more" if len(lines) > 60 else ""
        )


def held_elsewhere(plants: list[Plant], root: Path) -> set[str]:
    """8-character windows of the secrets that the archive also holds outside them (a
    hex id that happens to contain 8 characters of a hex key): no evidence of a leak."""
    ex = Exposure(plants)
    secrets = sorted({x for p in plants for x in p.secrets}, key=len, reverse=True)
    found: set[str] = set()
    for path in root.rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        present = _windows_in(text, ex.windows)
        # blanking the secrets out only splits runs, so a file whose runs hold no window
        # of a secret holds none afterwards: most files, left without the replace pass
        if not present:
            continue
        for secret in secrets:
            key = _key_window(secret)
            if key is not None and key not in present:
                continue  # not in this file, as written or JSON-escaped
            for form in (
                secret,
                secret.replace("/", "\\/"),
                secret.replace("/", "\\\\/"),
            ):  # as written, in JSON
                text = text.replace(form, " ")
        found |= _windows_in(text, ex.windows)
    return found


def _windows_in(text: str, windows: dict[str, int]) -> set[str]:
    """The windows of `windows` that the runs of `text` hold."""
    return {
        w
        for run in _RUN_RE.finditer(text)
        for r in (run.group(),)
        for j in range(len(r) - WINDOW + 1)
        if (w := r[j : j + WINDOW]) in windows
    }


@functools.cache
def _key_window(secret: str) -> str | None:
    """A window of `secret` that a text holding the secret, as written or JSON-escaped
    (`/` as `\\/`), holds in one of its runs: one with no `/` but maybe its first (the
    escape's backslash ends a run, a `/` starts the next). None if every window has one."""
    return next(
        (
            secret[j : j + WINDOW]
            for j in range(len(secret) - WINDOW + 1)
            if "/" not in secret[j + 1 : j + WINDOW]
        ),
        None,
    )


def _strings(obj: Any) -> list[str]:
    out: list[str] = []
    stack = [obj]
    while stack:
        o = stack.pop()
        if isinstance(o, str):
            out.append(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
            stack.extend(k for k in o if isinstance(k, str))
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif is_dataclass(o) and not isinstance(o, type):
            # its fields as they are: `asdict` would deep-copy every result first
            stack.extend(getattr(o, f.name) for f in fields(o))
        elif hasattr(o, "model_dump"):
            stack.append(o.model_dump(mode="json"))
    return out


def offsets(rng: random.Random, length: int, n: int) -> list[int]:
    """Page starts: the beginning, random places, and near the end."""
    return sorted({0, *(rng.randrange(0, max(1, length)) for _ in range(n)), max(0, length - 50)})


# ---- the service --------------------------------------------------------------------


def read_service(svc: Any, arc: PlantedArchive, ex: Exposure, rng: random.Random) -> None:
    """Every service call that returns archive text, with its cutting parameters."""
    for plant in arc.plants:
        chars = rng.choice((40, 80, 180, 400, 1000))
        page = svc.search(
            plant.needle,
            include_tool_results=True,
            include_thinking=True,
            snippet_chars=chars,
            group_by_session=rng.random() < 0.3,
        )
        ex.show("service.search", page)
        ex.show(  # the plans and memory files shown beside a page of sessions
            "service.answering_documents",
            svc.answering_documents(plant.needle, page.groups or [], passage_chars=chars),
        )
        for hit in page.hits[:2]:
            if ":" not in hit.id:
                continue
            for off in offsets(rng, 2500, 2):
                e = svc.entries([hit.id], max_chars=rng.choice((100, 333, 1500)), char_offset=off)[
                    0
                ]
                ex.show("service.entries", e)
            e = svc.entries([hit.id], max_chars=rng.choice((100, 250)))[0]
            for _ in range(25 if rng.random() < 0.4 else 0):  # read on, page by page
                ex.show("service.entries", e)
                if e.next_char is None:
                    break
                e = svc.entries([hit.id], max_chars=e.text and 250 or 100, char_offset=e.next_char)[
                    0
                ]
            ex.show(
                "service.context",
                svc.context(hit.id, before=2, after=2, max_chars=rng.choice((100, 500))),
            )
    for words in {p.words[0] for p in arc.plants if p.words}:
        cursor = None
        for _ in range(2):
            page = svc.search(
                words, include_tool_results=True, include_thinking=True, limit=50, cursor=cursor
            )
            ex.show("service.search", page)
            cursor = page.next_cursor
            if cursor is None:
                break
    for kinds in ({}, {"include_tool_results": True, "include_thinking": True}):
        ex.show("service.search", svc.search("", limit=200, **kinds))
        ex.show("service.search", svc.search("", limit=100, group_by_session=True, **kinds))
    for sid in arc.sessions:
        ex.show("service.session", svc.session(sid))
        for chars in (100, 4000):
            ex.show("service.transcript", svc.transcript(sid, max_chars=chars, limit=200))
        ex.show("service.tail", svc.tail_last(sid, max_chars=300))
    for sid, aid in arc.subagents:
        ex.show("service.transcript", svc.transcript(sid, agent_id=aid, max_chars=150))
    ex.show("service.sessions", svc.sessions(limit=500))
    ex.show("service.projects", svc.projects())
    ex.show("service.plans", svc.plans(limit=500, include_agent_plans=True))
    for slug in arc.plans:
        for chars in (100, 700, 50_000):
            ex.show(
                "service.plan", svc.plan(slug, max_chars=chars, char_offset=rng.randrange(0, 300))
            )
    for info in svc.memory_files():
        for chars in (100, 50_000):
            ex.show(
                "service.memory",
                svc.memory_file(
                    info.project, info.filename, max_chars=chars, char_offset=rng.randrange(0, 300)
                ),
            )
    ex.show("service.memory", svc.memory_files())
    ex.show("service.history", svc.history(limit=500))
    for plant in arc.plants:
        if plant.place.startswith("history"):
            ex.show("service.history", svc.history(query=plant.needle, limit=5))


# ---- MCP ------------------------------------------------------------------------------


async def read_mcp(
    client: Any, arc: PlantedArchive, ex: Exposure, rng: random.Random, plants: list[Plant]
) -> None:
    """Every MCP tool, with its paging parameters; ``plants`` are searched and read on."""

    async def call(tool: str, **args: Any) -> dict:
        r = await client.call_tool(tool, args)
        assert not r.is_error, (tool, args, r.content[0].text)
        ex.show(f"mcp.{tool}", r.content[0].text)
        ex.show(f"mcp.{tool}", r.structured_content)
        return r.structured_content

    for plant in plants:
        res = await call(
            "search",
            query=plant.needle,
            include_tool_results=True,
            include_thinking=True,
            detail=rng.choice(("brief", "full")),
            group_by_session=rng.random() < 0.3,
        )
        hits = [t for r in res.get("results") or [] for t in (r, *r.get("more", []))]
        ids = [h["id"] for h in hits if ":" in h["id"]][:3]
        if not ids:
            continue
        await call(
            "get_entries",
            ids=ids,
            max_chars=rng.choice((100, 300, 100_000)),
            char_offset=rng.randrange(0, 1800),
        )
        entry = (await call("get_entries", ids=ids[:1], max_chars=100))["entries"][0]
        for _ in range(30):
            if entry.get("next_char") is None:
                break
            entry = (
                await call(
                    "get_entries",
                    ids=ids[:1],
                    max_chars=rng.choice((100, 170)),
                    char_offset=entry["next_char"],
                )
            )["entries"][0]
        await call("context", id=ids[0], max_chars=rng.choice((100, 800)))
    for sid in rng.sample(arc.sessions, min(len(arc.sessions), 40)):
        cursor = None
        for _ in range(3):
            args = {"session_id": sid, "max_chars": rng.choice((100, 1500)), "limit": 30}
            page = await call("get_session", **args, **({"cursor": cursor} if cursor else {}))
            cursor = page.get("next_cursor")
            if not cursor:
                break
    for sid, aid in arc.subagents[:10]:
        await call("get_session", session_id=sid, agent_id=aid, max_chars=200)
    await call("list_sessions", limit=100)
    await call("list_projects")
    await call("list_plans", limit=200, include_agent_plans=True)
    for slug in arc.plans[:: max(1, len(arc.plans) // 10)]:
        await call("get_plan", codename=slug, max_chars=rng.choice((100, 12_000)))
    files = (await call("list_memory_files"))["files"]
    for f in files[:: max(1, len(files) // 15)]:
        await call(
            "get_memory_file",
            project=f["project"],
            filename=f["filename"],
            max_chars=rng.choice((100, 12_000)),
        )
    await call("search_history", limit=200)
    for plant in plants:
        if plant.place.startswith("history"):
            await call("search_history", query=plant.needle)
    await call("status")
    await call("timeline", days=3660)


# ---- CLI, hook, export -------------------------------------------------------------


CLI_BATCH = 8
"""Needles a CLI search asks for at once (``a OR b OR ...``): each hit's snippet still
centres on its own needle, and a run of the command costs what eight would."""


def read_cli(run: Any, arc: PlantedArchive, ex: Exposure, ids: list[str]) -> None:
    """``run(*args) -> output`` runs the ccarchive command; text and --json of each.
    Every shape is searched (its first planting), as sessions and as entries, eight
    needles a query; each needle must be in what the entries show, or the search did
    not show that planting at all."""
    first = arc.first_of_each()
    for at in range(0, len(first), CLI_BATCH):
        batch = [p.needle for p in first[at : at + CLI_BATCH]]
        query = " OR ".join(batch)
        for fmt in ((), ("--json",)):
            ex.show("cli.search", run("search", query, "--all-kinds", *fmt))
            shown = run("search", query, "--all-kinds", "--entries", "--limit", "50", *fmt)
            ex.show("cli.search", shown)
            missing = [n for n in batch if n not in shown]
            assert not missing, f"needles not shown by the CLI ({fmt}): {missing}"
    for words in ("password", "Authorization", "BEGIN", "export"):
        ex.show("cli.search", run("search", words, "--all-kinds", "--limit", "100"))
        ex.show("cli.search", run("search", words, "--all-kinds", "--group", "--json"))
    for sid in arc.sessions[:: max(1, len(arc.sessions) // 12)]:
        ex.show("cli.show", run("show", sid))
        ex.show("cli.show", run("show", sid, "--json"))
    for i in ids[:15]:
        ex.show("cli.show", run("show", i))
        ex.show("cli.show", run("show", i, "--json"))
    ex.show("cli.sessions", run("sessions", "--limit", "300"))
    ex.show("cli.sessions", run("sessions", "--limit", "300", "--json"))


def read_hook(
    svc: Any, arc: PlantedArchive, ex: Exposure, plants: list[Plant] | None = None
) -> None:
    """The prompt hook asked about ``plants`` (by default about 60 of them, spread over
    the shapes), and the session-start hook in every project."""
    from ccarchive.hooks.context import prompt_context, session_start_context

    for plant in plants or arc.plants[:: max(1, len(arc.plants) // 60)]:
        event = {
            "session_id": "00000000-0000-4000-8000-000000000000",
            "prompt": f"what did we do about {plant.needle} {' '.join(plant.words)}",
        }
        ex.show("hook.user-prompt-submit", prompt_context(svc, event, limit=3, max_chars=1500))
    for cwd in arc.projects:
        ex.show(
            "hook.session-start", session_start_context(svc, {"cwd": cwd}, limit=3, max_chars=1500)
        )


def read_export(svc: Any, arc: PlantedArchive, ex: Exposure, out: Path) -> None:
    from ccarchive.tui.transcript_export import export_markdown

    for sid in arc.sessions[:: max(1, len(arc.sessions) // 20)]:
        info = svc.session(sid)
        path = out / f"{sid}.md"
        export_markdown(svc, info, "", info.title, path)
        ex.show("export.markdown", path.read_text())
    for sid, aid in arc.subagents[:5]:
        info = svc.session(sid)
        path = out / f"{sid}-{aid}.md"
        export_markdown(svc, info, aid, "subagent", path)
        ex.show("export.markdown", path.read_text())


def dumps(obj: Any) -> str:
    return json.dumps(obj, default=str)
