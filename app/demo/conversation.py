"""One conversation being played: the JSONL entries of a session or a subagent.

The methods mirror what happens in a real session (a prompt, a thinking block, a compaction,
the end of a turn); Claude Code's own bookkeeping (shared `message.id`s with copied usage,
file-history snapshots, turn durations, promptId) is done here, gated by the version that
wrote the file. Tool calls and subagents build on this in `tool_calls` and `transcript`.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import random
import uuid
from dataclasses import dataclass, field

from ccarchive.demo.builder import ArchiveBuilder, Project
from ccarchive.demo.conventions import B62, iso, seeded_rng, tokens, version_tuple

KEEP = object()
"""`parent=KEEP`: the entry's parent is the previous entry."""


@dataclass
class Message:
    """One API response while its content blocks are being written as separate entries."""

    id: str
    req: str
    usage_in: tuple[int, int, int]  # input, cache creation, cache read
    entries: list[dict] = field(default_factory=list)
    out: int = 0


class Conversation:
    """Plays one conversation (a session, or a subagent) and records its JSONL entries.

    All randomness (ids, signatures, jitter of the clock) comes from `self.rng`, seeded from
    the session's name, so a given `now` always gives the same bytes.
    """

    def __init__(
        self,
        arc: ArchiveBuilder,
        project: Project,
        *,
        rel: str | None,
        sid: str,
        start: dt.datetime,
        version: str,
        branch: str,
        model: str,
        slug: str | None = None,
        agent_id: str | None = None,
        sidechain: bool = False,
        lines: list[dict] | None = None,
        rng: random.Random | None = None,
        base_ctx: int = 21_000,
    ):
        self.arc, self.project, self.cwd = arc, project, project.path
        self.sid, self.branch, self.model, self.slug = sid, branch, model, slug
        self.agent_id, self.sidechain = agent_id, sidechain
        self.set_version(version)
        self.rng = rng or seeded_rng(f"{sid}:{agent_id}")
        self.t = start
        self.t_max = start
        self.lines: list[dict] = [] if lines is None else lines
        self.times: list[tuple[dict, dt.datetime]] = []
        self.last: str | None = None
        self.msg: Message | None = None
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
        self.version, self.v = version, version_tuple(version)

    @property
    def fs(self) -> dict[str, str]:
        return self.project.files

    def tick(self, seconds: float) -> None:
        self.t += dt.timedelta(seconds=seconds * self.rng.uniform(0.85, 1.15))

    def at(self, t: dt.datetime) -> None:
        self.t = max(self.t, t)

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def _rand(self, n: int, alphabet: str = B62) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def _hex(self, n: int) -> str:
        return self._rand(n, "0123456789abcdef")

    def request_id(self) -> str:
        """An API request id, as error records and assistant entries carry them."""
        return "req_011C" + self._rand(20)

    def _env(self, type_: str, parent: object) -> dict:
        e: dict = {
            "parentUuid": self.last if parent is KEEP else parent,
            "isSidechain": self.sidechain,
            "userType": "external",
        }
        if self.v >= (2, 1, 80):
            e["entrypoint"] = "cli"
        e.update(cwd=self.cwd, sessionId=self.sid, version=self.version, gitBranch=self.branch)
        if self.agent_id:
            e["agentId"] = self.agent_id
        if self.slug:
            e["slug"] = self.slug
        e["type"] = type_
        return e

    def _emit(
        self,
        type_: str,
        body: dict,
        *,
        parent: object = KEEP,
        uid: str | None = None,
        tail: dict | None = None,
    ) -> dict:
        e = self._env(type_, parent)
        e.update(body)
        e["uuid"] = uid or self.uuid()
        e["timestamp"] = iso(self.t)
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
        self.msg = Message(
            id="msg_01" + self._rand(22),
            req=self.request_id(),
            usage_in=(self.rng.randint(3, 12), creation, read),
        )

    def _usage(self, m: Message, out: int) -> dict:
        inp, creation, read = m.usage_in
        u: dict = {
            "input_tokens": inp,
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
        }
        if self.v >= (2, 0, 0):
            u["cache_creation"] = {
                "ephemeral_5m_input_tokens": 0,
                "ephemeral_1h_input_tokens": creation,
            }
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
        msg = {
            "model": self.model,
            "id": m.id,
            "type": "message",
            "role": "assistant",
            "content": [block],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": None,
        }
        e = self._emit("assistant", {"message": msg}, tail={"requestId": m.req})
        m.entries.append(e)
        m.out += tokens(json.dumps(block))
        return e

    def say(self, text: str, secs: float = 6.0) -> dict:
        self.last_text = text
        return self._block({"type": "text", "text": text}, secs)

    def think(self, text: str, secs: float = 5.0) -> dict:
        """A thinking block; newer models leave the text empty and keep only the signature."""
        sig = base64.b64encode(bytes([0x12, 0x9A]) + self.rng.randbytes(94 + len(text) // 8))
        return self._block({"type": "thinking", "thinking": text, "signature": sig.decode()}, secs)

    # -- user side ----------------------------------------------------------------
    def prompt(
        self,
        text: str,
        *,
        after: float = 45.0,
        history: bool = True,
        display: str | None = None,
        pasted: dict | None = None,
        parent: object = KEEP,
    ) -> str:
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
        self._emit(
            "user",
            {"message": {"role": "user", "content": text}},
            parent=parent,
            uid=uid,
            tail=tail,
        )
        self.pending += tokens(text)
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
            self._emit(
                "system",
                {
                    "subtype": "turn_duration",
                    "durationMs": ms,
                    "messageCount": self.turn_entries,
                    "isMeta": False,
                },
            )
        self.turn_start = None

    def system(
        self,
        subtype: str | None,
        content: str | None = None,
        *,
        secs: float = 1.0,
        parent: object = KEEP,
        **fields,
    ) -> dict:
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
        self.system(
            "local_command",
            f"<command-name>/{name}</command-name>\n"
            f"            <command-message>{name}</command-message>\n"
            f"            <command-args>{args}</command-args>",
            secs=0,
            level="info",
        )
        self.system(
            "local_command",
            f"<local-command-stdout>{stdout}</local-command-stdout>",
            secs=0.3,
            level="info",
        )

    def attachment(self, att: dict, secs: float = 0.2) -> dict:
        self.tick(secs)
        return self._emit("attachment", {"attachment": att})

    def progress(
        self, data: dict, tool_use_id: str, parent_tool_use_id: str, parent: object = KEEP
    ) -> dict:
        return self._emit(
            "progress",
            {"data": data, "toolUseID": tool_use_id, "parentToolUseID": parent_tool_use_id},
            parent=parent,
        )

    def session_start_hook(self, command: str) -> None:
        """The SessionStart hook's progress line that opens most 2.1.x files."""
        hid = self.uuid()
        self.progress(
            {
                "type": "hook_progress",
                "hookEvent": "SessionStart",
                "hookName": "SessionStart:startup",
                "command": command,
            },
            hid,
            hid,
            parent=None,
        )
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
        info = {"backupFileName": name, "version": version, "backupTime": iso(self.t)}
        self.tracked[path] = info
        self.backed_up[path] = content
        return info

    def _snapshot(self, message_id: str, *, update: bool) -> None:
        if not update:
            for path, content in list(self.backed_up.items()):
                if self.fs.get(path) != content:
                    self._backup(path, self.fs.get(path))
        self.record(
            {
                "type": "file-history-snapshot",
                "messageId": message_id,
                "snapshot": {
                    "messageId": message_id,
                    "trackedFileBackups": json.loads(json.dumps(self.tracked)),
                    "timestamp": iso(self.t),
                },
                "isSnapshotUpdate": update,
            }
        )

    def _touch(self, path: str) -> None:
        """Before the first edit of a file, back it up and rewrite the turn's snapshot."""
        if self.v < (2, 0, 0) or self.sidechain or path in self.tracked:
            return
        self._backup(path, self.fs.get(path))
        if self.prompt_uuid:
            self._snapshot(self.prompt_uuid, update=True)

    # -- whole-session events -----------------------------------------------------
    def compact(self, trigger: str, summary: str) -> None:
        """A compaction: a new root (boundary) followed by the summary the model continues from."""
        self.done()
        pre = self.cached + self.pending
        self.tick(35)
        self.system(
            "compact_boundary",
            "Conversation compacted",
            secs=0,
            parent=None,
            logicalParentUuid=self.last,
            level="info",
            compactMetadata={"trigger": trigger, "preTokens": pre},
        )
        self.tick(0.5)
        text = (
            "This session is being continued from a previous conversation that ran out of "
            "context. The summary below covers the earlier portion of the conversation.\n\n"
            + summary
        )
        self._emit(
            "user",
            {"message": {"role": "user", "content": text}},
            tail={"isVisibleInTranscriptOnly": True, "isCompactSummary": True},
        )
        self.cached, self.pending = 21_000 + tokens(text), 0

    def title(self, kind: str, value: str) -> None:
        key = {"ai-title": "aiTitle", "custom-title": "customTitle", "agent-name": "agentName"}[
            kind
        ]
        self.record({"type": kind, key: value, "sessionId": self.sid})

    def finish(self, last_prompt: str | None = None) -> None:
        """End the session: close the turn, then the tail records newer versions append."""
        self.done()
        if last_prompt is not None and self.v >= (2, 1, 100):
            rec: dict[str, str | None] = {"type": "last-prompt", "lastPrompt": last_prompt[:200]}
            if self.v >= (2, 1, 145):
                rec["leafUuid"] = self.last
            rec["sessionId"] = self.sid
            self.record(rec)
