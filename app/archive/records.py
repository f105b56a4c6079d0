"""From parsed transcript records to indexable units, following docs/format.md §4–§9.

`extract` turns one JSON object into zero or more `Unit`s (a prompt, an assistant text
block, a tool call, ...), and folds what the record says about its session (titles,
models, token usage, subagent links) into a `FileSummary`. Nothing here touches the
index, so the rules can be tested on their own and read in one place.

Every field is optional and every shape is tolerated: unknown record types are counted
and skipped, `content` may be a string or a list, `toolUseResult` may be anything.

This module holds the record types and the rules per type; how a value becomes text
(caps, prompts as typed, tool inputs, timestamps) is `record_text`, and what a file says
about its session is `file_summary`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ccarchive.archive.file_summary import FileSummary
from ccarchive.archive.lines import LineStats
from ccarchive.archive.record_text import (
    PROSE_CAP,
    TITLE_CAP,
    TOOL_CAP,
    TS_YEARS,
    cap,
    compact_json,
    content_text,
    event_display,
    prompt_display,
    tool_input_text,
)
from ccarchive.redact import prints_secret, redact, redact_name, redact_output, redact_pieces

KNOWN_TYPES = frozenset(
    {
        "user",
        "assistant",
        "system",
        "attachment",
        "progress",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "agent-name",
        "agent-color",
        "ai-title",
        "agent-setting",
        "last-prompt",
        "permission-mode",
        "mode",
        "pr-link",
        "bridge-session",
        "atis-latch",
        "cost-state",
        "worktree-state",
    }
)
UNKNOWN_TYPE = "unknown_type"

EVENT_SUBTYPES = frozenset(
    {
        "compact_boundary",
        "microcompact_boundary",
        "api_error",
        "local_command",
        "informational",
        "bridge_status",
    }
)
EVENT_PREFIXES = ("<local-command-stdout>", "<local-command-stderr>", "<task-notification>")
COMPACT_PREFIX = "This session is being continued from a previous conversation"
INTERRUPT_PREFIX = "[Request interrupted by user"
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


@dataclass(slots=True)
class Unit:
    """One indexable unit of a transcript: becomes one search document."""

    kind: str
    text: str
    block: int = 0
    role: str = ""
    tool: str = ""
    tool_use_id: str = ""
    link_agent: str = ""
    files: list[str] = field(default_factory=list)
    text_len: int = 0
    flags: tuple[str, ...] = ()


BLOCK_CAP = 16
"""Units one record yields at most: an entry id tells 16 apart (`schema.block_of`), and
one line of 400,000 text blocks must cost only itself, not 400,000 documents. The blocks
beyond are folded into the last unit, whose text is capped as any other (`_Blocks`)."""
BLOCKS_FOLDED = "blocks_folded"
"""Counted (as repaired) for each block folded into another."""


class _Blocks:
    """The units of one record's content blocks, at most `BLOCK_CAP`: a block beyond
    adds its text (up to the cap) and length to the last unit, and nothing else."""

    __slots__ = ("_extra", "_extra_chars", "folded", "units")

    def __init__(self) -> None:
        self.units: list[Unit] = []
        self._extra: list[str] = []
        self._extra_chars = 0
        self.folded = 0

    def add(self, unit: Unit) -> None:
        if len(self.units) < BLOCK_CAP:
            self.units.append(unit)
            return
        self.folded += 1
        last = self.units[-1]
        last.text_len += 1 + unit.text_len
        if self._extra_chars < PROSE_CAP:
            self._extra.append(unit.text[:PROSE_CAP])
            self._extra_chars += len(self._extra[-1]) + 1

    def done(self, stats: LineStats | None, full_text: bool = False) -> list[Unit]:
        if self.folded:
            last = self.units[-1]
            text = "\n".join([last.text, *self._extra])
            last.text = (
                text
                if full_text
                else cap(text, PROSE_CAP if last.kind in ("assistant", "thinking") else TOOL_CAP)
            )
            if stats is not None:
                stats.repair(BLOCKS_FOLDED, self.folded)
        return self.units


def _add_unique(items: list[str], value: str, limit: int = 20) -> None:
    if value and value not in items and len(items) < limit:
        items.append(value)


_FILE_KEYS = ("file_path", "filePath", "notebook_path", "path")


def _tool_files(data: Any) -> list[str]:
    """The files a tool call or its result names (at most 8), for the `files` field."""
    files: list[str] = []
    if isinstance(data, dict):
        for key in _FILE_KEYS:
            v = data.get(key)
            if isinstance(v, str) and v:
                _add_unique(files, v[:500], 8)
        f = data.get("file")
        if isinstance(f, dict) and isinstance(f.get("filePath"), str):
            _add_unique(files, f["filePath"][:500], 8)
    return files


class Extractor:
    """Turns the records of one transcript file into units, updating its `FileSummary`.

    Args:
        summary: the file's accumulated summary (restored from its checkpoint).
        is_agent_file: subagent transcripts: "Warmup" probes are not user work.
    """

    def __init__(
        self,
        summary: FileSummary,
        *,
        is_agent_file: bool = False,
        full_text: bool = False,
        redacted: bool = False,
    ) -> None:
        self.summary = summary
        self.is_agent_file = is_agent_file
        self.full_text = full_text
        """Read-back for a viewer: keep whole texts instead of the index caps."""
        self.redacted = redacted
        """True for the indexer: every text, title and name is redacted (whole, before
        it is capped) so that no secret becomes a term, a stored field or a vector."""
        self._printing: dict[str, str] = {}
        """tool_use id -> the command of a Bash call that prints a secret (its result is
        the secret alone)."""
        self._redacted_len: dict[int, int] = {}
        """A unit's text (by id) -> the length of the whole redacted text it was cut from:
        its `text_len` (markers are not as long as the secrets they replace)."""
        self._last_uuid = ""
        self._stats: LineStats | None = None
        self._seen: set[str] = set()
        """Uuids of this read (bounded): a prompt whose parent is an earlier entry, not
        the one just before it, starts a new branch: the user rewound (docs/format.md §8.2)."""

    def extract(self, obj: dict[str, Any], stats: LineStats) -> list[Unit]:
        """Units of one record; an unknown record type is counted and yields nothing."""
        rtype = obj.get("type")
        s = self.summary
        if not isinstance(rtype, str) or rtype not in KNOWN_TYPES:
            stats.skip(UNKNOWN_TYPE)
            return []
        s.entries += 1
        self._envelope(obj)
        self._stats = stats
        units = self._extract(obj, rtype)
        if self._redacted_len:
            for u in units:
                u.text_len = self._redacted_len.get(id(u.text), u.text_len)
            self._redacted_len.clear()
        return units

    def _extract(self, obj: dict[str, Any], rtype: str) -> list[Unit]:
        s = self.summary
        uuid = obj.get("uuid")
        try:
            if rtype == "assistant":
                return self._assistant(obj)
            if rtype == "user":
                units = self._user(obj)
                if units and units[0].kind == "prompt" and self._is_rewind(obj):
                    units[0].flags = ("rewind",)
                return units
            if rtype == "system":
                return self._system(obj)
        finally:
            if isinstance(uuid, str) and uuid:
                self._last_uuid = uuid
                if len(self._seen) < 200_000:
                    self._seen.add(uuid)
        if rtype == "summary":
            text = obj.get("summary")
            if isinstance(text, str) and text:
                leaf = obj.get("leafUuid")
                if isinstance(leaf, str) and leaf:
                    s.summaries[leaf] = self._line(text)
                return [
                    Unit("summary", self._cap(text, PROSE_CAP), role="system", text_len=len(text))
                ]
            return []
        if rtype == "attachment":
            att = obj.get("attachment")
            if isinstance(att, dict) and att.get("type") == "queued_command":
                text = content_text(att.get("prompt"))
                if text.strip():
                    s.prompts += 1
                    return [
                        Unit(
                            "prompt",
                            self._cap(text, PROSE_CAP),
                            role="user",
                            text_len=len(text),
                            flags=("queued",),
                        )
                    ]
            return []
        if rtype == "custom-title":
            s.custom_title = self._line(str(obj.get("customTitle") or "")) or s.custom_title
        elif rtype == "agent-name":
            s.agent_name = self._line(str(obj.get("agentName") or "")) or s.agent_name
        elif rtype == "ai-title":
            s.ai_title = self._line(str(obj.get("aiTitle") or "")) or s.ai_title
        elif rtype == "last-prompt":
            lp = obj.get("lastPrompt")
            if isinstance(lp, str):
                s.last_prompt = self._line(lp)
        elif rtype == "pr-link":
            url = obj.get("prUrl")
            if isinstance(url, str):
                _add_unique(s.pr_links, self._name(url))
        return []

    def _cap(self, text: str, limit: int, *, done: bool = False) -> str:
        """``text`` as the index keeps it: redacted whole (unless ``done`` already) and
        capped."""
        if self.redacted:
            text = text if done else redact(text, cached=False)
            out = text if self.full_text else cap(text, limit)
            self._redacted_len[id(out)] = len(text)
            return out
        return text if self.full_text else cap(text, limit)

    def _line(self, text: str) -> str:
        """A title or description kept in the summary: redacted whole, then capped."""
        return (redact(text, cached=False) if self.redacted else text)[:TITLE_CAP]

    def _name(self, name: str) -> str:
        """A branch, slug, path or URL: its known-format tokens redacted."""
        return redact_name(name) if self.redacted else name

    def _joined_texts(self, content: list[Any]) -> dict[int, str]:
        """The text blocks of one message, redacted together when there are several: a
        secret's prefix can end one block and its body start the next."""
        if not self.redacted:
            return {}
        texts = [
            (i, b["text"])
            for i, b in enumerate(content)
            if isinstance(b, dict)
            and b.get("type") == "text"
            and isinstance(b.get("text"), str)
            and b["text"].strip()
        ]
        # the blocks that stay units of their own, and the first folded one: a message of
        # 400,000 blocks must not be redacted as one 14 MB text in memory (`BLOCK_CAP`)
        texts = texts[: BLOCK_CAP + 1]
        if len(texts) < 2:
            return {}
        return dict(zip((i for i, _ in texts), redact_pieces([t for _, t in texts]), strict=True))

    def _files(self, data: Any) -> list[str]:
        files = _tool_files(data)
        return [redact_name(f) for f in files] if self.redacted else files

    def _is_rewind(self, obj: dict[str, Any]) -> bool:
        parent = obj.get("parentUuid")
        return (
            isinstance(parent, str)
            and bool(parent)
            and parent != self._last_uuid
            and parent in self._seen
        )

    def note_unparsed(self, line: bytes) -> None:
        """Account for a record the reader skips without parsing (progress, snapshots):
        it is an entry, its time is activity (a long tool run writes nothing else), and
        a sidechain's counts as the sidechain's. Read with byte searches: the record's
        own timestamp is its last one (nested ones sit in `data`, before it)."""
        s = self.summary
        s.entries += 1
        i = line.rfind(b'"timestamp":"')
        if i >= 0:
            j = line.find(b'"', i + 13, i + 64)
            if j > 0:
                self._note_time(line[i + 13 : j].decode("ascii", "replace"))
        if not self.is_agent_file and line.find(b'"isSidechain":true', 0, 400) >= 0:
            s.sidechain_entries += 1

    def _note_time(self, ts: str) -> None:
        s = self.summary
        if not TS_YEARS[0] <= ts[:4] < TS_YEARS[1]:
            return  # not a time the index can hold (see parse_ts)
        if not s.first_ts or ts < s.first_ts:
            s.first_ts = ts
        if ts > s.last_ts:
            s.last_ts = ts

    def _envelope(self, obj: dict[str, Any]) -> None:
        s = self.summary
        ts = obj.get("timestamp")
        if isinstance(ts, str) and ts:
            self._note_time(ts)
        cwd = obj.get("cwd")
        if not s.cwd and isinstance(cwd, str) and cwd:
            s.cwd = self._name(cwd)
        branch = obj.get("gitBranch")
        if isinstance(branch, str):
            _add_unique(s.branches, self._name(branch))
        slug = obj.get("slug")
        if isinstance(slug, str):
            _add_unique(s.slugs, self._name(slug))
        version = obj.get("version")
        if isinstance(version, str) and version:
            s.version = version
        sid = obj.get("sessionId")
        if not s.session_id and isinstance(sid, str) and sid:
            s.session_id = sid
        aid = obj.get("agentId")
        if not s.agent_id and self.is_agent_file and isinstance(aid, str) and aid:
            s.agent_id = aid
        if obj.get("isSidechain") is True and not self.is_agent_file:
            s.sidechain_entries += 1

    def _assistant(self, obj: dict[str, Any]) -> list[Unit]:
        s = self.summary
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return []
        model = msg.get("model")
        if isinstance(model, str) and model and model != "<synthetic>":
            _add_unique(s.models, model)
        mid = msg.get("id")
        usage = msg.get("usage")
        if isinstance(mid, str) and mid:
            if isinstance(usage, dict):
                row = [
                    _int(usage.get("input_tokens")),
                    _int(usage.get("output_tokens")),
                    _int(usage.get("cache_creation_input_tokens")),
                    _int(usage.get("cache_read_input_tokens")),
                ]
                old = s.usage.get(mid)
                if old is None:
                    s.assistant_messages += 1
                    s.usage[mid] = row
                else:  # the same message's usage, repeated or grown: keep the largest
                    s.usage[mid] = [max(a, b) for a, b in zip(old, row, strict=True)]
            elif mid not in s.usage:
                s.assistant_messages += 1
                s.usage[mid] = [0, 0, 0, 0]
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            return []
        blocks = _Blocks()
        joined = self._joined_texts(content)
        for i, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    shown = joined.get(i)
                    blocks.add(
                        Unit(
                            "assistant",
                            self._cap(shown, PROSE_CAP, done=True)
                            if shown is not None
                            else self._cap(text, PROSE_CAP),
                            i,
                            "assistant",
                            text_len=len(text),
                        )
                    )
            elif btype == "thinking":
                text = block.get("thinking")
                if isinstance(text, str) and text.strip():
                    blocks.add(
                        Unit(
                            "thinking",
                            self._cap(text, PROSE_CAP),
                            i,
                            "assistant",
                            text_len=len(text),
                        )
                    )
            elif btype == "tool_use":
                name = str(block.get("name") or "")
                tid = str(block.get("id") or "")
                data = block.get("input")
                text = tool_input_text(name, data)
                s.tool_calls += 1
                if self.redacted and name == "Bash" and isinstance(data, dict):
                    command = data.get("command")
                    if isinstance(command, str) and prints_secret(command) and tid:
                        if len(self._printing) > 256:
                            self._printing.clear()
                        self._printing[tid] = command
                if name in SUBAGENT_TOOLS and tid:
                    desc = data.get("description") if isinstance(data, dict) else None
                    s.agent_calls[tid] = self._line(str(desc or ""))
                blocks.add(
                    Unit(
                        "tool_call",
                        self._cap(text, TOOL_CAP),
                        i,
                        "assistant",
                        tool=name,
                        tool_use_id=tid,
                        files=self._files(data),
                        text_len=len(text),
                    )
                )
        return blocks.done(self._stats, self.full_text)

    def _user(self, obj: dict[str, Any]) -> list[Unit]:
        s = self.summary
        if obj.get("isMeta") is True:
            return []
        msg = obj.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in content
        ):
            return self._tool_results(obj, content)
        text = content_text(content)
        if obj.get("isCompactSummary") is True or text.startswith(COMPACT_PREFIX):
            s.compactions += 1
            return [Unit("summary", self._cap(text, PROSE_CAP), role="user", text_len=len(text))]
        stripped = text.lstrip()
        if stripped.startswith(EVENT_PREFIXES):
            shown = event_display(text)
            return [Unit("event", self._cap(shown, TOOL_CAP), role="user", text_len=len(shown))]
        if stripped.startswith(INTERRUPT_PREFIX):
            return []
        if self.is_agent_file and stripped == "Warmup":
            s.warmup = True
            return []
        if not stripped:
            return []
        shown = prompt_display(text)
        if not self.is_agent_file:
            s.prompts += 1
            if not s.first_prompt and not shown.startswith(("/", "!", "<")):
                whole = redact(shown, cached=False) if self.redacted else shown
                s.first_prompt = " ".join(whole.split())[:TITLE_CAP]
        return [
            Unit(
                "prompt",
                self._cap(shown, PROSE_CAP),
                role="agent" if self.is_agent_file else "user",
                text_len=len(shown),
            )
        ]

    def _tool_results(self, obj: dict[str, Any], content: list[Any]) -> list[Unit]:
        s = self.summary
        tur = obj.get("toolUseResult")
        linked = ""
        if isinstance(tur, dict):
            aid = tur.get("agentId")
            if isinstance(aid, str) and aid:
                linked = aid
        files = self._files(tur)
        blocks = _Blocks()
        for i, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            tid = str(block.get("tool_use_id") or "")
            text = content_text(block.get("content"))
            if tid in self._printing:  # the output of a command that prints a secret
                text = redact_output(self._printing.pop(tid), text)
            error = block.get("is_error") is True
            if linked and tid:
                s.agent_links[tid] = linked
            blocks.add(
                Unit(
                    "tool_result",
                    self._cap(text, TOOL_CAP),
                    i,
                    "user",
                    tool_use_id=tid,
                    link_agent=linked,
                    files=files,
                    text_len=len(text),
                    flags=("error",) if error else (),
                )
            )
        return blocks.done(self._stats, self.full_text)

    def _system(self, obj: dict[str, Any]) -> list[Unit]:
        sub = obj.get("subtype")
        if sub is not None and not isinstance(sub, str):
            return []  # the reader counts the line (wrong_type:subtype)
        text = obj.get("content")
        text = text if isinstance(text, str) else ""
        if sub == "away_summary":
            return [Unit("summary", self._cap(text, PROSE_CAP), role="system", text_len=len(text))]
        if sub in EVENT_SUBTYPES or (not sub and text.strip()):
            text = event_display(text)
            flags: tuple[str, ...] = ()
            if sub == "compact_boundary":
                meta = obj.get("compactMetadata")
                pre = meta.get("preTokens") if isinstance(meta, dict) else None
                text = text or "Conversation compacted"
                if pre:
                    text = f"{text} ({pre} tokens before)"
                flags = ("compact",)
            elif sub == "microcompact_boundary":
                flags = ("compact",)
            elif sub == "api_error":
                flags = ("error",)
                if not text:
                    err = obj.get("error")
                    text = f"API error: {compact_json(err, 500)}"
            if not text:
                text = str(sub)
            return [
                Unit(
                    "event",
                    self._cap(text, TOOL_CAP),
                    role="system",
                    text_len=len(text),
                    flags=flags,
                )
            ]
        return []


MAX_TOKENS = 1 << 40
"""More tokens than any one API message can hold (about a trillion): a larger count is
not one, and summing a few near 2**64 overflowed the session document's column."""


def _int(v: Any) -> int:
    """A token count, or 0 when `v` is not one."""
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 < v < MAX_TOKENS else 0
