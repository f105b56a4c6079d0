"""A small, complete, made-up Claude Code archive for first runs, screenshots and tests.

`write_demo_archive(root)` writes a directory shaped like a real `~/.claude`: four projects
(a Rust CLI, a web API, a data pipeline and a dotfiles repo), fourteen main sessions that
each tell a small story (a bug hunt, a refactor, a migration, a performance investigation),
their subagents in all three on-disk generations, plans, memory files, `history.jsonl` and
the file-history blobs the checkpoints point to.

Why a generator and not a committed folder: every timestamp is placed relative to `now`,
so a timeline built from the demo always looks current (two sessions are still "live",
inside the last hour) and screenshots never show a stale archive. Why it is so detailed:
it is the first thing a newcomer sees, and it doubles as an end-to-end fixture, so it
exercises every record type of docs FORMAT.md (one content block per assistant entry,
shared `message.id`s, rewinds, compaction, progress, attachments, bookkeeping records).

Everything here is invented for the demo. The output is deterministic for a given `now`:
all ids come from `random.Random` instances seeded from fixed names, never from the clock.
Standard library only, so the demo works before any optional dependency is installed.
"""

from __future__ import annotations

import base64
import datetime as dt
import difflib
import hashlib
import json
import os
import random
import re
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["write_demo_archive"]

CLAUDE_DIR = "/home/demo/.claude"
"""Where the archive pretends to live; appears in plan paths and persisted-output notes."""

SONNET4 = "claude-sonnet-4-20250514"
SONNET45 = "claude-sonnet-4-5-20250929"
HAIKU45 = "claude-haiku-4-5-20251001"
OPUS45 = "claude-opus-4-5-20251101"
OPUS46 = "claude-opus-4-6"
OPUS47 = "claude-opus-4-7"

_B62 = string.ascii_letters + string.digits
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_KEEP = object()  # "parent = the previous entry"


# ---- small helpers ----------------------------------------------------------------


