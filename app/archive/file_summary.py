"""What one transcript file says about its session: the `FileSummary` a reader accumulates.

The `Extractor` (`ccarchive.archive.records`) folds each record into it; the indexer saves
it with the file's checkpoint and builds the session's document from it. It lives apart
so both sides can read what it holds without the record rules around it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ccarchive.archive.titles import first_readable, names_something


@dataclass
class FileSummary:
    """What one transcript file says about its session, accumulated line by line.

    It is saved with the file's checkpoint, so an append is folded in without reading
    the file again. Token usage is kept per API message id because Claude Code repeats
    a message's usage on every entry of that message (2-4 entries): summing entries
    would count it 2-2.5 times (docs/format.md §6.2).
    """

    session_id: str = ""
    agent_id: str = ""
    cwd: str = ""
    first_ts: str = ""
    last_ts: str = ""
    version: str = ""
    branches: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    slugs: list[str] = field(default_factory=list)
    prompts: int = 0
    assistant_messages: int = 0
    tool_calls: int = 0
    entries: int = 0
    first_prompt: str = ""
    custom_title: str = ""
    agent_name: str = ""
    ai_title: str = ""
    last_prompt: str = ""
    summaries: dict[str, str] = field(default_factory=dict)  # leafUuid -> summary text
    usage: dict[str, list[int]] = field(default_factory=dict)  # msg id -> [in, out, cw, cr]
    agent_links: dict[str, str] = field(default_factory=dict)  # tool_use_id -> agent id
    agent_calls: dict[str, str] = field(default_factory=dict)  # tool_use_id -> description
    pr_links: list[str] = field(default_factory=list)
    compactions: int = 0
    sidechain_entries: int = 0
    warmup: bool = False
    meta: dict[str, Any] = field(default_factory=dict)  # subagent .meta.json
    turn: int = 0  # `seq` of the last human prompt read: the turn later entries belong to
    turn_entries: int = 0  # entries read since that prompt (a long turn is cut in segments)

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> FileSummary:
        known = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in known})

    def token_totals(self) -> tuple[int, int, int, int]:
        """(input, output, cache creation, cache read), deduplicated by message id."""
        i = o = cw = cr = 0
        for u in self.usage.values():
            i += u[0]
            o += u[1]
            cw += u[2]
            cr += u[3]
        return i, o, cw, cr

    def title(self, summary: str = "") -> str:
        """Claude Code's own precedence: custom title, agent name, AI title, summary,
        first prompt (then the last one) when it names something (`names_something`: not `181`
        or `hi`); made readable by `clean_title` (a plan's heading, no
        Markdown); one that is only redaction marks is passed over.

        Summaries are matched to sessions by `leafUuid` across files, so the caller
        passes the resolved one (see `ccarchive.index.session_docs`).
        """
        prompts = [p for p in (self.first_prompt, self.last_prompt) if names_something(p)]
        return first_readable(self.custom_title, self.agent_name, self.ai_title, summary, *prompts)