def _iso(t: dt.datetime) -> str:
    """Claude Code's timestamp format: UTC, milliseconds, `Z`."""
    t = t.astimezone(dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def _epoch_ms(t: dt.datetime) -> int:
    return (t - _EPOCH) // dt.timedelta(milliseconds=1)


def _vt(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def _encode(path: str) -> str:
    """Project directory name: every character other than a letter or digit becomes `-`."""
    return re.sub(r"[^a-zA-Z0-9]", "-", path)


def _tok(text: str) -> int:
    """A rough token estimate, good enough for plausible usage figures."""
    return max(1, len(text) // 4)


def _rng(name: str) -> random.Random:
    """A generator seeded from a name, so adding a session never shifts another's ids."""
    return random.Random(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big"))


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def _numbered(text: str, start: int = 1) -> str:
    """Read-tool style listing (`cat -n` with an arrow)."""
    return "\n".join(f"{i:>6}\u2192{line}" for i, line in enumerate(_lines(text), start))


def _line_of(text: str, needle: str) -> int:
    for i, line in enumerate(_lines(text), 1):
        if needle in line:
            return i
    raise ValueError(needle)


def _patch(old: str, new: str) -> list[dict]:
    """The `structuredPatch` hunks of an edit, computed with difflib (3 lines of context)."""
    a, b = _lines(old), _lines(new)
    hunks = []
    for group in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        body: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                body += [" " + x for x in a[a1:a2]]
            else:
                body += ["-" + x for x in a[a1:a2]]
                body += ["+" + x for x in b[b1:b2]]
        hunks.append(
            {"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1,
             "lines": body}
        )
    return hunks


def _count_code(files: dict[str, str], prefix: str, comment: str) -> dict[str, int]:
    """What `tally` itself would report for a folder of the demo's virtual files."""
    out = {"files": 0, "code": 0, "comments": 0, "blank": 0}
    for path, text in files.items():
        if not path.startswith(prefix) or not path.endswith(".rs"):
            continue
        out["files"] += 1
        for line in _lines(text):
            t = line.strip()
            key = "blank" if not t else "comments" if t.startswith(comment) else "code"
            out[key] += 1
    return out


@dataclass
class _Project:
    path: str
    files: dict[str, str]

    @property
    def dirname(self) -> str:
        return _encode(self.path)


@dataclass
class _Msg:
    """One API response while its content blocks are being written as separate entries."""

    id: str
    req: str
    usage_in: tuple[int, int, int]  # input, cache creation, cache read
    entries: list[dict] = field(default_factory=list)
    out: int = 0


# ---- the archive and its transcripts ----------------------------------------------


class _Archive:
    """Collects every file of the demo in memory, then writes them in one go."""

    def __init__(self, now: dt.datetime):
        self.now = now
        self.text: dict[str, str | bytes] = {}
        self.mtime: dict[str, dt.datetime] = {}
        self.transcripts: list[tuple[str, _Transcript]] = []
        self.history: list[tuple[dt.datetime, int, dict]] = []
        self.counts = {"sessions": 0, "subagents": 0, "plans": 0, "memory_files": 0}

    def day(self, days_ago: int, hour: int, minute: int, second: int = 0) -> dt.datetime:
        """A wall-clock time (UTC) `days_ago` days before now."""
        base = self.now - dt.timedelta(days=days_ago)
        return base.replace(hour=hour, minute=minute, second=second, microsecond=0)

    def put(self, rel: str, data: str | bytes, mtime: dt.datetime) -> None:
        self.text[rel] = data
        self.mtime[rel] = mtime

    def session(self, project: _Project, name: str, *, start: dt.datetime, version: str,
                branch: str, model: str, slug: str | None = None) -> _Transcript:
        rng = _rng("session:" + name)
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        rel = f"projects/{project.dirname}/{sid}.jsonl"
        start += dt.timedelta(milliseconds=rng.randint(0, 999))
        self.counts["sessions"] += 1
        return _Transcript(self, project, rel=rel, sid=sid, start=start, version=version,
                           branch=branch, model=model, slug=slug, rng=rng)

    def add_history(self, t: dt.datetime, display: str, project: str, sid: str | None,
                    pasted: dict | None = None) -> None:
        line = {"display": display, "pastedContents": pasted or {}, "timestamp": _epoch_ms(t),
                "project": project}
        if sid:
            line["sessionId"] = sid
        self.history.append((t, len(self.history), line))

    def render(self) -> None:
        """Serialise transcripts and history into `self.text`."""
        for rel, tr in self.transcripts:
            body = "".join(
                json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in tr.lines
            )
            self.put(rel, body, tr.t_max)
        self.history.sort(key=lambda h: (h[0], h[1]))
        body = "".join(
            json.dumps(h[2], ensure_ascii=False, separators=(",", ":")) + "\n" for h in self.history
        )
        self.put("history.jsonl", body, self.history[-1][0])


class _Transcript:
    """Plays one conversation (a session, or a subagent) and records its JSONL entries.

    The methods mirror what happens in a real session (a prompt, a thinking block, a tool
    call and its result, a compaction...). Bookkeeping that Claude Code does on its own
    (shared `message.id`s with copied usage, file-history snapshots, turn durations,
    `sourceToolAssistantUUID`, promptId) is done here, gated by the version that wrote it.
    """

    def __init__(self, arc: _Archive, project: _Project, *, rel: str | None, sid: str,
                 start: dt.datetime, version: str, branch: str, model: str,
                 slug: str | None = None, agent_id: str | None = None, sidechain: bool = False,
                 lines: list[dict] | None = None, rng: random.Random | None = None,
                 base_ctx: int = 21_000):
        self.arc, self.project, self.cwd = arc, project, project.path
        self.sid, self.branch, self.model, self.slug = sid, branch, model, slug
        self.agent_id, self.sidechain = agent_id, sidechain
        self.set_version(version)
        self.rng = rng or _rng(f"{sid}:{agent_id}")
        self.t = start
        self.t_max = start
        self.lines: list[dict] = [] if lines is None else lines
        self.times: list[tuple[dict, dt.datetime]] = []
        self.last: str | None = None
        self.msg: _Msg | None = None
        self.cached, self.pending = base_ctx, 0
        self.prompt_uuid: str | None = None
        self.prompt_id: str | None = None
        self.turn_start: dt.datetime | None = None
        self.turn_entries = 0
        self.tracked: dict[str, dict] = {}
        self.backed_up: dict[str, str | None] = {}
        self.todos: list[dict] = []
        self.tool_uses = 0
        self.total_tokens = 0
        self.last_usage: dict = {}
        self.last_text = ""
        self.mode = "default"  # permission mode recorded on 2.1.x prompts
        if rel is not None:
            arc.transcripts.append((rel, self))

    # -- plumbing -----------------------------------------------------------------
    def set_version(self, version: str) -> None:
        """A resumed session can be continued by a newer Claude Code."""
        self.version, self.v = version, _vt(version)

    @property
    def fs(self) -> dict[str, str]:
        return self.project.files

    def tick(self, seconds: float) -> None:
        self.t += dt.timedelta(seconds=seconds * self.rng.uniform(0.85, 1.15))

    def at(self, t: dt.datetime) -> None:
        self.t = max(self.t, t)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _rand(self, n: int, alphabet: str = _B62) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def _hex(self, n: int) -> str:
        return self._rand(n, "0123456789abcdef")

    def _env(self, type_: str, parent: object) -> dict:
        e: dict = {"parentUuid": self.last if parent is _KEEP else parent,
                   "isSidechain": self.sidechain, "userType": "external"}
        if self.v >= (2, 1, 80):
            e["entrypoint"] = "cli"
        e.update(cwd=self.cwd, sessionId=self.sid, version=self.version, gitBranch=self.branch)
        if self.agent_id:
            e["agentId"] = self.agent_id
        if self.slug:
            e["slug"] = self.slug
        e["type"] = type_
        return e

    def _emit(self, type_: str, body: dict, *, parent: object = _KEEP, uid: str | None = None,
              tail: dict | None = None) -> dict:
        e = self._env(type_, parent)
        e.update(body)
        e["uuid"] = uid or self.uuid()
        e["timestamp"] = _iso(self.t)
        if tail:
            e.update(tail)
        self.lines.append(e)
        self.times.append((e, self.t))
        self.t_max = max(self.t_max, self.t)
        self.last = e["uuid"]
        self.turn_entries += 1
        return e

    def record(self, rec: dict) -> dict:
        """A bookkeeping record (no envelope, no uuid)."""
        self.lines.append(rec)
        if "timestamp" in rec:
            self.t_max = max(self.t_max, self.t)
        return rec

    # -- assistant messages -------------------------------------------------------
    def _open(self) -> None:
        self.tick(2.5)
        creation, read = self.pending, self.cached
        if not self.total_tokens:
            # first request: the shared system prompt may still be cached from another session
            read = self.rng.choice([0, self.cached * 3 // 5])
            creation += self.cached - read
        self.cached += self.pending
        self.pending = 0
        self.msg = _Msg(id="msg_01" + self._rand(22), req="req_011C" + self._rand(20),
                        usage_in=(self.rng.randint(3, 12), creation, read))

    def _usage(self, m: _Msg, out: int) -> dict:
        inp, creation, read = m.usage_in
        u: dict = {"input_tokens": inp, "cache_creation_input_tokens": creation,
                   "cache_read_input_tokens": read}
        if self.v >= (2, 0, 0):
            u["cache_creation"] = {"ephemeral_5m_input_tokens": 0,
                                   "ephemeral_1h_input_tokens": creation}
        u["output_tokens"] = out
        u["service_tier"] = "standard"
        return u

    def _close(self, stop: str | None) -> None:
        m, self.msg = self.msg, None
        if m is None:
            return
        out = m.out + self.rng.randint(6, 40)
        n = len(m.entries)
        grows = n > 1 and self.rng.random() < 0.35  # usage is sometimes updated mid-message
        for i, e in enumerate(m.entries):
            o = out if not grows or i == n - 1 else max(1, out * (i + 1) // (2 * n))
            e["message"]["usage"] = self._usage(m, o)
        if stop:
            m.entries[-1]["message"]["stop_reason"] = stop
        self.last_usage = self._usage(m, out)
        self.total_tokens += sum(m.usage_in) + out
        self.pending += out

    def _block(self, block: dict, secs: float) -> dict:
        if self.msg is None:
            self._open()
        self.tick(secs)
        m = self.msg
        assert m is not None
        msg = {"model": self.model, "id": m.id, "type": "message", "role": "assistant",
               "content": [block], "stop_reason": None, "stop_sequence": None, "usage": None}
        e = self._emit("assistant", {"message": msg}, tail={"requestId": m.req})
        m.entries.append(e)
        m.out += _tok(json.dumps(block))
        return e

    def say(self, text: str, secs: float = 6.0) -> dict:
        self.last_text = text
        return self._block({"type": "text", "text": text}, secs)

    def think(self, text: str, secs: float = 5.0) -> dict:
        """A thinking block; newer models leave the text empty and keep only the signature."""
        sig = base64.b64encode(bytes([0x12, 0x9A]) + self.rng.randbytes(94 + len(text) // 8))
        return self._block({"type": "thinking", "thinking": text, "signature": sig.decode()}, secs)

    # -- user side ----------------------------------------------------------------
    def prompt(self, text: str, *, after: float = 45.0, history: bool = True,
               display: str | None = None, pasted: dict | None = None,
               parent: object = _KEEP) -> str:
        """A prompt typed by the user (string content), with its history.jsonl line."""
        self.done()
        self.tick(after)
        uid = self.uuid()
        if self.v >= (2, 0, 0) and not self.sidechain:
            self._snapshot(uid, update=False)
        tail: dict = {}
        if self.v >= (2, 1, 114):
            self.prompt_id = self.uuid()
            tail["promptId"] = self.prompt_id
        if self.v >= (2, 1, 15) and not self.sidechain:
            tail["permissionMode"] = self.mode
        self._emit("user", {"message": {"role": "user", "content": text}}, parent=parent, uid=uid,
                   tail=tail)
        self.pending += _tok(text)
        self.prompt_uuid, self.turn_start, self.turn_entries = uid, self.t, 1
        if history and not self.sidechain:
            sid = self.sid if self.v >= (2, 0, 0) else None
            self.arc.add_history(self.t, display or text, self.cwd, sid, pasted)
        return uid

    def done(self) -> None:
        """End of a turn: close the open response and, on 2.1.x, log the turn's duration."""
        if self.msg is not None:
            self._close("end_turn")
        if self.turn_start is not None and self.v >= (2, 1, 0) and not self.sidechain:
            self.tick(0.2)
            ms = (self.t - self.turn_start) // dt.timedelta(milliseconds=1)
            self._emit("system", {"subtype": "turn_duration", "durationMs": ms,
                                  "messageCount": self.turn_entries, "isMeta": False})
        self.turn_start = None

    def system(self, subtype: str | None, content: str | None = None, *, secs: float = 1.0,
               parent: object = _KEEP, **fields) -> dict:
        self.tick(secs)
        body: dict = {}
        if subtype:
            body["subtype"] = subtype
        if content is not None:
            body["content"] = content
        body.update(fields)
        body.setdefault("isMeta", False)
        return self._emit("system", body, parent=parent)

    def local_command(self, name: str, args: str, stdout: str) -> None:
        """A built-in slash command such as `/model`: two system entries and a history line."""
        self.done()
        self.tick(20)
        typed = f"/{name} {args}".strip()
        self.arc.add_history(self.t, typed, self.cwd, self.sid)
        self.system("local_command",
                    f"<command-name>/{name}</command-name>\n"
                    f"            <command-message>{name}</command-message>\n"
                    f"            <command-args>{args}</command-args>", secs=0, level="info")
        self.system("local_command", f"<local-command-stdout>{stdout}</local-command-stdout>",
                    secs=0.3, level="info")

    def attachment(self, att: dict, secs: float = 0.2) -> dict:
        self.tick(secs)
        return self._emit("attachment", {"attachment": att})

    def progress(self, data: dict, tool_use_id: str, parent_tool_use_id: str,
                 parent: object = _KEEP) -> dict:
        return self._emit("progress", {"data": data, "toolUseID": tool_use_id,
                                       "parentToolUseID": parent_tool_use_id}, parent=parent)

    def session_start_hook(self, command: str) -> None:
        """The SessionStart hook's progress line that opens most 2.1.x files."""
        hid = self.uuid()
        self.progress({"type": "hook_progress", "hookEvent": "SessionStart",
                       "hookName": "SessionStart:startup", "command": command}, hid, hid,
                      parent=None)
        self.last = None  # the first prompt is a root of its own

    # -- checkpoints --------------------------------------------------------------
    def _backup(self, path: str, content: str | None) -> dict:
        info = self.tracked.get(path)
        version = 1 if info is None else info["version"] + 1
        name = None
        if content is not None:
            key = hashlib.sha256(f"{self.sid}:{path}".encode()).hexdigest()[:16]
            name = f"{key}@v{version}"
            self.arc.put(f"file-history/{self.sid}/{name}", content, self.t)
        info = {"backupFileName": name, "version": version, "backupTime": _iso(self.t)}
        self.tracked[path] = info
        self.backed_up[path] = content
        return info

    def _snapshot(self, message_id: str, *, update: bool) -> None:
        if not update:
            for path, content in list(self.backed_up.items()):
                if self.fs.get(path) != content:
                    self._backup(path, self.fs.get(path))
        self.record({"type": "file-history-snapshot", "messageId": message_id,
                     "snapshot": {"messageId": message_id,
                                  "trackedFileBackups": json.loads(json.dumps(self.tracked)),
                                  "timestamp": _iso(self.t)},
                     "isSnapshotUpdate": update})

    def _touch(self, path: str) -> None:
        """Before the first edit of a file, back it up and rewrite the turn's snapshot."""
        if self.v < (2, 0, 0) or self.sidechain or path in self.tracked:
            return
        self._backup(path, self.fs.get(path))
        if self.prompt_uuid:
            self._snapshot(self.prompt_uuid, update=True)

    # -- tools --------------------------------------------------------------------
    def tool(self, name: str, inp: dict, content: str | list, result: object, *,
             secs: float = 2.0, is_error: bool = False, before_result: Callable | None = None,
             ) -> tuple[str, dict]:
        """A tool call and its result; `result` is the structured `toolUseResult` copy."""
        tid = "toolu_01" + self._rand(22)
        use = self._block({"type": "tool_use", "id": tid, "name": name, "input": inp}, secs=4)
        self._close("tool_use")
        start = self.t
        if before_result:
            before_result(tid, use)
        self.at(start + dt.timedelta(seconds=secs))
        self.tick(0.4)
        block: dict = {"tool_use_id": tid, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        tail: dict = {"toolUseResult": result}
        if self.v >= (2, 1, 1):
            tail["sourceToolAssistantUUID"] = use["uuid"]
        if self.prompt_id:
            tail["promptId"] = self.prompt_id
        res = self._emit("user", {"message": {"role": "user", "content": [block]}},
                         parent=use["uuid"], tail=tail)
        self.pending += _tok(json.dumps(content))
        self.tool_uses += 1
        return tid, res

    def bash(self, command: str, stdout: str, stderr: str = "", *, desc: str | None = None,
             secs: float = 2.0, is_error: bool = False, code: int = 1,
             progress: list[tuple[float, str]] | None = None, during: Callable | None = None,
             persist: bool = False) -> tuple[str, dict]:
        """A Bash call; `progress` = (elapsed seconds, new output) snapshots while it runs."""
        inp = {"command": command}
        if desc:
            inp["description"] = desc
        result: object = {"stdout": stdout, "stderr": stderr, "interrupted": False,
                          "isImage": False}
        if not stdout and not stderr:
            result["noOutputExpected"] = False
        content = "\n".join(x for x in (stdout, stderr) if x) or "(no output)"
        if is_error:
            content = f"Exit code {code}\n{content}"
            result = "Error: " + content

        def before(tid: str, use: dict) -> None:
            base = self.t
            full = ""
            for i, (elapsed, chunk) in enumerate(progress or ()):
                self.at(base + dt.timedelta(seconds=elapsed))
                full += chunk + "\n"
                self.progress({"type": "bash_progress", "output": chunk, "fullOutput": full,
                               "elapsedTimeSeconds": int(elapsed),
                               "totalLines": len(_lines(full))}, f"bash-progress-{i}", tid,
                              parent=use["uuid"] if i == 0 else _KEEP)
            if during:
                during()

        tid, res = self.tool("Bash", inp, content, result, secs=secs, is_error=is_error,
                             before_result=before)
        if persist:
            self._persist(tid, stdout, res)
        return tid, res

    def _persist(self, tid: str, full: str, res: dict) -> None:
        """Big output: the full text goes to tool-results/<id>.txt, the transcript keeps a
        2 KB preview (Claude Code >= ~2.0.60 does this to keep transcripts small)."""
        rel = f"projects/{self.project.dirname}/{self.sid}/tool-results/{tid}.txt"
        self.arc.put(rel, full, self.t)
        path = f"{CLAUDE_DIR}/{rel}"
        kb = len(full.encode()) / 1024
        res["message"]["content"][0]["content"] = (
            f"<persisted-output>\nOutput too large ({kb:.1f}KB). Full output saved to: {path}"
            f"\n\nPreview (first 2KB):\n{full[:2048]}\n...\n</persisted-output>")
        res["toolUseResult"]["stdout"] = full[:2048]
        res["toolUseResult"]["persistedOutputPath"] = path

    def read(self, path: str, *, secs: float = 1.0) -> tuple[str, dict]:
        text = self.fs[path]
        full = f"{self.cwd}/{path}"
        n = len(_lines(text))
        return self.tool("Read", {"file_path": full}, _numbered(text),
                         {"type": "text", "file": {"filePath": full, "content": text,
                                                   "numLines": n, "startLine": 1,
                                                   "totalLines": n}}, secs=secs)

    def edit(self, path: str, old: str, new: str, *, secs: float = 1.0,
             hook: tuple[str, str] | None = None) -> tuple[str, dict]:
        """An Edit; `hook` = (command, stdout) of a PostToolUse hook that ran after it."""
        original = self.fs[path]
        if original.count(old) != 1:
            raise AssertionError(f"demo edit of {path}: old text must occur exactly once")
        updated = original.replace(old, new)
        full = f"{self.cwd}/{path}"
        inp: dict = {"file_path": full, "old_string": old, "new_string": new}
        if self.v >= (2, 0, 0):
            inp["replace_all"] = False

        def before(_tid: str, _use: dict) -> None:
            self._touch(path)
            self.fs[path] = updated

        start = _line_of(updated, _lines(new)[0]) if new.strip() else 1
        snippet = _numbered("\n".join(_lines(updated)[max(0, start - 3):start + 6]),
                            max(1, start - 2))
        content = f"Updated {full}. Lines around the change (cat -n):\n{snippet}"
        result = {"filePath": full, "oldString": old, "newString": new, "originalFile": original,
                  "structuredPatch": _patch(original, updated), "userModified": False,
                  "replaceAll": False}
        tid, res = self.tool("Edit", inp, content, result, secs=secs, before_result=before)
        if hook:
            self._hook_success("PostToolUse:Edit", tid, *hook)
        return tid, res

    def write(self, path: str, text: str, *, secs: float = 1.0,
              hook: tuple[str, str] | None = None) -> tuple[str, dict]:
        full = f"{self.cwd}/{path}"
        original = self.fs.get(path)

        def before(_tid: str, _use: dict) -> None:
            self._touch(path)
            self.fs[path] = text

        result = {"type": "create" if original is None else "update", "filePath": full,
                  "content": text, "structuredPatch": [] if original is None
                  else _patch(original, text), "originalFile": original}
        tid, res = self.tool("Write", {"file_path": full, "content": text},
                             f"Wrote {len(_lines(text))} lines to {full}", result, secs=secs,
                             before_result=before)
        if hook:
            self._hook_success("PostToolUse:Write", tid, *hook)
        return tid, res

    def _hook_success(self, name: str, tid: str, command: str, stdout: str) -> None:
        if self.v < (2, 1, 90):
            return
        self.attachment({"type": "hook_success", "hookName": name, "toolUseID": tid,
                         "hookEvent": "PostToolUse", "content": "", "stdout": stdout,
                         "stderr": "", "exitCode": 0, "command": command,
                         "durationMs": self.rng.randint(80, 400)})

    def grep(self, pattern: str, files: list[str], *, path: str | None = None,
             content: list[str] | None = None) -> tuple[str, dict]:
        inp: dict = {"pattern": pattern}
        if path:
            inp["path"] = f"{self.cwd}/{path}"
        if content is not None:
            inp["output_mode"] = "content"
            inp["-n"] = True
            return self.tool("Grep", inp, "\n".join(content),
                             {"mode": "content", "numFiles": 0, "filenames": [],
                              "content": "\n".join(content), "numLines": len(content)})
        full = [f"{self.cwd}/{f}" for f in files]
        text = f"Found {len(full)} file{'s' if len(full) != 1 else ''}\n" + "\n".join(full)
        return self.tool("Grep", inp, text, {"mode": "files_with_matches", "filenames": full,
                                             "numFiles": len(full)})

    def glob(self, pattern: str) -> tuple[str, dict]:
        rx = re.compile(
            "^" + re.escape(pattern).replace(r"\*\*/", "(.*/)?").replace(r"\*", "[^/]*") + "$"
        )
        hits = sorted(f"{self.cwd}/{p}" for p in self.fs if rx.match(p))
        return self.tool("Glob", {"pattern": pattern}, "\n".join(hits) or "No files found",
                         {"filenames": hits, "durationMs": self.rng.randint(4, 60),
                          "numFiles": len(hits), "truncated": False})

    def todo(self, *items: tuple[str, str, str]) -> tuple[str, dict]:
        """TodoWrite with (content, status, activeForm) triples."""
        new = [{"content": c, "status": s, "activeForm": a} for c, s, a in items]
        old, self.todos = self.todos, new
        done = sum(t["status"] == "completed" for t in new)
        text = (f"Todo list updated: {done} of {len(new)} done. Keep it current as you work "
                "and move on to the next item.")
        return self.tool("TodoWrite", {"todos": new}, text, {"oldTodos": old, "newTodos": new})

    def mcp(self, name: str, inp: dict, text: str) -> tuple[str, dict]:
        blocks = [{"type": "text", "text": text}]
        return self.tool(name, inp, blocks, blocks, secs=3)

    def exit_plan(self, plan: str) -> tuple[str, dict]:
        path = f"{CLAUDE_DIR}/plans/{self.slug}.md"
        return self.tool("ExitPlanMode", {"plan": plan},
                         f"The user approved the plan. It is saved at {path}; start on step 1.",
                         {"plan": plan, "isAgent": False, "filePath": path}, secs=40)

    # -- subagents ----------------------------------------------------------------
    def agent(self, *, gen: str, subagent_type: str, description: str, prompt: str, model: str,
              play: Callable[[_Transcript], None], plan: str | None = None) -> str:
        """Spawn a subagent and play its conversation.

        `gen` picks the on-disk generation: "inline" (1.0.x, sidechain entries in this
        file), "legacy" (2.0.x, `projects/<p>/agent-<8hex>.jsonl`) or "subagents" (2.1.x,
        `<sid>/subagents/agent-a<16hex>.jsonl` + `.meta.json`). Returns the agent id.
        """
        tool = "Agent" if self.v >= (2, 1, 63) else "Task"
        tid = "toolu_01" + self._rand(22)
        inp = {"description": description, "prompt": prompt, "subagent_type": subagent_type}
        use = self._block({"type": "tool_use", "id": tid, "name": tool, "input": inp}, secs=4)
        self._close("tool_use")
        start = self.t
        p = self.project
        if gen == "inline":
            aid = ""
            child = _Transcript(self.arc, p, rel=None, sid=self.sid, start=self.t,
                                version=self.version, branch=self.branch, model=model,
                                slug=self.slug, sidechain=True, lines=self.lines, rng=self.rng,
                                base_ctx=9_000)
        else:
            if gen == "legacy":
                aid = self._hex(8)
                rel = f"projects/{p.dirname}/agent-{aid}.jsonl"
            else:
                aid = "a" + self._hex(16)
                rel = f"projects/{p.dirname}/{self.sid}/subagents/agent-{aid}.jsonl"
                meta = {"agentType": subagent_type, "description": description, "toolUseId": tid}
                self.arc.put(rel[: -len(".jsonl")] + ".meta.json",
                             json.dumps(meta, separators=(",", ":")), self.t)
            self.arc.counts["subagents"] += 1
            child = _Transcript(self.arc, p, rel=rel, sid=self.sid, start=self.t,
                                version=self.version, branch=self.branch, model=model,
                                slug=self.slug, agent_id=aid, sidechain=True, base_ctx=9_000)
        child.prompt(prompt, after=1.0, history=False)
        play(child)
        child.done()
        report = child.last_text
        if plan is not None:
            self.arc.put(f"plans/{self.slug}-agent-{aid}.md", plan, child.t)
            self.arc.counts["plans"] += 1
        # 2.1.x: the parent logs the child's progress while it runs
        if gen == "subagents":
            shown = [e for e, _ in child.times if e["type"] == "assistant"
                     and e["message"]["content"][0]["type"] in ("tool_use", "text")]
            when = {id(e): t for e, t in child.times}
            prev: object = use["uuid"]
            for e in shown[:4]:
                self.at(when[id(e)])
                pe = self.progress({"message": {"type": "assistant", "message": e["message"],
                                                "uuid": e["uuid"], "timestamp": e["timestamp"]},
                                    "normalizedMessages": [], "type": "agent_progress",
                                    "prompt": prompt, "agentId": aid},
                                   f"agent_msg_{e['message']['id']}", tid, parent=prev)
                prev = pe["uuid"]
        self.at(child.t)
        self.tick(1.0)
        ms = (self.t - start) // dt.timedelta(milliseconds=1)
        blocks: list = [{"type": "text", "text": report}]
        result: dict = {}
        if gen != "inline":
            result = {"status": "completed", "prompt": prompt, "agentId": aid}
        if gen == "subagents":
            result["agentType"] = subagent_type
            blocks.append({"type": "text", "text": (
                f"agentId: {aid} (pass this id to resume the same agent later)\n"
                f"<usage>total_tokens: {child.total_tokens}\ntool_uses: {child.tool_uses}\n"
                f"duration_ms: {ms}</usage>")})
        result.update(content=[{"type": "text", "text": report}], totalDurationMs=ms,
                      totalTokens=child.total_tokens, totalToolUseCount=child.tool_uses,
                      usage=child.last_usage)
        tail: dict = {"toolUseResult": result}
        if self.v >= (2, 1, 1):
            tail["sourceToolAssistantUUID"] = use["uuid"]
        if self.prompt_id:
            tail["promptId"] = self.prompt_id
        self._emit("user", {"message": {"role": "user", "content": [
            {"tool_use_id": tid, "type": "tool_result", "content": blocks}]}},
            parent=use["uuid"], tail=tail)
        self.pending += _tok(report)
        self.tool_uses += 1
        return aid

    # -- whole-session events -----------------------------------------------------
    def compact(self, trigger: str, summary: str) -> None:
        """A compaction: a new root (boundary) followed by the summary the model continues from."""
        self.done()
        pre = self.cached + self.pending
        self.tick(35)
        self.system("compact_boundary", "Conversation compacted", secs=0,
                               parent=None, logicalParentUuid=self.last, level="info",
                               compactMetadata={"trigger": trigger, "preTokens": pre})
        self.tick(0.5)
        text = ("This session is being continued from a previous conversation that ran out of "
                "context. The summary below covers the earlier portion of the conversation.\n\n"
                + summary)
        self._emit("user", {"message": {"role": "user", "content": text}},
                   tail={"isVisibleInTranscriptOnly": True, "isCompactSummary": True})
        self.cached, self.pending = 21_000 + _tok(text), 0

    def title(self, kind: str, value: str) -> None:
        key = {"ai-title": "aiTitle", "custom-title": "customTitle",
               "agent-name": "agentName"}[kind]
        self.record({"type": kind, key: value, "sessionId": self.sid})

    def finish(self, last_prompt: str | None = None) -> None:
        """End the session: close the turn, then the tail records newer versions append."""
        self.done()
        if last_prompt is not None and self.v >= (2, 1, 100):
            rec = {"type": "last-prompt", "lastPrompt": last_prompt[:200]}
            if self.v >= (2, 1, 145):
                rec["leafUuid"] = self.last
            rec["sessionId"] = self.sid
            self.record(rec)


# ---- project 1: tally, a Rust CLI -------------------------------------------------

TALLY_CARGO = """\
[package]
name = "tally"
version = "0.3.2"
edition = "2021"
description = "Count lines of code per language, fast"
license = "MIT"

[dependencies]
clap = { version = "4.5", features = ["derive"] }
walkdir = "2.5"
"""

TALLY_MAIN = """\
use clap::Parser;
use std::path::PathBuf;

mod lang;
mod report;
mod walk;

/// Count lines of code per language.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// Files or directories to scan
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Include hidden files and directories
    #[arg(long)]
    hidden: bool,
}

fn main() {
    let args = Args::parse();
    let stats = walk::scan(&args.paths, args.hidden);
    report::print_table(&stats);
}
"""

TALLY_LANG = """\
use std::path::Path;

#[derive(Debug, Default, Clone)]
pub struct LangStats {
    pub language: &'static str,
    pub files: u64,
    pub code: u64,
    pub comments: u64,
    pub blank: u64,
}

/// Language name and line-comment prefix for a file, from its extension.
pub fn detect(path: &Path) -> Option<(&'static str, &'static str)> {
    match path.extension()?.to_str()? {
        "rs" => Some(("Rust", "//")),
        "py" => Some(("Python", "#")),
        "go" => Some(("Go", "//")),
        "ts" | "tsx" => Some(("TypeScript", "//")),
        "sh" | "bash" => Some(("Shell", "#")),
        "toml" => Some(("TOML", "#")),
        _ => None,
    }
}
"""

TALLY_REPORT = """\
use crate::lang::LangStats;

pub fn print_table(stats: &[LangStats]) {
    println!("{:<14} {:>7} {:>9} {:>9} {:>9}", "Language", "Files", "Code", "Comments", "Blank");
    println!("{}", "-".repeat(52));
    for s in stats {
        println!(
            "{:<14} {:>7} {:>9} {:>9} {:>9}",
            s.language, s.files, s.code, s.comments, s.blank
        );
    }
}
"""

TALLY_WALK = """\
use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;

use walkdir::WalkDir;

use crate::lang::{self, LangStats};

pub fn scan(roots: &[PathBuf], hidden: bool) -> Vec<LangStats> {
    let mut by_lang: HashMap<&'static str, LangStats> = HashMap::new();
    for root in roots {
        for entry in WalkDir::new(root).into_iter().filter_map(Result::ok) {
            if !entry.file_type().is_file() {
                continue;
            }
            let name = entry.file_name().to_str().unwrap();
            if !hidden && name.starts_with('.') {
                continue;
            }
            let Some((language, comment)) = lang::detect(entry.path()) else {
                continue;
            };
            let Ok(text) = fs::read_to_string(entry.path()) else {
                continue;
            };
            let s = by_lang.entry(language).or_insert_with(|| LangStats {
                language,
                ..Default::default()
            });
            s.files += 1;
            for line in text.lines() {
                let t = line.trim();
                if t.is_empty() {
                    s.blank += 1;
                } else if t.starts_with(comment) {
                    s.comments += 1;
                } else {
                    s.code += 1;
                }
            }
        }
    }
    let mut out: Vec<LangStats> = by_lang.into_values().collect();
    out.sort_by(|a, b| b.code.cmp(&a.code));
    out
}
"""

TALLY_WALK_PARALLEL = r"""use std::collections::HashMap;
use std::fs;
use std::path::PathBuf;
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

use crate::lang::{self, LangStats};

/// Walk `roots` on all cores, honouring .gitignore, and count lines per language.
pub fn scan(roots: &[PathBuf], hidden: bool) -> Vec<LangStats> {
    let Some((first, rest)) = roots.split_first() else {
        return Vec::new();
    };
    let mut builder = WalkBuilder::new(first);
    for root in rest {
        builder.add(root);
    }
    builder.hidden(!hidden);

    let totals: Mutex<HashMap<&'static str, LangStats>> = Mutex::new(HashMap::new());
    builder.build_parallel().run(|| {
        let totals = &totals;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some((language, comment)) = lang::detect(entry.path()) else {
                return WalkState::Continue;
            };
            let Ok(bytes) = fs::read(entry.path()) else {
                return WalkState::Continue;
            };
            let c = count_lines(&bytes, comment.as_bytes());
            let mut map = totals.lock().unwrap();
            let s = map.entry(language).or_insert_with(|| LangStats {
                language,
                ..Default::default()
            });
            s.files += 1;
            s.code += c.code;
            s.comments += c.comments;
            s.blank += c.blank;
            WalkState::Continue
        })
    });

    let mut out: Vec<LangStats> = totals.into_inner().unwrap().into_values().collect();
    out.sort_by(|a, b| b.code.cmp(&a.code));
    out
}

#[derive(Default)]
struct Counts {
    code: u64,
    comments: u64,
    blank: u64,
}

/// Count on raw bytes: no UTF-8 validation, and no String allocation per file.
fn count_lines(bytes: &[u8], comment: &[u8]) -> Counts {
    let mut c = Counts::default();
    // a final newline does not start another (blank) line
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    if bytes.is_empty() {
        return c;
    }
    for line in bytes.split(|&b| b == b'\n') {
        let t = line.trim_ascii();
        if t.is_empty() {
            c.blank += 1;
        } else if t.starts_with(comment) {
            c.comments += 1;
        } else {
            c.code += 1;
        }
    }
    c
}
"""

TALLY_CHANGELOG = """\
# Changelog

All notable changes to tally are listed here.

## Unreleased

## 0.3.2 - 2025-05-30

- Fix: `--hidden` also applied to directories named `.git`.

## 0.3.1 - 2025-04-11

- TypeScript `.tsx` files are counted as TypeScript.
"""

NON_UTF8_TEST = r"""#![cfg(unix)]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::Command;

#[test]
fn non_utf8_file_names_do_not_panic() {
    let dir = std::env::temp_dir().join("tally-non-utf8");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let name = OsStr::from_bytes(b"caf\xe9.rs");
    std::fs::write(dir.join(name), "fn main() {}\n").unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_tally"))
        .arg(&dir)
        .output()
        .expect("run tally");
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Rust"));
}
"""


def _tally(a: _Archive) -> None:
    p = _Project("/home/demo/src/tally", {
        "Cargo.toml": TALLY_CARGO, "src/main.rs": TALLY_MAIN, "src/lang.rs": TALLY_LANG,
        "src/report.rs": TALLY_REPORT, "src/walk.rs": TALLY_WALK,
        "CHANGELOG.md": TALLY_CHANGELOG, "README.md": "# tally\n\nCount lines of code.\n",
    })

    # -- A1: --json output, 1.0.x, with an inline (sidechain) subagent -------------
    s = a.session(p, "tally-json", start=a.day(20, 14, 5, 12), version="1.0.98",
                  branch="feat/json-output", model=SONNET4)
    s.prompt("Add a `--json` flag to tally that prints the per-language counts as JSON "
             "instead of the table. The table stays the default.", after=0)
    s.say("I'll first find where the table is printed and how the counts are stored.")

    def scout(c: _Transcript) -> None:
        c.say("Searching for the output code.", secs=2)
        c.grep("print_table", ["src/main.rs", "src/report.rs"], path="src")
        c.read("src/lang.rs")
        c.read("Cargo.toml")
        c.say(
            "## Findings\n\n"
            "- The table is printed by `report::print_table(&[LangStats])` in "
            "`src/report.rs`, called once from `main()` in `src/main.rs`.\n"
            "- `LangStats` lives in `src/lang.rs`: `language: &'static str` plus four `u64` "
            "counters (`files`, `code`, `comments`, `blank`). It derives `Debug, Default, "
            "Clone` only.\n"
            "- `serde` / `serde_json` are **not** dependencies yet (`Cargo.toml` has only "
            "`clap` and `walkdir`).\n\n"
            "Adding `serde::Serialize` to the derive is enough; `&'static str` serializes "
            "as a plain string."
        )

    s.agent(gen="inline", subagent_type="general-purpose", description="Find report code",
            model=SONNET4, play=scout,
            prompt="In /home/demo/src/tally, find where the per-language table is printed "
                   "and how the counts are stored. Report file paths, the struct names, and "
                   "whether serde is already a dependency. Do not change anything.")
    s.read("src/report.rs")
    s.edit("Cargo.toml", 'walkdir = "2.5"\n',
           'walkdir = "2.5"\nserde = { version = "1.0", features = ["derive"] }\n'
           'serde_json = "1.0"\n')
    s.edit("src/lang.rs", "#[derive(Debug, Default, Clone)]",
           "#[derive(Debug, Default, Clone, serde::Serialize)]")
    s.edit("src/report.rs", "            s.language, s.files, s.code, s.comments, s.blank\n"
           "        );\n    }\n}\n",
           "            s.language, s.files, s.code, s.comments, s.blank\n        );\n    }\n}\n\n"
           "pub fn print_json(stats: &[LangStats]) {\n"
           "    let out = serde_json::to_string(stats).expect(\"stats serialize\");\n"
           "    println!(\"{out}\");\n}\n")
    s.edit("src/main.rs", "    hidden: bool,\n}",
           "    hidden: bool,\n    /// Print the counts as JSON instead of a table\n"
           "    #[arg(long)]\n    json: bool,\n}")
    s.edit("src/main.rs", "    report::print_table(&stats);\n",
           "    if args.json {\n        report::print_json(&stats);\n    } else {\n"
           "        report::print_table(&stats);\n    }\n")
    rs = _count_code(p.files, "src/", "//")
    s.bash("cargo build -q && ./target/debug/tally --json src",
           json.dumps([{"language": "Rust", **rs}], separators=(",", ":")),
           desc="Build and try the new flag", secs=19)
    s.say(
        "`--json` works:\n\n"
        "```console\n$ tally --json src\n"
        + json.dumps([{"language": "Rust", **rs}], separators=(",", ":")) + "\n```\n\n"
        "### What changed\n"
        "1. `Cargo.toml`: added `serde` (with `derive`) and `serde_json`.\n"
        "2. `src/lang.rs`: `LangStats` now derives `serde::Serialize`.\n"
        "3. `src/report.rs`: new `print_json`, next to `print_table`.\n"
        "4. `src/main.rs`: new `--json` flag; the table is still the default.\n\n"
        "The output is one compact line, which is what scripts want. If you'd like it "
        "indented for humans I can switch to `to_string_pretty` when stdout is a terminal."
    )
    s.prompt("nice. yes, pretty when stdout is a terminal, compact when piped", after=70)
    s.edit("src/report.rs",
           "pub fn print_json(stats: &[LangStats]) {\n"
           "    let out = serde_json::to_string(stats).expect(\"stats serialize\");\n",
           "pub fn print_json(stats: &[LangStats]) {\n"
           "    let out = if std::io::stdout().is_terminal() {\n"
           "        serde_json::to_string_pretty(stats)\n    } else {\n"
           "        serde_json::to_string(stats)\n    }\n    .expect(\"stats serialize\");\n")
    s.edit("src/report.rs", "use crate::lang::LangStats;\n",
           "use std::io::IsTerminal;\n\nuse crate::lang::LangStats;\n")
    s.bash("cargo build -q && ./target/debug/tally --json src | head -c 60; echo; "
           "cargo test -q 2>&1 | tail -2",
           json.dumps([{"language": "Rust", **rs}], separators=(",", ":"))[:60]
           + "\n\nrunning 0 tests\ntest result: ok. 0 passed; 0 failed; 0 ignored",
           desc="Check piped output and run tests", secs=24)
    s.say("Done. Piped output stays on one line (as above); in a terminal you get the "
          "indented form. `std::io::IsTerminal` is in std since Rust 1.70, so no extra "
          "crate was needed.\n\nThere are no unit tests yet (`0 passed`). Want me to add an "
          "integration test for `--json` under `tests/`?")
    s.prompt("not now, thanks", after=40)
    s.say("OK. The change is ready to commit on `feat/json-output`.", secs=3)
    s.finish()

    # -- A3: panic on non-UTF-8 file names, 2.0.x, legacy agent files + a warmup ----
    s = a.session(p, "tally-utf8", start=a.day(14, 11, 2, 41), version="2.0.31",
                  branch="fix/non-utf8-paths", model=SONNET45)
    # v2.0.x probed each session with a "Warmup" agent; its file links to no tool call
    warm_id = s._hex(8)
    warm = _Transcript(a, p, rel=f"projects/{p.dirname}/agent-{warm_id}.jsonl", sid=s.sid,
                       start=s.t, version=s.version, branch=s.branch, model=HAIKU45,
                       agent_id=warm_id, sidechain=True, base_ctx=4_000)
    a.counts["subagents"] += 1
    warm.prompt("Warmup", after=0.5, history=False)
    warm.say("Ready. I can search and read files in /home/demo/src/tally (a Rust CLI: "
             "`src/`, `Cargo.toml`, `CHANGELOG.md`). Tell me what to look for.", secs=2)
    warm.done()
    panic_line = _line_of(p.files["src/walk.rs"], "to_str().unwrap()")
    panic_col = p.files["src/walk.rs"].split("\n")[panic_line - 1].index(".unwrap()") + 2
    s.prompt(
        "tally panics on my photos backup:\n\n```\n$ tally /mnt/backup/photos\n"
        f"thread 'main' panicked at src/walk.rs:{panic_line}:{panic_col}:\n"
        "called `Option::unwrap()` on a `None` value\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n```\n\n"
        "some of those files came from an old windows box, names are latin-1 probably", after=20)
    s.think("A `None` from `to_str()` is the classic non-UTF-8 `OsStr` case. The panic "
            "location points into walk.rs; let me confirm the line and look for other "
            "conversions that could fail the same way before fixing just one.")
    s.say("`to_str()` returns `None` when a file name isn't valid UTF-8, which fits the "
          "latin-1 names. Let me check every place we convert paths to `&str`.")

    def audit(c: _Transcript) -> None:
        c.grep(r"to_str\(\)", [], path="src", content=[
            f"src/walk.rs:{panic_line}:            let name = entry.file_name().to_str()"
            ".unwrap();",
            f"src/lang.rs:{_line_of(TALLY_LANG, 'to_str()?')}:    match "
            "path.extension()?.to_str()? {"])
        c.read("src/walk.rs")
        c.say(
            "Two conversions from `OsStr` to `&str` in `src/`:\n\n"
            f"| File | Line | Code | Non-UTF-8 name |\n|---|---|---|---|\n"
            f"| `src/walk.rs` | {panic_line} | `file_name().to_str().unwrap()` | **panics** |\n"
            f"| `src/lang.rs` | {_line_of(TALLY_LANG, 'to_str()?')} | "
            "`extension()?.to_str()?` | returns `None`: the file is skipped |\n\n"
            "Only the first one can panic. It is used solely for the hidden-file check "
            "(`starts_with('.')`), so `to_string_lossy()` is a safe replacement: a leading "
            "dot is ASCII and survives the lossy conversion. The `lang.rs` case only "
            "matters if the *extension* is non-UTF-8, which is rare and harmless."
        )

    s.agent(gen="legacy", subagent_type="Explore", description="Audit OsStr conversions",
            model=HAIKU45, play=audit,
            prompt="Find every place in /home/demo/src/tally/src where a Path, OsStr or "
                   "file name is converted to &str. For each, say whether a non-UTF-8 name "
                   "makes it panic, return None, or is handled. Report a table.")
    s.edit("src/walk.rs", "let name = entry.file_name().to_str().unwrap();",
           "let name = entry.file_name().to_string_lossy();")
    s.write("tests/non_utf8.rs", NON_UTF8_TEST)
    s.bash("cargo test -q 2>&1 | tail -4",
           "running 1 test\n.\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; "
           "0 filtered out; finished in 0.21s", desc="Run the new integration test", secs=31)
    s.say(
        "Fixed.\n\n"
        f"- **Cause:** `src/walk.rs:{panic_line}` called `to_str().unwrap()` on the file "
        "name; names that aren't valid UTF-8 (your latin-1 files) give `None`.\n"
        "- **Fix:** use `to_string_lossy()`, which only needs to answer \"does the name start "
        "with a dot?\".\n"
        "- **Test:** `tests/non_utf8.rs` creates `caf\\xe9.rs` in a temp dir and runs the "
        "binary on it (Unix only, since Windows names are UTF-16).\n\n"
        "Files with a non-UTF-8 *extension* are still skipped silently by `lang::detect`; "
        "that seems acceptable."
    )
    s.prompt("add it to the changelog under Unreleased", after=55)
    s.edit("CHANGELOG.md", "## Unreleased\n",
           "## Unreleased\n\n- Fix: no more panic on file names that are not valid UTF-8.\n"
           "- New `--json` flag prints the counts as JSON.\n")
    s.say("Added both unreleased changes (this fix and the earlier `--json` flag) to "
          "`CHANGELOG.md`.", secs=3)
    s.finish()

    # -- A2: perf investigation, 2.1.x, subagent in <sid>/subagents + plan ----------
    slug = "tidy-racing-lamport"
    s = a.session(p, "tally-perf", start=a.day(5, 10, 12, 3), version="2.1.119",
                  branch="perf/parallel-walk", model=OPUS46, slug=slug)
    s.session_start_hook("~/.claude/hooks/load-env.sh")
    s.record({"type": "permission-mode", "permissionMode": "default", "sessionId": s.sid})
    s.prompt("tally takes ~40s on ~/src/monorepo while tokei needs about 2s for the same "
             "tree. find out where the time goes before changing anything", after=4)
    s.title("ai-title", "Investigate slow tally on monorepo")
    s.think("Before profiling, measure. Two usual suspects for a line counter: how many files "
            "it visits (ignored dirs such as target/ and node_modules/) and how much work it "
            "does per file (single thread, UTF-8 decoding). A file count comparison with git "
            "ls-files will show the first quickly.")
    s.say("I'll get a baseline first, then compare how many files we visit with how many "
          "git tracks.")
    s.bash("hyperfine --runs 3 'tally ~/src/monorepo'",
           "Benchmark 1: tally ~/src/monorepo\n"
           "  Time (mean \u00b1 \u03c3):     38.912 s \u00b1  0.412 s    "
           "[User: 21.304 s, System: 17.288 s]\n"
           "  Range (min \u2026 max):   38.401 s \u2026 39.655 s    3 runs",
           desc="Baseline timing", secs=118,
           progress=[(40, "Benchmark 1: tally ~/src/monorepo"),
                     (80, "  Current estimate: 38.7 s  \u2588\u2588\u2588\u2588\u2588\u2588"
                          "\u2588\u2588\u2588\u2588\u2591\u2591\u2591\u2591\u2591 ETA 00:00:39")])
    s.bash("cd ~/src/monorepo && find . -type f | wc -l && git ls-files | wc -l && "
           "du -sh target node_modules .git 2>/dev/null",
           "1912443\n41870\n61G\ttarget\n2.3G\tnode_modules\n4.1G\t.git",
           desc="Files on disk vs files tracked by git", secs=21)
    s.say(
        "## Where the time goes\n\n"
        "| | files |\n|---|---:|\n| on disk | 1 912 443 |\n| tracked by git | 41 870 |\n\n"
        "tally visits **45\u00d7 more files** than it should: `walkdir` doesn't read "
        "`.gitignore`, so we descend into `target/` (61 GB of build output), "
        "`node_modules/` and `.git/`. The ~17 s of *system* time is the syscalls of "
        "that walk. On top of that:\n\n"
        "- everything runs on one thread;\n"
        "- each file is decoded with `read_to_string`, which validates UTF-8 and "
        "allocates a `String` we only scan for newlines.\n\n"
        "I'll have a subagent draft a plan for the walker while I check the per-file cost."
    )

    agent_plan = (
        "# Subplan: parallel, gitignore-aware walk for tally\n\n"
        "## Findings\n- `src/walk.rs` uses `walkdir::WalkDir`: no ignore files, one thread.\n"
        "- The only per-entry filters are `is_file()` and the hidden-name check.\n\n"
        "## Proposal\n1. Replace `walkdir` with `ignore::WalkBuilder` (same author; reads "
        "`.gitignore`, `.ignore`, global excludes; hidden handling built in).\n"
        "2. Use `build_parallel()`; merge per-language counts into a `Mutex<HashMap>` (one "
        "lock per file is cheap next to the read).\n"
        "3. Count lines on `&[u8]` from `fs::read` instead of `read_to_string`.\n\n"
        "## Risks\n- Output order: sort after the walk (already done).\n"
        "- A trailing newline must not count as an extra blank line when splitting bytes.\n"
    )

    def planner(c: _Transcript) -> None:
        c.read("src/walk.rs")
        c.read("Cargo.toml")
        c.say(agent_plan)

    s.agent(gen="subagents", subagent_type="Plan", description="Plan a parallel walker",
            model=OPUS46, play=planner, plan=agent_plan,
            prompt="Read /home/demo/src/tally/src/walk.rs and Cargo.toml. Draft a plan to "
                   "make the directory walk respect .gitignore and use all cores, keeping "
                   "the public `walk::scan` signature. Plan only, no edits.")
    s.bash("perf record -g -o /tmp/tally.perf ./target/release/tally ~/src/monorepo/services "
           ">/dev/null 2>&1; perf report -i /tmp/tally.perf --stdio --no-children "
           "2>/dev/null | grep -E '^ +[0-9]' | head -5",
           "    31.22%  tally  libc.so.6  [.] __memchr_avx2\n"
           "    22.87%  tally  tally      [.] core::str::converts::from_utf8\n"
           "    14.05%  tally  [kernel]   [.] __d_lookup_rcu\n"
           "     9.61%  tally  tally      [.] alloc::raw_vec::finish_grow\n"
           "     4.40%  tally  [kernel]   [.] copy_user_enhanced_fast_string",
           desc="Profile one subtree without ignored dirs", secs=14)
    plan = (
        "# Make tally fast on big repositories\n\n"
        "## Context\n`tally ~/src/monorepo` takes 38.9 s (tokei: ~2 s). It walks 1.9 M files "
        "because it ignores `.gitignore` (`target/`, `node_modules/`), runs on one thread, "
        "and spends ~23% of the time validating UTF-8 it never needs.\n\n"
        "## Steps\n"
        "1. Swap `walkdir` for `ignore` and walk with `WalkBuilder::build_parallel()`.\n"
        "2. Keep `walk::scan(&[PathBuf], bool) -> Vec<LangStats>` unchanged.\n"
        "3. Count lines on bytes (`fs::read` + `split(b'\\n')`), trimming ASCII "
        "whitespace; a trailing newline is not a blank line.\n"
        "4. Re-run `hyperfine` and compare with tokei; check counts on `src/` are "
        "unchanged.\n\n"
        "## Out of scope\n- Memory-mapping large files.\n- A `--no-ignore` flag "
        "(follow-up if anyone asks).\n"
    )
    a.put(f"plans/{slug}.md", plan, s.t)
    a.counts["plans"] += 1
    s.say(
        "The profile agrees: **23% in `from_utf8`** and ~10% growing `String` buffers. "
        "Nothing is changed yet; this is the plan.\n\n"
        "### Plan\n"
        "1. `ignore::WalkBuilder` with `build_parallel()` (respects `.gitignore`).\n"
        "2. Count on raw bytes instead of `read_to_string`.\n"
        "3. Same public `walk::scan` signature; verify counts on `src/` don't move.\n\n"
        "Expected: a few seconds, in tokei's range. Go ahead?"
    )
    s.done()
    s.record({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": s.sid})
    s.mode = "acceptEdits"
    s.prompt("go with ignore + counting bytes", after=140)
    s.todo(("Swap walkdir for ignore in Cargo.toml", "in_progress", "Updating dependencies"),
           ("Rewrite walk::scan with WalkBuilder::build_parallel", "pending",
            "Rewriting the walker"),
           ("Count lines on bytes", "pending", "Counting lines on bytes"),
           ("Benchmark against baseline and tokei", "pending", "Benchmarking"))
    s.edit("Cargo.toml", 'walkdir = "2.5"\n', 'ignore = "0.4"\n')
    s.write("src/walk.rs", TALLY_WALK_PARALLEL, hook=("cargo fmt --all", ""))
    s.todo(("Swap walkdir for ignore in Cargo.toml", "completed", "Updating dependencies"),
           ("Rewrite walk::scan with WalkBuilder::build_parallel", "completed",
            "Rewriting the walker"),
           ("Count lines on bytes", "completed", "Counting lines on bytes"),
           ("Benchmark against baseline and tokei", "in_progress", "Benchmarking"))
    s.bash("cargo build --release 2>&1 | tail -2",
           "   Compiling tally v0.3.2 (/home/demo/src/tally)\n"
           "    Finished `release` profile [optimized] target(s) in 21.40s",
           desc="Release build", secs=23,
           progress=[(6, "   Compiling ignore v0.4.23"), (15, "   Compiling clap v4.5.20")])
    s.bash("hyperfine --warmup 1 --runs 5 './target/release/tally ~/src/monorepo' "
           "'tokei ~/src/monorepo'",
           "Benchmark 1: ./target/release/tally ~/src/monorepo\n"
           "  Time (mean \u00b1 \u03c3):      1.184 s \u00b1  0.021 s    "
           "[User: 6.902 s, System: 2.117 s]\n"
           "  Range (min \u2026 max):    1.161 s \u2026  1.219 s    5 runs\n\n"
           "Benchmark 2: tokei ~/src/monorepo\n"
           "  Time (mean \u00b1 \u03c3):      2.036 s \u00b1  0.044 s    "
           "[User: 11.873 s, System: 2.690 s]\n"
           "  Range (min \u2026 max):    1.987 s \u2026  2.101 s    5 runs\n\n"
           "Summary\n  ./target/release/tally ~/src/monorepo ran\n"
           "    1.72 \u00b1 0.05 times faster than tokei ~/src/monorepo",
           desc="Benchmark new build against tokei", secs=24)
    counts = json.dumps([{"language": "Rust", **_count_code(p.files, "src/", "//")}],
                        separators=(",", ":"))
    s.bash("for b in ~/.cargo/bin/tally ./target/release/tally; do $b --json src; done",
           f"{counts}\n{counts}", desc="Same counts from the old and new binary", secs=2)
    s.todo(("Swap walkdir for ignore in Cargo.toml", "completed", "Updating dependencies"),
           ("Rewrite walk::scan with WalkBuilder::build_parallel", "completed",
            "Rewriting the walker"),
           ("Count lines on bytes", "completed", "Counting lines on bytes"),
           ("Benchmark against baseline and tokei", "completed", "Benchmarking"))
    s.say(
        "## Result\n\n"
        "| | before | after |\n|---|---:|---:|\n"
        "| `tally ~/src/monorepo` | 38.9 s | **1.18 s** |\n| tokei, same tree | 2.04 s | "
        "2.04 s |\n\n"
        "That's **33\u00d7 faster** than before and 1.7\u00d7 faster than tokei.\n\n"
        "Per-language counts are identical between the installed 0.3.2 and the new build "
        "(checked on `src/`), so only the speed changed.\n\n"
        "Changes: `Cargo.toml` (`walkdir` \u2192 `ignore`), `src/walk.rs` rewritten. "
        "`cargo fmt` ran via the PostToolUse hook."
    )
    s.title("ai-title", "Parallelize tally directory walk")
    s.finish(last_prompt="go with ignore + counting bytes")
    a.put(f"projects/{p.dirname}/{s.sid}/session-memory/summary.md", (
        "# Session Title\nParallel, gitignore-aware walk for tally\n\n"
        "# Current State\nDone: walker rewritten with `ignore::WalkBuilder::build_parallel`, "
        "counting on bytes. Monorepo scan 38.9 s \u2192 1.18 s. Not committed yet.\n\n"
        "# Task Specification\nFind why tally is ~20\u00d7 slower than tokei on "
        "~/src/monorepo, measure before changing code, then fix.\n\n"
        "# Files and Functions\n- `src/walk.rs`: `scan()` (public signature unchanged), new "
        "private `count_lines(&[u8], &[u8])`.\n- `Cargo.toml`: `walkdir` replaced by `ignore`.\n\n"
        "# Errors & Corrections\n- Splitting bytes on `\\n` counts an extra blank line for a "
        "trailing newline; stripped before splitting.\n\n"
        "# Learnings\n- 1.9 M files on disk vs 41 870 tracked: the walk, not the counting, "
        "dominated.\n- Benchmark with `hyperfine --warmup 1`; the first cold run is 2\u00d7 "
        "slower.\n"
    ), s.t_max)

    mem = f"projects/{p.dirname}/memory"
    a.put(f"{mem}/MEMORY.md", (
        "# tally memory\n\n"
        "- [Benchmarking](benchmarking.md): how to time tally reliably on this machine\n"
        "- Release checklist lives in `CHANGELOG.md` (Unreleased section first)\n"
        "- Integration tests run the built binary via `CARGO_BIN_EXE_tally`\n"
    ), s.t_max)
    a.put(f"{mem}/benchmarking.md", (
        "---\nname: benchmarking\n"
        "description: How to benchmark tally reliably on this machine\n"
        "metadata:\n  type: project\n"
        f"  originSessionId: {s.sid}\n  modified: {s.t_max.date().isoformat()}\n---\n\n"
        "# Benchmarking tally\n\n"
        "- Use `hyperfine --warmup 1 --runs 5`; the first run after a build is cold.\n"
        "- Reference tree: `~/src/monorepo` (41 870 tracked files, 1.9 M on disk).\n"
        "- Compare against `tokei` on the same tree.\n"
        "- Baseline before the parallel walk: 38.9 s; after: 1.18 s.\n"
    ), s.t_max)
    a.counts["memory_files"] += 3

    # -- A4: release, live (last hour), queued prompt typed mid-turn ----------------
    s = a.session(p, "tally-release", start=a.now - dt.timedelta(minutes=48, seconds=17),
                  version="2.1.281", branch="release/v0.4.0", model=OPUS47)
    s.session_start_hook("~/.claude/hooks/load-env.sh")
    s.record({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": s.sid})
    s.mode = "acceptEdits"
    s.prompt("prepare the v0.4.0 release: bump the version, move Unreleased in the changelog "
             "under 0.4.0 with today's date, and run the full test suite", after=6)
    s.title("ai-title", "Prepare tally v0.4.0 release")
    s.think("Three mechanical steps; the test suite is the slow part, so edit first and run "
            "the tests last, in release mode like CI does.")
    s.todo(("Bump version to 0.4.0 in Cargo.toml", "in_progress", "Bumping the version"),
           ("Move Unreleased entries under 0.4.0", "pending", "Updating the changelog"),
           ("Run the full test suite", "pending", "Running tests"))
    s.read("CHANGELOG.md")
    s.edit("Cargo.toml", 'version = "0.3.2"', 'version = "0.4.0"')
    today = s.t.date().isoformat()
    s.edit("CHANGELOG.md", "## Unreleased\n\n",
           f"## Unreleased\n\n## 0.4.0 - {today}\n\n"
           "- Much faster on large trees: parallel walk that honours `.gitignore`.\n")
    s.todo(("Bump version to 0.4.0 in Cargo.toml", "completed", "Bumping the version"),
           ("Move Unreleased entries under 0.4.0", "completed", "Updating the changelog"),
           ("Run the full test suite", "in_progress", "Running tests"))
    queued = "also tag it, but don't push the tag yet"

    def typed_mid_turn() -> None:
        s.tick(3)
        s.record({"type": "queue-operation", "operation": "enqueue", "timestamp": _iso(s.t),
                  "sessionId": s.sid, "content": queued})
        a.add_history(s.t, queued, s.cwd, s.sid)

    s.bash("cargo test --release 2>&1 | grep -E '^(test result|running)'",
           "running 0 tests\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; "
           "0 filtered out; finished in 0.00s\nrunning 1 test\ntest result: ok. 1 passed; "
           "0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.34s",
           desc="Full test suite in release mode", secs=96,
           progress=[(20, "   Compiling tally v0.4.0 (/home/demo/src/tally)"),
                     (58, "    Finished `release` profile [optimized] target(s) in 51.02s"),
                     (63, "running 0 tests")],
           during=typed_mid_turn)
    s.record({"type": "queue-operation", "operation": "remove", "timestamp": _iso(s.t),
              "sessionId": s.sid, "content": queued})
    s.attachment({"type": "queued_command", "prompt": queued, "commandMode": "prompt"})
    s.bash("git commit -qam 'Release v0.4.0' && git tag -a v0.4.0 -m 'tally 0.4.0' && "
           "git log --oneline -1 --decorate",
           "9c41e7d (HEAD -> release/v0.4.0, tag: v0.4.0) Release v0.4.0",
           desc="Commit and tag locally", secs=2)
    s.todo(("Bump version to 0.4.0 in Cargo.toml", "completed", "Bumping the version"),
           ("Move Unreleased entries under 0.4.0", "completed", "Updating the changelog"),
           ("Run the full test suite", "completed", "Running tests"))
    s.say(
        "v0.4.0 is ready locally:\n\n"
        "- `Cargo.toml`: `0.3.2` \u2192 `0.4.0`\n"
        f"- `CHANGELOG.md`: Unreleased moved under `## 0.4.0 - {today}`\n"
        "- Tests: all green in release mode\n"
        "- Commit `9c41e7d` tagged `v0.4.0` (annotated). **Not pushed**, as you asked.\n\n"
        "When you're ready: `git push origin release/v0.4.0 v0.4.0`."
    )
    s.done()
    s.tick(1260)  # the user waits for CI on the release branch
    s.prompt("CI is green on the branch. push branch and tag", after=0)
    s.bash("git push -q origin release/v0.4.0 v0.4.0 && git ls-remote --tags origin v0.4.0",
           "4f0d9b2a61c7e3f85d0a9b1c2e4f6a8b0c1d3e5f\trefs/tags/v0.4.0",
           desc="Push the release branch and tag", secs=4)
    s.say("Pushed `release/v0.4.0` and the `v0.4.0` tag. The release workflow should pick "
          "the tag up and build the binaries.", secs=3)
    s.finish(last_prompt="CI is green on the branch. push branch and tag")
    assert s.t < a.now - dt.timedelta(minutes=2), "live demo session must end before now"


# ---- project 2: pantry-api, a FastAPI service ------------------------------------

PANTRY_MODELS = """\
from datetime import date, datetime

from sqlalchemy import Date, DateTime, ForeignKey, String, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))


class Recipe(Base):
    __tablename__ = "recipes"

    id: Mapped[int] = mapped_column(primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class PantryItem(Base):
    __tablename__ = "pantry_items"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(120))
    quantity: Mapped[str] = mapped_column(String(40), default="1")
    added_on: Mapped[date] = mapped_column(Date, server_default=func.current_date())
"""

PANTRY_RECIPES = """\
from fastapi import APIRouter, Depends
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db import get_session
from app.models import Recipe
from app.schemas import RecipeOut

router = APIRouter(prefix="/recipes", tags=["recipes"])


@router.get("", response_model=list[RecipeOut])
def list_recipes(db: Session = Depends(get_session)):
    return db.scalars(select(Recipe).order_by(Recipe.id)).all()
"""

PANTRY_ROUTES = """\
from fastapi import APIRouter, Depends
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.auth import current_user
from app.db import get_session
from app.models import PantryItem, User
from app.schemas import PantryItemOut

router = APIRouter(prefix="/pantry", tags=["pantry"])


@router.get("", response_model=list[PantryItemOut])
def list_items(user: User = Depends(current_user), db: Session = Depends(get_session)):
    stmt = select(PantryItem).where(PantryItem.user_id == user.id).order_by(PantryItem.name)
    return db.scalars(stmt).all()
"""

PANTRY_SCHEMAS = """\
from datetime import date

from pydantic import BaseModel, ConfigDict


class RecipeOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    title: str


class PantryItemOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    quantity: str
    added_on: date
"""

PANTRY_AUTH = """\
from fastapi import APIRouter, Depends, HTTPException, status
from sqlalchemy.orm import Session

from app.db import get_session
from app.schemas import LoginIn, TokenOut
from app.security import authenticate, issue_token

router = APIRouter(prefix="/auth", tags=["auth"])


@router.post("/login", response_model=TokenOut)
def login(body: LoginIn, db: Session = Depends(get_session)):
    user = authenticate(db, body.username, body.password)
    if user is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "invalid credentials")
    return TokenOut(access_token=issue_token(user))
"""

PANTRY_MIGRATION_6 = '''\
"""recipe tags

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.add_column("recipes", sa.Column("tags", sa.String(200), nullable=True))


def downgrade() -> None:
    op.drop_column("recipes", "tags")
'''

PANTRY_MIGRATION_7 = '''\
"""pantry item expiry date

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column("pantry_items", sa.Column("expires_on", sa.Date(), nullable=True))
    op.create_index("ix_pantry_items_expires_on", "pantry_items", ["expires_on"])


def downgrade() -> None:
    op.drop_index("ix_pantry_items_expires_on", table_name="pantry_items")
    op.drop_column("pantry_items", "expires_on")
'''

PANTRY_TEST_EXPIRING = """\
from datetime import datetime, timedelta, timezone

from tests.factories import make_item


def test_expiring_soon(client, user, db):
    today = datetime.now(timezone.utc).date()
    make_item(db, user, name="milk", expires_on=today + timedelta(days=2))
    make_item(db, user, name="rice", expires_on=today + timedelta(days=200))

    resp = client.get("/pantry/expiring?days=3")

    assert resp.status_code == 200
    assert [i["name"] for i in resp.json()] == ["milk"]
"""

PANTRY_CLOCK = '''\
"""One notion of "today" for the whole API: the UTC date.

The server's local time zone differs between laptops, CI and production, so never call
`date.today()` in request code; use `today()` (tests monkeypatch it).
"""

from datetime import UTC, date, datetime


def today() -> date:
    return datetime.now(UTC).date()
'''

PANTRY_RATELIMIT = '''\
"""A small in-process sliding-window rate limiter.

Good enough for one API process; with several workers this must move to Redis.
"""

import time
from collections import defaultdict, deque
from threading import Lock

from fastapi import HTTPException, Request, status


class SlidingWindow:
    def __init__(self, limit: int, window_s: float, clock=time.monotonic):
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._hits: dict[str, deque[float]] = defaultdict(deque)
        self._lock = Lock()

    def hit(self, key: str) -> float:
        """Record an attempt; return 0 if allowed, else seconds until the next free slot."""
        now = self.clock()
        with self._lock:
            q = self._hits[key]
            while q and now - q[0] >= self.window_s:
                q.popleft()
            if len(q) >= self.limit:
                return self.window_s - (now - q[0])
            q.append(now)
            return 0.0


login_limiter = SlidingWindow(limit=5, window_s=60)


def limit_login(request: Request, username: str) -> None:
    ip = request.client.host if request.client else "unknown"
    wait = login_limiter.hit(f"{ip}|{username.lower()}")
    if wait:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            "too many login attempts",
            headers={"Retry-After": str(int(wait) + 1)},
        )
'''

PANTRY_RATELIMIT_TEST = '''\
from app.ratelimit import SlidingWindow, login_limiter


def test_sixth_attempt_in_a_minute_is_refused(client):
    login_limiter._hits.clear()
    body = {"username": "ana", "password": "wrong"}
    codes = [client.post("/auth/login", json=body).status_code for _ in range(6)]
    assert codes == [401] * 5 + [429]


def test_retry_after_header(client):
    login_limiter._hits.clear()
    body = {"username": "ben", "password": "wrong"}
    for _ in range(5):
        client.post("/auth/login", json=body)
    resp = client.post("/auth/login", json=body)
    assert resp.status_code == 429
    assert 1 <= int(resp.headers["Retry-After"]) <= 60


def test_window_slides():
    now = [0.0]
    w = SlidingWindow(limit=2, window_s=10, clock=lambda: now[0])
    assert w.hit("k") == 0 and w.hit("k") == 0
    assert w.hit("k") > 0
    now[0] = 10.0
    assert w.hit("k") == 0
'''

CI_COMPOSE_CONFIG = """\
name: pantry-api-ci
services:
  api:
    build:
      context: /home/demo/src/pantry-api
      dockerfile: Dockerfile
    command:
      - pytest
      - -q
    depends_on:
      db:
        condition: service_healthy
    environment:
      ANTHROPIC_API_KEY: sk-ant-api03-DEMO-not-a-real-key-0000000000000000000000000000000000-DEMOAA
      DATABASE_URL: postgres://app:s3cret-demo@db.internal/app
      LOG_LEVEL: info
      TZ: America/New_York
  db:
    image: postgres:16
    healthcheck:
      test:
        - CMD-SHELL
        - pg_isready -U app
"""


def _pytest_vv() -> str:
    """A long, plausible `pytest -vv` listing, big enough to be persisted to tool-results/."""
    rng = _rng("pytest-vv")
    modules = ["test_auth", "test_pantry", "test_recipes", "test_schemas", "test_search",
               "test_units", "test_shopping_list"]
    verbs = ["creates", "lists", "updates", "deletes", "rejects", "paginates", "filters",
             "sorts", "validates", "normalises"]
    nouns = ["item", "recipe", "user", "quantity", "unit", "tag", "token", "expiry",
             "ingredient", "query"]
    lines = ["============================= test session starts =============================",
             "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0 -- /usr/bin/python",
             "rootdir: /home/demo/src/pantry-api", "collected 392 items", ""]
    total = 392
    for i in range(total):
        mod = modules[i * len(modules) // total]
        name = f"test_{rng.choice(verbs)}_{rng.choice(nouns)}_{i:03d}"
        pct = (i + 1) * 100 // total
        lines.append(f"tests/{mod}.py::{name} PASSED{' ' * max(1, 60 - len(mod) - len(name))}"
                     f"[{pct:3d}%]")
    lines += ["", "============================ 392 passed in 14.82s ============================"]
    return "\n".join(lines)


def _pantry(a: _Archive) -> None:
    p = _Project("/home/demo/src/pantry-api", {
        "app/models.py": PANTRY_MODELS, "app/routes/recipes.py": PANTRY_RECIPES,
        "app/routes/pantry.py": PANTRY_ROUTES, "app/routes/auth.py": PANTRY_AUTH,
        "app/schemas.py": PANTRY_SCHEMAS, "migrations/versions/0006_recipe_tags.py":
        PANTRY_MIGRATION_6, "migrations/versions/0005_users.py": "# users\n",
        "docker-compose.ci.yml": "# see `docker compose config`\n",
    })

    # -- B1: pagination, 1.0.x -------------------------------------------------------
    s = a.session(p, "pantry-pagination", start=a.day(18, 10, 20, 45), version="1.0.128",
                  branch="feat/pagination", model=SONNET45)
    s.prompt("GET /recipes returns every row (2k+ now and the app chokes). add limit/offset "
             "pagination with a sane default and a max", after=0)
    s.read("app/routes/recipes.py")
    s.edit("app/routes/recipes.py",
           "from fastapi import APIRouter, Depends\nfrom sqlalchemy import select\n",
           "from fastapi import APIRouter, Depends, Query, Response\n"
           "from sqlalchemy import func, select\n")
    s.edit("app/routes/recipes.py",
           "@router.get(\"\", response_model=list[RecipeOut])\n"
           "def list_recipes(db: Session = Depends(get_session)):\n"
           "    return db.scalars(select(Recipe).order_by(Recipe.id)).all()\n",
           "DEFAULT_LIMIT = 50\nMAX_LIMIT = 200\n\n\n"
           "@router.get(\"\", response_model=list[RecipeOut])\ndef list_recipes(\n"
           "    response: Response,\n    limit: int = Query(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT),\n"
           "    offset: int = Query(0, ge=0),\n    db: Session = Depends(get_session),\n):\n"
           "    total = db.scalar(select(func.count()).select_from(Recipe))\n"
           "    response.headers[\"X-Total-Count\"] = str(total)\n"
           "    stmt = select(Recipe).order_by(Recipe.id).limit(limit).offset(offset)\n"
           "    return db.scalars(stmt).all()\n")
    s.bash("pytest -q tests/test_recipes.py", "......                                   "
           "[100%]\n6 passed in 0.94s", desc="Run recipe tests", secs=5)
    s.say(
        "Pagination is in:\n\n"
        "- `GET /recipes?limit=50&offset=0`: `limit` defaults to **50**, max **200** "
        "(FastAPI answers 422 above that), `offset` \u2265 0.\n"
        "- Ordered by `id`, so pages are stable while rows are only appended.\n"
        "- `X-Total-Count` header with the total, so the app can draw a pager.\n\n"
        "Existing tests still pass. Note: offset pagination gets slower on deep pages, "
        "since the database still walks the skipped rows."
    )
    s.prompt("how deep before that matters? would cursor pagination be better here", after=90)
    s.think("2k rows is tiny. Even 200k rows with an index on id: OFFSET cost is linear in "
            "the offset but each skipped row is cheap. The app is a recipe list with a pager; "
            "keyset pagination makes 'jump to page N' impossible. Give numbers and a "
            "recommendation, not code.")
    s.say(
        "For this table, not soon:\n\n"
        "| rows | `OFFSET` cost at the last page | verdict |\n|---:|---|---|\n"
        "| 2 000 | < 1 ms | irrelevant |\n| 200 000 | a few ms (index scan on `id`) | fine |\n"
        "| 20 M | 100s of ms | switch to keyset |\n\n"
        "**Keyset (cursor) pagination** (`WHERE id > :last_id ORDER BY id LIMIT n`) is "
        "constant-time, but you lose *jump to page N* and total-based pagers, which your "
        "recipe screen uses. I'd keep offset and revisit if recipes ever reach millions.",
        secs=9)
    s.prompt("ok keep offset. add a Link header with the next page though", after=60)
    s.edit("app/routes/recipes.py",
           "    stmt = select(Recipe).order_by(Recipe.id).limit(limit).offset(offset)\n",
           "    if offset + limit < total:\n"
           "        nxt = f\"/recipes?limit={limit}&offset={offset + limit}\"\n"
           "        response.headers[\"Link\"] = f'<{nxt}>; rel=\"next\"'\n"
           "    stmt = select(Recipe).order_by(Recipe.id).limit(limit).offset(offset)\n")
    s.bash("pytest -q tests/test_recipes.py", "......                                   "
           "[100%]\n6 passed in 0.91s", desc="Run recipe tests", secs=5)
    s.say("Added `Link: </recipes?limit=50&offset=50>; rel=\"next\"`, omitted on the last "
          "page. Tests pass.", secs=3)
    s.finish()
    b1_leaf = s.last

    # -- B2: expiry dates: plan mode, migration, TodoWrite, 2.0.x ------------------------
    slug = "mellow-stacking-codd"
    s = a.session(p, "pantry-expiry", start=a.day(10, 9, 15, 8), version="2.0.62",
                  branch="feat/expiry-dates", model=OPUS45, slug=slug)
    s.record({"type": "summary", "summary": "Recipe list pagination with Link header",
              "leafUuid": b1_leaf})
    s.prompt("plan first, no code yet: pantry items need an expiry date. nullable "
             "`expires_on` column + alembic migration, expose it in the API, and a "
             "`GET /pantry/expiring?days=N` endpoint for the 'use it soon' screen", after=0)
    s.think("Plan mode. Check the model, the latest migration number and the schema so the "
            "plan names real files. Index on expires_on: the expiring query filters and "
            "sorts on it per user.")
    s.glob("migrations/versions/*.py")
    s.read("app/models.py")
    s.read("app/routes/pantry.py")
    plan = (
        "# Expiry dates for pantry items\n\n"
        "## Steps\n"
        "1. **Model**: `PantryItem.expires_on: Mapped[date | None]`, indexed.\n"
        "2. **Migration** `0007_pantry_expires_on.py` (revises `0006`): add the nullable "
        "column and `ix_pantry_items_expires_on`; downgrade drops both.\n"
        "3. **Schema**: `PantryItemOut.expires_on: date | None`.\n"
        "4. **Endpoint** `GET /pantry/expiring?days=N` (default 3, 0\u201360): the user's "
        "items with `expires_on <= today + N`, soonest first; items without a date are "
        "never returned.\n"
        "5. **Tests**: expiring filter, ordering, `days` bounds.\n\n"
        "## Notes\n- Nullable: existing rows have no date, and many items never expire.\n"
        "- No backfill.\n"
    )
    s.exit_plan(plan)
    a.put(f"plans/{slug}.md", plan, s.t)
    a.counts["plans"] += 1
    s.todo(("Add expires_on to PantryItem", "in_progress", "Adding expires_on to the model"),
           ("Write migration 0007", "pending", "Writing the migration"),
           ("Expose expires_on in PantryItemOut", "pending", "Updating the schema"),
           ("Add GET /pantry/expiring", "pending", "Adding the endpoint"),
           ("Tests", "pending", "Writing tests"))
    s.edit("app/models.py",
           '    added_on: Mapped[date] = mapped_column(Date, server_default=func.current_date())\n',
           '    added_on: Mapped[date] = mapped_column(Date, server_default=func.current_date())\n'
           '    expires_on: Mapped[date | None] = mapped_column(Date, nullable=True, index=True)\n')
    s.write("migrations/versions/0007_pantry_expires_on.py", PANTRY_MIGRATION_7)
    s.bash("alembic upgrade head && alembic current",
           "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
           "INFO  [alembic.runtime.migration] Will assume transactional DDL.\n"
           "INFO  [alembic.runtime.migration] Running upgrade 0006 -> 0007, pantry item "
           "expiry date\n0007 (head)", desc="Apply the migration locally", secs=4)
    s.edit("app/schemas.py", "    added_on: date\n", "    added_on: date\n"
           "    expires_on: date | None = None\n")
    s.edit("app/routes/pantry.py", "from fastapi import APIRouter, Depends\n",
           "from datetime import date, timedelta\n\nfrom fastapi import APIRouter, Depends, "
           "Query\n")
    s.edit("app/routes/pantry.py",
           "    return db.scalars(stmt).all()\n",
           "    return db.scalars(stmt).all()\n\n\n"
           "@router.get(\"/expiring\", response_model=list[PantryItemOut])\n"
           "def expiring_soon(\n    days: int = Query(3, ge=0, le=60),\n"
           "    user: User = Depends(current_user),\n    db: Session = Depends(get_session),\n):\n"
           "    cutoff = date.today() + timedelta(days=days)\n    stmt = (\n"
           "        select(PantryItem)\n"
           "        .where(PantryItem.user_id == user.id, PantryItem.expires_on.is_not(None))\n"
           "        .where(PantryItem.expires_on <= cutoff)\n"
           "        .order_by(PantryItem.expires_on)\n    )\n"
           "    return db.scalars(stmt).all()\n")
    s.write("tests/test_pantry.py", PANTRY_TEST_EXPIRING)
    s.bash("pytest -q", "........................                                 [100%]\n"
           "24 passed in 2.31s", desc="Full test run", secs=6)
    s.todo(("Add expires_on to PantryItem", "completed", "Adding expires_on to the model"),
           ("Write migration 0007", "completed", "Writing the migration"),
           ("Expose expires_on in PantryItemOut", "completed", "Updating the schema"),
           ("Add GET /pantry/expiring", "completed", "Adding the endpoint"),
           ("Tests", "completed", "Writing tests"))
    s.say(
        "All five steps are done and the suite passes (24 tests).\n\n"
        "```http\nGET /pantry/expiring?days=3\n```\n"
        "returns the user's items expiring within 3 days, soonest first. Migration `0007` "
        "is applied locally; remember to run `alembic upgrade head` on staging."
    )
    s.finish()
    a.put(f"todos/{s.sid}-agent-{s.sid}.json", json.dumps(s.todos, indent=2), s.t_max)

    # -- B3: flaky test around midnight, credentials in output, api_error, PR ---------
    s = a.session(p, "pantry-flaky", start=a.day(4, 15, 31, 20), version="2.1.140",
                  branch="fix/flaky-expiring", model=OPUS46)
    s.session_start_hook("~/.claude/hooks/load-env.sh")
    s.record({"type": "permission-mode", "permissionMode": "default", "sessionId": s.sid})
    s.prompt("test_expiring_soon fails on CI maybe 1 run in 10. passed locally 50 times in "
             "a row. figure out why", after=3)
    s.title("ai-title", "Fix flaky test_expiring_soon")
    s.bash("for i in $(seq 20); do pytest -q -p no:randomly tests/test_pantry.py "
           "-k expiring 2>&1 | tail -1; done | sort | uniq -c",
           "     20 1 passed, 23 deselected in 0.41s", desc="Try to reproduce locally", secs=14)
    s.grep(r"date\.today\(\)|datetime\.now\(", ["app/routes/pantry.py",
                                                "tests/test_pantry.py"])
    s.read("tests/test_pantry.py")
    s.think("The test builds 'today' from datetime.now(timezone.utc).date(); the endpoint "
            "uses date.today(), which is the *local* date of the server process. They agree "
            "whenever local time and UTC are on the same calendar day. Locally the laptop is "
            "on UTC (or close), so never fails. If CI runs with a TZ west of UTC, runs in the "
            "evening (local) see a different date than UTC. Check the CI environment.")
    s.say("The test computes *today* in UTC, the endpoint with `date.today()` (the server's "
          "**local** date). Those disagree for a few hours a day unless the process runs "
          "in UTC. Let me check what time zone CI uses.")
    s.bash("docker compose -f docker-compose.ci.yml config", CI_COMPOSE_CONFIG,
           desc="Resolved CI compose file", secs=3)
    s.say(
        "Found it: CI runs with `TZ: America/New_York` (UTC\u22125 / \u22124).\n\n"
        "Between 19:00 and midnight New York time, UTC is already on the next day: the test "
        "stores *milk* as expiring in 2 days from the **UTC** date, the endpoint computes "
        "its cutoff from the **New York** date, one day earlier, and `milk` falls outside "
        "the window. Nightly and late pushes land in that slot, hence ~1 in 10.\n\n"
        "> \u26a0\ufe0f Side note: that output also shows a **database password** and an "
        "**Anthropic API key** in plain text in `docker-compose.ci.yml`. Those belong in "
        "CI secrets; consider rotating both.\n\n"
        "Let me reproduce it deterministically with a time zone far from UTC."
    )
    s.bash("TZ=Pacific/Kiritimati pytest -q -p no:randomly tests/test_pantry.py -k expiring",
           "F                                                                        [100%]\n"
           "=================================== FAILURES ===================================\n"
           "______________________________ test_expiring_soon ______________________________\n"
           "    def test_expiring_soon(client, user, db):\n"
           "        ...\n"
           ">       assert [i[\"name\"] for i in resp.json()] == [\"milk\"]\n"
           "E       AssertionError: assert [] == ['milk']\n"
           "E         Right contains one more item: 'milk'\n"
           "tests/test_pantry.py:13: AssertionError\n"
           "=========================== short test summary info ============================\n"
           "FAILED tests/test_pantry.py::test_expiring_soon - AssertionError: assert [] == "
           "['milk']\n1 failed, 23 deselected in 0.44s",
           desc="Reproduce with UTC+14", secs=4, is_error=True)
    s.system("api_error", secs=3, level="error", error={
        "status": 529, "headers": {}, "requestID": "req_011C" + s._rand(20),
        "error": {"type": "error", "error": {"type": "overloaded_error",
                                             "message": "Overloaded"}}},
        retryInMs=1183.4, retryAttempt=1, maxRetries=10)
    s.say("Reproduced: in UTC+14 the endpoint's *today* is a day ahead and the item "
          "falls out. Fix: one definition of *today* (UTC) used by the app and the tests.")
    s.write("app/clock.py", PANTRY_CLOCK, hook=("ruff format --quiet", ""))
    s.edit("app/routes/pantry.py", "    cutoff = date.today() + timedelta(days=days)\n",
           "    cutoff = clock.today() + timedelta(days=days)\n",
           hook=("ruff format --quiet", ""))
    s.edit("app/routes/pantry.py", "from datetime import date, timedelta\n",
           "from datetime import timedelta\n")
    s.edit("app/routes/pantry.py", "from app.auth import current_user\n",
           "from app import clock\nfrom app.auth import current_user\n")
    s.edit("tests/test_pantry.py",
           "from datetime import datetime, timedelta, timezone\n\n",
           "from datetime import timedelta\n\nfrom app import clock\n")
    s.edit("tests/test_pantry.py", "    today = datetime.now(timezone.utc).date()\n",
           "    today = clock.today()\n")
    s.bash("for tz in Pacific/Kiritimati Pacific/Pago_Pago America/New_York UTC; do "
           "TZ=$tz pytest -q -p no:randomly tests/test_pantry.py -k expiring 2>&1 | tail -1; "
           "done",
           "1 passed, 23 deselected in 0.40s\n1 passed, 23 deselected in 0.39s\n"
           "1 passed, 23 deselected in 0.41s\n1 passed, 23 deselected in 0.40s",
           desc="Run the test in four time zones", secs=7)
    s.bash("pytest -vv -p no:randomly", _pytest_vv(), desc="Full suite, verbose", secs=18,
           persist=True)
    s.say(
        "## Fixed\n\n"
        "**Cause:** the endpoint used `date.today()` (server-local date), the test used the "
        "UTC date; CI runs in `America/New_York`, so the two disagree every evening.\n\n"
        "**Fix:**\n"
        "- new `app/clock.py` with `today()` = the UTC date, the only *today* in request "
        "code;\n"
        "- `/pantry/expiring` and the test both use it.\n\n"
        "The test passes in UTC\u221211, UTC\u22125, UTC and UTC+14, and the full suite is "
        "green (392 tests). I didn't touch `docker-compose.ci.yml`; the secrets there "
        "still need moving."
    )
    s.done()
    s.set_version("2.1.145")  # resumed the next morning after an update
    s.t = a.day(3, 9, 4, 51)
    s.prompt("push it and open a PR", after=0)
    s.bash("git push -u origin fix/flaky-expiring 2>&1 | tail -1",
           "branch 'fix/flaky-expiring' set up to track 'origin/fix/flaky-expiring'.",
           desc="Push the branch", secs=3)
    pr = "https://github.com/demo-kitchen/pantry-api/pull/112"
    s.bash("gh pr create --fill --title 'Use one UTC \"today\" for expiry checks'", pr,
           desc="Open the pull request", secs=4)
    s.record({"type": "pr-link", "sessionId": s.sid, "prNumber": 112, "prUrl": pr,
              "prRepository": "demo-kitchen/pantry-api", "timestamp": _iso(s.t)})
    s.say(f"Opened [#112]({pr}).", secs=2)
    s.finish(last_prompt="push it and open a PR")

    # -- B4: login rate limit, live --------------------------------------------------
    s = a.session(p, "pantry-ratelimit", start=a.now - dt.timedelta(minutes=2, seconds=25),
                  version="2.1.281", branch="feat/login-rate-limit", model=OPUS47)
    s.session_start_hook("~/.claude/hooks/load-env.sh")
    s.record({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": s.sid})
    s.mode = "acceptEdits"
    s.prompt("add rate limiting to POST /auth/login: max 5 attempts per minute per IP + "
             "username, answer 429 with Retry-After. no new infra, a single process is fine "
             "for now", after=5)
    s.title("ai-title", "Rate-limit login attempts")
    s.think("In-process sliding window keyed by ip|username; a deque of timestamps per key "
            "with a lock. Inject the clock for tests. Apply it before authenticate() so "
            "failed and successful attempts both count.")
    s.grep("auth/login|/login", ["app/routes/auth.py"])
    s.read("app/routes/auth.py")
    s.write("app/ratelimit.py", PANTRY_RATELIMIT, hook=("ruff format --quiet", ""))
    s.edit("app/routes/auth.py",
           "from fastapi import APIRouter, Depends, HTTPException, status\n",
           "from fastapi import APIRouter, Depends, HTTPException, Request, status\n")
    s.edit("app/routes/auth.py",
           "def login(body: LoginIn, db: Session = Depends(get_session)):\n",
           "def login(body: LoginIn, request: Request, db: Session = Depends(get_session)):\n"
           "    limit_login(request, body.username)\n", hook=("ruff format --quiet", ""))
    s.edit("app/routes/auth.py", "from app.db import get_session\n",
           "from app.db import get_session\nfrom app.ratelimit import limit_login\n")
    s.write("tests/test_rate_limit.py", PANTRY_RATELIMIT_TEST)
    s.bash("pytest -q tests/test_rate_limit.py tests/test_auth.py",
           "...........                                                              [100%]\n"
           "11 passed in 1.12s", desc="Run auth and rate-limit tests", secs=9,
           progress=[(3, "...")])
    s.say(
        "Done: `POST /auth/login` allows **5 attempts per minute per IP + username**.\n\n"
        "- `app/ratelimit.py`: a sliding-window limiter (deque of timestamps per key, "
        "thread-safe, injectable clock).\n"
        "- The 6th attempt gets `429 Too Many Requests` with `Retry-After` in seconds.\n"
        "- Usernames are lower-cased in the key so `Ana` and `ana` share a budget.\n\n"
        "**Limitation:** the state lives in one process. With several uvicorn workers each "
        "keeps its own window; that is the point to move it to Redis."
    )
    s.finish(last_prompt="add rate limiting to POST /auth/login")
    assert s.t < a.now, "live demo session must end before now"

    mem = f"projects/{p.dirname}/memory"
    a.put(f"{mem}/MEMORY.md", (
        "# pantry-api memory\n\n"
        "- [Testing](testing.md): time zones, fixtures and the flaky-test lesson\n"
        "- Migrations: Alembic, numbered `NNNN_description.py`; always write downgrade\n"
        "- CI compose file still has inline secrets (moving them is tracked in #113)\n"
    ), s.t_max)
    a.put(f"{mem}/testing.md", (
        "---\nname: testing\n"
        "description: Lessons for writing stable tests in pantry-api\n"
        "metadata:\n  type: feedback\n"
        f"  modified: {a.day(3, 9, 10).date().isoformat()}\n---\n\n"
        "# Testing notes\n\n"
        "- \"Today\" is `app.clock.today()` (UTC). Never `date.today()`; CI runs in "
        "America/New_York.\n"
        "- Reproduce date bugs with `TZ=Pacific/Kiritimati` (UTC+14).\n"
        "- `-p no:randomly` when bisecting a flaky test.\n"
    ), a.day(3, 9, 10))
    a.counts["memory_files"] += 2


# ---- project 3: weather_etl, a data pipeline -----------------------------------------

ETL_LOAD = '''\
"""Load raw station CSVs into DuckDB."""

from pathlib import Path

import duckdb

RAW_COLUMNS = {
    "station_id": "VARCHAR",
    "observed_at": "TIMESTAMP",
    "temp_c": "DOUBLE",
    "humidity_pct": "DOUBLE",
    "precip_mm": "DOUBLE",
    "wind_kmh": "DOUBLE",
}


def load_file(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    before = con.execute("select count(*) from raw_obs").fetchone()[0]
    con.execute(
        "insert into raw_obs select * from read_csv(?, header = true, columns = ?)",
        [str(path), RAW_COLUMNS],
    )
    after = con.execute("select count(*) from raw_obs").fetchone()[0]
    return after - before
'''

ETL_TRANSFORM = '''\
"""Derived tables, rebuilt after each load."""

DAILY_SQL = """
create or replace table daily_obs as
select station_id,
       cast(observed_at as date) as day,
       min(temp_c) as temp_min,
       max(temp_c) as temp_max,
       sum(precip_mm) as precip_mm
from raw_obs
group by all
"""

HOURLY_SQL = """
create or replace table hourly_obs as
select station_id,
       date_trunc('hour', observed_at) as hour,
       avg(temp_c) as temp_c,
       avg(humidity_pct) as humidity_pct,
       sum(precip_mm) as precip_mm
from raw_obs
group by all
"""

ROLLING_SQL = """
create or replace table rolling_7d as
select station_id, day,
       avg(temp_max) over w as temp_max_7d,
       sum(precip_mm) over w as precip_7d
from daily_obs
window w as (partition by station_id order by day rows between 6 preceding and current row)
"""


def rebuild(con) -> None:
    for sql in (DAILY_SQL, HOURLY_SQL, ROLLING_SQL):
        con.execute(sql)
'''

ETL_DAILY = '''\
"""Nightly job: load yesterday's files, then refresh the derived tables."""

from datetime import date, timedelta
from pathlib import Path

import duckdb

from weather_etl import load, transform

RAW_DIR = Path("/data/weather/raw")


def main() -> None:
    day = date.today() - timedelta(days=1)
    con = duckdb.connect("/data/weather/weather.duckdb")
    for path in sorted(RAW_DIR.glob(f"*/{day:%Y/%m/%d}/*.csv")):
        load.load_file(con, path)
    transform.rebuild(con)


if __name__ == "__main__":
    main()
'''

ETL_BACKFILL = '''\
"""Backfill a date range: python -m jobs.backfill 2023-01-01 2023-12-31"""

import sys
from datetime import date, timedelta
from pathlib import Path

import duckdb

from weather_etl import load, transform

RAW_DIR = Path("/data/weather/raw")


def days(start: date, end: date):
    d = start
    while d <= end:
        yield d
        d += timedelta(days=1)


def main() -> None:
    start, end = (date.fromisoformat(x) for x in sys.argv[1:3])
    con = duckdb.connect("/data/weather/weather.duckdb")
    total = 0
    for day in days(start, end):
        for path in sorted(RAW_DIR.glob(f"*/{day:%Y/%m/%d}/*.csv")):
            n = load.load_file(con, path)
            total += n
    transform.rebuild(con)
    print(f"loaded {total} rows")


if __name__ == "__main__":
    main()
'''


def _weather(a: _Archive) -> None:
    p = _Project("/home/demo/src/weather_etl", {
        "weather_etl/__init__.py": "", "weather_etl/load.py": ETL_LOAD,
        "weather_etl/transform.py": ETL_TRANSFORM, "jobs/daily.py": ETL_DAILY,
        "jobs/backfill.py": ETL_BACKFILL, "pyproject.toml": "[project]\nname = \"weather-etl\"\n",
    })

    # -- C1: 2023 backfill, pasted traceback, manual compaction, 2.0.76 ---------------
    s = a.session(p, "etl-backfill", start=a.day(9, 13, 10, 27), version="2.0.76",
                  branch="backfill-2023", model=OPUS45)
    call = _line_of(ETL_BACKFILL, "n = load.load_file")
    trace = (
        "Traceback (most recent call last):\n"
        f'  File "/home/demo/src/weather_etl/jobs/backfill.py", line {call + 10}, in <module>\n'
        "    main()\n"
        f'  File "/home/demo/src/weather_etl/jobs/backfill.py", line {call}, in main\n'
        "    n = load.load_file(con, path)\n"
        "        ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        f'  File "/home/demo/src/weather_etl/weather_etl/load.py", line '
        f"{_line_of(ETL_LOAD, 'con.execute(')}, in load_file\n"
        "    con.execute(\n"
        "duckdb.duckdb.ConversionException: Conversion Error: CSV Error on Line: 1187\n"
        "Original Line: KSEA,2023-03-14 07:00:00,6.1,88,M,14.8\n"
        'Error when converting column "precip_mm". Could not convert string "M" to \'DOUBLE\'\n'
        "\n  file = /data/weather/raw/KSEA/2023/03/14/obs.csv"
    )
    nlines = trace.count("\n")
    assert nlines == 12
    head, tail = "the 2023 backfill dies after ~400 files:\n\n", (
        "\n\nthe nightly job never hit this. something in older files?")
    s.prompt(head + trace + tail, after=0,
             display=head + f"[Pasted text #1 +{nlines} lines]" + tail,
             pasted={"1": {"id": 1, "type": "text", "content": trace}})
    s.think("'M' in precip_mm: NOAA-style station files mark missing values with M and "
            "trace precipitation with T. Newer files (nightly job) probably come from a "
            "cleaned feed. The loader declares precip_mm DOUBLE, so any M fails. Look at "
            "load.py, then scan raw 2023 files for non-numeric tokens to know all markers.")
    s.read("weather_etl/load.py")
    s.bash("cd /data/weather/raw && grep -rhoE ',(M|T|-|NA)?,' --include=obs.csv */2023 "
           "| sort | uniq -c | sort -rn | head",
           " 18220392 ,,\n   402117 ,M,\n    61876 ,T,", desc="Which markers appear in 2023 files",
           secs=48)
    s.say(
        "The 2023 files use two markers the nightly feed doesn't:\n\n"
        "- `M` = **missing** (402k cells) \u2192 should be `NULL`\n"
        "- `T` = **trace** of precipitation (62k cells, only in `precip_mm`) \u2192 a "
        "measurable-but-tiny amount; I'll store `0.0` so daily sums stay numeric.\n\n"
        "I'll load `precip_mm` as text, map `T` explicitly, and tell `read_csv` that `M` "
        "means NULL."
    )
    s.edit("weather_etl/load.py", '    "precip_mm": "DOUBLE",\n', '    "precip_mm": "VARCHAR",  '
           '# "T" (trace) is mapped to 0.0 below\n')
    s.edit("weather_etl/load.py",
           '        "insert into raw_obs select * from read_csv(?, header = true, columns = ?)",\n',
           '        """\n        insert into raw_obs\n'
           "        select station_id, observed_at, temp_c, humidity_pct,\n"
           "               case precip_mm when 'T' then 0.0 else cast(precip_mm as double) end,\n"
           "               wind_kmh\n"
           "        from read_csv(?, header = true, columns = ?, nullstr = ['', 'M'])\n"
           '        """,\n')
    s.bash("python -m jobs.backfill 2023-03-01 2023-03-31",
           "loaded 1187204 rows", desc="Backfill March (where it failed)", secs=95)
    s.todo(("Backfill 2023-03 (the failing month)", "completed", "Backfilling March"),
           ("Backfill the other 11 months of 2023", "in_progress", "Backfilling the rest"),
           ("Check row counts against the station inventory", "pending",
            "Checking row counts"))
    s.bash("python -m jobs.backfill 2023-01-01 2023-02-28 && "
           "python -m jobs.backfill 2023-04-01 2023-12-31",
           "loaded 2201873 rows\nloaded 10712340 rows", desc="Backfill the rest of 2023",
           secs=560)
    s.todo(("Backfill 2023-03 (the failing month)", "completed", "Backfilling March"),
           ("Backfill the other 11 months of 2023", "completed", "Backfilling the rest"),
           ("Check row counts against the station inventory", "pending",
            "Checking row counts"))
    s.say("All of 2023 is loaded: 14.1 M rows (March plus the other eleven months). Next: "
          "compare counts with the station inventory.")
    s.done()
    s.tick(60)
    a.add_history(s.t, "/compact", s.cwd, s.sid)
    s.compact("manual", (
        "1. Primary request: backfill all of 2023 into weather.duckdb; it crashed on "
        "`precip_mm = 'M'`.\n"
        "2. Cause: 2023 station files mark missing values with `M` and trace precipitation "
        "with `T`; the nightly feed has neither.\n"
        "3. Fix in `weather_etl/load.py`: `precip_mm` read as VARCHAR, `T` \u2192 0.0, "
        "`nullstr = ['', 'M']`.\n"
        "4. Backfilled 2023-01..2023-12 (14.1 M rows) with `python -m jobs.backfill`.\n"
        "5. Pending: check row counts per month against the station inventory."
    ))
    s.prompt("now check row counts per month against the station inventory", after=25)
    s.bash("duckdb /data/weather/weather.duckdb -markdown \"select strftime(day, '%m') as "
           "month, count(*) as station_days, sum(expected) as expected from daily_obs join "
           "inventory using (station_id, day) where year(day) = 2023 group by 1 order by 1\"",
           "| month | station_days | expected |\n|------:|-------------:|---------:|\n"
           "| 01 | 6510 | 6510 |\n| 02 | 5880 | 5880 |\n| 03 | 6474 | 6510 |\n"
           "| 04 | 6300 | 6300 |\n| 05 | 6510 | 6510 |\n| 06 | 6300 | 6300 |\n"
           "| 07 | 6510 | 6510 |\n| 08 | 6510 | 6510 |\n| 09 | 6300 | 6300 |\n"
           "| 10 | 6510 | 6510 |\n| 11 | 6294 | 6300 |\n| 12 | 6510 | 6510 |",
           desc="Station-days per month vs inventory", secs=6)
    s.bash("duckdb /data/weather/weather.duckdb -csv \"select station_id, min(day), max(day), "
           "count(*) from inventory i anti join daily_obs d using (station_id, day) "
           "where year(day) = 2023 group by 1\"",
           "station_id,min(\"day\"),max(\"day\"),count_star()\n"
           "KSEA,2023-03-14,2023-03-19,6\nPAFA,2023-11-02,2023-11-07,6\n"
           "KBOI,2023-03-02,2023-03-31,30\n", desc="Which station-days are missing", secs=5)
    s.say(
        "## 2023 coverage\n\n"
        "10 of 12 months match the inventory exactly. The gaps:\n\n"
        "| station | missing days | likely reason |\n|---|---|---|\n"
        "| KBOI | all of March (30) | no files on disk for March |\n"
        "| KSEA | Mar 14\u201319 (6) | files exist but the CSVs are empty after line 1187 |\n"
        "| PAFA | Nov 2\u20137 (6) | station outage (also missing upstream) |\n\n"
        "So March is short by 36 station-days and November by 6, which matches the table "
        "above. Nothing to fix in the loader; KBOI/March needs a re-download."
    )
    s.finish()

    # 0-byte transcript: a session resumed and closed without doing anything
    empty_sid = str(uuid.UUID(int=_rng("etl-empty").getrandbits(128), version=4))
    a.put(f"projects/{p.dirname}/{empty_sid}.jsonl", "", a.day(8, 8, 58, 12))

    # -- C2: slow daily job, 2.1.x subagent + plan + subplan ---------------------------
    slug = "frosty-streaming-backus"
    s = a.session(p, "etl-perf", start=a.day(7, 10, 0, 33), version="2.1.104",
                  branch="perf/daily-job", model=OPUS46, slug=slug)
    s.session_start_hook("direnv export json")
    s.record({"type": "permission-mode", "permissionMode": "plan", "sessionId": s.sid})
    s.mode = "plan"
    s.prompt("the daily job went from 6 to 40 minutes since we added the hourly table. find "
             "out why before changing anything", after=8)
    s.title("ai-title", "Why the daily weather job got slow")
    s.think("Likely the derived tables are rebuilt from all of raw_obs every night: "
            "create or replace over the full history. Adding hourly_obs multiplied that. "
            "Confirm with timings per statement, and let an explorer map which queries "
            "scan the full table.")

    explore_plan = (
        "# Subplan: which statements scan all of raw_obs\n\n"
        "| statement | input | scans full history? |\n|---|---|---|\n"
        "| `DAILY_SQL` | `raw_obs` | yes, `create or replace` |\n"
        "| `HOURLY_SQL` | `raw_obs` | yes, and it is the widest group-by |\n"
        "| `ROLLING_SQL` | `daily_obs` | yes, but small (one row per station-day) |\n\n"
        "`jobs/daily.py` calls `transform.rebuild(con)` with no date, after loading only "
        "yesterday. Rebuilding incrementally needs a `since` argument and delete+insert for "
        "days \u2265 since (rolling: since \u2212 6 days).\n"
    )

    def explorer(c: _Transcript) -> None:
        c.grep(r"create or replace|rebuild\(", ["weather_etl/transform.py", "jobs/daily.py",
                                                 "jobs/backfill.py"])
        c.read("weather_etl/transform.py")
        c.read("jobs/daily.py")
        c.say(explore_plan)

    s.agent(gen="subagents", subagent_type="Explore", description="Map full-table scans",
            model=HAIKU45, play=explorer, plan=explore_plan,
            prompt="In /home/demo/src/weather_etl, list every SQL statement run by "
                   "jobs/daily.py (directly or through weather_etl/transform.py), its input "
                   "table, and whether it reprocesses the full history. Report as a table; "
                   "do not edit anything.")
    s.bash("python -X importtime -c pass 2>/dev/null; python - <<'EOF'\nimport time, duckdb\n"
           "from weather_etl import transform as t\ncon = duckdb.connect('/data/weather/"
           "weather.duckdb')\nfor name in ('DAILY_SQL', 'HOURLY_SQL', 'ROLLING_SQL'):\n"
           "    s = time.perf_counter(); con.execute(getattr(t, name))\n"
           "    print(f'{name:12} {time.perf_counter() - s:7.1f}s')\nEOF",
           "DAILY_SQL      402.7s\nHOURLY_SQL    1795.3s\nROLLING_SQL      9.8s",
           desc="Time each derived-table statement", secs=2210,
           progress=[(405, "DAILY_SQL      402.7s"), (2200, "HOURLY_SQL    1795.3s")])
    plan = (
        "# Incremental refresh for the daily weather job\n\n"
        "## Why it is slow\nEvery night `transform.rebuild()` recreates `daily_obs`, "
        "`hourly_obs` and `rolling_7d` from **all** of `raw_obs` (3 years, 41 M rows). The "
        "new `hourly_obs` alone takes 30 min.\n\n"
        "## Plan\n"
        "1. `rebuild(con, since: date | None = None)`; `None` keeps today's full rebuild "
        "(used by backfills).\n"
        "2. With `since`: in one transaction, delete and re-insert `daily_obs`/`hourly_obs` "
        "rows for days \u2265 `since`, and `rolling_7d` for days \u2265 `since \u2212 6`.\n"
        "3. `jobs/daily.py` passes `since=yesterday`.\n"
        "4. Check: run both ways on a copy of the database and diff the three tables.\n\n"
        "Expected nightly time: a few minutes (one day of data).\n"
    )
    s.exit_plan(plan)
    a.put(f"plans/{slug}.md", plan, s.t)
    a.counts["plans"] += 1
    s.say(
        "**Why:** the three derived tables are rebuilt from the full history every night. "
        "Timings on the production copy:\n\n"
        "| statement | time |\n|---|---:|\n| `DAILY_SQL` | 6 min 43 s |\n"
        "| `HOURLY_SQL` | **29 min 55 s** |\n| `ROLLING_SQL` | 10 s |\n\n"
        "Plan approved; making the refresh incremental now."
    )
    s.done()
    s.record({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": s.sid})
    s.mode = "acceptEdits"
    s.prompt("ok do it. keep the full rebuild for backfills", after=35)
    s.edit("weather_etl/transform.py", "def rebuild(con) -> None:\n"
           "    for sql in (DAILY_SQL, HOURLY_SQL, ROLLING_SQL):\n        con.execute(sql)\n",
           "def rebuild(con, since: date | None = None) -> None:\n"
           '    """Rebuild derived tables; with `since`, only the days from `since` on."""\n'
           "    if since is None:\n"
           "        for sql in (DAILY_SQL, HOURLY_SQL, ROLLING_SQL):\n"
           "            con.execute(sql)\n        return\n"
           "    con.execute(\"begin\")\n"
           "    for table, sql, start in (\n"
           "        (\"daily_obs\", DAILY_SQL, since),\n"
           "        (\"hourly_obs\", HOURLY_SQL, since),\n"
           "        (\"rolling_7d\", ROLLING_SQL, since - timedelta(days=6)),\n    ):\n"
           "        key = \"hour\" if table == \"hourly_obs\" else \"day\"\n"
           "        con.execute(f\"delete from {table} where {key} >= ?\", [start])\n"
           "        con.execute(_incremental(sql, table), [start])\n"
           "    con.execute(\"commit\")\n\n\n"
           "def _incremental(sql: str, table: str) -> str:\n"
           '    """Turn a `create or replace ... from X` statement into an insert for recent '
           'days."""\n'
           "    body = sql.split(\" as\\n\", 1)[1]\n"
           "    key = \"observed_at\" if \"from raw_obs\" in body else \"day\"\n"
           "    return f\"insert into {table} select * from ({body}) where {key} >= ?\"\n")
    s.edit("weather_etl/transform.py", '"""Derived tables, rebuilt after each load."""\n',
           '"""Derived tables, rebuilt after each load."""\n\n'
           "from datetime import date, timedelta\n")
    s.edit("jobs/daily.py", "    transform.rebuild(con)\n",
           "    transform.rebuild(con, since=day)\n")
    s.bash("cp /data/weather/weather.duckdb /tmp/w.duckdb && time python -m jobs.daily && "
           "python scripts/diff_tables.py /data/weather/weather.duckdb /tmp/w.duckdb",
           "daily_obs: identical (229 950 rows)\nhourly_obs: identical (5 518 800 rows)\n"
           "rolling_7d: identical (229 950 rows)",
           stderr="\nreal\t4m11.208s\nuser\t9m2.517s\nsys\t0m20.114s",
           desc="Run incremental job and diff against a full rebuild", secs=330,
           progress=[(60, "loading 2 files"), (240, "refreshing derived tables")])
    s.say("Nightly run: **40 min \u2192 4 min 11 s**, and the three tables are identical to "
          "a full rebuild. Backfills still call `rebuild(con)` without `since`.")
    s.finish(last_prompt="ok do it. keep the full rebuild for backfills")

    # -- C3: schema drift, empty thinking, MCP tool, /rename, PR link, 2.1.172 ---------
    slug = "gentle-mapping-liskov"
    s = a.session(p, "etl-drift", start=a.day(2, 11, 20, 5), version="2.1.172",
                  branch="fix/schema-drift", model=OPUS47, slug=slug)
    s.session_start_hook("direnv export json")
    s.record({"type": "permission-mode", "permissionMode": "default", "sessionId": s.sid})
    s.prompt("upstream added a `wind_gust_kmh` column to the station CSVs yesterday and the "
             "nightly load now fails", after=4)
    s.think("")  # newer models keep only the signature
    s.bash("python -m jobs.daily 2>&1 | tail -3",
           "duckdb.duckdb.InvalidInputException: Invalid Input Error: CSV Error on Line: 1\n"
           "Expected Number of Columns: 6 Found: 7\n"
           "  file = /data/weather/raw/KSEA/" + a.day(3, 0, 0).strftime("%Y/%m/%d") + "/obs.csv",
           desc="Reproduce the nightly failure", secs=12)
    plan = (
        "# Tolerate new upstream columns\n\n"
        "1. Stop passing `columns=` (positional); pass `types=` for the columns we know and "
        "select them **by name**, so extra columns are ignored.\n"
        "2. Log unknown columns once per file at WARNING, so drift is visible.\n"
        "3. Keep `wind_gust_kmh` out of `raw_obs` for now; adding it is a separate "
        "migration.\n"
    )
    a.put(f"plans/{slug}.md", plan, s.t)
    a.counts["plans"] += 1
    s.say("`read_csv(..., columns=...)` maps columns **by position**, so a 7th column breaks "
          "it. Plan:\n\n" + plan.split("\n\n", 1)[1])
    s.edit("weather_etl/load.py",
           "        from read_csv(?, header = true, columns = ?, nullstr = ['', 'M'])\n",
           "        from read_csv(?, header = true, types = ?, nullstr = ['', 'M'])\n")
    s.bash("python -m jobs.daily 2>&1 | tail -1", "refreshed derived tables since "
           + a.day(3, 0, 0).date().isoformat(), desc="Run the nightly job again", secs=250)
    s.say("The nightly job runs again; `wind_gust_kmh` is ignored until we decide to store it.")
    s.done()
    s.prompt("open a PR for it", after=50)
    pr_url = "https://github.com/demo-weather/weather_etl/pull/58"
    s.bash("git commit -qam 'load: select CSV columns by name' && git push -qu origin "
           "fix/schema-drift && git log --oneline -1", "5e0b2c9 load: select CSV columns by name",
           desc="Commit and push", secs=4)
    s.mcp("mcp__github__create_pull_request",
          {"owner": "demo-weather", "repo": "weather_etl", "head": "fix/schema-drift",
           "base": "main", "title": "Load CSV columns by name (tolerate new upstream columns)",
           "body": "Upstream added `wind_gust_kmh`; positional `columns=` broke the nightly "
                   "load. Select known columns by name and ignore the rest."},
          json.dumps({"number": 58, "html_url": pr_url, "state": "open",
                      "title": "Load CSV columns by name (tolerate new upstream columns)"}))
    s.record({"type": "pr-link", "sessionId": s.sid, "prNumber": 58, "prUrl": pr_url,
              "prRepository": "demo-weather/weather_etl", "timestamp": _iso(s.t)})
    s.say(f"PR opened: [demo-weather/weather_etl#58]({pr_url}).", secs=2)
    s.local_command("rename", "schema drift: tolerate new columns",
                    "Session renamed to: schema drift: tolerate new columns")
    s.title("custom-title", "schema drift: tolerate new columns")
    s.title("agent-name", "schema drift: tolerate new columns")
    s.finish(last_prompt="open a PR for it")

    mem = f"projects/{p.dirname}/memory"
    a.put(f"{mem}/MEMORY.md", (
        "# weather_etl memory\n\n"
        "- [Data quirks](data-quirks.md): markers and gaps in the station files\n"
        "- Full rebuild: `transform.rebuild(con)`; nightly uses `since=` (incremental)\n"
        "- Production DB copy for experiments: `cp /data/weather/weather.duckdb /tmp/`\n"
    ), s.t_max)
    a.put(f"{mem}/data-quirks.md", (
        "---\nname: data-quirks\n"
        "description: Known oddities in upstream station CSVs\n"
        "metadata:\n  type: reference\n"
        f"  modified: {s.t_max.date().isoformat()}\n---\n\n"
        "# Station CSV quirks\n\n"
        "- Before 2024: `M` = missing, `T` = trace precipitation (load as 0.0).\n"
        "- Columns can be added upstream without notice: select by name, never by position.\n"
        "- KBOI has no files for 2023-03; PAFA was offline 2023-11-02..07.\n"
    ), s.t_max)
    a.counts["memory_files"] += 2


# ---- project 4: dotfiles --------------------------------------------------------------

DOT_LSP = """\
return {
  {
    "neovim/nvim-lspconfig",
    dependencies = { "hrsh7th/cmp-nvim-lsp" },
    config = function()
      local lspconfig = require("lspconfig")
      local caps = require("cmp_nvim_lsp").default_capabilities()

      lspconfig.pyright.setup({ capabilities = caps })
      lspconfig.lua_ls.setup({
        capabilities = caps,
        settings = { Lua = { diagnostics = { globals = { "vim" } } } },
      })

      vim.api.nvim_create_autocmd("LspAttach", {
        callback = function(ev)
          vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf })
        end,
      })
    end,
  },
}
"""

DOT_PACKAGES = """\
# one apt package per line
git
curl
zsh
tmux
neovim
ripgrep
fd-find
fzf
shellcheck
build-essential
"""

DOT_BOOTSTRAP = """\
#!/usr/bin/env bash
# Bootstrap a fresh Debian machine with these dotfiles.
set -euo pipefail

DOTFILES="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

echo "==> installing packages"
sudo apt-get update -qq
grep -v '^#' "$DOTFILES/packages.txt" | xargs sudo apt-get install -y -qq
"""

DOT_TMUX = """\
set -g default-terminal "screen-256color"
set -g mouse on
set -g history-limit 50000
set -g base-index 1
setw -g mode-keys vi
bind r source-file ~/.tmux.conf \\; display "reloaded"
"""


def _dotfiles(a: _Archive) -> None:
    p = _Project("/home/demo/src/dotfiles", {
        "nvim/init.lua": 'require("config.lazy")\n', "nvim/lua/config/lazy.lua": "-- lazy.nvim\n",
        "nvim/lua/plugins/lsp.lua": DOT_LSP, "nvim/lua/plugins/ui.lua": "return {}\n",
        "packages.txt": DOT_PACKAGES, "tmux/tmux.conf": DOT_TMUX, "zsh/.zshrc": "# zsh\n",
        "git/gitconfig": "[user]\n\tname = Demo\n",
    })

    # -- D1: rust-analyzer in neovim, 1.0.x -------------------------------------------
    s = a.session(p, "dot-nvim", start=a.day(21, 9, 40, 2), version="1.0.88", branch="main",
                  model=SONNET4)
    s.prompt("set up rust-analyzer in my neovim config (lazy.nvim + nvim-lspconfig). I want "
             "clippy on save", after=0)
    s.glob("nvim/**/*.lua")
    s.read("nvim/lua/plugins/lsp.lua")
    s.edit("nvim/lua/plugins/lsp.lua",
           '        settings = { Lua = { diagnostics = { globals = { "vim" } } } },\n      })\n',
           '        settings = { Lua = { diagnostics = { globals = { "vim" } } } },\n      })\n'
           "      lspconfig.rust_analyzer.setup({\n        capabilities = caps,\n"
           "        settings = {\n          [\"rust-analyzer\"] = {\n"
           "            check = { command = \"clippy\" },\n"
           "            cargo = { allFeatures = true },\n          },\n        },\n      })\n")
    s.bash("which rust-analyzer && rust-analyzer --version",
           "/home/demo/.cargo/bin/rust-analyzer\nrust-analyzer 1.87.0 (17067e9a 2025-05-09)",
           desc="Check rust-analyzer is installed", secs=2)
    s.say(
        "rust-analyzer is configured in `nvim/lua/plugins/lsp.lua`:\n\n"
        "```lua\nlspconfig.rust_analyzer.setup({\n  capabilities = caps,\n"
        "  settings = {\n    [\"rust-analyzer\"] = {\n"
        "      check = { command = \"clippy\" },\n      cargo = { allFeatures = true },\n"
        "    },\n  },\n})\n```\n\n"
        "`check.command = \"clippy\"` makes the on-save check run `cargo clippy` instead of "
        "`cargo check`. The binary comes from rustup (`~/.cargo/bin`), so it matches your "
        "toolchain. Restart Neovim or run `:LspRestart` in a Rust buffer."
    )
    s.prompt("inlay hints are way too noisy in rust. off by default, toggle on <leader>ih",
             after=300)
    s.edit("nvim/lua/plugins/lsp.lua",
           '      vim.api.nvim_create_autocmd("LspAttach", {\n        callback = function(ev)\n'
           "          vim.lsp.inlay_hint.enable(true, { bufnr = ev.buf })\n        end,\n"
           "      })\n",
           '      vim.keymap.set("n", "<leader>ih", function()\n'
           "        local on = vim.lsp.inlay_hint.is_enabled({ bufnr = 0 })\n"
           "        vim.lsp.inlay_hint.enable(not on, { bufnr = 0 })\n"
           '      end, { desc = "Toggle inlay hints" })\n')
    s.say("Inlay hints now start **off** (I removed the `LspAttach` autocmd that enabled "
          "them) and `<leader>ih` toggles them for the current buffer.", secs=4)
    s.finish()
    d1_leaf = s.last

    # -- D2: bootstrap script with a rewind (two branches in one file), 2.0.x ----------
    s = a.session(p, "dot-bootstrap", start=a.day(12, 19, 30, 40), version="2.0.50",
                  branch="main", model=SONNET45)
    s.record({"type": "summary", "summary": "Neovim rust-analyzer with clippy, inlay hint "
              "toggle", "leafUuid": d1_leaf})
    s.local_command("model", "opus", "Set model to opus (claude-opus-4-5-20251101)")
    s.model = OPUS45
    s.prompt("write a bootstrap.sh for a fresh debian box: apt packages from packages.txt, "
             "then link the configs into place", after=15)
    s.read("packages.txt")
    s.write("bootstrap.sh", DOT_BOOTSTRAP)
    s.bash("chmod +x bootstrap.sh && shellcheck bootstrap.sh && echo clean", "clean",
           desc="Lint the script", secs=2)
    fork = s.say(
        "`bootstrap.sh` installs everything in `packages.txt` (comments skipped) and passes "
        "shellcheck.\n\nFor the links there are two usual approaches:\n\n"
        "1. **GNU stow**: one folder per tool, `stow nvim tmux zsh git`. Tidy, but needs the "
        "folders laid out like `$HOME`.\n"
        "2. **A small `ln -s` loop**: no dependency, explicit source \u2192 target list, easy "
        "to back up existing files.\n\nWhich one do you prefer?")
    s.done()
    files_at_fork = dict(p.files)
    s.prompt("use GNU stow, one package per top-level dir", after=80)
    s.edit("packages.txt", "shellcheck\n", "shellcheck\nstow\n")
    s.edit("bootstrap.sh", 'grep -v \'^#\' "$DOTFILES/packages.txt" | xargs sudo apt-get '
           "install -y -qq\n",
           'grep -v \'^#\' "$DOTFILES/packages.txt" | xargs sudo apt-get install -y -qq\n\n'
           'echo "==> linking with stow"\nfor pkg in nvim tmux zsh git; do\n'
           '  stow --dir "$DOTFILES" --target "$HOME" --restow "$pkg"\ndone\n')
    s.bash("shellcheck bootstrap.sh && echo clean", "clean", desc="Lint the script", secs=2)
    s.say("Done, but note: stow mirrors each folder into `$HOME`, so `nvim/` must become "
          "`nvim/.config/nvim/` and `tmux/tmux.conf` must become `tmux/.tmux.conf`. Want me "
          "to move the files?")
    s.done()
    # Esc Esc: the user rewinds to before the stow prompt and asks differently
    p.files.clear()
    p.files.update(files_at_fork)
    s.last = fork["uuid"]
    s.prompt("actually skip stow, I don't want to reshuffle the repo. plain ln -s loop, and "
             "back up anything that is already there", after=45)
    s.edit("bootstrap.sh", 'grep -v \'^#\' "$DOTFILES/packages.txt" | xargs sudo apt-get '
           "install -y -qq\n",
           'grep -v \'^#\' "$DOTFILES/packages.txt" | xargs sudo apt-get install -y -qq\n\n'
           "link() {\n  local src=\"$1\" dest=\"$2\"\n"
           "  if [ -e \"$dest\" ] && [ ! -L \"$dest\" ]; then\n"
           "    mv \"$dest\" \"$dest.bak.$(date +%Y%m%d%H%M%S)\"\n"
           "    echo \"    backed up $dest\"\n  fi\n"
           "  mkdir -p \"$(dirname \"$dest\")\"\n  ln -sfn \"$src\" \"$dest\"\n"
           "  echo \"    $dest -> $src\"\n}\n\n"
           'echo "==> linking"\n'
           'link "$DOTFILES/nvim" "$HOME/.config/nvim"\n'
           'link "$DOTFILES/tmux/tmux.conf" "$HOME/.tmux.conf"\n'
           'link "$DOTFILES/zsh/.zshrc" "$HOME/.zshrc"\n'
           'link "$DOTFILES/git/gitconfig" "$HOME/.gitconfig"\n')
    s.bash("shellcheck bootstrap.sh && bash -n bootstrap.sh && echo clean", "clean",
           desc="Lint and syntax-check", secs=2)
    s.bash("docker run --rm -v \"$PWD\":/dots -w /dots debian:12 bash -c 'apt-get update -qq "
           "&& apt-get install -y -qq sudo >/dev/null && ./bootstrap.sh' 2>&1 | tail -6",
           "==> linking\n    /root/.config/nvim -> /dots/nvim\n"
           "    /root/.tmux.conf -> /dots/tmux/tmux.conf\n    backed up /root/.zshrc\n"
           "    /root/.zshrc -> /dots/zsh/.zshrc\n    /root/.gitconfig -> /dots/git/gitconfig",
           desc="Dry run in a throwaway Debian container", secs=140)
    s.say(
        "Switched to a plain `link()` helper; the repo layout stays as it is.\n\n"
        "- Existing real files are moved to `<name>.bak.<timestamp>` first (see `.zshrc` in "
        "the container run); existing symlinks are simply replaced.\n"
        "- `ln -sfn` so re-running the script is safe.\n\n"
        "Tested end-to-end in a fresh `debian:12` container."
    )
    s.finish()

    # -- D3: tmux true colour, away summary, 2.1.x --------------------------------------
    s = a.session(p, "dot-tmux", start=a.day(1, 16, 40, 9), version="2.1.214", branch="main",
                  model=OPUS47)
    s.session_start_hook("~/.claude/hooks/load-env.sh")
    s.record({"type": "permission-mode", "permissionMode": "default", "sessionId": s.sid})
    s.prompt("true colour is broken in tmux inside alacritty, neovim colours look washed out",
             after=3)
    s.title("ai-title", "Fix tmux true colour in Alacritty")
    s.bash("echo \"TERM=$TERM\"; tmux show -gv default-terminal; tmux info | grep -E "
           "'Tc|RGB'", "TERM=screen-256color\nscreen-256color\n 197: RGB: [missing]\n"
           " 223: Tc: [missing]", desc="Inspect terminal capabilities inside tmux", secs=2)
    s.read("tmux/tmux.conf")
    s.say("tmux doesn't know the outer terminal supports 24-bit colour (`RGB: [missing]`), "
          "so it downsamples to 256 colours. Two lines fix it.")
    s.edit("tmux/tmux.conf", 'set -g default-terminal "screen-256color"\n',
           'set -g default-terminal "tmux-256color"\n'
           'set -as terminal-features ",alacritty*:RGB"\n')
    s.bash("tmux source-file ~/.tmux.conf && tmux info | grep -E 'RGB'",
           " 197: RGB: (flag) true", desc="Reload and re-check", secs=2)
    s.say("`RGB` is now on. Open a **new** tmux window (existing panes keep the old "
          "`TERM`) and Neovim should show full colours.")
    s.done()
    s.tick(1500)
    s.system("away_summary",
             "You were fixing washed-out colours in Neovim under tmux + Alacritty. tmux now "
             "advertises RGB (default-terminal tmux-256color, terminal-features "
             "alacritty*:RGB); next step is checking a new tmux window. (disable recaps in "
             "/config)")
    s.prompt("works in a new window, thanks. commit it", after=40)
    s.bash("git commit -qam 'tmux: enable true colour for alacritty' && git log --oneline -1",
           "b81f3a0 tmux: enable true colour for alacritty", desc="Commit", secs=2)
    s.say("Committed as `b81f3a0`.", secs=2)
    s.finish(last_prompt="works in a new window, thanks. commit it")


# ---- entry point ----------------------------------------------------------------------


def write_demo_archive(root: Path, *, now: dt.datetime | None = None) -> dict:
    """Write the demo archive into `root` and return a summary of what was written.

    `root` must be missing or empty: the demo never mixes with (or overwrites) a real
    archive. `now` anchors every timestamp (default: the current UTC time); the same `now`
    gives byte-identical files. File modification times are set to each file's last
    timestamp, as Claude Code's own appends would leave them.
    """
    root = Path(root)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ValueError(f"refusing to write the demo archive into non-empty {root}")
    if now is None:
        now = dt.datetime.now(dt.UTC)
    elif now.tzinfo is None:
        now = now.replace(tzinfo=dt.UTC)
    now = now.astimezone(dt.UTC)

    a = _Archive(now)
    _dotfiles(a)
    _tally(a)
    _pantry(a)
    _weather(a)
    a.render()

    total_bytes = 0
    jsonl_lines = 0
    for rel in sorted(a.text):
        data = a.text[rel]
        raw = data.encode("utf-8") if isinstance(data, str) else data
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(raw)
        ts = a.mtime[rel].timestamp()
        os.utime(path, (ts, ts))
        total_bytes += len(raw)
        if rel.endswith(".jsonl"):
            jsonl_lines += raw.count(b"\n")

    return {
        "root": str(root),
        "now": _iso(now),
        "projects": 4,
        "sessions": a.counts["sessions"],
        "empty_sessions": 1,
        "subagents": a.counts["subagents"],
        "plans": a.counts["plans"],
        "memory_files": a.counts["memory_files"],
        "history_lines": len(a.history),
        "files": len(a.text),
        "jsonl_lines": jsonl_lines,
        "bytes": total_bytes,
    }
